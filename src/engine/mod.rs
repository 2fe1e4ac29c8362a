//! The engine runs the phases of seed 004 and owns their I/O, one file each: `reconcile`
//! (settle earlier writes of unknown outcome), `pool` (list, and block what those writes
//! hold), `read` (classify under the item-failure budget), `confirm`, `write` (cap, pacing,
//! rate limit, journal, send once) and `recap`. What to do with an item is decided by a
//! [`Kind`] (`stale`, `merge`, `sweep`), whose decisions come from the pure policies and whose
//! changes to the store, returned as effects, `settle` applies; GitHub is reached through the
//! reader and writer ports only.

mod account;
mod confirm;
mod interrupt;
mod kind;
pub(crate) mod merge;
pub(crate) mod merge_reads;
mod plan;
mod pool;
mod read;
mod recap;
mod recheck;
mod reconcile;
mod settle;
pub(crate) mod stale;
mod state;
pub(crate) mod sweep;
mod write;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, Utc};

pub(crate) use confirm::{AssumeYes, Confirm, DryRun, Prompt};
pub(crate) use kind::{
    AfterWrite, ClaimRequest, Counters, Kind, ListError, Reconciled, ScopeListing, StoreView,
    Summary, Written,
};
pub(crate) use plan::{Classified, Listed, Plan, ReadError, UnreadEntry};
pub(crate) use pool::canonicalise_repos;
pub(crate) use settle::Effect;

use crate::clock::Clock;
use crate::github::{Reader, Writer};
use crate::item::{ItemRef, RepoRef};
use crate::policy::budget::FailureBudget;
use crate::policy::recap::{Planned, Recap, Stop};
use crate::store::Store;
use crate::ui::Ui;
use state::{store_failure, RunProgress, State};

/// Whether the run may write.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `classify`: the read phase alone; every classified item is completed.
    Classify,
    /// A sweep: read, confirm, write.
    Sweep,
}

/// What the engine takes of the settings: the pool, the budget, the limits on writing, and
/// what the recap names. Built once from the resolved settings by the command.
#[derive(Clone, Debug)]
pub(crate) struct Options {
    pub repos: Vec<RepoRef>,
    /// Organisations whose repositories make the pool (`poll`, `classify merge`).
    pub orgs: Vec<String>,
    /// `--only`: these items and no others.
    pub only: Option<BTreeSet<ItemRef>>,
    /// The run replays a snapshot: `--only` picks from its saved pool.
    pub from_snapshot: bool,
    /// Nothing is sent (and earlier writes of unknown outcome are not settled).
    pub dry_run: bool,
    /// Ask before local writes too (`poll --confirm`).
    pub confirm_local: bool,
    pub budget: FailureBudget,
    pub max_writes: Option<u64>,
    /// An item read longer ago than this is read again before its writes.
    pub recheck_after: Duration,
    /// The least time between two writes.
    pub write_interval: Duration,
    /// The longest the pacing may wait without a maintainer who saw the plan (`--yes`): past
    /// it, the run stops starting writes and leaves the rest for the next run.
    pub max_wait: Duration,
    /// How long after a write of unknown outcome was sent "not found on GitHub" proves it did
    /// not happen.
    pub settle_after: Duration,
    /// How many tries a queued merge gets.
    pub attempts_per_trigger: u32,
    /// The store's file: a long rerun selector is written beside it.
    pub db: PathBuf,
    /// The command line a rerun starts with (everything but `--only`).
    pub rerun_prefix: String,
    /// GitHub's web address, for the recap's links.
    pub web_url: String,
}

