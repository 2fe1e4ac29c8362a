//! The queue of seed 002: where an accepted trigger waits, and what stops the same merge being
//! tried twice. The dedupe key is the primary key, so enqueueing is `INSERT OR IGNORE`; rows are
//! kept after completion, because the key is what makes "already done" a fact. A claim reads
//! its candidates and leases one inside one `BEGIN IMMEDIATE` transaction.
//!
//! `poll` enqueues and reads; `sweep` claims, leases and closes rows.

use chrono::{DateTime, Duration, Utc};
use rusqlite::{params, OptionalExtension, Transaction, TransactionBehavior};

use super::gate::{budget_on, gate_on};
use super::Prepared;
use super::SqliteStore;
use crate::item::RepoRef;
use crate::policy::backoff::Failure;
use crate::policy::merge::QueueStatus;
use crate::store::queue::{owner_run, Claim, Holder, Lease, NewRow, Pending, Row};
use crate::store::{Admit, ClaimFacts, MergeQueue};

fn text(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// A row's status column: its word, and one gh-sweep does not know is an error naming it.
impl rusqlite::types::FromSql for QueueStatus {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        value
            .as_str()?
            .parse()
            .map_err(|why: crate::policy::merge::UnknownQueueStatus| {
                rusqlite::types::FromSqlError::Other(Box::new(why))
            })
    }
}

impl rusqlite::types::ToSql for QueueStatus {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(self.as_str().into())
    }
}

impl MergeQueue for SqliteStore {
    /// Enqueues a trigger once. Returns whether the row is new. A merge that failed for this
    /// same key and whose backoff has passed is made pending again, keeping its attempts.
    fn enqueue(&self, row: &NewRow<'_>, now: DateTime<Utc>) -> crate::store::Result<bool> {
        let inserted = self.connection.execute_cached(
            "INSERT OR IGNORE INTO queue (key, kind, repo, pr, head_sha, status, max_attempts, enqueued_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?7, ?7)",
            params![row.key, row.kind, row.repo.to_string(), row.pr as i64, row.head_sha, row.max_attempts, text(now)],
        )?;
        if inserted == 1 {
            return Ok(true);
        }
        let retried = self.connection.execute_cached(
            "UPDATE queue SET status = 'pending', owner = NULL, leased_until = NULL, updated_at = ?2
             WHERE key = ?1 AND status = 'failed'",
            params![row.key, text(now)],
        )?;
        Ok(retried == 1)
    }

    /// Rows for a PR that the in-flight guard reads, newest first.
    fn queue_rows(&self, repo: &RepoRef, pr: u64) -> crate::store::Result<Vec<Row>> {
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
    fn failures(
        &self,
        repo: &RepoRef,
        pr: u64,
        since: DateTime<Utc>,
    ) -> crate::store::Result<Vec<Failure>> {
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
                .map_or(crate::clock::wall(), |t| t.with_timezone(&Utc));
            failures.push(Failure {
                head_sha: head.unwrap_or_default(),
                failed_at,
            });
        }
        Ok(failures)
    }

