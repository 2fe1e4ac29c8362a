//! The first phase: writes of unknown outcome from earlier runs are settled by asking GitHub,
//! where the kind of sweep knows how (a merge: did it happen?). Never by sending them again.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::settle;
use super::state::RunProgress;
use super::{Kind, ReadError, Reconciled, Run, StoreView};
use crate::policy::write;

impl Run<'_> {
    /// Settles what it can and returns, for each write that GitHub may still be carrying out,
    /// when a later run may take "not found" as proof that it did not happen. A write not found
    /// on GitHub may still be in flight there (the client gave up on a slow answer, or the
    /// process was killed mid-request): "not found" is proof only once `settle_after` has
    /// passed since it was sent. Until then its item stays blocked.
    pub(super) fn reconcile(
        &mut self,
        kind: &mut dyn Kind,
        progress: &mut RunProgress,
    ) -> anyhow::Result<BTreeMap<i64, DateTime<Utc>>> {
        let mut settles_at = BTreeMap::new();
        for write in self.store.unknown_writes(&self.options.repos, self.now)? {
            let store = StoreView::new(self.store);
            let mut finding = kind.reconcile(self.reader, store, &write);
            // What the finding asks of the store is kept whatever the journal makes of it.
            if let Ok(Some(reconciled)) = &mut finding {
                let effects = std::mem::take(&mut reconciled.effects);
                if let Err(error) = settle::apply(self.store, progress.state.run_id, &effects) {
                    finding = Err(ReadError::Store(error.context("the store")));
                }
            }
            let pending = match &finding {
                Ok(Some(Reconciled { settled, .. })) => write::pending_until(
                    *settled,
                    write.intent_at,
                    self.clock.wall(),
                    self.settle_after(),
                ),
                _ => None,
            };
            if let Some(at) = pending {
                settles_at.insert(write.id, at);
                continue;
            }
            let stop = match finding {
                Ok(Some(Reconciled { settled, found, .. })) => {
                    self.store.resolve_journal(write.id, settled, &found)?;
                    let note = format!(
                        "{}: `{}` of run {} had an unknown outcome; {found}",
                        write.item, write.action, write.run_id
                    );
                    self.ui.status(&note);
                    progress.notes.push(note);
                    None
                }
                Ok(None) => None,
                Err(error) => error.stop().map(|stop| (stop, error.to_string())),
            };
            if let Some((stop, message)) = stop {
                progress.state.stop(stop, message);
                progress.pool_complete = false;
                break;
            }
        }
        Ok(settles_at)
    }

    /// `settle_after` as a duration on the clock of journal times.
    fn settle_after(&self) -> chrono::Duration {
        chrono::Duration::from_std(self.options.settle_after)
            .unwrap_or_else(|_| chrono::Duration::days(1))
    }
}
