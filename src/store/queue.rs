//! The queue of seed 002: where an accepted trigger waits, and what stops the same merge being
//! tried twice. The dedupe key is the primary key, so enqueueing is `INSERT OR IGNORE`; rows are
//! kept after completion, because the key is what makes "already done" a fact. A claim reads
//! its candidates and leases one inside one `BEGIN IMMEDIATE` transaction.
//!
//! `poll` enqueues and reads; `sweep` claims, leases and closes rows.

use chrono::{DateTime, Duration, Utc};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::Store;
use crate::item::RepoRef;
use crate::policy::backoff::Failure;
use crate::policy::merge::QueueStatus;

/// A leased row, handed to the worker that claimed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    pub key: String,
    pub kind: String,
    pub repo: String,
    pub pr: u64,
    pub head_sha: Option<String>,
    pub attempts: u32,
    pub owner: String,
    pub leased_until: DateTime<Utc>,
}

/// A row a sweep would claim.
pub struct Pending {
    pub key: String,
    pub repo: String,
    pub pr: u64,
    pub head_sha: Option<String>,
}

/// A queue row as the in-flight guard sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub key: String,
    pub status: QueueStatus,
    pub head_sha: Option<String>,
}

pub const DEFAULT_LEASE_MINUTES: i64 = 30;

fn text(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// A row's status column: its word, and one gh-sweep does not know is an error naming it.
impl rusqlite::types::FromSql for QueueStatus {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        value
            .as_str()?
            .parse()
            .map_err(|why: String| rusqlite::types::FromSqlError::Other(why.into()))
    }
}

impl rusqlite::types::ToSql for QueueStatus {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(self.as_str().into())
    }
}

/// What a new row says.
pub struct NewRow<'a> {
    pub key: &'a str,
    pub kind: &'a str,
    pub repo: &'a RepoRef,
    pub pr: u64,
    pub head_sha: Option<&'a str>,
    /// Claims before the row is abandoned. A merge row's attempts are governed by the sweep
    /// budget, so it takes the budget's limit rather than seed 002's default of 3.
    pub max_attempts: u32,
}

/// The lease owner that names run `run_id`: what lets the next run tell a lease of a run that
/// died (released at once) from one of a run still at work (waited for).
pub fn run_owner(run_id: i64) -> String {
    format!("run-{run_id}")
}

/// The run a lease owner names, when it names one.
fn owner_run(owner: &str) -> Option<i64> {
    owner.strip_prefix("run-")?.parse().ok()
}

/// Who holds a live lease, as far as the store can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Holder {
    /// A run that may still be at work (or one the store cannot tell about): wait for it.
    Alive,
    /// A run of this machine whose process is gone (killed, crashed).
    Dead,
    /// A run that finished without handing the row back.
    Finished,
}

/// A claimed row whose lease has not run out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub key: String,
    pub repo: String,
    pub pr: u64,
    pub head_sha: Option<String>,
    pub owner: String,
    /// The run the owner names, when it names one.
    pub run_id: Option<i64>,
    pub leased_until: DateTime<Utc>,
    pub holder: Holder,
}

/// The merge dedupe key: a new head is new work.
pub fn merge_key(repo: &RepoRef, pr: u64, head_sha: &str) -> String {
    format!("merge:{repo}#{pr}@{head_sha}")
}

impl Store {
    /// Enqueues a trigger once. Returns whether the row is new. A merge that failed for this
    /// same key and whose backoff has passed is made pending again, keeping its attempts.
    pub fn enqueue(&self, row: &NewRow<'_>, now: DateTime<Utc>) -> anyhow::Result<bool> {
        let inserted = self.connection.execute(
            "INSERT OR IGNORE INTO queue (key, kind, repo, pr, head_sha, status, max_attempts, enqueued_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?7, ?7)",
            params![row.key, row.kind, row.repo.to_string(), row.pr as i64, row.head_sha, row.max_attempts, text(now)],
        )?;
        if inserted == 1 {
            return Ok(true);
        }
        let retried = self.connection.execute(
            "UPDATE queue SET status = 'pending', owner = NULL, leased_until = NULL, updated_at = ?2
             WHERE key = ?1 AND status = 'failed'",
            params![row.key, text(now)],
        )?;
        Ok(retried == 1)
    }