    /// Leases the first claimable row that `admit` accepts, in one `BEGIN IMMEDIATE`
    /// transaction that also reads the gate and budget `admit` is given. A row whose attempts are used up is abandoned instead of offered; a refused
    /// row keeps its status and its attempts; a row is skipped while another row of the same PR
    /// holds a live lease; only rows of `repos` are considered.
    fn claim(
        &mut self,
        now: DateTime<Utc>,
        owner: &str,
        repos: &[RepoRef],
        lease: Duration,
        admit: &mut Admit<'_>,
    ) -> crate::store::Result<Option<Claim>> {
        let transaction = self
            .connection
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let now_text = text(now);
        let scope: Vec<String> = repos.iter().map(ToString::to_string).collect();
        // Read every candidate out before leasing one: committing with a cursor still open fails.
        let leased_until = now + lease;
        let candidates = candidates(&transaction, &now_text, owner, leased_until)?;
        let mut chosen = None;
        for (mut claim, max_attempts) in candidates {
            if !scope.contains(&claim.repo) {
                continue;
            }
            if claim.attempts >= max_attempts {
                transaction.execute_cached(
                    "UPDATE queue SET status = 'abandoned', owner = NULL, leased_until = NULL, updated_at = ?2 WHERE key = ?1",
                    params![claim.key, now_text],
                )?;
                continue;
            }
            let busy: Option<String> = transaction
                .query_row_cached(
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
            // Read inside the transaction: the decision and the lease commit together.
            let facts = ClaimFacts {
                gate: gate_on(&transaction, &claim.repo, claim.pr).ok().flatten(),
                budget: budget_on(&transaction, &claim.repo, claim.pr).unwrap_or_default(),
            };
            if !admit(&claim, &facts, now) {
                continue;
            }
            transaction.execute_cached(
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

    /// Marks a claimed row done. False when the caller no longer holds it.
    fn complete(&self, key: &str, owner: &str, now: DateTime<Utc>) -> crate::store::Result<bool> {
        self.close_row(key, owner, QueueStatus::Done, None, now)
    }

    /// Hands a claimed row back at once (its attempt stays counted).
    fn release(&self, key: &str, owner: &str, now: DateTime<Utc>) -> crate::store::Result<bool> {
        self.close_row(key, owner, QueueStatus::Pending, None, now)
    }

    /// Hands a claimed row back without counting the attempt: nothing was tried (GitHub was
    /// still computing whether the PR can merge).
    fn release_unattempted(
        &self,
        key: &str,
        owner: &str,
        now: DateTime<Utc>,
    ) -> crate::store::Result<bool> {
        let released = self.close_row(key, owner, QueueStatus::Pending, None, now)?;
        if released {
            self.connection.execute_cached(
                "UPDATE queue SET attempts = MAX(attempts - 1, 0) WHERE key = ?1",
                [key],
            )?;
        }
        Ok(released)
    }

    /// Rows a run still holds, for releasing what it did not finish.
    fn held_by(&self, owner: &str) -> crate::store::Result<Vec<String>> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT key FROM queue WHERE owner = ?1 AND status = 'claimed'")?;
        let rows = statement.query_map([owner], |row| row.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Pending merge rows of these repositories, oldest first (what a sweep would claim).
    fn pending(&self, repos: &[RepoRef], now: DateTime<Utc>) -> crate::store::Result<Vec<Pending>> {
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
    fn leases(&self, repos: &[RepoRef], now: DateTime<Utc>) -> crate::store::Result<Vec<Lease>> {
        let scope: Vec<String> = repos.iter().map(ToString::to_string).collect();
        type LeaseCells = (String, String, i64, Option<String>, String, String);
        let rows: Vec<LeaseCells> = {
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
            let life = match run_id {
                Some(id) => self.life(id)?,
                None => None,
            };
            let holder = match &life {
                Some(life) if life.finished => Holder::Finished,
                Some(life) if !self.alive(life) => {
                    self.take_over(life)?;
                    Holder::Dead
                }
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
    fn abandon(&self, key: &str, owner: &str, now: DateTime<Utc>) -> crate::store::Result<bool> {
        self.close_row(key, owner, QueueStatus::Abandoned, None, now)
    }

    /// Records a failed merge: the row the backoff reads.
    fn fail(
        &self,
        key: &str,
        owner: &str,
        error: &str,
        now: DateTime<Utc>,
    ) -> crate::store::Result<bool> {
        self.close_row(key, owner, QueueStatus::Failed, Some(error), now)
    }

    /// After `done_key` completed, closes every other pending row of the same PR and kind that
    /// was already pending when the work started and names no other commit. Returns how many.
    fn fold(
        &self,
        done_key: &str,
        started: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> crate::store::Result<usize> {
        Ok(self.connection.execute_cached(
            "UPDATE queue SET status = 'done', updated_at = ?3
             WHERE key != ?1 AND status = 'pending' AND enqueued_at <= ?2
               AND (repo, pr, kind) = (SELECT repo, pr, kind FROM queue WHERE key = ?1)
               AND (head_sha IS NULL OR head_sha = (SELECT head_sha FROM queue WHERE key = ?1))",
            params![done_key, text(started), text(now)],
        )?)
    }
}

/// The claimable rows, oldest first, each as it would be leased, with its max_attempts. Read
/// out whole before leasing one: committing with a cursor still open fails.
fn candidates(
    transaction: &Transaction<'_>,
    now_text: &str,
    owner: &str,
    leased_until: DateTime<Utc>,
) -> crate::store::Result<Vec<(Claim, u32)>> {
    let mut statement = transaction.prepare_cached(
        "SELECT key, kind, repo, pr, head_sha, attempts, max_attempts FROM queue
             WHERE status = 'pending' OR (status = 'claimed' AND leased_until < ?1)
             ORDER BY enqueued_at, key",
    )?;
    let rows = statement.query_map([now_text], |row| {
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
    Ok(rows.collect::<Result<_, _>>()?)
}

impl SqliteStore {
    fn close_row(
        &self,
        key: &str,
        owner: &str,
        status: QueueStatus,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> crate::store::Result<bool> {
        let failed_at = (status == QueueStatus::Failed).then(|| text(now));
        let changed = self.connection.execute_cached(
            "UPDATE queue SET status = ?3, owner = CASE WHEN ?3 = 'pending' THEN NULL ELSE owner END,
                 leased_until = NULL, updated_at = ?4, failed_at = COALESCE(?5, failed_at),
                 last_error = COALESCE(?6, last_error)
             WHERE key = ?1 AND owner = ?2 AND status = 'claimed'",
            params![key, owner, status, text(now), failed_at, error],
        )?;
        Ok(changed == 1)
    }

    /// A row's status and attempts.
    #[cfg(test)]
    pub fn queue_status(&self, key: &str) -> crate::store::Result<Option<(QueueStatus, u32)>> {
        Ok(self
            .connection
            .query_row_cached(
                "SELECT status, attempts FROM queue WHERE key = ?1",
                [key],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?)
    }
}

#[cfg(test)]
#[path = "queue_tests.rs"]
mod tests;
