//! What the engine asks of each kind of run (`stale`, `merge`, `sweep`): a [`Kind`] lists its
//! pool, reads what else an item needs and decides, settles its earlier writes of unknown
//! outcome by asking GitHub, and sums the run up. It reads the store through a [`StoreView`]
//! and returns plain data: every change to the store is an [`Effect`] that
//! [`super::settle`] applies.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::plan::{Classified, Listed, Plan, ReadError};
use super::settle::Effect;
use crate::github::{ApiError, Reader, WriteError};
use crate::item::{ItemRef, RepoRef, Scope};
use crate::policy::backoff::Failure;
use crate::policy::disposition::Disposition;
use crate::policy::lease::Owner;
use crate::policy::sweep::{Budget, Gate};
use crate::policy::write::Settled;
use crate::store::queue::{Lease, Pending, Row};
use crate::store::{Admit, RunRow, Store, UnknownWrite};

/// The store as a kind sees it: its read methods only.
#[derive(Clone, Copy)]
pub struct StoreView<'a> {
    store: &'a dyn Store,
}

impl<'a> StoreView<'a> {
    pub fn new(store: &'a dyn Store) -> Self {
        StoreView { store }
    }

    /// When gh-sweep put `label` on the item, and when it last wrote there.
    pub fn stale_mark(
        &self,
        item: &ItemRef,
        label: &str,
    ) -> anyhow::Result<Option<(DateTime<Utc>, DateTime<Utc>)>> {
        Ok(self.store.stale_mark(item, label)?)
    }

    /// Whether a mark of `label` was begun and not finished (its comment's answer lost).
    pub fn mark_unfinished(&self, item: &ItemRef, label: &str) -> anyhow::Result<bool> {
        Ok(self.store.mark_unfinished(item, label)?)
    }

    pub fn runs(&self, limit: usize) -> anyhow::Result<Vec<RunRow>> {
        Ok(self.store.runs(limit)?)
    }

    pub fn recap(&self, run_id: i64) -> anyhow::Result<Option<crate::policy::recap::Recap>> {
        Ok(self.store.recap(Some(run_id))?)
    }

    pub fn gate(&self, item: &ItemRef) -> anyhow::Result<Option<Gate>> {
        Ok(self.store.gate(item)?)
    }

    pub fn gates(&self, repos: &[RepoRef]) -> anyhow::Result<Vec<(ItemRef, Gate)>> {
        Ok(self.store.gates(repos)?)
    }

    /// What `poll` remembers of the repository's last tick, as JSON.
    pub fn poll_memory(&self, repo: &RepoRef) -> anyhow::Result<Option<String>> {
        Ok(self.store.poll_memory(repo)?)
    }

    pub fn budget(&self, item: &ItemRef) -> anyhow::Result<Budget> {
        Ok(self.store.budget(item)?)
    }

    pub fn queue_rows(&self, repo: &RepoRef, pr: u64) -> anyhow::Result<Vec<Row>> {
        Ok(self.store.queue_rows(repo, pr)?)
    }

    pub fn failures(
        &self,
        repo: &RepoRef,
        pr: u64,
        since: DateTime<Utc>,
    ) -> anyhow::Result<Vec<Failure>> {
        Ok(self.store.failures(repo, pr, since)?)
    }

    pub fn pending(&self, repos: &[RepoRef], now: DateTime<Utc>) -> anyhow::Result<Vec<Pending>> {
        Ok(self.store.pending(repos, now)?)
    }

    pub fn leases(&self, repos: &[RepoRef], now: DateTime<Utc>) -> anyhow::Result<Vec<Lease>> {
        Ok(self.store.leases(repos, now)?)
    }

    /// The keys of the rows `owner` still holds.
    pub fn held_by(&self, owner: &Owner) -> anyhow::Result<Vec<String>> {
        Ok(self.store.held_by(owner.as_str())?)
    }
}

/// What listing one repository or organisation found. The notes and the held items stand
/// even when the listing itself failed.
pub struct ScopeListing {
    /// Each item with its list entry, in the order to read them; or why listing failed.
    pub entries: Result<Vec<(ItemRef, Listed)>, ListError>,
    /// Items this run leaves alone because another run still at work holds them, each with
    /// the reason (whose lease, until when): unfinished, not read.
    pub held: Vec<(ItemRef, String)>,
    /// Lines worth telling the maintainer about the listing (a search split into windows).
    pub notes: Vec<String>,
    /// What the store should change before the pool is read (leases of runs that are over
    /// released, lost triggers queued again), applied before any claim.
    pub effects: Vec<Effect>,
    /// Queue rows to lease, one after another, each then read as [`Listed::Claimed`].
    pub claim: Option<ClaimRequest>,
}

impl ScopeListing {
    pub fn of(entries: Result<Vec<(ItemRef, Listed)>, ListError>) -> Self {
        ScopeListing {
            entries,
            held: Vec::new(),
            notes: Vec::new(),
            effects: Vec::new(),
            claim: None,
        }
    }
}

