//! The merge gate of seed 001 in the store: per PR, the conditions `poll` observed (stamped
//! with GitHub's own times), the merged marker, and the sweep budget. A missing or damaged
//! budget reads as fresh, never as a crash.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::Prepared;
use super::SqliteStore;
use crate::item::{ItemRef, RepoRef};
use crate::policy::sweep::{self, Budget, Gate};
use crate::store::MergeGate;

fn time(text: Option<String>) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(&text?)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

fn text(time: Option<DateTime<Utc>>) -> Option<String> {
    time.map(|t| t.to_rfc3339())
}

/// A PR's gate entry, read on any connection (a claim reads it inside its transaction).
pub fn gate_on(connection: &Connection, repo: &str, pr: u64) -> rusqlite::Result<Option<Gate>> {
    connection
        .query_row_cached(
            "SELECT head_sha, approved_at, ci_passed_at, blocked, merged_at FROM merge_gate WHERE repo = ?1 AND pr = ?2",
            params![repo, pr as i64],
            |row| {
                Ok(Gate {
                    head_sha: row.get(0)?,
                    approved_at: time(row.get(1)?),
                    ci_passed_at: time(row.get(2)?),
                    blocked: row.get(3)?,
                    merged_at: time(row.get(4)?),
                })
            },
        )
        .optional()
}

/// A PR's sweep budget on any connection; missing or damaged reads as fresh.
pub fn budget_on(connection: &Connection, repo: &str, pr: u64) -> rusqlite::Result<Budget> {
    let stored: Option<String> = connection
        .query_row_cached(
            "SELECT budget FROM sweep_budget WHERE repo = ?1 AND pr = ?2",
            params![repo, pr as i64],
            |row| row.get(0),
        )
        .optional()?;
    Ok(sweep::decode(stored.as_deref()))
}

impl MergeGate for SqliteStore {
    fn gate(&self, item: &ItemRef) -> crate::store::Result<Option<Gate>> {
        Ok(gate_on(
            &self.connection,
            &item.repo.to_string(),
            item.number,
        )?)
    }

    /// Every gate entry of these repositories, for the lost-trigger sweep.
    fn gates(&self, repos: &[RepoRef]) -> crate::store::Result<Vec<(ItemRef, Gate)>> {
        let mut found = Vec::new();
        for repo in repos {
            let mut statement = self
                .connection
                .prepare_cached("SELECT pr FROM merge_gate WHERE repo = ?1 ORDER BY pr")?;
            let numbers: Vec<i64> = statement
                .query_map([repo.to_string()], |row| row.get(0))?
                .collect::<Result<_, _>>()?;
            for number in numbers {
                let item = ItemRef::new(repo, number as u64);
                if let Some(gate) = self.gate(&item)? {
                    found.push((item, gate));
                }
            }
        }
        Ok(found)
    }

    /// Records what was observed of a PR. The merged marker is kept.
    fn record_gate(
        &self,
        item: &ItemRef,
        gate: &Gate,
        observed_at: DateTime<Utc>,
    ) -> crate::store::Result<()> {
        self.connection.execute_cached(
            "INSERT INTO merge_gate (repo, pr, head_sha, approved_at, ci_passed_at, blocked, observed_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (repo, pr) DO UPDATE SET head_sha = ?3, approved_at = ?4, ci_passed_at = ?5,
                 blocked = ?6, observed_at = ?7",
            params![
                item.repo.to_string(),
                item.number as i64,
                gate.head_sha,
                text(gate.approved_at),
                text(gate.ci_passed_at),
                gate.blocked,
                observed_at.to_rfc3339()
            ],
        )?;
        Ok(())
    }

    /// Records a run's observations in one transaction (one commit, not one per PR).
    fn record_gates(
        &self,
        observations: &[(ItemRef, Gate, DateTime<Utc>)],
    ) -> crate::store::Result<()> {
        if observations.is_empty() {
            return Ok(());
        }
        self.connection.execute_batch("BEGIN IMMEDIATE")?;
        let result = observations
            .iter()
            .try_for_each(|(item, gate, at)| self.record_gate(item, gate, *at));
        self.connection
            .execute_batch(if result.is_ok() { "COMMIT" } else { "ROLLBACK" })?;
        result
    }

