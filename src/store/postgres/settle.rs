//! A run's settlement in PostgreSQL: one transaction on the store's connection that first
//! locks the run's row (`FOR UPDATE`, so no host takes it over before it commits) and checks
//! it still holds its heartbeat, then applies every effect; a failure anywhere rolls the
//! whole settlement back.

use super::PostgresStore;
use crate::store::error::Doing;
use crate::store::{effect, Applied, Effect};

impl PostgresStore {
    /// [`crate::store::Store::settle`] on PostgreSQL. Nothing to apply opens no transaction.
    ///
    /// The effects go through the store's own calls, which each borrow the one connection in
    /// turn: the transaction is the connection's (`BEGIN` ... `COMMIT`), not a `Transaction`
    /// value, which would hold the connection for the whole of it.
    pub(super) fn settle_effects(
        &self,
        run_id: i64,
        effects: &[Effect],
    ) -> crate::store::Result<Applied> {
        if effects.is_empty() {
            return Ok(Applied::default());
        }
        self.client()
            .batch_execute("BEGIN")
            .doing("settling the run's bookkeeping")?;
        // The connection is borrowed for the check alone: each effect borrows it in turn.
        let held = self.hold_run(&mut *self.client(), run_id);
        let result = held.and_then(|()| effect::apply_each(self, effects));
        match result {
            Ok(applied) => {
                self.client()
                    .batch_execute("COMMIT")
                    .doing("settling the run's bookkeeping")?;
                Ok(applied)
            }
            Err(error) => {
                // What failed is what the run should hear of, even if the connection that
                // failed cannot roll back (a connection that broke took its transaction with it).
                let _ = self.client().batch_execute("ROLLBACK");
                Err(error).doing("settling the run's bookkeeping")
            }
        }
    }
}
