//! Pruning the SQLite store (issue 13, point 8): what [`Store::prune`](crate::store::Store::prune)
//! forgets, as a few bounded `DELETE`s and `UPDATE`s in one transaction. Which rows a decision
//! still needs is said once, at the port ([`crate::store::retention`]); this file only puts it
//! in SQL.

use chrono::{DateTime, Utc};
use rusqlite::params;

use super::SqliteStore;
use crate::policy::write;
use crate::store::retention::{CACHE_KEPT, JOURNAL_KEPT, PRUNE_BATCH, RECAPS_KEPT, RUNS_KEPT};
use crate::store::Pruned;

/// `now - kept` as the store writes its stamps (RFC 3339), for text comparison.
fn before(now: DateTime<Utc>, kept: std::time::Duration) -> String {
    (now - chrono::Duration::from_std(kept).unwrap_or_default()).to_rfc3339()
}

impl SqliteStore {
    pub(super) fn prune_rows(&mut self, now: DateTime<Utc>) -> anyhow::Result<Pruned> {
        let journal_before = before(now, JOURNAL_KEPT);
        let batch = PRUNE_BATCH as i64;
        let transaction = self
            .connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // Settled writes past the window, but a stale label whose stale comment never followed
        // (`mark_unfinished` reads it, however old).
        let journal = transaction.execute(
            "DELETE FROM journal WHERE id IN (
                SELECT id FROM journal AS old
                WHERE outcome IS NOT NULL AND outcome != 'unknown' AND intent_at < ?1
                  AND NOT (outcome IN ('done', 'acknowledged')
                       AND json_extract(action, '$.kind') = 'add-labels'
                       AND NOT EXISTS (
                           SELECT 1 FROM journal AS later
                           WHERE later.item = old.item AND later.id > old.id
                             AND later.outcome IN ('done', 'acknowledged')
                             AND json_extract(later.action, '$.kind') = 'comment'
                             AND json_extract(later.action, '$.marker') = ?3))
                ORDER BY id LIMIT ?2)",
            params![journal_before, batch, write::marker("mark-stale")],
        )?;
        // The newest runs keep their recap and items; older ones keep their summary row.
        let newest_kept = |kept: usize| -> rusqlite::Result<i64> {
            transaction.query_row(
                "SELECT coalesce(min(id), 0) FROM (SELECT id FROM runs ORDER BY id DESC LIMIT ?1)",
                [kept as i64],
                |row| row.get(0),
            )
        };
        let recaps_from = newest_kept(RECAPS_KEPT)?;
        let items = transaction.execute(
            "DELETE FROM run_items WHERE rowid IN (
                SELECT rowid FROM run_items WHERE run_id < ?1 LIMIT ?2)",
            params![recaps_from, batch],
        )?;
        let recaps = transaction.execute(
            "UPDATE runs SET recap = NULL WHERE id IN (
                SELECT id FROM runs WHERE id < ?1 AND recap IS NOT NULL LIMIT ?2)",
            params![recaps_from, batch],
        )?;
        let runs_from = newest_kept(RUNS_KEPT)?;
        let runs = transaction.execute(
            "DELETE FROM runs WHERE id IN (
                SELECT id FROM runs WHERE id < ?1 AND started_at < ?2
                  AND NOT EXISTS (SELECT 1 FROM journal WHERE journal.run_id = runs.id)
                  AND NOT EXISTS (SELECT 1 FROM run_items WHERE run_items.run_id = runs.id)
                LIMIT ?3)",
            params![runs_from, journal_before, batch],
        )?;
        let cache = transaction.execute(
            "DELETE FROM http_cache WHERE url IN (
                SELECT url FROM http_cache WHERE stored_at < ?1 LIMIT ?2)",
            params![before(now, CACHE_KEPT), batch],
        )?;
        transaction.commit()?;
        Ok(Pruned {
            journal,
            recaps,
            run_items: items,
            runs,
            cache,
        })
    }
}
