//! The write phase: for each confirmed item, in pool order, what the limits allow now (the
//! write cap, the rate limit, the pacing at GitHub's per-account ceilings, decided by
//! `policy::pacing`): re-read when the read is old, journal the intent (the item's first write
//! checks that no other run wrote it since it was read), send once, journal the outcome. The
//! items the limits hold are left unfinished, with the reason and when they can go on.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::interrupt;
use super::pace;
use super::read::Pending;
use super::recheck::Watch;
use super::state::State;
use super::{Classifier, Plan, ReadError, Run};
use crate::github::WriteError;
use crate::item::ItemRef;
use crate::policy::pacing;
use crate::policy::recap::{Phase, Stop};
use crate::policy::write::{Write, WriteOutcome};
use crate::store::queue::NewRow;

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
}

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
        classifier: &mut dyn Classifier,
        state: &mut State,
        pending: Vec<Pending>,
        chosen: Vec<bool>,
        limits: pacing::Limits,
    ) -> anyhow::Result<()> {
        let total: usize = pending
            .iter()
            .map(|pending| pending.plan.writes.len())
            .sum();
        let mut pace = Pace {
            sent: 0,
            recent: Vec::new(),
            limits,
            held: None,
        };
        let mut bar = self.ui.progress(total, "writing");
        let mut watch = Watch::default();
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
            let Some((plan, read_at)) = self.recheck(classifier, state, &mut watch, pending) else {
                continue;
            };
            let sent = self.send_item(run_id, state, &mut pace, &mut bar, &plan, read_at)?;
            self.settle_item(classifier, state, &plan, sent)?;
        }
        bar.finish();
        Ok(())
    }

    /// Whether the limits hold the item (and so every item after it, oldest first in pool
    /// order): then it is unfinished with the reason and when it can go on, and the first
    /// time the run stops there. The decision is `pacing::next`'s.
    fn held(&self, state: &mut State, pace: &mut Pace, plan: &Plan) -> anyhow::Result<bool> {
        let writes = pace::remote_writes(&plan.writes);
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
    /// it did not move (`recheck`). Returns the plan to write and when its facts were read, or
    /// `None` when the item is settled otherwise (changed, failed, a stop).
    fn recheck(
        &mut self,
        classifier: &mut dyn Classifier,
        state: &mut State,
        watch: &mut Watch,
        pending: Pending,
    ) -> Option<(Plan, DateTime<Utc>)> {
        // Only a write to GitHub can act on a stale read: an entry in gh-sweep's own queue
        // (poll's enqueue) is checked again by `sweep`'s guard before any merge.
        let local = pending.plan.writes.iter().all(Write::is_local);
        if local || pending.read.elapsed() <= self.options.recheck_after {
            return Some((pending.plan, pending.read_at));
        }
        if !self.must_reread(watch, state, &pending)? {
            return Some((pending.plan, pending.read_at));
        }
        let item = &pending.plan.item;
        let read_at = self.clock.wall();
        // Judged at the run's clock like the first read: `--now` holds for the re-read too.
        match classifier.classify(self.reader, self.store, item, None, self.clock.now()) {
            Ok(fresh) if fresh.disposition != pending.plan.disposition => {
                state.changed(item, &fresh.disposition, &fresh.reason);
                None
            }
            Ok(fresh) => Some((fresh, read_at)),
            Err(ReadError::Item(reason)) => {
                state.failed(item, Phase::Read, reason);
                None
            }
            Err(ReadError::Harness(message)) => {
                state.stop(Stop::HarnessOutage, message);
                None
            }
            Err(ReadError::Auth(message)) => {
                state.stop(Stop::Auth, message);
                None
            }
        }
    }

    /// Sends one item's writes in order, each journaled before and after.
    fn send_item(
        &mut self,
        run_id: i64,
        state: &mut State,
        pace: &mut Pace,
        bar: &mut crate::ui::Progress,
        plan: &Plan,
        read_at: DateTime<Utc>,
    ) -> anyhow::Result<Sent> {
        let item = &plan.item;
        let mut dates = Vec::new();
        let mut first_remote = true;
        for write in &plan.writes {
            bar.advance(&format!("{item}: {write}"));
            if let Write::Enqueue { key, head_sha } = write {
                self.enqueue(item, key, head_sha)?;
                dates.push(self.clock.wall());
                continue;
            }
            if self.pace(state, pace, bar, item, first_remote)? {
                return Ok(Sent::Interrupted);
            }
            // The item's first write checks, atomically, that no other run has written to
            // it since it was read: two overlapping runs never both write one item.
            let journal = if first_remote {
                first_remote = false;
                let first = self.store.journal_first_intent(
                    run_id,
                    item,
                    &write.journal(),
                    read_at,
                    self.now,
                )?;
                match first {
                    Some(journal) => journal,
                    None => return Ok(Sent::Overtaken),
                }
            } else {
                self.store.journal_intent(run_id, item, &write.journal())?
            };
            state.in_flight = Some(item.clone());
            pace.recent.push(self.clock.wall());
            let result = self.writer.send(item, write);
            pace.sent += 1;
            match result {
                Ok(written) => {
                    self.store
                        .journal_outcome(journal, WriteOutcome::Done, "")?;
                    state.in_flight = None;
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
                    let known = if error.outcome_unknown {
                        "outcome unknown: check by hand"
                    } else if error.moved() {
                        "not sent: the item moved"
                    } else {
                        "refused, nothing written by it"
                    };
                    let reason = format!("{write} failed ({known}): {}", error.message);
                    return Ok(Sent::Failed(reason, error));
                }
            }
        }
        Ok(Sent::All(dates))
    }

    /// A local write: the merge goes into gh-sweep's own queue, for `sweep`.
    fn enqueue(&mut self, item: &ItemRef, key: &str, head_sha: &str) -> anyhow::Result<()> {
        let row = NewRow {
            key,
            kind: "merge",
            repo: &item.repo,
            pr: item.number,
            head_sha: Some(head_sha),
            max_attempts: self.options.attempts_per_trigger,
        };
        self.store.enqueue(&row, self.clock.wall())?;
        Ok(())
    }

    /// Waits as long as the pacing asks before the next write, asking again after each wait
    /// (another run of the account may have written meanwhile). Returns true when a signal
    /// stopped the wait before the item's first write (`stoppable`); once an item's writes
    /// have begun, they are finished.
    fn pace(
        &self,
        state: &State,
        pace: &mut Pace,
        bar: &mut crate::ui::Progress,
        item: &ItemRef,
        stoppable: bool,
    ) -> anyhow::Result<bool> {
        loop {
            let (wait, rule) = pacing::wait(&pace.recent, self.clock.wall(), pace.limits.interval);
            let Some(rule) = rule.filter(|_| !wait.is_zero()) else {
                return Ok(false);
            };
            if wait >= Duration::from_secs(2) {
                let note = format!("waiting {}s for {rule}", wait.as_secs());
                bar.note(&note);
                // Without a bar (cron, CI) a long silence deserves a line.
                if !self.ui.stderr_terminal && wait >= Duration::from_secs(10) {
                    self.ui.status(&format!("{item}: {note}"));
                }
            }
            if interrupt::sleep(wait, stoppable) {
                return Ok(true);
            }
            // This run's own writes are in the journal too: each intent is committed first.
            if let Some(account) = &state.account {
                pace.recent = self.recent_writes(account)?;
            }
        }
    }

    /// Records what sending the item's writes came to.
    fn settle_item(
        &mut self,
        classifier: &mut dyn Classifier,
        state: &mut State,
        plan: &Plan,
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
            Sent::Failed(reason, error) => {
                let reason = match classifier.refusal(plan, &error) {
                    Some(meaning) => format!("{reason}; {meaning}"),
                    None => reason,
                };
                state.failed(item, Phase::Write, reason.clone());
                // A refusal for the item's own state (a merge GitHub will not do) is that
                // item's failed attempt; the run goes on. Anything else stops it here.
                // A redirected write (the item moved) wrote nothing anywhere: its own failure.
                let goes_on = error.moved()
                    || (!error.outcome_unknown
                        && classifier.after_refused_write(self.store, plan, &error)?);
                if !goes_on {
                    state.stop(Stop::WriteFailed, format!("{item}: {reason}"));
                }
            }
            Sent::All(dates) => {
                classifier.after_writes(self.store, plan, &dates)?;
                state.completed(item, &plan.disposition, &plan.reason);
                state.sent.insert(
                    item.to_string(),
                    plan.writes.iter().map(ToString::to_string).collect(),
                );
            }
        }
        Ok(())
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
