//! The queue of seed 002 in PostgreSQL; the claim itself in [`super::claim`].

use chrono::{DateTime, Duration, Utc};

use super::journal::{life_columns, RunLife};
use super::PostgresStore;
use crate::item::RepoRef;
use crate::policy::backoff::Failure;
use crate::policy::merge::QueueStatus;
use crate::store::queue::{owner_run, Claim, Holder, Lease, NewRow, Pending, Row};
use crate::store::{Admit, MergeQueue};

/// A row's status column; one gh-sweep does not know is an error naming it.
fn status(text: &str) -> crate::store::Result<QueueStatus> {
    text.parse()
        .map_err(|why: crate::policy::merge::UnknownQueueStatus| {
            crate::store::StoreError::Damaged(format!("the queue holds a row with {why}"))
        })
}

impl MergeQueue for PostgresStore {
    fn enqueue(&self, row: &NewRow<'_>, now: DateTime<Utc>) -> crate::store::Result<bool> {
        let mut client = self.client();
        let inserted = client.execute(
            "INSERT INTO queue (key, kind, repo, pr, head_sha, status, max_attempts, enqueued_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $7) ON CONFLICT (key) DO NOTHING",
            &[&row.key, &row.kind, &row.repo.to_string(), &(row.pr as i64), &row.head_sha, &(row.max_attempts as i32), &now],
        )?;
        if inserted == 1 {
            return Ok(true);
        }
        let retried = client.execute(
            "UPDATE queue SET status = 'pending', owner = NULL, leased_until = NULL, updated_at = $2
             WHERE key = $1 AND status = 'failed'",
            &[&row.key, &now],
        )?;
        Ok(retried == 1)
    }

    fn queue_rows(&self, repo: &RepoRef, pr: u64) -> crate::store::Result<Vec<Row>> {
        let rows = self.client().query(
            "SELECT key, status, head_sha FROM queue WHERE repo = $1 AND pr = $2 ORDER BY enqueued_at DESC",
            &[&repo.to_string(), &(pr as i64)],
        )?;
        rows.iter()
            .map(|row| {
                Ok(Row {
                    key: row.get(0),
                    status: status(row.get(1))?,
                    head_sha: row.get(2),
                })
            })
            .collect()
    }

    fn failures(
        &self,
        repo: &RepoRef,
        pr: u64,
        since: DateTime<Utc>,
    ) -> crate::store::Result<Vec<Failure>> {
        let rows = self.client().query(
            "SELECT head_sha, failed_at FROM queue
             WHERE repo = $1 AND pr = $2 AND failed_at IS NOT NULL AND failed_at >= $3",
            &[&repo.to_string(), &(pr as i64), &since],
        )?;
        Ok(rows
            .iter()
            .map(|row| Failure {
                head_sha: row.get::<_, Option<String>>(0).unwrap_or_default(),
                failed_at: row.get(1),
            })
            .collect())
    }

    fn claim(
        &mut self,
        now: DateTime<Utc>,
        owner: &str,
        repos: &[RepoRef],
        lease: Duration,
        admit: &mut Admit<'_>,
    ) -> crate::store::Result<Option<Claim>> {
        self.claim_row(now, owner, repos, lease, admit)
    }

    fn complete(&self, key: &str, owner: &str, now: DateTime<Utc>) -> crate::store::Result<bool> {
        self.close_row(key, owner, QueueStatus::Done, None, now)
    }

    fn release(&self, key: &str, owner: &str, now: DateTime<Utc>) -> crate::store::Result<bool> {
        self.close_row(key, owner, QueueStatus::Pending, None, now)
    }

    fn release_unattempted(
        &self,
        key: &str,
        owner: &str,
        now: DateTime<Utc>,
    ) -> crate::store::Result<bool> {
        let released = self.close_row(key, owner, QueueStatus::Pending, None, now)?;
        if released {
            self.client().execute(
                "UPDATE queue SET attempts = GREATEST(attempts - 1, 0) WHERE key = $1",
                &[&key],
            )?;
        }
        Ok(released)
    }

    fn abandon(&self, key: &str, owner: &str, now: DateTime<Utc>) -> crate::store::Result<bool> {
        self.close_row(key, owner, QueueStatus::Abandoned, None, now)
    }

    fn fail(
        &self,
        key: &str,
        owner: &str,
        error: &str,
        now: DateTime<Utc>,
    ) -> crate::store::Result<bool> {
        self.close_row(key, owner, QueueStatus::Failed, Some(error), now)
    }