pub(crate) struct Run<'a> {
    /// GitHub's facts, through the reader port.
    pub reader: &'a dyn Reader,
    /// Where the writes go.
    pub writer: &'a dyn Writer,
    pub store: &'a mut dyn Store,
    pub options: &'a Options,
    pub ui: &'a Ui,
    /// The run's clock: decisions at `clock.now()`, records at `clock.wall()`.
    pub clock: Clock,
    /// When the run's decisions are taken: `clock.now()` at its start.
    pub now: DateTime<Utc>,
    pub command: &'a str,
    pub mode: Mode,
    pub argv: String,
    /// What the maintainer should know before the run starts (a renamed repository).
    pub notes: Vec<String>,
}

impl Run<'_> {
    /// Runs every phase and returns the recap, which is stored with the run.
    pub(crate) fn execute(
        mut self,
        kind: &mut dyn Kind,
        confirm: &mut dyn Confirm,
    ) -> anyhow::Result<Recap> {
        let run_id = self.store.start_run(self.command, &self.argv)?;
        kind.started(run_id);
        let mut progress = RunProgress {
            state: State {
                run_id,
                outcomes: BTreeMap::new(),
                stopped: None,
                stop_detail: None,
                exit_override: None,
                in_flight: None,
                sent: BTreeMap::new(),
                started_at: self.clock.wall(),
                account: None,
                overtaken: false,
                classified: Vec::new(),
            },
            pool: Vec::new(),
            pool_complete: true,
            notes: self.notes.clone(),
            blocked: false,
            read_capped: None,
        };
        match self.phases(kind, confirm, &mut progress) {
            Ok(recap) => Ok(recap),
            Err(error) if store_failure(&error) => {
                Ok(self.after_store_failure(kind, progress, &error))
            }
            Err(error) => Err(error),
        }
    }

    /// The phases in order; each leaves what it found in `progress`.
    fn phases(
        &mut self,
        kind: &mut dyn Kind,
        confirm: &mut dyn Confirm,
        progress: &mut RunProgress,
    ) -> anyhow::Result<Recap> {
        let settles_at = if self.mode == Mode::Sweep && !self.options.dry_run {
            self.reconcile(kind, progress)?
        } else {
            BTreeMap::new()
        };
        let mut listing = self.pool(kind, progress);
        let blocked = self.block_unknown(kind, progress, &settles_at)?;
        let pending = self.read(kind, progress, &mut listing, &blocked);
        drop(listing);
        self.reader.read_phase_over();
        let classified = std::mem::take(&mut progress.state.classified);
        let planned: Vec<Planned> = classified
            .into_iter()
            .chain(pending.iter().map(|pending| pending.plan.planned()))
            .collect();
        progress.blocked = !blocked.is_empty();
        let writes = self.mode == Mode::Sweep && !self.options.dry_run && !confirm.dry_run();
        if writes && progress.state.stopped.is_none() {
            self.learn_account(progress.state.run_id, &mut progress.state, &pending)?;
        }
        if progress.state.stopped.is_none() && !pending.is_empty() {
            let chosen = self.confirm(confirm, &mut progress.state, &pending)?;
            if let Some(chosen) = chosen {
                let run_id = progress.state.run_id;
                let limits = self.limits(confirm.asks());
                self.write(run_id, kind, &mut progress.state, pending, chosen, limits)?;
            }
        }
        if let Some(why) = progress.read_capped.take() {
            if progress.state.stopped.is_none() {
                progress.state.stop(Stop::WriteCap, why);
            }
        }
        let recap = self.build_recap(
            kind,
            progress.state.run_id,
            &progress.state,
            &progress.pool,
            progress.pool_complete,
            planned,
            std::mem::take(&mut progress.notes),
            progress.blocked,
        );
        let effects = kind.finish(StoreView::new(self.store))?;
        settle::apply(self.store, progress.state.run_id, &effects)?;
        self.store.finish_run(&recap)?;
        // What no decision needs any more goes, a bounded share each run, so the next run
        // costs no more for this one. The run is recorded: a failure here
        // costs space, not correctness.
        if let Err(error) = self.store.prune(self.clock.wall()) {
            self.ui.warn(&format!("{error:#}"));
        }
        Ok(recap)
    }
}
