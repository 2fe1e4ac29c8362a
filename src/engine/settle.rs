//! The one place a run's bookkeeping in the store is applied. A kind says what should change
//! ([`Effect`]s: plain data, decided from what it read and what the writes answered) and never
//! writes the store itself; [`apply`] carries them out, in order: a listing's (leases of runs
//! that are over, lost triggers queued again), an earlier write's settlement, an item's once
//! its outcome is known (what its read decided and what its writes came to), and the run's last.
//! The store has no transaction spanning several of its calls: each effect is its own.

use chrono::{DateTime, Utc};

use crate::item::{ItemRef, RepoRef};
use crate::policy::lease::{LeaseOutcome, Owner};
use crate::policy::sweep::{Budget, Gate};
use crate::store::queue::NewRow;
use crate::store::Store;

/// One change to the store.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// gh-sweep put `label` on at `labeled_at` (GitHub's clock, where it said), and its last
    /// write there was at `last_write_at`: the close clock starts at the label.
    RecordStaleMark {
        item: ItemRef,
        label: String,
        labeled_at: DateTime<Utc>,
        last_write_at: DateTime<Utc>,
    },
    /// The item was un-staled or closed: its stale mark is forgotten.
    ForgetStaleMark { item: ItemRef },
    /// The PR was merged at `head_sha`: the merged marker, set only after a real merge (or
    /// one found on GitHub).
    RecordMerged {
        item: ItemRef,
        head_sha: String,
        at: DateTime<Utc>,
    },
    /// The PR is merged: every live merge row of it is done.
    SettleMerged { item: ItemRef, now: DateTime<Utc> },
    /// A merge was found not to have happened: the PR's claimed rows go back to pending.
    ReopenClaims { item: ItemRef, now: DateTime<Utc> },
    /// The PR's sweep budget after this attempt.
    RecordBudget { item: ItemRef, budget: Budget },
    /// What the merge gate keeps of the PR now.
    RecordGate {
        item: ItemRef,
        gate: Gate,
        now: DateTime<Utc>,
    },
    /// What a run saw of each PR, for the merge gate: stored in one transaction.
    RecordGates(Vec<(ItemRef, Gate, DateTime<Utc>)>),
    /// What `poll` remembers of each repository's tick, as JSON (`merge_memory.rs`).
    RecordPollMemory(Vec<(RepoRef, String)>),
    /// A merge row for the PR's head, unless its key is queued already (a lost trigger).
    Enqueue {
        key: String,
        repo: RepoRef,
        pr: u64,
        head_sha: String,
        max_attempts: u32,
        now: DateTime<Utc>,
    },
    /// The queue row `key`, leased by `owner`, comes to `outcome`; `started` is when its work
    /// started (a completed row folds the PR's rows pending since then).
    Lease {
        key: String,
        owner: Owner,
        outcome: LeaseOutcome,
        started: DateTime<Utc>,
        now: DateTime<Utc>,
    },
}

/// Applies effects to the store, in the order given.
pub(super) fn apply(store: &dyn Store, effects: &[Effect]) -> anyhow::Result<()> {
    for effect in effects {
        apply_one(store, effect)?;
    }
    Ok(())
}

fn apply_one(store: &dyn Store, effect: &Effect) -> anyhow::Result<()> {
    match effect {
        Effect::RecordStaleMark {
            item,
            label,
            labeled_at,
            last_write_at,
        } => store.record_stale_mark(item, label, *labeled_at, *last_write_at)?,
        Effect::ForgetStaleMark { item } => store.forget_stale_mark(item)?,
        Effect::RecordMerged { item, head_sha, at } => store.record_merged(item, head_sha, *at)?,
        Effect::SettleMerged { item, now } => {
            store.settle_merged(item, *now)?;
        }
        Effect::ReopenClaims { item, now } => {
            store.reopen_claims(item, *now)?;
        }
        Effect::RecordBudget { item, budget } => store.record_budget(item, budget)?,
        Effect::RecordGate { item, gate, now } => store.record_gate(item, gate, *now)?,
        Effect::RecordGates(observed) => store.record_gates(observed)?,
        Effect::RecordPollMemory(memories) => store.record_poll_memory(memories)?,
        Effect::Enqueue {
            key,
            repo,
            pr,
            head_sha,
            max_attempts,
            now,
        } => {
            let row = NewRow {
                key,
                kind: "merge",
                repo,
                pr: *pr,
                head_sha: Some(head_sha),
                max_attempts: *max_attempts,
            };
            store.enqueue(&row, *now)?;
        }
        Effect::Lease {
            key,
            owner,
            outcome,
            started,
            now,
        } => lease(store, key, owner, outcome, *started, *now)?,
    }
    Ok(())
}

/// A lease's outcome as the queue's calls. Each answers false when the row is no longer this
/// owner's (another run released it first): nothing is left to do then.
fn lease(
    store: &dyn Store,
    key: &str,
    owner: &Owner,
    outcome: &LeaseOutcome,
    started: DateTime<Utc>,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let owner = owner.as_str();
    match outcome {
        LeaseOutcome::Complete => {
            store.complete(key, owner, now)?;
            store.fold(key, started, now)?;
        }
        LeaseOutcome::Release => {
            store.release(key, owner, now)?;
        }
        LeaseOutcome::ReleaseUnattempted => {
            store.release_unattempted(key, owner, now)?;
        }
        LeaseOutcome::Abandon => {
            store.abandon(key, owner, now)?;
        }
        LeaseOutcome::Fail { error } => {
            store.fail(key, owner, error, now)?;
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "tests/settle.rs"]
mod tests;
