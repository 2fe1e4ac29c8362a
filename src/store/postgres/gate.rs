//! The merge gate of seed 001 and the sweep budgets in PostgreSQL: per PR, what `poll`
//! observed and the merged marker; a missing or damaged budget reads as fresh.

use chrono::{DateTime, Utc};
use postgres::GenericClient;

use super::PostgresStore;
use crate::item::{ItemRef, RepoRef};
use crate::policy::sweep::{self, Budget, Gate};
use crate::store::MergeGate;

/// A PR's gate entry, on any connection or transaction (a claim reads it inside its own).
pub(super) fn gate_on(
    client: &mut impl GenericClient,
    repo: &str,
    pr: u64,
) -> crate::store::Result<Option<Gate>> {
    let row = client.query_opt(
        "SELECT head_sha, approved_at, ci_passed_at, blocked, merged_at FROM merge_gate
         WHERE repo = $1 AND pr = $2",
        &[&repo, &(pr as i64)],
    )?;
    Ok(row.map(|row| Gate {
        head_sha: row.get(0),
        approved_at: row.get(1),
        ci_passed_at: row.get(2),
        blocked: row.get(3),
        merged_at: row.get(4),
    }))
}

/// A PR's sweep budget on any connection; missing or damaged reads as fresh.
pub(super) fn budget_on(
    client: &mut impl GenericClient,
    repo: &str,
    pr: u64,
) -> crate::store::Result<Budget> {
    let row = client.query_opt(
        "SELECT budget FROM sweep_budget WHERE repo = $1 AND pr = $2",
        &[&repo, &(pr as i64)],
    )?;
    let stored: Option<String> = row.map(|row| row.get(0));
    Ok(sweep::decode(stored.as_deref()))
}

const RECORD_GATE: &str =
    "INSERT INTO merge_gate (repo, pr, head_sha, approved_at, ci_passed_at, blocked, observed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (repo, pr) DO UPDATE SET head_sha = $3, approved_at = $4, ci_passed_at = $5,
         blocked = $6, observed_at = $7";

fn record_gate_on(
    client: &mut impl GenericClient,
    item: &ItemRef,
    gate: &Gate,
    observed_at: DateTime<Utc>,
) -> crate::store::Result<()> {
    client.execute(
        RECORD_GATE,
        &[
            &item.repo.to_string(),
            &(item.number as i64),
            &gate.head_sha,
            &gate.approved_at,
            &gate.ci_passed_at,
            &gate.blocked,
            &observed_at,
        ],
    )?;
    Ok(())
}

impl MergeGate for PostgresStore {
    fn gate(&self, item: &ItemRef) -> crate::store::Result<Option<Gate>> {
        gate_on(&mut *self.client(), &item.repo.to_string(), item.number)
    }

    fn gates(&self, repos: &[RepoRef]) -> crate::store::Result<Vec<(ItemRef, Gate)>> {
        let mut found = Vec::new();
        for repo in repos {
            let rows = self.client().query(
                "SELECT pr, head_sha, approved_at, ci_passed_at, blocked, merged_at FROM merge_gate
                 WHERE repo = $1 ORDER BY pr",
                &[&repo.to_string()],
            )?;
            for row in &rows {
                let gate = Gate {
                    head_sha: row.get(1),
                    approved_at: row.get(2),
                    ci_passed_at: row.get(3),
                    blocked: row.get(4),
                    merged_at: row.get(5),
                };
                found.push((ItemRef::new(repo, row.get::<_, i64>(0) as u64), gate));
            }
        }
        Ok(found)
    }

    fn record_gate(
        &self,
        item: &ItemRef,
        gate: &Gate,
        observed_at: DateTime<Utc>,
    ) -> crate::store::Result<()> {
        record_gate_on(&mut *self.client(), item, gate, observed_at)
    }

    fn record_gates(
        &self,
        observations: &[(ItemRef, Gate, DateTime<Utc>)],
    ) -> crate::store::Result<()> {
        if observations.is_empty() {
            return Ok(());
        }
        let mut client = self.client();
        let mut transaction = client.transaction()?;
        for (item, gate, at) in observations {
            record_gate_on(&mut transaction, item, gate, *at)?;
        }
        transaction.commit()?;
        Ok(())
    }

    fn record_merged(
        &self,
        item: &ItemRef,
        head_sha: &str,
        at: DateTime<Utc>,
    ) -> crate::store::Result<()> {
        self.client().execute(
            "INSERT INTO merge_gate (repo, pr, head_sha, merged_at, observed_at) VALUES ($1, $2, $3, $4, $4)
             ON CONFLICT (repo, pr) DO UPDATE SET merged_at = $4, blocked = 'merged'",
            &[&item.repo.to_string(), &(item.number as i64), &head_sha, &at],
        )?;
        Ok(())
    }

    fn budget(&self, item: &ItemRef) -> crate::store::Result<Budget> {
        budget_on(&mut *self.client(), &item.repo.to_string(), item.number)
    }

    fn record_budget(&self, item: &ItemRef, budget: &Budget) -> crate::store::Result<()> {
        self.client().execute(
            "INSERT INTO sweep_budget (repo, pr, budget) VALUES ($1, $2, $3)
             ON CONFLICT (repo, pr) DO UPDATE SET budget = $3",
            &[
                &item.repo.to_string(),
                &(item.number as i64),
                &sweep::encode(budget),
            ],
        )?;
        Ok(())
    }

    fn settle_merged(&self, item: &ItemRef, now: DateTime<Utc>) -> crate::store::Result<usize> {
        Ok(self.client().execute(
            "UPDATE queue SET status = 'done', owner = NULL, leased_until = NULL, updated_at = $3
             WHERE repo = $1 AND pr = $2 AND kind = 'merge' AND status IN ('pending', 'claimed')",
            &[&item.repo.to_string(), &(item.number as i64), &now],
        )? as usize)
    }

    fn reopen_claims(&self, item: &ItemRef, now: DateTime<Utc>) -> crate::store::Result<usize> {
        Ok(self.client().execute(
            "UPDATE queue SET status = 'pending', owner = NULL, leased_until = NULL, updated_at = $3
             WHERE repo = $1 AND pr = $2 AND kind = 'merge' AND status = 'claimed'",
            &[&item.repo.to_string(), &(item.number as i64), &now],
        )? as usize)
    }
}