    fn held_by(&self, owner: &str) -> crate::store::Result<Vec<String>> {
        let rows = self.client().query(
            "SELECT key FROM queue WHERE owner = $1 AND status = 'claimed' ORDER BY key",
            &[&owner],
        )?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    fn pending(&self, repos: &[RepoRef], now: DateTime<Utc>) -> crate::store::Result<Vec<Pending>> {
        let scope: Vec<String> = repos.iter().map(ToString::to_string).collect();
        let rows = self.client().query(
            "SELECT key, repo, pr, head_sha FROM queue
             WHERE kind = 'merge' AND (status = 'pending' OR (status = 'claimed' AND leased_until < $1))
               AND repo = ANY($2)
             ORDER BY enqueued_at, key",
            &[&now, &scope],
        )?;
        Ok(rows
            .iter()
            .map(|row| Pending {
                key: row.get(0),
                repo: row.get(1),
                pr: row.get::<_, i64>(2) as u64,
                head_sha: row.get(3),
            })
            .collect())
    }

    /// Claimed merge rows whose lease has not run out, each with what is known of the run
    /// holding it: dead once its heartbeat is older than the bound plus the write timeout (or,
    /// on this host, once its process is gone); then taken over by this host.
    fn leases(&self, repos: &[RepoRef], now: DateTime<Utc>) -> crate::store::Result<Vec<Lease>> {
        let scope: Vec<String> = repos.iter().map(ToString::to_string).collect();
        let mut client = self.client();
        let rows = client.query(
            "SELECT key, repo, pr, head_sha, owner, leased_until FROM queue
             WHERE kind = 'merge' AND status = 'claimed' AND owner IS NOT NULL
               AND leased_until >= $1 AND repo = ANY($2)
             ORDER BY enqueued_at, key",
            &[&now, &scope],
        )?;
        let mut leases = Vec::new();
        for row in &rows {
            let owner: String = row.get(4);
            let run_id = owner_run(&owner);
            let life = match run_id {
                Some(id) => client
                    .query_opt(
                        &format!("SELECT {} FROM runs WHERE id = $1", life_columns(2)),
                        &[&id, &Self::seconds(self.liveness().takeover_after())],
                    )?
                    .map(|row| RunLife::read(&row, 0)),
                None => None,
            };
            let holder = match &life {
                Some(life) if life.finished => Holder::Finished,
                Some(life) if !self.alive(life) => {
                    self.take_over(&mut *client, life)?;
                    Holder::Dead
                }
                _ => Holder::Alive,
            };
            leases.push(Lease {
                key: row.get(0),
                repo: row.get(1),
                pr: row.get::<_, i64>(2) as u64,
                head_sha: row.get(3),
                owner,
                run_id,
                leased_until: row.get(5),
                holder,
            });
        }
        Ok(leases)
    }

    fn fold(
        &self,
        done_key: &str,
        started: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> crate::store::Result<usize> {
        Ok(self.client().execute(
            "UPDATE queue SET status = 'done', updated_at = $3
             WHERE key != $1 AND status = 'pending' AND enqueued_at <= $2
               AND (repo, pr, kind) = (SELECT repo, pr, kind FROM queue WHERE key = $1)
               AND (head_sha IS NULL OR head_sha = (SELECT head_sha FROM queue WHERE key = $1))",
            &[&done_key, &started, &now],
        )? as usize)
    }
}

/// A claimed row's end (done, handed back, abandoned, failed): one statement, prepared once.
const CLOSE: &str =
    "UPDATE queue SET status = $3, owner = CASE WHEN $3 = 'pending' THEN NULL ELSE owner END,
         leased_until = NULL, updated_at = $4, failed_at = COALESCE($5, failed_at),
         last_error = COALESCE($6, last_error)
     WHERE key = $1 AND owner = $2 AND status = 'claimed'";

impl PostgresStore {
    fn close_row(
        &self,
        key: &str,
        owner: &str,
        status: QueueStatus,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> crate::store::Result<bool> {
        let failed_at = (status == QueueStatus::Failed).then_some(now);
        let [close] = self.prepared([CLOSE])?;
        let changed = self.client().execute(
            &close,
            &[&key, &owner, &status.as_str(), &now, &failed_at, &error],
        )?;
        Ok(changed == 1)
    }
}
