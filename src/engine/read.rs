//! The read phase, under the item-failure budget: each item of the pool is read and
//! classified in pool order; the run stops before the next item once more items failed than
//! the budget allows, and before any write.

use std::collections::BTreeSet;
use std::time::Instant;

use chrono::{DateTime, Utc};

use super::pool::Listing;
use super::settle::{self, Effect};
use super::state::{RunProgress, State};
use super::{Classified, Kind, Mode, Plan, Run, StoreView};
use crate::item::ItemRef;
use crate::policy::recap::{Phase, Stop};

/// A classified item whose writes wait for the confirmation, with when it was read.
pub(super) struct PendingPlan {
    pub(super) plan: Plan,
    /// What its read decided for the store, applied with its writes' outcome.
    pub(super) effects: Vec<Effect>,
    /// When it was read, on the monotonic clock: a write long after it re-reads first.
    pub(super) read: Instant,
    /// When its facts were asked of GitHub (this host's clock, for GitHub's list of changes).
    pub(super) read_at: DateTime<Utc>,
    /// The store's clock then, for the check that no other run wrote it since.
    pub(super) read_mark: i64,
}

impl Run<'_> {
    /// The store's clock before a read, for the check that no other run wrote the item since.
    /// A store that cannot say gives 0, before every write: the item is then left to any other
    /// run that ever wrote it, never written twice.
    pub(super) fn read_mark(&self) -> i64 {
        self.store.read_mark().unwrap_or(0)
    }
}

/// What reading one item came to, for the loop over the pool.
enum ReadOutcome {
    /// It waits for the confirmation.
    Pending(Box<PendingPlan>),
    /// It is settled here: completed, or failed (counted).
    Settled,
    /// The run stops here.
    Stop,
}

impl Run<'_> {
    /// Reads and classifies the pool. Items with nothing to write (and every item of a
    /// `classify` run) are completed here; the rest are returned in pool order.
    pub(super) fn read(
        &mut self,
        kind: &mut dyn Kind,
        progress: &mut RunProgress,
        listing: &mut Listing,
        blocked: &BTreeSet<ItemRef>,
    ) -> Vec<PendingPlan> {
        let mut pending = Vec::new();
        if progress.state.stopped.is_some() {
            return pending;
        }
        let RunProgress {
            state,
            pool,
            read_capped,
            ..
        } = progress;
        let mut failures = 0u64;
        let mut bar = self.ui.progress(pool.len(), "reading");
        for item in pool.iter() {
            if state.interrupted(&format!("before reading {item}")) {
                break;
            }
            if blocked.contains(item) || listing.held.contains(item) {
                bar.advance(&item.to_string());
                continue;
            }
            if self.options.budget.exhausted(failures, pool.len()) {
                state.stop(
                    Stop::BudgetExhausted,
                    self.budget_spent(failures, pool.len()),
                );
                break;
            }
            if let Some(why) = kind.read_cap() {
                *read_capped = Some(why);
                break;
            }
            bar.advance(&item.to_string());
            match self.read_item(kind, state, listing, item, &mut failures) {
                ReadOutcome::Pending(plan) => pending.push(*plan),
                ReadOutcome::Settled => {}
                ReadOutcome::Stop => break,
            }
        }
        // The last item's failure may be the one that spends the budget.
        if state.stopped.is_none() && self.options.budget.exhausted(failures, pool.len()) {
            state.stop(
                Stop::BudgetExhausted,
                self.budget_spent(failures, pool.len()),
            );
        }
        bar.finish();
        pending
    }

    /// Reads and classifies one item; a failure is counted in `failures`.
    fn read_item(
        &mut self,
        kind: &mut dyn Kind,
        state: &mut State,
        listing: &mut Listing,
        item: &ItemRef,
        failures: &mut u64,
    ) -> ReadOutcome {
        // Taken out of the listing: once the item is classified, what its listing showed is
        // of no more use, and a pool of 100,000 items need not hold every entry to the end.
        let entry = listing.take(item);
        let read_at = entry
            .as_ref()
            .map_or_else(crate::clock::wall, |entry| entry.read_at);
        let read_mark = entry
            .as_ref()
            .map_or_else(|| self.read_mark(), |entry| entry.read_mark);
        let listed = entry.as_ref().map(|entry| &entry.listed);
        let store = StoreView::new(self.store);
        let classified = kind.classify(self.reader, store, item, listed, self.now);
        drop(entry);
        self.reader.done_reading(item);
        match classified {
            Ok(Classified { plan, effects }) if plan.is_empty() || self.mode == Mode::Classify => {
                // Nothing to write: what the read decided for the store is kept at once.
                if let Err(error) = settle::apply(self.store, state.run_id, &effects) {
                    state.stop(Stop::HarnessOutage, format!("the store: {error}"));
                    return ReadOutcome::Stop;
                }
                let detail = if plan.is_empty() {
                    plan.reason.clone()
                } else {
                    state.classified.push(plan.planned());
                    format!("{}; {}", plan.reason, would_text(&plan))
                };
                state.completed(item, &plan.disposition, &detail);
                ReadOutcome::Settled
            }
            Ok(Classified { plan, effects }) => ReadOutcome::Pending(Box::new(PendingPlan {
                plan,
                effects,
                read: Instant::now(),
                read_at,
                read_mark,
            })),
            Err(error) => match error.stop() {
                None => {
                    *failures += 1;
                    state.failed(item, Phase::Read, error.to_string());
                    ReadOutcome::Settled
                }
                Some(stop) => {
                    state.stop(stop, error.to_string());
                    ReadOutcome::Stop
                }
            },
        }
    }

    /// Why the budget stopped the run, in words.
    fn budget_spent(&self, failures: u64, pool: usize) -> String {
        format!(
            "{} failed, more than item_failure_budget = {} allows for {} ({})",
            crate::policy::count(failures, "item"),
            self.options.budget,
            crate::policy::count(pool as u64, "item"),
            self.options.budget.allowed(pool)
        )
    }
}

/// What a classification would do: `would write: label +Stale; comment` for writes to GitHub,
/// `would enqueue merge of abc1234` for an entry in gh-sweep's own queue (no write to GitHub).
fn would_text(plan: &Plan) -> String {
    let mut parts = Vec::new();
    if !plan.remote.is_empty() {
        let remote: Vec<String> = plan.remote.iter().map(ToString::to_string).collect();
        parts.push(format!("would write: {}", remote.join("; ")));
    }
    for write in &plan.local {
        parts.push(format!("would {write}"));
    }
    parts.join("; ")
}

/// The plan's writes in one line, as the plan table shows them.
pub(super) fn writes_text(plan: &Plan) -> String {
    plan.words().join("; ")
}
