//! Pruning the SQLite store, so that its size stays flat however many runs it has seen: what
//! [`Store::prune`](crate::store::Store::prune) forgets, as `DELETE`s of at most
//! [`PRUNE_BATCH`] rows each in their own transaction, repeated until nothing past the
//! retention is left. Which rows a decision still needs is said once, at
//! the port ([`crate::store::retention`]); this file only puts it in SQL.

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
    /// Runs `delete` (one batch of at most [`PRUNE_BATCH`] rows) in its own `BEGIN IMMEDIATE`
    /// transaction again and again until a batch is short: every row past the retention goes
    /// on every run (one batch a run fell behind a 1,000-item sweep's additions),
    /// while no transaction holds the store's write lock for longer than a batch takes.
    fn prune_to_the_end(
        &mut self,
        delete: impl Fn(&rusqlite::Connection, i64) -> rusqlite::Result<usize>,
    ) -> crate::store::Result<usize> {
        let batch = PRUNE_BATCH as i64;
        let mut pruned = 0;
        loop {
            let transaction = self
                .connection
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let deleted = delete(&transaction, batch)?;
            transaction.commit()?;
            pruned += deleted;
            if deleted < PRUNE_BATCH {
                return Ok(pruned);
            }
        }
    }

    pub(super) fn prune_rows(&mut self, now: DateTime<Utc>) -> crate::store::Result<Pruned> {
        self.flush_caches();
        let journal_before = before(now, JOURNAL_KEPT);
        // Settled writes past the window, but a stale label whose stale comment never followed
        // (`mark_unfinished` reads it, however old).
        let marker = write::marker("mark-stale");
        let journal = self.prune_to_the_end(|connection, batch| {
            connection.execute(
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
                params![journal_before, batch, marker],
            )
        })?;
        // The newest runs keep their recap and items; older ones keep their summary row.
        let newest_kept =
            |connection: &rusqlite::Connection, kept: usize| -> rusqlite::Result<i64> {
                connection.query_row(
                "SELECT coalesce(min(id), 0) FROM (SELECT id FROM runs ORDER BY id DESC LIMIT ?1)",
                [kept as i64],
                |row| row.get(0),
            )
            };
        let recaps_from = newest_kept(&self.connection, RECAPS_KEPT)?;
        let run_items = self.prune_to_the_end(|connection, batch| {
            connection.execute(
                "DELETE FROM run_items WHERE rowid IN (
                    SELECT rowid FROM run_items WHERE run_id < ?1 LIMIT ?2)",
                params![recaps_from, batch],
            )
        })?;
        let recaps = self.prune_to_the_end(|connection, batch| {
            connection.execute(
                "DELETE FROM run_recaps WHERE run_id IN (
                    SELECT run_id FROM run_recaps WHERE run_id < ?1 LIMIT ?2)",
                params![recaps_from, batch],
            )
        })?;
        let runs_from = newest_kept(&self.connection, RUNS_KEPT)?;
        let runs = self.prune_to_the_end(|connection, batch| {
            connection.execute(
                "DELETE FROM runs WHERE id IN (
                    SELECT id FROM runs WHERE id < ?1 AND started_at < ?2
                      AND NOT EXISTS (SELECT 1 FROM journal WHERE journal.run_id = runs.id)
                      AND NOT EXISTS (SELECT 1 FROM run_items WHERE run_items.run_id = runs.id)
                      AND NOT EXISTS (SELECT 1 FROM run_recaps WHERE run_recaps.run_id = runs.id)
                    LIMIT ?3)",
                params![runs_from, journal_before, batch],
            )
        })?;
        let cache_before = before(now, CACHE_KEPT);
        let cache = self.prune_to_the_end(|connection, batch| {
            connection.execute(
                "DELETE FROM http_cache WHERE url IN (
                    SELECT url FROM http_cache WHERE stored_at < ?1 LIMIT ?2)",
                params![cache_before, batch],
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

#[cfg(test)]
mod tests {
    use chrono::Duration;
    use rusqlite::params;

    use super::super::SqliteStore;
    use crate::http_cache::Cached;
    use crate::store::retention::{CACHE_KEPT, PRUNE_BATCH, RECAPS_KEPT};
    use crate::store::{RunLog, Store};

    fn recap(run_id: i64, items: usize) -> crate::policy::recap::Recap {
        let completed: Vec<serde_json::Value> = (0..items)
            .map(|n| serde_json::json!({"item": format!("o/r#{n}"), "disposition": "keep", "detail": "fresh"}))
            .collect();
        serde_json::from_value(serde_json::json!({
            "schema": 1, "run_id": run_id, "command": "stale-sweep", "dry_run": false,
            "stopped": null, "stop_detail": null, "completed": completed, "failed": [],
            "unfinished": [], "unfinished_reason": null, "budget": null, "planned": [],
            "rerun": null, "exit_code": 0,
        }))
        .unwrap()
    }

    /// Rows a run leaves: (journal, run_items, run_recaps, http_cache).
    fn counts(store: &SqliteStore) -> (i64, i64, i64, i64) {
        let count = |table: &str| -> i64 {
            store
                .connection
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
                    row.get(0)
                })
                .unwrap()
        };
        (
            count("journal"),
            count("run_items"),
            count("run_recaps"),
            count("http_cache"),
        )
    }

    /// Runs twice a day, each adding more rows of every kind than one prune batch (its items'
    /// outcomes, settled writes, cached answers that never repeat), each ending with `prune`
    /// as of its own time: once the retention windows are full, the counts stop growing, at
    /// what the windows hold.
    #[test]
    fn runs_past_the_retention_leave_the_row_counts_flat() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let mut store = SqliteStore::open(&path).unwrap();
        let per_run = PRUNE_BATCH + PRUNE_BATCH / 5;
        let start = crate::clock::wall();
        let runs = RECAPS_KEPT as i64 + 10;
        let mut seen = Vec::new();
        for number in 0..runs {
            let at = start + Duration::hours(12 * number);
            let stamp = at.to_rfc3339();
            let run = store
                .start_run("stale-sweep", "gh-sweep stale-sweep")
                .unwrap();
            store
                .connection
                .execute(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?3)
                     INSERT INTO journal (run_id, item, repo, action, intent_at, outcome, outcome_at)
                     SELECT ?1, 'o/r#' || i, 'o/r', '{\"kind\":\"close\",\"reason\":null}', ?2, 'done', ?2 FROM n",
                    params![run, stamp, per_run as i64],
                )
                .unwrap();
            store.finish_run(&recap(run, per_run)).unwrap();
            {
                let cache = store.response_cache().unwrap();
                for n in 0..per_run {
                    let answer = Cached {
                        etag: Some(format!("W/\"{n}\"")),
                        last_modified: None,
                        body: "[]".into(),
                        next: None,
                        token: None,
                    };
                    cache.keep(&format!("https://api.github.com/run/{run}/{n}"), &answer);
                }
            }
            store
                .connection
                .execute(
                    "UPDATE http_cache SET stored_at = ?2 WHERE url LIKE ?1",
                    params![format!("https://api.github.com/run/{run}/%"), stamp],
                )
                .unwrap();
            store.prune(at).unwrap();
            seen.push(counts(&store));
        }
        let per_run = per_run as i64;
        // The journal keeps a day (this run's rows, and those of 12 and 24 hours ago), the
        // newest 50 runs their items and recaps, the cache a week of answers.
        let week_of_runs = CACHE_KEPT.as_secs() as i64 / (12 * 3600) + 1;
        let held = (3 * per_run, 50 * per_run, 50, week_of_runs * per_run);
        let last = seen.len() - 1;
        assert_eq!(seen[last], held, "{seen:?}");
        assert_eq!(seen[last - 5], held, "flat for the last runs: {seen:?}");
    }
}
