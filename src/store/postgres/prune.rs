//! Pruning the PostgreSQL store: what [`Store::prune`](crate::store::Store::prune) forgets, in
//! batches of at most [`PRUNE_BATCH`] rows, each its own transaction, to the end of the retention
//! every call, as SQLite's. Which rows a decision still needs is
//! said once, at the port ([`crate::store::retention`]); this file only puts it in SQL.

use chrono::{DateTime, Utc};

use super::PostgresStore;
use crate::policy::write;
use crate::store::retention::{CACHE_KEPT, JOURNAL_KEPT, PRUNE_BATCH, RECAPS_KEPT, RUNS_KEPT};
use crate::store::Pruned;

/// `now - kept`.
fn before(now: DateTime<Utc>, kept: std::time::Duration) -> DateTime<Utc> {
    now - chrono::Duration::from_std(kept).unwrap_or_default()
}

impl PostgresStore {
    /// Runs `delete` (one batch of at most [`PRUNE_BATCH`] rows) in its own transaction again
    /// and again until a batch is short, as SQLite's prune does: every row past the retention
    /// goes on every run (one batch a run fell behind a 1,000-item sweep's additions), while
    /// no transaction holds its row locks for longer than a batch takes.
    fn prune_to_the_end(
        &self,
        delete: impl Fn(&mut postgres::Transaction<'_>, i64) -> Result<u64, postgres::Error>,
    ) -> crate::store::Result<usize> {
        let batch = PRUNE_BATCH as i64;
        let mut pruned = 0;
        let mut client = self.client();
        loop {
            let mut transaction = client.transaction()?;
            let deleted = delete(&mut transaction, batch)? as usize;
            transaction.commit()?;
            pruned += deleted;
            if deleted < PRUNE_BATCH {
                return Ok(pruned);
            }
        }
    }

    /// The id of the oldest of the newest `kept` runs (0 without runs).
    fn newest_kept(&self, kept: usize) -> crate::store::Result<i64> {
        Ok(self
            .client()
            .query_one(
                "SELECT coalesce(min(id), 0) FROM (SELECT id FROM runs ORDER BY id DESC LIMIT $1) AS newest",
                &[&(kept as i64)],
            )?
            .get(0))
    }

    pub(super) fn prune_rows(&mut self, now: DateTime<Utc>) -> crate::store::Result<Pruned> {
        let journal_before = before(now, JOURNAL_KEPT);
        let marker = write::marker("mark-stale");
        // Settled writes past the window, but a stale label whose stale comment never followed
        // (`mark_unfinished` reads it, however old).
        let journal = self.prune_to_the_end(|transaction, batch| {
            transaction.execute(
                "DELETE FROM journal WHERE id IN (
                    SELECT id FROM journal AS old
                    WHERE outcome IS NOT NULL AND outcome != 'unknown' AND intent_at < $1
                      AND NOT (outcome IN ('done', 'acknowledged')
                           AND (action::jsonb ->> 'kind') = 'add-labels'
                           AND NOT EXISTS (
                               SELECT 1 FROM journal AS later
                               WHERE later.item = old.item AND later.id > old.id
                                 AND later.outcome IN ('done', 'acknowledged')
                                 AND (later.action::jsonb ->> 'kind') = 'comment'
                                 AND (later.action::jsonb ->> 'marker') = $3))
                    ORDER BY id LIMIT $2)",
                &[&journal_before, &batch, &marker],
            )
        })?;
        // The newest runs keep their recap and items; older ones keep their summary row.
        let recaps_from = self.newest_kept(RECAPS_KEPT)?;
        let run_items = self.prune_to_the_end(|transaction, batch| {
            transaction.execute(
                "DELETE FROM run_items WHERE (run_id, item) IN (
                    SELECT run_id, item FROM run_items WHERE run_id < $1 LIMIT $2)",
                &[&recaps_from, &batch],
            )
        })?;
        let recaps = self.prune_to_the_end(|transaction, batch| {
            transaction.execute(
                "UPDATE runs SET recap = NULL WHERE id IN (
                    SELECT id FROM runs WHERE id < $1 AND recap IS NOT NULL LIMIT $2)",
                &[&recaps_from, &batch],
            )
        })?;
        let runs_from = self.newest_kept(RUNS_KEPT)?;
        let runs = self.prune_to_the_end(|transaction, batch| {
            transaction.execute(
                "DELETE FROM runs WHERE id IN (
                    SELECT id FROM runs WHERE id < $1 AND started_at < $2
                      AND NOT EXISTS (SELECT 1 FROM journal WHERE journal.run_id = runs.id)
                      AND NOT EXISTS (SELECT 1 FROM run_items WHERE run_items.run_id = runs.id)
                    LIMIT $3)",
                &[&runs_from, &journal_before, &batch],
            )
        })?;
        let cache_before = before(now, CACHE_KEPT);
        let cache = self.prune_to_the_end(|transaction, batch| {
            transaction.execute(
                "DELETE FROM http_cache WHERE url IN (
                    SELECT url FROM http_cache WHERE stored_at < $1 LIMIT $2)",
                &[&cache_before, &batch],
            )
        })?;
        Ok(Pruned {
            journal,
            recaps,
            run_items,
            runs,
            cache,
        })
    }
}
