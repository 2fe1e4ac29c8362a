//! The one place an item's bookkeeping in the store is applied once its writes to GitHub are
//! done. A kind of sweep says what should change ([`Effect`]s: plain data, decided from what it
//! read and what the writes answered) and never writes the store itself there; [`apply`] carries
//! them out, in order.

use chrono::{DateTime, Utc};

use crate::item::ItemRef;
use crate::policy::sweep::Budget;
use crate::store::Store;

/// One change to the store that an item's completed writes call for.
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// The PR was merged at `head_sha`: the merged marker, set only after a real merge.
    RecordMerged {
        item: ItemRef,
        head_sha: String,
        at: DateTime<Utc>,
    },
    /// The PR's sweep budget after this attempt.
    RecordBudget { item: ItemRef, budget: Budget },
    /// The queue row `key`, leased by `owner`, is done; the PR's other rows pending since
    /// `started` are folded into it.
    CompleteLease {
        key: String,
        owner: String,
        started: DateTime<Utc>,
        now: DateTime<Utc>,
    },
    /// The queue row `key`, leased by `owner`, failed this attempt with `error`.
    FailLease {
        key: String,
        owner: String,
        error: String,
        now: DateTime<Utc>,
    },
}

/// Applies an item's effects to the store, in the order given.
pub(super) fn apply(store: &dyn Store, effects: &[Effect]) -> anyhow::Result<()> {
    for effect in effects {
        match effect {
            Effect::RecordStaleMark {
                item,
                label,
                labeled_at,
                last_write_at,
            } => store.record_stale_mark(item, label, *labeled_at, *last_write_at)?,
            Effect::ForgetStaleMark { item } => store.forget_stale_mark(item)?,
            Effect::RecordMerged { item, head_sha, at } => {
                store.record_merged(item, head_sha, *at)?
            }
            Effect::RecordBudget { item, budget } => store.record_budget(item, budget)?,
            Effect::CompleteLease {
                key,
                owner,
                started,
                now,
            } => {
                store.complete(key, owner, *now)?;
                store.fold(key, *started, *now)?;
            }
            Effect::FailLease {
                key,
                owner,
                error,
                now,
            } => {
                store.fail(key, owner, error, *now)?;
            }
        }
    }
    Ok(())
}
