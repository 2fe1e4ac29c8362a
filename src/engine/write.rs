//! The write phase: for each confirmed item, in pool order, what the limits allow now (the
//! write cap, the rate limit, the pacing at GitHub's per-account ceilings, decided by
//! `policy::pacing`): re-read when the read is old, journal the intent (every write checks that
//! the run holds its heartbeat and no other run wrote the item since it was read), send once,
//! journal the outcome. The
//! items the limits hold are left unfinished, with the reason and when they can go on.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::interrupt;
use super::read::PendingPlan;
use super::recheck::Watch;
use super::settle::{self, Effect};
use super::state::State;
use super::{Classified, Kind, Plan, Run, StoreView, Written};
use crate::github::WriteError;
use crate::item::ItemRef;
use crate::policy::pacing;
use crate::policy::recap::{Phase, Stop};
use crate::policy::write::{LocalWrite, Write, WriteOutcome};
use crate::store::{Admission, IntentStep, PacedIntent};

/// What sending one item's writes came to.
enum Sent {
    /// Every write went through: GitHub's clock at each, where it said.
    All(Vec<DateTime<Utc>>),
    /// A write failed: the recap's reason and GitHub's refusal.
    Failed(String, WriteError),
    /// Another run wrote the item since it was read: nothing sent.
    Overtaken,
    /// A signal arrived before the item's first write.
    Interrupted,
    /// A signal cut a wait between the item's writes short: these were sent, the rest not.
    Cut {
        sent: Vec<String>,
        left: Vec<String>,
    },
    /// The pacing, counted in the store as the item's first write was to be journaled, asks
    /// for a wait past `max_wait`: nothing of the item was sent.
    Held(pacing::Held),
}

/// What the store made of an intent, after any waits the pacing asked for.
enum Admitted {
    Row(i64),
    Overtaken,
    Interrupted,
    Held(pacing::Held),
}

/// Between an item's writes, a wait this short is kept when a signal arrives, so the item's
/// writes end whole (its label and its comment); a longer one is cut short.
const GRACE: Duration = Duration::from_secs(5);

/// The phase's running counts, for the cap and the pacing.
struct Pace {
    sent: u64,
    /// The account's writes of the last hour, other runs' and this run's, ascending.
    recent: Vec<DateTime<Utc>>,
    limits: pacing::Limits,
    /// Why the limits hold the rest of the items, once they do.
    held: Option<pacing::Held>,
}

