//! A run's settlement in SQLite: one `BEGIN IMMEDIATE` transaction that checks the runs this
//! store acts for still hold their heartbeat, then applies every effect; a failure anywhere
//! rolls the whole settlement back.

use super::SqliteStore;
use crate::store::error::Doing;
use crate::store::{effect, Applied, Effect};

impl SqliteStore {
    /// [`crate::store::Store::settle`] on SQLite. Nothing to apply takes no lock.
    pub(super) fn settle_effects(&self, effects: &[Effect]) -> crate::store::Result<Applied> {
        if effects.is_empty() {
            return Ok(Applied::default());
        }
        let runs = self.acting_for();
        self.immediate(|| {
            for run in runs {
                self.hold_run(run)?;
            }
            effect::apply_each(self, effects)
        })
        .doing("settling the run's bookkeeping")
    }

    /// The runs this store started and has not finished (whose heartbeat its thread renews).
    fn acting_for(&self) -> Vec<i64> {
        match self.beating.lock() {
            Ok(runs) => runs.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}