    /// Rows for a PR that the in-flight guard reads, newest first.
    pub fn queue_rows(&self, repo: &RepoRef, pr: u64) -> anyhow::Result<Vec<Row>> {
        let mut statement = self.connection.prepare_cached(
            "SELECT key, status, head_sha FROM queue WHERE repo = ?1 AND pr = ?2 ORDER BY enqueued_at DESC",
        )?;
        let rows = statement.query_map(params![repo.to_string(), pr as i64], |row| {
            Ok(Row {
                key: row.get(0)?,
                status: row.get(1)?,
                head_sha: row.get(2)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Failed merges of a PR since `since`, for the backoff.
    pub fn failures(
        &self,
        repo: &RepoRef,
        pr: u64,
        since: DateTime<Utc>,
    ) -> anyhow::Result<Vec<Failure>> {
        let mut statement = self.connection.prepare_cached(
            "SELECT head_sha, failed_at FROM queue
             WHERE repo = ?1 AND pr = ?2 AND failed_at IS NOT NULL AND failed_at >= ?3",
        )?;
        let rows = statement
            .query_map(params![repo.to_string(), pr as i64, text(since)], |row| {
                Ok((row.get::<_, Option<String>>(0)?, row.get::<_, String>(1)?))
            })?;
        let mut failures = Vec::new();
        for row in rows {
            let (head, failed_at) = row?;
            // A damaged time reads as a failure now: backing off is the safe side.
            let failed_at = DateTime::parse_from_rfc3339(&failed_at)
                .map_or(Utc::now(), |t| t.with_timezone(&Utc));
            failures.push(Failure {
                head_sha: head.unwrap_or_default(),
                failed_at,
            });
        }
        Ok(failures)
    }

    /// Leases the first claimable row that `admit` accepts, in one `BEGIN IMMEDIATE`
    /// transaction. A row whose attempts are used up is abandoned instead of offered; a refused
    /// row keeps its status and its attempts; a row is skipped while another row of the same PR
    /// holds a live lease; only rows of `repos` are considered.
    pub fn claim(
        &mut self,
        now: DateTime<Utc>,
        owner: &str,
        repos: &[RepoRef],
        lease: Duration,
        admit: &mut dyn FnMut(&Connection, &Claim, DateTime<Utc>) -> bool,
    ) -> anyhow::Result<Option<Claim>> {
        let transaction = self
            .connection
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let now_text = text(now);
        let scope: Vec<String> = repos.iter().map(ToString::to_string).collect();
        // Read every candidate out before leasing one: committing with a cursor still open fails.
        let leased_until = now + lease;
        // (the row as it would be leased, its max_attempts)
        let candidates: Vec<(Claim, u32)> = {
            let mut statement = transaction.prepare(
                "SELECT key, kind, repo, pr, head_sha, attempts, max_attempts FROM queue
                 WHERE status = 'pending' OR (status = 'claimed' AND leased_until < ?1)
                 ORDER BY enqueued_at, key",
            )?;
            let rows = statement.query_map([&now_text], |row| {
                let claim = Claim {
                    key: row.get(0)?,
                    kind: row.get(1)?,
                    repo: row.get(2)?,
                    pr: row.get::<_, i64>(3)? as u64,
                    head_sha: row.get(4)?,
                    attempts: row.get(5)?,
                    owner: owner.to_string(),
                    leased_until,
                };
                Ok((claim, row.get(6)?))
            })?;
            rows.collect::<Result<_, _>>()?
        };
        let mut chosen = None;
        for (mut claim, max_attempts) in candidates {
            if !scope.contains(&claim.repo) {
                continue;
            }
            if claim.attempts >= max_attempts {
                transaction.execute(
                    "UPDATE queue SET status = 'abandoned', owner = NULL, leased_until = NULL, updated_at = ?2 WHERE key = ?1",
                    params![claim.key, now_text],
                )?;
                continue;
            }
            let busy: Option<String> = transaction
                .query_row(
                    "SELECT key FROM queue WHERE repo = ?1 AND pr = ?2 AND key != ?3
                     AND status = 'claimed' AND leased_until >= ?4 LIMIT 1",
                    params![claim.repo, claim.pr as i64, claim.key, now_text],
                    |row| row.get(0),
                )
                .optional()?;
            if busy.is_some() {
                continue;
            }
            claim.attempts += 1;
            if !admit(&transaction, &claim, now) {
                continue;
            }
            transaction.execute(
                "UPDATE queue SET status = 'claimed', owner = ?2, leased_until = ?3, attempts = attempts + 1, updated_at = ?4
                 WHERE key = ?1",
                params![claim.key, owner, text(leased_until), now_text],
            )?;
            chosen = Some(claim);
            break;
        }
        transaction.commit()?;
        Ok(chosen)
    }

    fn close_row(
        &self,
        key: &str,
        owner: &str,
        status: QueueStatus,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> anyhow::Result<bool> {
        let failed_at = (status == QueueStatus::Failed).then(|| text(now));
        let changed = self.connection.execute(
            "UPDATE queue SET status = ?3, owner = CASE WHEN ?3 = 'pending' THEN NULL ELSE owner END,
                 leased_until = NULL, updated_at = ?4, failed_at = COALESCE(?5, failed_at),
                 last_error = COALESCE(?6, last_error)
             WHERE key = ?1 AND owner = ?2 AND status = 'claimed'",
            params![key, owner, status, text(now), failed_at, error],
        )?;
        Ok(changed == 1)
    }

    /// Marks a claimed row done. False when the caller no longer holds it.
    pub fn complete(&self, key: &str, owner: &str, now: DateTime<Utc>) -> anyhow::Result<bool> {
        self.close_row(key, owner, QueueStatus::Done, None, now)
    }

    /// Hands a claimed row back at once (its attempt stays counted).
    pub fn release(&self, key: &str, owner: &str, now: DateTime<Utc>) -> anyhow::Result<bool> {
        self.close_row(key, owner, QueueStatus::Pending, None, now)
    }

    /// Hands a claimed row back without counting the attempt: nothing was tried (GitHub was
    /// still computing whether the PR can merge).
    pub fn release_unattempted(
        &self,
        key: &str,
        owner: &str,
        now: DateTime<Utc>,
    ) -> anyhow::Result<bool> {
        let released = self.close_row(key, owner, QueueStatus::Pending, None, now)?;
        if released {
            self.connection.execute(
                "UPDATE queue SET attempts = MAX(attempts - 1, 0) WHERE key = ?1",
                [key],
            )?;
        }
        Ok(released)
    }

    /// Rows a run still holds, for releasing what it did not finish.
    pub fn held_by(&self, owner: &str) -> anyhow::Result<Vec<String>> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT key FROM queue WHERE owner = ?1 AND status = 'claimed'")?;
        let rows = statement.query_map([owner], |row| row.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Pending merge rows of these repositories, oldest first (what a sweep would claim).
    pub fn pending(&self, repos: &[RepoRef], now: DateTime<Utc>) -> anyhow::Result<Vec<Pending>> {
        let mut statement = self.connection.prepare_cached(
            "SELECT key, repo, pr, head_sha FROM queue
             WHERE kind = 'merge' AND (status = 'pending' OR (status = 'claimed' AND leased_until < ?1))
             ORDER BY enqueued_at, key",
        )?;
        let scope: Vec<String> = repos.iter().map(ToString::to_string).collect();
        let rows = statement.query_map([text(now)], |row| {
            Ok(Pending {
                key: row.get(0)?,
                repo: row.get(1)?,
                pr: row.get::<_, i64>(2)? as u64,
                head_sha: row.get(3)?,
            })
        })?;
        let rows: Vec<Pending> = rows.collect::<Result<_, _>>()?;
        Ok(rows
            .into_iter()
            .filter(|row| scope.contains(&row.repo))
            .collect())
    }

    /// Claimed merge rows of these repositories whose lease has not run out, oldest first, each
    /// with what is known of the run holding it (the journal's dead-run check: a run of this
    /// machine whose process is gone is dead).
    pub fn leases(&self, repos: &[RepoRef], now: DateTime<Utc>) -> anyhow::Result<Vec<Lease>> {
        let scope: Vec<String> = repos.iter().map(ToString::to_string).collect();
        type Row = (String, String, i64, Option<String>, String, String);
        let rows: Vec<Row> = {
            let mut statement = self.connection.prepare_cached(
                "SELECT key, repo, pr, head_sha, owner, leased_until FROM queue
                 WHERE kind = 'merge' AND status = 'claimed' AND owner IS NOT NULL
                   AND leased_until >= ?1
                 ORDER BY enqueued_at, key",
            )?;
            let rows = statement.query_map([text(now)], |row| {
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    row.get(2)?,
                    row.get(3)?,
                    row.get(4)?,
                    row.get(5)?,
                ))
            })?;
            rows.collect::<Result<_, _>>()?
        };
        let mut leases = Vec::new();
        for (key, repo, pr, head_sha, owner, leased_until) in rows {
            if !scope.contains(&repo) {
                continue;
            }
            let run_id = owner_run(&owner);
            let run: Option<(bool, Option<i64>, Option<String>)> = match run_id {
                Some(id) => self
                    .connection
                    .query_row(
                        "SELECT finished_at IS NOT NULL, pid, host FROM runs WHERE id = ?1",
                        [id],
                        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
                    )
                    .optional()?,
                None => None,
            };
            let holder = match run {
                Some((true, _, _)) => Holder::Finished,
                Some((false, pid, host)) if !super::run_alive(pid, host.as_deref()) => Holder::Dead,
                _ => Holder::Alive,
            };
            // A damaged time reads as a lease ending now: the row is claimable on the next run.
            let leased_until = DateTime::parse_from_rfc3339(&leased_until)
                .map_or(now, |time| time.with_timezone(&Utc));
            leases.push(Lease {
                key,
                repo,
                pr: pr as u64,
                head_sha,
                owner,
                run_id,
                leased_until,
                holder,
            });
        }
        Ok(leases)
    }

    /// Gives up on a row that will only fail again.
    pub fn abandon(&self, key: &str, owner: &str, now: DateTime<Utc>) -> anyhow::Result<bool> {
        self.close_row(key, owner, QueueStatus::Abandoned, None, now)
    }

    /// Records a failed merge: the row the backoff reads.
    pub fn fail(
        &self,
        key: &str,
        owner: &str,
        error: &str,
        now: DateTime<Utc>,
    ) -> anyhow::Result<bool> {
        self.close_row(key, owner, QueueStatus::Failed, Some(error), now)
    }

    /// After `done_key` completed, closes every other pending row of the same PR and kind that
    /// was already pending when the work started and names no other commit. Returns how many.
    pub fn fold(
        &self,
        done_key: &str,
        started: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> anyhow::Result<usize> {
        Ok(self.connection.execute(
            "UPDATE queue SET status = 'done', updated_at = ?3
             WHERE key != ?1 AND status = 'pending' AND enqueued_at <= ?2
               AND (repo, pr, kind) = (SELECT repo, pr, kind FROM queue WHERE key = ?1)
               AND (head_sha IS NULL OR head_sha = (SELECT head_sha FROM queue WHERE key = ?1))",
            params![done_key, text(started), text(now)],
        )?)
    }

    /// A row's status and attempts.
    #[cfg(test)]
    pub fn queue_status(&self, key: &str) -> anyhow::Result<Option<(QueueStatus, u32)>> {
        Ok(self
            .connection
            .query_row(
                "SELECT status, attempts FROM queue WHERE key = ?1",
                [key],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The status words the store's SQL names, from its source: `status = 'w'` and
    /// `status IN ('w', ...)`.
    fn status_words_in_sql(source: &str) -> Vec<String> {
        let mut words = Vec::new();
        for (index, _) in source.match_indices("status ") {
            let rest = &source[index + "status ".len()..];
            let list = if let Some(rest) = rest.strip_prefix("= '") {
                &rest[..rest.find('\'').unwrap_or(0)]
            } else if let Some(rest) = rest.strip_prefix("IN (") {
                &rest[..rest.find(')').unwrap_or(0)]
            } else {
                continue;
            };
            words.extend(
                list.split(',')
                    .map(|word| word.trim().trim_matches('\'').to_string()),
            );
        }
        words
    }

    #[test]
    fn every_status_the_sql_names_is_a_queue_status() {
        // Their code, not their tests.
        let words: Vec<String> = [include_str!("queue.rs"), include_str!("gate.rs")]
            .iter()
            .flat_map(|source| status_words_in_sql(source.split("#[cfg(test)]").next().unwrap()))
            .collect();
        for word in &words {
            assert!(word.parse::<QueueStatus>().is_ok(), "`{word}` in the SQL");
        }
        for status in QueueStatus::ALL {
            assert!(
                words.iter().any(|word| word == status.as_str()),
                "{status} is never named"
            );
        }
    }

    #[test]
    fn a_status_gh_sweep_does_not_know_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("state.db")).unwrap();
        let repo: RepoRef = "o/r".parse().unwrap();
        let key = merge_key(&repo, 1, "h");
        let row = NewRow {
            key: &key,
            kind: "merge",
            repo: &repo,
            pr: 1,
            head_sha: Some("h"),
            max_attempts: 3,
        };
        store.enqueue(&row, now()).unwrap();
        assert_eq!(
            store.queue_rows(&repo, 1).unwrap()[0].status,
            QueueStatus::Pending
        );
        store
            .connection
            .execute("UPDATE queue SET status = 'flying'", [])
            .unwrap();
        let error = format!("{:#}", store.queue_rows(&repo, 1).unwrap_err());
        assert!(error.contains("`flying`"), "{error}");
    }

    /// Seed 002's bound for rows whose kind has no budget of its own.
    const DEFAULT_MAX_ATTEMPTS: u32 = 3;
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 10, 12, 12, 0, 0).unwrap()
    }

    fn repo() -> RepoRef {
        "o/r".parse().unwrap()
    }

    fn open() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("state.db")).unwrap();
        (dir, store)
    }

    fn add(store: &Store, pr: u64, head: &str, at: DateTime<Utc>) -> String {
        let key = merge_key(&repo(), pr, head);
        store
            .enqueue(
                &NewRow {
                    key: &key,
                    kind: "merge",
                    repo: &repo(),
                    pr,
                    head_sha: Some(head),
                    max_attempts: DEFAULT_MAX_ATTEMPTS,
                },
                at,
            )
            .unwrap();
        key
    }

    fn claim(store: &mut Store, owner: &str, at: DateTime<Utc>) -> Option<Claim> {
        store
            .claim(
                at,
                owner,
                &[repo()],
                Duration::minutes(DEFAULT_LEASE_MINUTES),
                &mut |_, _, _| true,
            )
            .unwrap()
    }

    #[test]
    fn enqueue_is_insert_or_ignore_and_rows_are_kept() {
        let (_dir, mut store) = open();
        let key = merge_key(&repo(), 7, "pr-7-head");
        let row = NewRow {
            key: &key,
            kind: "merge",
            repo: &repo(),
            pr: 7,
            head_sha: Some("pr-7-head"),
            max_attempts: DEFAULT_MAX_ATTEMPTS,
        };
        assert!(store.enqueue(&row, now()).unwrap());
        assert!(
            !store.enqueue(&row, now()).unwrap(),
            "a re-poll inserts nothing"
        );
        let claimed = claim(&mut store, "w1", now()).unwrap();
        assert!(store.complete(&claimed.key, "w1", now()).unwrap());
        assert!(
            !store.enqueue(&row, now()).unwrap(),
            "a done row is a fact, not re-enqueued"
        );
        assert_eq!(
            store.queue_status(&key).unwrap(),
            Some((QueueStatus::Done, 1))
        );
        assert!(
            claim(&mut store, "w1", now()).is_none(),
            "done is never offered again"
        );
    }

    #[test]
    fn a_refused_candidate_keeps_its_status_and_attempts_and_the_next_is_leased() {
        let (_dir, mut store) = open();
        let first = add(&store, 1, "a", now());
        let second = add(&store, 2, "b", now() + Duration::seconds(1));
        let claimed = store
            .claim(
                now(),
                "w1",
                &[repo()],
                Duration::minutes(30),
                &mut |_, claim, _| claim.key != first,
            )
            .unwrap()
            .unwrap();
        assert_eq!(claimed.key, second);
        assert_eq!(
            store.queue_status(&first).unwrap(),
            Some((QueueStatus::Pending, 0))
        );
    }

    #[test]
    fn one_pr_one_worker() {
        let (_dir, mut store) = open();
        let first = add(&store, 7, "a", now());
        add(&store, 7, "b", now() + Duration::seconds(1));
        assert_eq!(claim(&mut store, "w1", now()).unwrap().key, first);
        assert!(
            claim(&mut store, "w2", now()).is_none(),
            "the PR's other row waits for the live lease"
        );
    }

    #[test]
    fn a_claim_is_scoped_to_the_run_repositories() {
        let (_dir, mut store) = open();
        add(&store, 1, "a", now());
        let other: RepoRef = "x/y".parse().unwrap();
        let claimed = store
            .claim(
                now(),
                "w1",
                &[other],
                Duration::minutes(30),
                &mut |_, _, _| true,
            )
            .unwrap();
        assert!(claimed.is_none());
    }

    #[test]
    fn leases_expire_and_owner_guards_close_the_row() {
        let (_dir, mut store) = open();
        let key = add(&store, 1, "a", now());
        claim(&mut store, "w1", now()).unwrap();
        assert!(claim(&mut store, "w2", now() + Duration::minutes(29)).is_none());
        let reclaimed = claim(&mut store, "w2", now() + Duration::minutes(31)).unwrap();
        assert_eq!(reclaimed.attempts, 2);
        assert!(
            !store.complete(&key, "w1", now()).unwrap(),
            "w1's lease lapsed and was re-claimed"
        );
        assert!(!store.release(&key, "w1", now()).unwrap());
        assert!(!store.abandon(&key, "w1", now()).unwrap());
        assert!(store.release(&key, "w2", now()).unwrap());
        assert_eq!(
            store.queue_status(&key).unwrap(),
            Some((QueueStatus::Pending, 2))
        );
    }

    #[test]
    fn retries_are_bounded() {
        let (_dir, mut store) = open();
        let key = add(&store, 1, "a", now());
        for attempt in 0..3 {
            let claimed = claim(&mut store, "w", now() + Duration::minutes(attempt)).unwrap();
            store.release(&claimed.key, "w", now()).unwrap();
        }
        assert!(claim(&mut store, "w", now() + Duration::minutes(10)).is_none());
        assert_eq!(
            store.queue_status(&key).unwrap(),
            Some((QueueStatus::Abandoned, 3))
        );
    }

    #[test]
    fn a_failure_is_recorded_for_the_backoff_and_can_be_retried_later() {
        let (_dir, mut store) = open();
        let key = add(&store, 1, "a", now());
        claim(&mut store, "w", now()).unwrap();
        assert!(store.fail(&key, "w", "405 not mergeable", now()).unwrap());
        let failures = store
            .failures(&repo(), 1, now() - Duration::hours(6))
            .unwrap();
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].head_sha, "a");
        let row = NewRow {
            key: &key,
            kind: "merge",
            repo: &repo(),
            pr: 1,
            head_sha: Some("a"),
            max_attempts: DEFAULT_MAX_ATTEMPTS,
        };
        assert!(
            store.enqueue(&row, now() + Duration::hours(7)).unwrap(),
            "a failed row is made pending again"
        );
        assert_eq!(
            store.queue_status(&key).unwrap(),
            Some((QueueStatus::Pending, 1))
        );
    }

    #[test]
    fn fold_closes_what_was_waiting_for_the_same_commit() {
        let (_dir, mut store) = open();
        let done = add(&store, 7, "a", now());
        let waiting = add(&store, 7, "a2", now());
        // A row naming the same commit under another key (another trigger kind of the same PR).
        let same_commit = "merge:o/r#7@a:retrigger".to_string();
        store
            .enqueue(
                &NewRow {
                    key: &same_commit,
                    kind: "merge",
                    repo: &repo(),
                    pr: 7,
                    head_sha: Some("a"),
                    max_attempts: DEFAULT_MAX_ATTEMPTS,
                },
                now(),
            )
            .unwrap();
        let later = "merge:o/r#7@a:later".to_string();
        store
            .enqueue(
                &NewRow {
                    key: &later,
                    kind: "merge",
                    repo: &repo(),
                    pr: 7,
                    head_sha: Some("a"),
                    max_attempts: DEFAULT_MAX_ATTEMPTS,
                },
                now() + Duration::minutes(5),
            )
            .unwrap();
        claim(&mut store, "w", now()).unwrap();
        store.complete(&done, "w", now()).unwrap();
        assert_eq!(
            store
                .fold(&done, now() + Duration::minutes(1), now())
                .unwrap(),
            1
        );
        assert_eq!(
            store.queue_status(&same_commit).unwrap().unwrap().0,
            QueueStatus::Done
        );
        assert_eq!(
            store.queue_status(&waiting).unwrap().unwrap().0,
            QueueStatus::Pending,
            "names another commit"
        );
        assert_eq!(
            store.queue_status(&later).unwrap().unwrap().0,
            QueueStatus::Pending,
            "enqueued after the work started"
        );
    }

    #[test]
    fn a_lease_tells_a_dead_or_finished_run_from_one_at_work() {
        let (_dir, mut store) = open();
        // A process that has exited: its pid names nothing in /proc.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead_pid = child.id();
        child.wait().unwrap();
        let host = super::super::host();
        let runs = [
            (1, None, i64::from(std::process::id())), // this process: at work
            (2, None, i64::from(dead_pid)),           // killed
            (
                3,
                Some("2026-10-12T12:00:00Z"),
                i64::from(std::process::id()),
            ), // finished
        ];
        for (id, finished, pid) in runs {
            store
                .connection
                .execute(
                    "INSERT INTO runs (id, command, argv, started_at, finished_at, pid, host)
                     VALUES (?1, 'sweep', 'gh-sweep sweep', '2026-10-12T12:00:00Z', ?2, ?3, ?4)",
                    params![id, finished, pid, host],
                )
                .unwrap();
        }
        let owners = [run_owner(1), run_owner(2), run_owner(3), "sweep-1-2".into()];
        for (pr, owner) in (1..).zip(&owners) {
            add(&store, pr, "h", now());
            assert_eq!(claim(&mut store, owner, now()).unwrap().pr, pr);
        }
        let leases = store.leases(&[repo()], now()).unwrap();
        let holders: Vec<(u64, Option<i64>, Holder)> = leases
            .iter()
            .map(|lease| (lease.pr, lease.run_id, lease.holder))
            .collect();
        assert_eq!(
            holders,
            vec![
                (1, Some(1), Holder::Alive),
                (2, Some(2), Holder::Dead),
                (3, Some(3), Holder::Finished),
                // An owner that names no run: nothing can be told, so it is waited for.
                (4, None, Holder::Alive),
            ]
        );
        assert_eq!(
            leases[0].leased_until,
            now() + Duration::minutes(DEFAULT_LEASE_MINUTES)
        );
        assert!(
            store
                .leases(&[repo()], now() + Duration::minutes(31))
                .unwrap()
                .is_empty(),
            "a lease that ran out is no lease"
        );
        assert!(store
            .leases(&["x/y".parse().unwrap()], now())
            .unwrap()
            .is_empty());
    }

    #[test]
    fn two_connections_racing_a_claim_lease_it_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let store = Store::open(&path).unwrap();
        for pr in 1..=20 {
            add(&store, pr, "h", now());
        }
        drop(store);
        let workers: Vec<_> = (0..4)
            .map(|worker| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let mut store = Store::open(&path).unwrap();
                    let mut keys = Vec::new();
                    while let Some(claimed) = claim(&mut store, &format!("w{worker}"), now()) {
                        keys.push(claimed.key);
                    }
                    keys
                })
            })
            .collect();
        let mut all: Vec<String> = workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap())
            .collect();
        let total = all.len();
        all.sort();
        all.dedup();
        assert_eq!(total, 20, "every row claimed");
        assert_eq!(all.len(), 20, "no row claimed twice");
    }
}
