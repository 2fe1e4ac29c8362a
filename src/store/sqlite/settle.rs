//! A run's settlement in SQLite: one `BEGIN IMMEDIATE` transaction that checks the run still
//! holds its heartbeat, then applies every effect; a failure anywhere rolls the whole
//! settlement back.

use super::SqliteStore;
use crate::store::error::Doing;
use crate::store::{effect, Applied, Effect};

impl SqliteStore {
    /// [`crate::store::Store::settle`] on SQLite. Nothing to apply takes no lock.
    pub(super) fn settle_effects(
        &self,
        run_id: i64,
        effects: &[Effect],
    ) -> crate::store::Result<Applied> {
        if effects.is_empty() {
            return Ok(Applied::default());
        }
        self.immediate(|| {
            self.hold_run(run_id)?;
            effect::apply_each(self, effects)
        })
        .doing("settling the run's bookkeeping")
    }
}
