//! The one place a run's bookkeeping in the store is applied. A kind says what should change
//! ([`Effect`]s: plain data, decided from what it read and what the writes answered) and never
//! writes the store itself; [`apply`] hands one settlement's effects to the store in one
//! piece: a listing's (leases of runs that are over, lost triggers queued again), an earlier
//! write's settlement, an item's once its outcome is known (what its read decided and what its
//! writes came to), and the run's last.
//!
//! [`Store::settle`] applies a settlement in one transaction, so it lands whole or not at all,
//! and it is the fencing point: when the run no longer holds its heartbeat (paused past its
//! bound, taken over by another run), nothing of the settlement is applied and the run gets
//! the store's `LostLease`, which stops it as a store failure.

use crate::store::Store;

pub(crate) use crate::store::Effect;

/// Applies one settlement of run `run_id` to the store, in the order given, all or none, if
/// that run still holds its heartbeat.
pub(super) fn apply(store: &dyn Store, run_id: i64, effects: &[Effect]) -> anyhow::Result<()> {
    store.settle(run_id, effects)?;
    Ok(())
}

#[cfg(test)]
#[path = "tests/settle.rs"]
mod tests;