    /// The merged marker, set only after a real merge (or a merge found on GitHub).
    fn record_merged(
        &self,
        item: &ItemRef,
        head_sha: &str,
        at: DateTime<Utc>,
    ) -> crate::store::Result<()> {
        self.connection.execute_cached(
            "INSERT INTO merge_gate (repo, pr, head_sha, merged_at, observed_at) VALUES (?1, ?2, ?3, ?4, ?4)
             ON CONFLICT (repo, pr) DO UPDATE SET merged_at = ?4, blocked = 'merged'",
            params![item.repo.to_string(), item.number as i64, head_sha, at.to_rfc3339()],
        )?;
        Ok(())
    }

    fn budget(&self, item: &ItemRef) -> crate::store::Result<Budget> {
        Ok(budget_on(
            &self.connection,
            &item.repo.to_string(),
            item.number,
        )?)
    }

    /// After a merge was found on GitHub: the PR's waiting and claimed merge rows are done,
    /// whoever held them.
    fn settle_merged(&self, item: &ItemRef, now: DateTime<Utc>) -> crate::store::Result<usize> {
        Ok(self.connection.execute_cached(
            "UPDATE queue SET status = 'done', owner = NULL, leased_until = NULL, updated_at = ?3
             WHERE repo = ?1 AND pr = ?2 AND kind = 'merge' AND status IN ('pending', 'claimed')",
            params![item.repo.to_string(), item.number as i64, now.to_rfc3339()],
        )?)
    }

    /// After a merge was found not to have happened: the PR's claimed rows go back to pending
    /// (their lease belonged to a run that is over).
    fn reopen_claims(&self, item: &ItemRef, now: DateTime<Utc>) -> crate::store::Result<usize> {
        Ok(self.connection.execute_cached(
            "UPDATE queue SET status = 'pending', owner = NULL, leased_until = NULL, updated_at = ?3
             WHERE repo = ?1 AND pr = ?2 AND kind = 'merge' AND status = 'claimed'",
            params![item.repo.to_string(), item.number as i64, now.to_rfc3339()],
        )?)
    }

    fn record_budget(&self, item: &ItemRef, budget: &Budget) -> crate::store::Result<()> {
        self.connection.execute_cached(
            "INSERT INTO sweep_budget (repo, pr, budget) VALUES (?1, ?2, ?3)
             ON CONFLICT (repo, pr) DO UPDATE SET budget = ?3",
            params![
                item.repo.to_string(),
                item.number as i64,
                sweep::encode(budget)
            ],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::write::{JournalWrite, Settled};
    use crate::store::{RunLog, WriteJournal};

    #[test]
    fn a_settled_write_is_journaled_with_its_word_and_no_longer_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("state.db")).unwrap();
        let run = store
            .start_run("stale-sweep", "gh-sweep stale-sweep")
            .unwrap();
        let item: ItemRef = "o/r#3".parse().unwrap();
        let label = JournalWrite::RemoveLabel {
            label: "Stale".into(),
        };
        let happened = store.journal_intent(run, &item, &label).unwrap();
        let close = JournalWrite::Close { reason: None };
        let did_not = store.journal_intent(run, &item, &close).unwrap();
        store
            .connection
            .execute("UPDATE runs SET finished_at = started_at", [])
            .unwrap();
        let repos = ["o/r".parse::<RepoRef>().unwrap()];
        assert_eq!(
            store
                .unknown_writes(&repos, crate::clock::wall())
                .unwrap()
                .len(),
            2
        );
        store
            .resolve_journal(happened, Settled::Happened, "found")
            .unwrap();
        store
            .resolve_journal(did_not, Settled::DidNotHappen, "not found")
            .unwrap();
        assert!(store
            .unknown_writes(&repos, crate::clock::wall())
            .unwrap()
            .is_empty());
        let mut rows = store
            .connection
            .prepare("SELECT outcome, detail FROM journal ORDER BY id")
            .unwrap();
        let rows: Vec<(String, String)> = rows
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            rows,
            [
                ("done".to_string(), "found".to_string()),
                ("failed".to_string(), "not found".to_string())
            ]
        );
    }

    #[test]
    fn a_damaged_budget_row_reads_as_fresh() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("state.db")).unwrap();
        let item: ItemRef = "o/r#7".parse().unwrap();
        assert_eq!(store.budget(&item).unwrap(), Budget::default());
        store
            .connection
            .execute("INSERT INTO sweep_budget VALUES ('o/r', 7, 'garbage')", [])
            .unwrap();
        assert_eq!(store.budget(&item).unwrap(), Budget::default());
        let budget = Budget {
            attempts: 2,
            last: Some(crate::clock::wall()),
            watermark: None,
            ..Budget::default()
        };
        store.record_budget(&item, &budget).unwrap();
        assert_eq!(store.budget(&item).unwrap().attempts, 2);
    }
}