impl Run<'_> {
    /// Sends the confirmed items' writes.
    pub(super) fn write(
        &mut self,
        run_id: i64,
        kind: &mut dyn Kind,
        state: &mut State,
        pending: Vec<PendingPlan>,
        chosen: Vec<bool>,
        limits: pacing::Limits,
    ) -> anyhow::Result<()> {
        let total: usize = pending.iter().map(|pending| pending.plan.len()).sum();
        let mut pace = Pace {
            sent: 0,
            recent: Vec::new(),
            limits,
            held: None,
        };
        let mut bar = self.ui.progress(total, "writing");
        let mut watch = Watch::default();
        let began = std::time::Instant::now();
        let mut written_items = 0usize;
        for (pending, chosen) in pending.into_iter().zip(chosen) {
            let item = pending.plan.item.clone();
            if !chosen {
                state.unfinished(&item, "not confirmed");
                continue;
            }
            if let Some(held) = &pace.held {
                let account = state.account.as_deref().unwrap_or_default();
                let reason = held.reason(account);
                state.unfinished(&item, &reason);
                continue;
            }
            if state.stopped.is_some_and(|stop| stop != Stop::NotConfirmed) {
                continue;
            }
            if state.interrupted(&format!("before the writes of {item}")) {
                continue;
            }
            if self.held(state, &mut pace, &pending.plan)? {
                continue;
            }
            let Some((plan, effects, read_mark)) =
                self.recheck(kind, state, &mut watch, pending)?
            else {
                continue;
            };
            let before = pace.sent;
            let sent = self.send_item(run_id, state, &mut pace, &mut bar, &plan, read_mark)?;
            written_items += usize::from(pace.sent > before);
            if let Sent::Held(held) = sent {
                let account = state.account.clone().unwrap_or_default();
                if state.stopped.is_none() {
                    state.stop(Stop::WriteLimit, held.detail(&account));
                }
                state.unfinished(&plan.item, &held.reason(&account));
                pace.held = Some(held);
                continue;
            }
            self.settle_item(kind, state, &plan, effects, sent)?;
        }
        bar.finish();
        // The last line on stderr: what the write phase sent to GitHub, and how long it took.
        if pace.sent > 0 {
            self.ui.status(&format!(
                "Sent {} on {} in {}.",
                crate::report::count(pace.sent, "write"),
                crate::report::count(written_items as u64, "item"),
                pacing::duration_text(began.elapsed())
            ));
        }
        Ok(())
    }

    /// Whether the limits hold the item (and so every item after it, oldest first in pool
    /// order): then it is unfinished with the reason and when it can go on, and the first
    /// time the run stops there. The decision is `pacing::next`'s.
    fn held(&self, state: &mut State, pace: &mut Pace, plan: &Plan) -> anyhow::Result<bool> {
        let writes = plan.remote.len();
        let Some(account) = state.account.clone().filter(|_| writes > 0) else {
            return Ok(false);
        };
        // Other runs of the account may have written since: counted from the journal.
        pace.recent = self.recent_writes(&account)?;
        pace.limits.core = self.writer.remaining("core");
        let now = self.clock.wall();
        let Some(held) = pacing::next(writes, pace.sent, &pace.recent, now, &pace.limits) else {
            return Ok(false);
        };
        if state.stopped.is_none() {
            let stop = match held {
                pacing::Held::Cap { .. } => Stop::WriteCap,
                _ => Stop::WriteLimit,
            };
            state.stop(stop, held.detail(&account));
        }
        state.unfinished(&plan.item, &held.reason(&account));
        pace.held = Some(held);
        Ok(true)
    }

    /// A maintainer may have taken a while at the prompt: an item read longer ago than
    /// `recheck_after` is read again before writing, unless GitHub's list of changes shows
    /// it did not move (`recheck`). Returns the plan to write, what its read decided for the
    /// store, and the store's clock when its facts were read, or `None` when the item is
    /// settled otherwise (changed, failed, a stop).
    fn recheck(
        &mut self,
        kind: &mut dyn Kind,
        state: &mut State,
        watch: &mut Watch,
        pending: PendingPlan,
    ) -> anyhow::Result<Option<(Plan, Vec<Effect>, i64)>> {
        // Only a write to GitHub can act on a stale read: an entry in gh-sweep's own queue
        // (poll's enqueue) is checked again by `sweep`'s guard before any merge.
        let local = pending.plan.remote.is_empty();
        if local || pending.read.elapsed() <= self.options.recheck_after {
            return Ok(Some((pending.plan, pending.effects, pending.read_mark)));
        }
        match self.must_reread(watch, state, &pending) {
            None => return Ok(None),
            Some(false) => return Ok(Some((pending.plan, pending.effects, pending.read_mark))),
            Some(true) => {}
        }
        let item = &pending.plan.item;
        let read_mark = self.read_mark();
        // Judged at the run's clock like the first read: `--now` holds for the re-read too.
        let store = StoreView::new(self.store);
        Ok(
            match kind.classify(self.reader, store, item, None, self.clock.now()) {
                Ok(Classified { plan, effects })
                    if plan.disposition != pending.plan.disposition =>
                {
                    // Nothing of it is written: what the fresh read decided is kept at once.
                    settle::apply(self.store, state.run_id, &effects)?;
                    state.changed(item, &plan.disposition, &plan.reason);
                    None
                }
                Ok(Classified { plan, effects }) => Some((plan, effects, read_mark)),
                Err(error) => {
                    match error.stop() {
                        None => state.failed(item, Phase::Read, error.to_string()),
                        Some(stop) => state.stop(stop, error.to_string()),
                    }
                    None
                }
            },
        )
    }

    /// Sends one item's writes in order, each journaled before and after. Each intent is
    /// admitted by the store under the account's pacing (`journal_paced_intent`): the first
    /// reserves the room of the item's later writes, so a run never stalls between them
    /// behind another run's writes.
    fn send_item(
        &mut self,
        run_id: i64,
        state: &mut State,
        pace: &mut Pace,
        bar: &mut crate::ui::Progress,
        plan: &Plan,
        read_mark: i64,
    ) -> anyhow::Result<Sent> {
        let item = &plan.item;
        let mut dates = Vec::new();
        let mut first: Option<i64> = None;
        let mut sent: Vec<String> = Vec::new();
        for (index, write) in plan.remote.iter().enumerate() {
            bar.advance(&format!("{item}: {write}"));
            let step = match first {
                None => IntentStep::First {
                    writes: plan.remote.len(),
                },
                Some(first) => IntentStep::Later { first },
            };
            // Every write checks, atomically, that this run still holds its heartbeat and that
            // no other run has written to the item since it was read: two overlapping runs
            // never both write one item, and a run taken over between two writes of an item
            // never sends the second.
            let journal =
                match self.admit(run_id, state, pace, bar, item, write, step, read_mark)? {
                    Admitted::Row(journal) => journal,
                    Admitted::Overtaken => return Ok(Sent::Overtaken),
                    Admitted::Held(held) => return Ok(Sent::Held(held)),
                    Admitted::Interrupted => {
                        let Some(first) = first else {
                            return Ok(Sent::Interrupted);
                        };
                        self.store.release_reserved(first)?;
                        let left = plan.remote[index..]
                            .iter()
                            .map(ToString::to_string)
                            .collect();
                        return Ok(Sent::Cut { sent, left });
                    }
                };
            first.get_or_insert(journal);
            state.in_flight = Some(item.clone());
            let result = self.writer.send(item, write);
            pace.sent += 1;
            match result {
                Ok(written) => {
                    self.store
                        .journal_outcome(journal, WriteOutcome::Done, "")?;
                    state.in_flight = None;
                    sent.push(write.to_string());
                    dates.push(
                        written
                            .and_then(|written| written.server_date)
                            .unwrap_or_else(crate::clock::wall),
                    );
                }
                Err(error) => {
                    self.store
                        .journal_outcome(journal, outcome_of(&error), &error.message)?;
                    state.in_flight = None;
                    if let Some(first) = first {
                        self.store.release_reserved(first)?;
                    }
                    let reason = self.failure_reason(write, &error);
                    return Ok(Sent::Failed(reason, error));
                }
            }
        }
        for write in &plan.local {
            bar.advance(&format!("{item}: {write}"));
        }
        Ok(Sent::All(dates))
    }

    /// The recap's reason for a write GitHub did not take: what is known of its outcome, and
    /// what happens next.
    fn failure_reason(&self, write: &Write, error: &WriteError) -> String {
        let known = if error.outcome_unknown {
            let settles_at = crate::clock::wall()
                + chrono::Duration::from_std(self.options.settle_after).unwrap_or_default();
            format!(
                "outcome unknown: the next run settles it by asking GitHub (after {})",
                settles_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            )
        } else if error.moved() {
            "not sent: the item moved".to_string()
        } else {
            "refused, nothing written by it".to_string()
        };
        format!("{write} failed ({known}): {}", error.message)
    }

    /// Journals a write's intent once the store's count of the account's writes admits it,
    /// waiting as long as the pacing asks first (another run of the account may write
    /// meanwhile: the store counts again after each wait). A signal cuts a wait short: before
    /// the item's first write always; between its writes unless the wait is shorter than
    /// [`GRACE`]. Before the item's first write, a wait past `max_wait` holds the item.
    #[allow(clippy::too_many_arguments)]
    fn admit(
        &self,
        run_id: i64,
        state: &State,
        pace: &Pace,
        bar: &mut crate::ui::Progress,
        item: &ItemRef,
        write: &Write,
        step: IntentStep,
        read_mark: i64,
    ) -> anyhow::Result<Admitted> {
        let first = matches!(step, IntentStep::First { .. });
        let action = write.journal();
        let Some(account) = state.account.as_deref() else {
            // No account, no ceilings to count: only the order of the journal matters.
            return Ok(self
                .store
                .journal_intent_since(run_id, item, &action, read_mark)?
                .map_or(Admitted::Overtaken, Admitted::Row));
        };
        loop {
            let intent = PacedIntent {
                run_id,
                item,
                action: &action,
                step,
                read_mark,
                account,
                interval: pace.limits.interval,
            };
            let (wait, rule) = match self.store.journal_paced_intent(&intent)? {
                Admission::Journaled(journal) => return Ok(Admitted::Row(journal)),
                Admission::Overtaken => return Ok(Admitted::Overtaken),
                Admission::Wait(wait, rule) => (wait, rule),
            };
            if let Some(max_wait) = pace.limits.max_wait.filter(|_| first) {
                if wait > max_wait && rule != pacing::Limit::Interval {
                    let until =
                        self.clock.wall() + chrono::Duration::from_std(wait).unwrap_or_default();
                    return Ok(Admitted::Held(pacing::Held::Paced {
                        rule,
                        until,
                        max_wait,
                    }));
                }
            }
            // Without a bar (cron, CI) a long silence deserves a line.
            if !self.ui.stderr_terminal && wait >= Duration::from_secs(10) {
                self.ui
                    .status(&format!("{item}: waiting {}s for {rule}", wait.as_secs()));
            }
            // On the bar, a countdown: the seconds left, each second.
            let stoppable = first || wait > GRACE;
            let counting = wait >= Duration::from_secs(2);
            let interrupted = interrupt::sleep(wait, stoppable, |left| {
                if counting {
                    bar.note(&format!("{item}: waiting {left}s for {rule}"));
                }
            });
            if interrupted {
                return Ok(Admitted::Interrupted);
            }
        }
    }

    /// A local write: the merge goes into gh-sweep's own queue, for `sweep`.
    /// The store's side of the item's local writes, applied with the rest of its settlement
    /// (and so fenced like it), once GitHub has every remote write of the item.
    fn local_effects(&self, plan: &Plan) -> Vec<Effect> {
        let now = self.clock.wall();
        plan.local
            .iter()
            .map(|write| match write {
                LocalWrite::Enqueue { key, head_sha } => Effect::Enqueue {
                    key: key.clone(),
                    repo: plan.item.repo.clone(),
                    pr: plan.item.number,
                    head_sha: head_sha.clone(),
                    max_attempts: self.options.attempts_per_trigger,
                    now,
                },
            })
            .collect()
    }

    /// Records what sending the item's writes came to, and applies, in this one place, what
    /// the store keeps of the item: what its read decided (`effects`) and what its writes'
    /// outcome calls for.
    fn settle_item(
        &mut self,
        kind: &mut dyn Kind,
        state: &mut State,
        plan: &Plan,
        mut effects: Vec<Effect>,
        sent: Sent,
    ) -> anyhow::Result<()> {
        let item = &plan.item;
        match sent {
            Sent::Overtaken => {
                state.unfinished(item, "written by another run since it was read");
                state.overtaken = true;
            }
            Sent::Interrupted => {
                state.interrupted(&format!("before the writes of {item}"));
            }
            Sent::Cut { sent, left } => {
                state.interrupted(&format!("between the writes of {item}"));
                let signal = crate::signals::received().map_or("a signal", |signal| signal.name());
                state.unfinished(
                    item,
                    &format!(
                        "{signal} received between its writes: {} sent, {} not sent; the rerun finishes it",
                        sent.join(", "),
                        left.join(", ")
                    ),
                );
            }
            Sent::Held(_) => {}
            Sent::Failed(reason, error) => {
                let store = StoreView::new(self.store);
                let answer = kind.written(store, plan, Written::Refused(&error))?;
                let reason = match answer.meaning {
                    Some(meaning) => format!("{reason}; {meaning}"),
                    None => reason,
                };
                state.failed(item, Phase::Write, reason.clone());
                // A refusal for the item's own state (a merge GitHub will not do) is that
                // item's failed attempt; the run goes on. Anything else stops it here.
                // A redirected write (the item moved) wrote nothing anywhere: its own failure.
                let refused = !error.moved() && !error.outcome_unknown;
                if refused && answer.goes_on {
                    effects.extend(answer.effects);
                }
                settle::apply(self.store, state.run_id, &effects)?;
                if !(error.moved() || refused && answer.goes_on) {
                    state.stop(Stop::WriteFailed, format!("{item}: {reason}"));
                }
                return Ok(());
            }
            Sent::All(dates) => {
                let store = StoreView::new(self.store);
                let answer = kind.written(store, plan, Written::All(&dates))?;
                effects.extend(answer.effects);
                effects.extend(self.local_effects(plan));
                settle::apply(self.store, state.run_id, &effects)?;
                state.completed(item, &plan.disposition, &plan.reason);
                state.sent.insert(item.to_string(), plan.words());
                return Ok(());
            }
        }
        settle::apply(self.store, state.run_id, &effects)
    }
}

/// How the journal records a write GitHub did not take.
fn outcome_of(error: &WriteError) -> WriteOutcome {
    if error.outcome_unknown {
        WriteOutcome::Unknown
    } else if error.moved() {
        WriteOutcome::NotSent
    } else {
        WriteOutcome::Failed
    }
}
