//! A claim on PostgreSQL in as few statements as its guarantees allow, each prepared once per
//! connection: in one transaction, one statement takes the first claimable candidate
//! (`FOR UPDATE SKIP LOCKED`: a row another host is deciding on is passed over, not waited
//! for), tries its PR's advisory lock and reads the gate and budget `admit` is given; one more
//! leases it, checking in a snapshot taken after the lock that no other row of the PR holds a
//! live lease (a PR has a row per head, and two hosts could otherwise lease two of them).
//! Without a row to pass over, a claim is BEGIN, two statements and COMMIT: four round trips.

use chrono::{DateTime, Duration, Utc};

use super::PostgresStore;
use crate::item::RepoRef;
use crate::policy::sweep::{self, Gate};
use crate::store::queue::Claim;
use crate::store::{Admit, ClaimFacts};

/// The candidate, locked, with its PR's advisory lock tried (hashed as every version of
/// gh-sweep hashes it: advisory locks take numbers) unless its attempts are used up, and the
/// facts `admit` decides on. A row of a PR that another row holds a live lease of is no
/// candidate.
pub(super) const CANDIDATE: &str = "
    WITH candidate AS (
        SELECT key, kind, repo, pr, head_sha, attempts, max_attempts FROM queue q
        WHERE (status = 'pending' OR (status = 'claimed' AND leased_until < $1))
          AND repo = ANY($2) AND key <> ALL($3)
          AND NOT EXISTS (
              SELECT 1 FROM queue o WHERE o.repo = q.repo AND o.pr = q.pr AND o.key <> q.key
                AND o.status = 'claimed' AND o.leased_until >= $1)
        ORDER BY enqueued_at, key LIMIT 1
        FOR UPDATE SKIP LOCKED
    )
    SELECT c.key, c.kind, c.repo, c.pr, c.head_sha, c.attempts, c.max_attempts,
           CASE WHEN c.attempts < c.max_attempts
                THEN pg_try_advisory_xact_lock(
                         hashtextextended('gh-sweep queue ' || c.repo || '#' || c.pr::text, 0))
                ELSE false END,
           g.head_sha, g.approved_at, g.ci_passed_at, g.blocked, g.merged_at, b.budget
    FROM candidate c
    LEFT JOIN merge_gate g ON g.repo = c.repo AND g.pr = c.pr
    LEFT JOIN sweep_budget b ON b.repo = c.repo AND b.pr = c.pr";

/// The lease, unless another row of the PR took a live lease since the candidate was read
/// (read again here, after the PR's lock was taken).
pub(super) const LEASE: &str = "
    UPDATE queue SET status = 'claimed', owner = $2, leased_until = $3, attempts = attempts + 1,
        updated_at = $4
    WHERE key = $1 AND NOT EXISTS (
        SELECT 1 FROM queue o WHERE o.repo = queue.repo AND o.pr = queue.pr AND o.key <> $1
          AND o.status = 'claimed' AND o.leased_until >= $4)";

/// A row whose attempts are used up is abandoned instead of offered.
pub(super) const ABANDON: &str = "UPDATE queue SET status = 'abandoned', owner = NULL, leased_until = NULL, updated_at = $2 WHERE key = $1";

/// What the candidate statement found.
struct Candidate {
    claim: Claim,
    exhausted: bool,
    locked: bool,
    facts: ClaimFacts,
}

fn candidate(row: &postgres::Row, owner: &str, leased_until: DateTime<Utc>) -> Candidate {
    let attempts = row.get::<_, i32>(5) as u32;
    let max_attempts = row.get::<_, i32>(6) as u32;
    let gate = row.get::<_, Option<String>>(8).map(|head_sha| Gate {
        head_sha,
        approved_at: row.get(9),
        ci_passed_at: row.get(10),
        blocked: row.get(11),
        merged_at: row.get(12),
    });
    Candidate {
        claim: Claim {
            key: row.get(0),
            kind: row.get(1),
            repo: row.get(2),
            pr: row.get::<_, i64>(3) as u64,
            head_sha: row.get(4),
            attempts,
            owner: owner.to_string(),
            leased_until,
        },
        exhausted: attempts >= max_attempts,
        locked: row.get(7),
        facts: ClaimFacts {
            gate,
            budget: sweep::decode(row.get::<_, Option<String>>(13).as_deref()),
        },
    }
}

impl PostgresStore {
    pub(super) fn claim_row(
        &mut self,
        now: DateTime<Utc>,
        owner: &str,
        repos: &[RepoRef],
        lease: Duration,
        admit: &mut Admit<'_>,
    ) -> crate::store::Result<Option<Claim>> {
        let scope: Vec<String> = repos.iter().map(ToString::to_string).collect();
        let leased_until = now + lease;
        let [find, take, abandon] = self.prepared([CANDIDATE, LEASE, ABANDON])?;
        let mut client = self.client();
        let mut transaction = client.transaction()?;
        let mut seen: Vec<String> = Vec::new();
        let mut chosen = None;
        while let Some(row) = transaction.query_opt(&find, &[&now, &scope, &seen])? {
            let Candidate {
                mut claim,
                exhausted,
                locked,
                facts,
            } = candidate(&row, owner, leased_until);
            seen.push(claim.key.clone());
            if exhausted {
                transaction.execute(&abandon, &[&claim.key, &now])?;
                continue;
            }
            // Another host deciding on a row of this PR right now: pass it over.
            if !locked {
                continue;
            }
            claim.attempts += 1;
            if !admit(&claim, &facts, now) {
                continue;
            }
            if transaction.execute(&take, &[&claim.key, &owner, &leased_until, &now])? == 1 {
                chosen = Some(claim);
                break;
            }
        }
        transaction.commit()?;
        Ok(chosen)
    }
}
