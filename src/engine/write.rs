//! The write phase: for each confirmed item, in pool order, under the write cap, the pacing
//! and the rate limit: re-read when the read is old, journal the intent (the item's first
//! write checks that no other run wrote it since it was read), send once, journal the outcome.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use super::interrupt;
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
    started: Instant,
    /// When each write of this run was sent, since `started`.
    sent_at: Vec<Duration>,
    cap_reached: bool,
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
    ) -> anyhow::Result<()> {
        if !self.rate_limit_pays(state, &pending, &chosen) {
            return Ok(());
        }
        let total: usize = pending
            .iter()
            .map(|pending| pending.plan.writes.len())
            .sum();
        let mut pace = Pace {
            sent: 0,
            started: Instant::now(),
            sent_at: Vec::new(),
            cap_reached: false,
        };
        let mut bar = self.ui.progress(total, "writing");
        let mut watch = Watch::default();
        for (pending, chosen) in pending.into_iter().zip(chosen) {
            let item = pending.plan.item.clone();
            if !chosen {
                state.unfinished(&item, "not confirmed");
                continue;
            }
            if state.stopped.is_some_and(|stop| stop != Stop::NotConfirmed) {
                continue;
            }
            if state.interrupted(&format!("before the writes of {item}")) {
                continue;
            }
            if self.over_cap(state, &mut pace, &pending.plan) {
                state.unfinished(&item, "write cap reached");
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

    /// Stops cleanly, before the first write, when the rate limit cannot pay for the writes.
    fn rate_limit_pays(&self, state: &mut State, pending: &[Pending], chosen: &[bool]) -> bool {
        let remote: usize = pending
            .iter()
            .zip(chosen)
            .filter(|(_, chosen)| **chosen)
            .map(|(pending, _)| {
                pending
                    .plan
                    .writes
                    .iter()
                    .filter(|write| !write.is_local())
                    .count()
            })
            .sum();
        let limit = self.writer.remaining("core");
        match pacing::rate_limit_refuses(remote, limit, self.clock.wall()) {
            Some(why) => {
                state.stop(Stop::HarnessOutage, why);
                false
            }
            None => true,
        }
    }

    /// Whether `--max-writes` leaves no room for the item's writes (the first time, the run
    /// stops there; later items are unfinished too).
    fn over_cap(&self, state: &mut State, pace: &mut Pace, plan: &Plan) -> bool {
        let Some(cap) = self.options.max_writes else {
            return false;
        };
        let remote = plan.writes.iter().filter(|write| !write.is_local()).count() as u64;
        if pace.cap_reached || pace.sent + remote > cap {
            pace.cap_reached = true;
            if state.stopped.is_none() {
                state.stop(
                    Stop::WriteCap,
                    format!("--max-writes {cap} reached after {} writes", pace.sent),
                );
            }
            return true;
        }
        false
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
            if self.pace(pace, bar, item, first_remote) {
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
            let result = self.writer.send(item, write);
            pace.sent_at.push(pace.started.elapsed());
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

    /// Waits as long as the pacing asks before the next write. Returns true when a signal
    /// stopped the wait before the item's first write (`stoppable`); once an item's writes have
    /// begun, they are finished.
    fn pace(
        &self,
        pace: &Pace,
        bar: &mut crate::ui::Progress,
        item: &ItemRef,
        stoppable: bool,
    ) -> bool {
        let (wait, why) = pacing::wait(
            &pace.sent_at,
            pace.started.elapsed(),
            self.options.write_interval,
        );
        if wait.is_zero() {
            return false;
        }
        if wait >= Duration::from_secs(2) {
            let note = format!("waiting {}s for {why}", wait.as_secs());
            bar.note(&note);
            // Without a bar (cron, CI) a long silence deserves a line.
            if !self.ui.stderr_terminal && wait >= Duration::from_secs(10) {
                self.ui.status(&format!("{item}: {note}"));
            }
        }
        interrupt::sleep(wait, stoppable)
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
