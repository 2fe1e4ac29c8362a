//! What the engine asks of each kind of sweep: a [`Classifier`] lists its pool, reads what
//! else an item needs and decides, settles its own writes of unknown outcome, and keeps its
//! bookkeeping. The plain data that crosses the seam ([`Plan`], [`Listed`], [`ReadError`]).

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::github::model::PullFacts;
use crate::github::{ApiError, Reader, WriteError};
use crate::item::{ItemRef, Scope};
use crate::policy::disposition::Disposition;
use crate::policy::stale::ItemFacts;
use crate::policy::write::{LocalWrite, Settled, Write};
use crate::store::{Store, UnknownWrite};

/// An item of the pool as its listing showed it, for its classification. An entry that did
/// not parse is the item's own failure when it is classified.
pub enum Listed {
    /// From a repository's list of open issues and PRs.
    Issue(Result<ItemFacts, String>),
    /// From a PR search.
    Pull(Result<PullFacts, String>),
    /// A merge taken from the queue: the head it was queued for, where the row names one.
    Queued { head_sha: Option<String> },
}

/// A classified item and the writes its disposition needs.
#[derive(Clone, Debug)]
pub struct Plan {
    pub item: ItemRef,
    pub title: String,
    pub disposition: Disposition,
    pub reason: String,
    /// Its writes to GitHub, in order: journaled, paced, each sent at most once.
    pub remote: Vec<Write>,
    /// Its writes to gh-sweep's own store (the merge queue), applied once the writes to
    /// GitHub went out.
    pub local: Vec<LocalWrite>,
    /// GitHub's `updated_at` of the item as it was read, for a kind of sweep whose plans
    /// depend on nothing that leaves it unmoved (the stale rules): a long write phase then
    /// reads the item again only when GitHub's list of changes shows it moved. `None` (a
    /// merge, whose check results do not move it) reads the item again in full.
    pub updated_at: Option<DateTime<Utc>>,
}

impl Plan {
    /// Whether the disposition needs no write at all.
    pub fn is_empty(&self) -> bool {
        self.remote.is_empty() && self.local.is_empty()
    }

    /// How many writes it needs, to GitHub and to the store.
    pub fn len(&self) -> usize {
        self.remote.len() + self.local.len()
    }

    /// The recap's entry for it: what it would write, and why.
    pub fn planned(&self) -> crate::policy::recap::Planned {
        crate::policy::recap::Planned {
            item: self.item.to_string(),
            disposition: self.disposition.to_string(),
            detail: self.reason.clone(),
            writes: self.words(),
        }
    }

    /// The words of each write, as the plan and the recap name them: GitHub's first.
    pub fn words(&self) -> Vec<String> {
        self.remote
            .iter()
            .map(ToString::to_string)
            .chain(self.local.iter().map(ToString::to_string))
            .collect()
    }
}

/// Why reading an item failed.
#[derive(Debug)]
pub enum ReadError {
    /// The item's own data: spends the budget.
    Item(String),
    /// The connection: stops the run as an outage.
    Harness(String),
    /// The token: stops the run, exit 4.
    Auth(String),
}

impl From<ApiError> for ReadError {
    fn from(error: ApiError) -> Self {
        match error {
            ApiError::Item { message, .. } => ReadError::Item(message),
            ApiError::Auth { message, .. } => ReadError::Auth(message),
            ApiError::Harness { message } => ReadError::Harness(message),
        }
    }
}

/// The part of a sweep that knows its kind of item.
pub trait Classifier {
    /// The pool of one repository or organisation: each item with its list entry.
    fn list(
        &mut self,
        github: &dyn Reader,
        store: &mut dyn Store,
        scope: &Scope,
    ) -> Result<Vec<(ItemRef, Listed)>, ApiError>;

    /// Told the items of an `--only` list before any is classified (each has no list entry
    /// and is read on its own): a kind lets the reader read them all at once, in batches.
    fn read_ahead(&mut self, _github: &dyn Reader, _items: &[ItemRef]) {}

    /// Settles an earlier write whose outcome is unknown by asking GitHub, if this kind of
    /// sweep knows how: `Some((what was found, in words))`. `None` leaves the item blocked
    /// until a maintainer checks it by hand.
    fn reconcile(
        &mut self,
        _github: &dyn Reader,
        _store: &dyn Store,
        _write: &UnknownWrite,
    ) -> Result<Option<(Settled, String)>, ReadError> {
        Ok(None)
    }

    /// After GitHub refused one of an item's writes for that item's own state: `Some(effects)`
    /// when the run goes on (a refused merge is that PR's failed attempt), with what the store
    /// should keep of it, which the engine applies; `None` stops the run.
    fn after_refused_write(
        &mut self,
        _store: &dyn Store,
        _plan: &Plan,
        _error: &WriteError,
    ) -> anyhow::Result<Option<Vec<super::settle::Effect>>> {
        Ok(None)
    }

    /// What GitHub's refusal of one of the item's writes means, in words, for its recap line.
    fn refusal(&self, _plan: &Plan, _error: &WriteError) -> Option<String> {
        None
    }

    /// Called once at the end of the run, after the recap is built.
    fn finish(&mut self, _store: &dyn Store) -> anyhow::Result<()> {
        Ok(())
    }

    /// Lines worth telling the maintainer about the listing (a search split into windows).
    fn notes(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// Whether an earlier write of unknown outcome concerns this kind of run: one it settles
    /// or would repeat. Those block their item; any other (a stale sweep's comment, for `poll`)
    /// is mentioned in the recap's notes and the run goes on.
    fn concerns(&self, _write: &UnknownWrite) -> bool {
        true
    }

    /// The run's outputs for a workflow step, as JSON: `dry_run` says whether the planned
    /// writes were sent.
    fn outputs(&self, _dry_run: bool) -> Option<Value> {
        None
    }

    /// Why no further item is read (a cap on the run's operations was spent), checked before
    /// each item: the items not reached are unfinished, for the rerun line.
    fn read_cap(&self) -> Option<String> {
        None
    }

    /// Called once the run is recorded, with its id (a sweep names its leases after it).
    fn started(&mut self, _run_id: i64) {}

    /// Items of the listing this run leaves alone because another run still at work holds
    /// them, each with the reason (whose lease, until when). They are unfinished, not read.
    fn held_elsewhere(&mut self) -> Vec<(ItemRef, String)> {
        Vec::new()
    }

    /// Counters that summarise the run for a quick look: from the dispositions of the items
    /// it completed, in pool order, and how many items failed.
    fn counters(&self, _completed: &[&Disposition], _failed: usize) -> Option<Value> {
        None
    }

    /// Reads what else the item needs and decides. `listed` is the list entry when there is
    /// one; without it the item is read on its own.
    fn classify(
        &mut self,
        github: &dyn Reader,
        store: &dyn Store,
        item: &ItemRef,
        listed: Option<&Listed>,
        now: DateTime<Utc>,
    ) -> Result<Plan, ReadError>;

    /// What the store should keep once all of an item's writes succeeded, as effects the
    /// engine applies ([`super::settle::apply`]); the store is only read here. `dates` holds
    /// GitHub's clock at each write, where it said.
    fn after_writes(
        &mut self,
        store: &dyn Store,
        plan: &Plan,
        dates: &[DateTime<Utc>],
    ) -> anyhow::Result<Vec<super::settle::Effect>>;
}
