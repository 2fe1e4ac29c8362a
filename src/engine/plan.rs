//! The plain data that crosses the seam between the engine and a kind: an item as its listing
//! showed it ([`Listed`]), what the kind decided for it ([`Plan`], with the store's changes
//! that decision calls for in [`Classified`]), and why reading it failed ([`ReadError`]).

use chrono::{DateTime, Utc};

use super::settle::Effect;
use crate::github::model::PullFacts;
use crate::github::ApiError;
use crate::item::ItemRef;
use crate::policy::disposition::Disposition;
use crate::policy::recap::Stop;
use crate::policy::stale::ItemFacts;
use crate::policy::write::{LocalWrite, Write};
use crate::store::queue::Claim;

/// An item of the pool as its listing showed it, for its classification. An entry that did
/// not parse is the item's own failure when it is classified.
pub enum Listed {
    /// From a repository's list of open issues and PRs.
    Issue(Result<ItemFacts, UnreadEntry>),
    /// From a PR search.
    Pull(Result<PullFacts, UnreadEntry>),
    /// A merge from the queue that this run did not lease (a dry run's): the head it was
    /// queued for, where the row names one.
    Queued { head_sha: Option<String> },
    /// A queue row this run leased, and when (on this host's clock) its work started.
    Claimed {
        claim: Claim,
        started: DateTime<Utc>,
    },
}

/// Why a listing's entry could not be read as an item, in GitHub's words or the client's: the
/// item's own failure ([`ReadError::Item`]) once it is classified, never the run's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnreadEntry(String);

impl From<ApiError> for UnreadEntry {
    fn from(error: ApiError) -> Self {
        UnreadEntry(error.to_string())
    }
}

impl From<UnreadEntry> for ReadError {
    fn from(entry: UnreadEntry) -> Self {
        ReadError::Item(entry.0)
    }
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

/// A classification: the plan, and what the store should keep of the read whatever its writes
/// come to (a deferred PR's budget and lease), applied by [`super::settle`] once the item's
/// outcome is known: at once when it has nothing to write, else with its writes' outcome.
#[derive(Clone, Debug)]
pub struct Classified {
    pub plan: Plan,
    pub effects: Vec<Effect>,
}

impl From<Plan> for Classified {
    fn from(plan: Plan) -> Self {
        Classified {
            plan,
            effects: Vec::new(),
        }
    }
}

/// Why reading an item failed, in words fit for the recap.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The item's own data: spends the budget.
    #[error("{0}")]
    Item(String),
    /// The connection: stops the run as an outage.
    #[error("{0}")]
    Harness(String),
    /// The token: stops the run, exit 4.
    #[error("{0}")]
    Auth(String),
    /// The store could not say or keep what the read needs: stops the run as an outage, the
    /// cause kept with what was being done.
    #[error("{0:#}")]
    Store(anyhow::Error),
}

impl ReadError {
    /// A store failure while `doing` something, for `map_err`.
    pub fn store<E: Into<anyhow::Error>>(doing: &'static str) -> impl FnOnce(E) -> ReadError {
        move |error| ReadError::Store(error.into().context(doing))
    }

    /// How it stops the run; `None` for the item's own failure, which spends the budget.
    pub fn stop(&self) -> Option<Stop> {
        match self {
            ReadError::Item(_) => None,
            ReadError::Harness(_) | ReadError::Store(_) => Some(Stop::HarnessOutage),
            ReadError::Auth(_) => Some(Stop::Auth),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_failure_stops_the_run_as_an_outage_with_its_cause_and_what_was_being_done() {
        let cause = anyhow::anyhow!("database is locked").context("reading the queue rows");
        let error = ReadError::store("reading the queue")(cause);
        assert_eq!(error.stop(), Some(Stop::HarnessOutage));
        assert_eq!(
            error.to_string(),
            "reading the queue: reading the queue rows: database is locked"
        );
    }

    #[test]
    fn only_the_items_own_failure_spends_the_budget_instead_of_stopping() {
        assert_eq!(ReadError::Item("gone".into()).stop(), None);
        assert_eq!(ReadError::Auth("bad".into()).stop(), Some(Stop::Auth));
        let outage = ReadError::from(ApiError::Harness {
            message: "502".into(),
        });
        assert_eq!(outage.stop(), Some(Stop::HarnessOutage));
        assert_eq!(outage.to_string(), "502");
    }
}
