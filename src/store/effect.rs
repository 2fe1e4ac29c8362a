//! What a run asks the store to change, as plain data ([`Effect`]), and how one settlement's
//! effects become the store's own calls ([`apply_each`]). A backend's [`super::Store::settle`]
//! runs `apply_each` inside one transaction of its own, after checking that the runs it acts
//! for still hold their heartbeat, so an item's (or a listing's) effects land all together or
//! not at all. The engine decides the effects (its `settle` module hands them over); the
//! store never decides them.

use chrono::{DateTime, Utc};

use super::queue::NewRow;
use super::{MergeGate, MergeQueue, PollMemory, StaleMarks};
use crate::item::{ItemRef, RepoRef};
use crate::policy::lease::{LeaseOutcome, Owner};
use crate::policy::sweep::{Budget, Gate};

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
    /// What a run saw of each PR, for the merge gate (stored with the rest of its settlement).
    RecordGates(Vec<(ItemRef, Gate, DateTime<Utc>)>),
    /// What `poll` remembers of each repository's tick, as JSON (`engine/merge_memory.rs`).
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

/// What one settlement did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Effects carried out (all of those given: a settlement is whole or refused).
    pub effects: usize,
    /// Lease outcomes whose row was no longer the owner's (another run released or claimed
    /// it first): they changed nothing.
    pub not_held: usize,
}

/// Carries out `effects` in order through the store's own calls. Only a backend's
/// [`super::Store::settle`] calls it, inside its transaction: none of the calls it makes opens
/// one of its own (a run's gate observations are recorded one by one here, not with
/// [`MergeGate::record_gates`], which would).
pub(crate) fn apply_each<S>(store: &S, effects: &[Effect]) -> super::Result<Applied>
where
    S: MergeQueue + MergeGate + StaleMarks + PollMemory + ?Sized,
{
    let mut applied = Applied::default();
    for effect in effects {
        if !apply_one(store, effect)? {
            applied.not_held += 1;
        }
        applied.effects += 1;
    }
    Ok(applied)
}

/// One effect; false when it was a lease outcome for a row the owner no longer holds.
fn apply_one<S>(store: &S, effect: &Effect) -> super::Result<bool>
where
    S: MergeQueue + MergeGate + StaleMarks + PollMemory + ?Sized,
{
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
        Effect::RecordGates(observed) => {
            for (item, gate, at) in observed {
                store.record_gate(item, gate, *at)?;
            }
        }
        Effect::RecordPollMemory(memories) => {
            for (repo, memory) in memories {
                store.record_poll_memory(repo, memory)?;
            }
        }
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
        } => return lease(store, key, owner, outcome, *started, *now),
    }
    Ok(true)
}

/// A lease's outcome as the queue's calls. Each answers false when the row is no longer this
/// owner's (another run released it first): nothing is left to do then.
fn lease<S>(
    store: &S,
    key: &str,
    owner: &Owner,
    outcome: &LeaseOutcome,
    started: DateTime<Utc>,
    now: DateTime<Utc>,
) -> super::Result<bool>
where
    S: MergeQueue + ?Sized,
{
    let owner = owner.as_str();
    Ok(match outcome {
        LeaseOutcome::Complete => {
            let held = store.complete(key, owner, now)?;
            // The merge happened whoever holds the row now: what was pending for it is done.
            store.fold(key, started, now)?;
            held
        }
        LeaseOutcome::Release => store.release(key, owner, now)?,
        LeaseOutcome::ReleaseUnattempted => store.release_unattempted(key, owner, now)?,
        LeaseOutcome::Abandon => store.abandon(key, owner, now)?,
        LeaseOutcome::Fail { error } => store.fail(key, owner, error, now)?,
    })
}