/// Why a repository or organisation could not be listed. Each stops the run; which stop
/// is the engine's to say (`pool::listing_stop`).
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    /// GitHub's answer to a listing request, as the client classified it.
    #[error(transparent)]
    GitHub(#[from] ApiError),
    /// The store could not say or keep what the listing needs (its memory of earlier
    /// ticks, the leases, the queue): the cause is kept, with what was being done.
    #[error("the store: {0:#}")]
    Store(anyhow::Error),
    /// The kind does not list scopes of this shape (the settings refuse `--org` for it, so
    /// this is the engine's own mistake, told rather than panicked on).
    #[error("{0}")]
    Unsupported(&'static str),
}

/// Rows of the queue to lease while `admit` accepts them.
pub struct ClaimRequest {
    pub owner: Owner,
    pub repos: Vec<RepoRef>,
    pub lease: chrono::Duration,
    pub now: DateTime<Utc>,
    /// Decides, inside the claim's transaction, whether a candidate may be leased.
    pub admit: Box<Admit<'static>>,
}

/// An earlier write of unknown outcome, settled by asking GitHub.
pub struct Reconciled {
    pub settled: Settled,
    /// What was found, in words.
    pub found: String,
    /// What the store should keep of it (a merge found on GitHub recorded).
    pub effects: Vec<Effect>,
}

/// What an item's writes came to.
#[derive(Clone, Copy)]
pub enum Written<'a> {
    /// Every write went through: GitHub's clock at each, where it said.
    All(&'a [DateTime<Utc>]),
    /// GitHub refused one of them for the item's own state; nothing was written by it.
    Refused(&'a WriteError),
}

/// A kind's answer to what an item's writes came to.
#[derive(Debug, Default, PartialEq)]
pub struct AfterWrite {
    /// What the store should keep of it.
    pub effects: Vec<Effect>,
    /// After a refusal: whether the run goes on (a refused merge is that PR's failed attempt).
    pub goes_on: bool,
    /// After a refusal: what it means, in words, for the item's recap line.
    pub meaning: Option<String>,
}

/// Counters that summarise the run for a quick look.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Counters {
    Merge(super::merge::MergeCounters),
    Stale(super::stale::StaleCounters),
}

/// The run summed up, for the recap.
#[derive(Default)]
pub struct Summary {
    pub counters: Option<Counters>,
    /// The outputs for a workflow step.
    pub outputs: Option<crate::policy::stale::StaleOutputs>,
}

/// The part of a run that knows its kind of item.
pub trait Kind {
    /// The pool of one repository or organisation: each item with its list entry.
    fn list(&mut self, github: &dyn Reader, store: StoreView<'_>, scope: &Scope) -> ScopeListing;

    /// Reads what else the item needs and decides. `listed` is the list entry when there is
    /// one; without it the item is read on its own.
    fn classify(
        &mut self,
        github: &dyn Reader,
        store: StoreView<'_>,
        item: &ItemRef,
        listed: Option<&Listed>,
        now: DateTime<Utc>,
    ) -> Result<Classified, ReadError>;

    /// Settles an earlier write whose outcome is unknown by asking GitHub, if this kind of
    /// run knows how. `None` leaves the item blocked until a maintainer checks it by hand.
    fn reconcile(
        &mut self,
        github: &dyn Reader,
        store: StoreView<'_>,
        write: &UnknownWrite,
    ) -> Result<Option<Reconciled>, ReadError>;

    /// The run's counters, from the dispositions of the items it completed (in pool order)
    /// and how many failed, and its outputs: `dry_run` says whether the writes were sent.
    fn summary(&self, completed: &[&Disposition], failed: usize, dry_run: bool) -> Summary;

    /// Told the items of an `--only` list before any is classified (each has no list entry
    /// and is read on its own): a kind lets the reader read them all at once, in batches.
    fn read_ahead(&mut self, _github: &dyn Reader, _items: &[ItemRef]) {}

    /// Whether an earlier write of unknown outcome concerns this kind of run: one it settles
    /// or would repeat. Those block their item; any other (a stale sweep's comment, for `poll`)
    /// is mentioned in the recap's notes and the run goes on.
    fn concerns(&self, _write: &UnknownWrite) -> bool {
        true
    }

    /// Why no further item is read (a cap on the run's operations was spent), checked before
    /// each item: the items not reached are unfinished, for the rerun line.
    fn read_cap(&self) -> Option<String> {
        None
    }

    /// Called once the run is recorded, with its id (a sweep names its leases after it).
    fn started(&mut self, _run_id: i64) {}

    /// What an item's writes came to, and what the store should keep of it. By default a
    /// refusal stops the run.
    fn written(
        &mut self,
        _store: StoreView<'_>,
        _plan: &Plan,
        _written: Written<'_>,
    ) -> anyhow::Result<AfterWrite> {
        Ok(AfterWrite::default())
    }

    /// Called once at the end of the run, after the recap is built: what the store should
    /// keep of the whole run (the rows leased and not finished handed back).
    fn finish(&mut self, _store: StoreView<'_>) -> anyhow::Result<Vec<Effect>> {
        Ok(Vec::new())
    }
}
