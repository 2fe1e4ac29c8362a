//! Pruning the PostgreSQL store: what [`Store::prune`](crate::store::Store::prune) forgets, in
//! the same bounded steps as SQLite's, in one transaction. Which rows a decision still needs is
//! said once, at the port ([`crate::store::retention`]); this file only puts it in SQL.

use crate::store::error::Doing;
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
    pub(super) fn prune_rows(&mut self, now: DateTime<Utc>) -> crate::store::Result<Pruned> {
        let journal_before = before(now, JOURNAL_KEPT);
        let batch = PRUNE_BATCH as i64;
        let marker = write::marker("mark-stale");
        let mut client = self.client();
        let mut transaction = client.transaction().doing("pruning the store")?;
        // Settled writes past the window, but a stale label whose stale comment never followed
        // (`mark_unfinished` reads it, however old).
        let journal = transaction.execute(
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
        )?;
        // The newest runs keep their recap and items; older ones keep their summary row.
        let newest_kept = |transaction: &mut postgres::Transaction<'_>, kept: usize| {
            transaction
                .query_one(
                    "SELECT coalesce(min(id), 0) FROM (SELECT id FROM runs ORDER BY id DESC LIMIT $1) AS newest",
                    &[&(kept as i64)],
                )
                .map(|row| row.get::<_, i64>(0))
        };
        let recaps_from = newest_kept(&mut transaction, RECAPS_KEPT)?;
        let items = transaction.execute(
            "DELETE FROM run_items WHERE (run_id, item) IN (
                SELECT run_id, item FROM run_items WHERE run_id < $1 LIMIT $2)",
            &[&recaps_from, &batch],
        )?;
        let recaps = transaction.execute(
            "UPDATE runs SET recap = NULL WHERE id IN (
                SELECT id FROM runs WHERE id < $1 AND recap IS NOT NULL LIMIT $2)",
            &[&recaps_from, &batch],
        )?;
        let runs_from = newest_kept(&mut transaction, RUNS_KEPT)?;
        let runs = transaction.execute(
            "DELETE FROM runs WHERE id IN (
                SELECT id FROM runs WHERE id < $1 AND started_at < $2
                  AND NOT EXISTS (SELECT 1 FROM journal WHERE journal.run_id = runs.id)
                  AND NOT EXISTS (SELECT 1 FROM run_items WHERE run_items.run_id = runs.id)
                LIMIT $3)",
            &[&runs_from, &journal_before, &batch],
        )?;
        let cache = transaction.execute(
            "DELETE FROM http_cache WHERE url IN (
                SELECT url FROM http_cache WHERE stored_at < $1 LIMIT $2)",
            &[&before(now, CACHE_KEPT), &batch],
        )?;
        transaction.commit().doing("pruning the store")?;
        let count = |rows: u64| rows as usize;
        Ok(Pruned {
            journal: count(journal),
            recaps: count(recaps),
            run_items: count(items),
            runs: count(runs),
            cache: count(cache),
        })
    }
}
