//! The ports between the engine and GitHub: a [`Reader`] of the facts each kind of sweep needs,
//! already in the plain types the policies take, and a [`Writer`] of the writes. The REST client
//! implements both (`rest.rs`), live or replaying a snapshot; the GraphQL reader (`graphql/`,
//! the default) implements the reader, and writes always go through REST. The engine holds them
//! as `&dyn Reader` and `&dyn Writer` and never sees a URL or GitHub's JSON.
//!
//! Every read answers GitHub's facts or an [`ApiError`]: an answer that does not parse is the
//! item's own failure (`ApiError::Item` without a status), like a 404.

use chrono::{DateTime, Utc};

use super::client::{ApiError, WriteError, WriteReceipt};
use super::model::{Event, PullFacts};
use crate::item::{ItemRef, RepoRef};
use crate::policy::merge::{
    Access, BranchRules, ChangedFile, CheckRun, CheckSuite, ClassicProtection, MergeSettings,
    Review, Statuses, WorkflowRun,
};
use crate::policy::stale::{Activity, HeadBranch, ItemFacts};
use crate::policy::write::Write;

/// A repository as GitHub names it: its canonical `full_name` (names are matched whatever
/// their case, and an old name redirects after a rename) and its `id`, which never changes.
pub struct Repository {
    pub full_name: RepoRef,
    pub id: u64,
    /// GitHub redirected the read: the repository was renamed or transferred.
    pub moved: bool,
}

/// One entry of a repository's list of open issues and PRs. An entry that does not parse is
/// that item's failure, found when it is classified, not the listing's.
pub struct ListedItem {
    pub number: Option<u64>,
    pub facts: Result<ItemFacts, ApiError>,
}

/// One result of a PR search.
pub struct SearchHit {
    pub repo: Option<RepoRef>,
    pub number: Option<u64>,
    /// `None` when the result does not say.
    pub draft: Option<bool>,
    pub facts: Result<PullFacts, ApiError>,
}

/// The search API's answer for one query: its results and whether GitHub says it cut them.
pub struct SearchPage {
    pub items: Vec<SearchHit>,
    pub total: u64,
    /// GitHub's `incomplete_results`: the query hit its time limit. The results may still
    /// be complete; the recap says so and the run goes on.
    pub incomplete: bool,
}

impl SearchPage {
    /// The recap's note for an incomplete search, when it was one.
    pub fn incomplete_note(&self, query: &str) -> Option<String> {
        self.incomplete.then(|| {
            format!(
                "GitHub's search for `{query}` timed out and answered with incomplete_results: true; the results may still be complete, and an item it missed is read by the next run"
            )
        })
    }
}

/// A PR as a repository's list of PRs by update shows it, for `poll`'s repeat tick.
pub struct ChangedPull {
    pub number: u64,
    /// The pull request's own `updatedAt`.
    pub updated_at: DateTime<Utc>,
    pub open: bool,
    pub draft: bool,
}

/// A comment on an issue or PR: who and when, and its body (a reconcile looks for its marker).
pub struct Comment {
    pub activity: Activity,
    pub body: String,
}

/// What every kind of run reads: repositories, the token's user, GitHub's clock.
pub trait CommonReader {
    /// A repository by the name given, following a rename.
    fn repository(&self, repo: &RepoRef) -> Result<Repository, ApiError>;
    /// How many repositories an organisation has, as far as the token may see.
    fn org_repository_count(&self, org: &str) -> Result<u64, ApiError>;
    /// The token's own login, or `None` when the token cannot say (an app installation).
    fn viewer(&self) -> Result<Option<String>, ApiError>;
    /// `local` moved onto GitHub's clock, as far as GitHub's answers have shown it.
    fn on_github_clock(&self, local: DateTime<Utc>) -> DateTime<Utc>;
    /// GitHub's clock and ours at one moment, asked of GitHub when not known yet.
    fn server_clock(&self) -> Option<(DateTime<Utc>, DateTime<Utc>)>;
}

/// What the stale rules read.
pub trait StaleReader {
    /// The open issues and PRs of a repository, oldest first.
    fn open_items(&self, repo: &RepoRef) -> Result<Vec<ListedItem>, ApiError>;
    /// One issue or PR on its own.
    fn item(&self, item: &ItemRef) -> Result<ItemFacts, ApiError>;
    /// The item's issue events (label events carry the label's name as it was then).
    fn events(&self, item: &ItemRef) -> Result<Vec<Event>, ApiError>;
    /// Every issue event of the item, when [`StaleReader::events`] may have left some out:
    /// GraphQL's timeline has no type for a few events REST reports (`issue_type_added`,
    /// `issue_type_changed`, ...), so an update nothing GraphQL shows explains is looked up in
    /// REST's list before it is judged. `None` where `events` is already the whole list.
    fn events_in_full(&self, _item: &ItemRef) -> Result<Option<Vec<Event>>, ApiError> {
        Ok(None)
    }
    /// The item's issue stamp (REST's `updated_at` of "Get an issue"), for a PR whose facts
    /// carry its pull request's stamp and whose plan rests on looking idle.
    fn issue_stamp(&self, item: &ItemRef) -> Result<DateTime<Utc>, ApiError> {
        self.item(item).map(|facts| facts.updated_at)
    }
    /// The item's comments since a time (GitHub's `since` is by update).
    fn comments_since(
        &self,
        item: &ItemRef,
        since: DateTime<Utc>,
    ) -> Result<Vec<Comment>, ApiError>;
    /// What a PR's timeline shows that its events and comments do not (reviews, force pushes).
    fn timeline(&self, item: &ItemRef) -> Result<Vec<Activity>, ApiError>;
    /// The repository's issues and PRs, open or closed, whose `updated_at` is at or after
    /// `since` (whole seconds): each one's number and `updated_at`. A long write phase asks it
    /// once per recheck window instead of reading every item again.
    fn changed_since(
        &self,
        repo: &RepoRef,
        since: DateTime<Utc>,
    ) -> Result<Vec<(u64, DateTime<Utc>)>, ApiError>;

    /// A PR's head branch (`delete_branch`): `None` when the branch is gone.
    fn head_branch(&self, item: &ItemRef) -> Result<Option<HeadBranch>, ApiError>;

    /// Told the items a run will read one by one (a rerun line's `--only` list), a reader
    /// that can read many at once does so now and answers [`StaleReader::item`] from that
    /// read, once per item; a failure is kept for the item's own read. REST reads each alone.
    fn items_ahead(&self, _items: &[ItemRef]) {}

    /// The read phase is over. What a reader kept of the listing's pages for the items' own
    /// reads (a GraphQL reader's timelines, a few hundred bytes an item) is of no more use:
    /// a read after this (a recheck before a write) reads the item afresh.
    fn read_phase_over(&self) {}

    /// The read phase classified `item`: what the reader kept of the listing for it is of no
    /// more use (a later read of it reads afresh).
    fn done_reading(&self, _item: &ItemRef) {}
}

/// What the merge rules read.
pub trait MergeReader {
    /// Every page of one PR search (only the first when it is over GitHub's cap).
    fn search_pulls(&self, query: &str) -> Result<SearchPage, ApiError>;
    fn pull(&self, item: &ItemRef) -> Result<PullFacts, ApiError>;
    /// Asks GitHub to compute whether the PR can merge, after `pull` found it still computing:
    /// GitHub documents that a REST "Get a pull request" starts that computation; whether a
    /// GraphQL read does is unverified, so a GraphQL reader sends that REST read.
    fn start_mergeability(&self, item: &ItemRef) -> Result<(), ApiError>;
    fn pull_files(&self, item: &ItemRef) -> Result<Vec<ChangedFile>, ApiError>;
    fn reviews(&self, item: &ItemRef) -> Result<Vec<Review>, ApiError>;
    fn check_runs(&self, repo: &RepoRef, sha: &str) -> Result<Vec<CheckRun>, ApiError>;
    fn check_suites(&self, repo: &RepoRef, sha: &str) -> Result<Vec<CheckSuite>, ApiError>;
    fn statuses(&self, repo: &RepoRef, sha: &str) -> Result<Statuses, ApiError>;
    fn workflow_runs(&self, repo: &RepoRef, sha: &str) -> Result<Vec<WorkflowRun>, ApiError>;
    /// A user's access to a repository (the token needs push access to read it).
    fn access(&self, repo: &RepoRef, login: &str) -> Result<Access, ApiError>;
    fn merge_settings(&self, repo: &RepoRef) -> Result<MergeSettings, ApiError>;
    /// The rules (rulesets) that apply to a branch.
    fn branch_rules(&self, repo: &RepoRef, branch: &str) -> Result<BranchRules, ApiError>;
    /// What "Get a branch" says of its classic protection (readable with read access).
    fn classic_protection(
        &self,
        repo: &RepoRef,
        branch: &str,
    ) -> Result<ClassicProtection, ApiError>;

    /// The repository's PRs of every state whose `updatedAt` is at or after `since`, newest
    /// first: what `poll` reads again on a repeat tick. `None` where a reader has no cheap way
    /// to ask (REST, whose conditional reads already answer 304 for what did not change).
    fn pulls_changed_since(
        &self,
        _repo: &RepoRef,
        _since: DateTime<Utc>,
    ) -> Result<Option<Vec<ChangedPull>>, ApiError> {
        Ok(None)
    }

    /// The PR's web address, as an answer of this run gave it (for `poll`'s memory).
    fn link(&self, _item: &ItemRef) -> Option<String> {
        None
    }

    /// A web address an earlier run's answer gave, for the recap's link of a PR this run
    /// does not read (`poll`'s repeat tick).
    fn keep_link(&self, _url: &str) {}

    /// [`StaleReader::items_ahead`] for the merge rules' reads of PRs ([`MergeReader::pull`]
    /// and the facts that come with it).
    fn pulls_ahead(&self, _items: &[ItemRef]) {}
}

/// Everything a run reads.
pub trait Reader: CommonReader + StaleReader + MergeReader {}

impl<T: CommonReader + StaleReader + MergeReader> Reader for T {}

/// Where a run's writes go.
pub(crate) trait Writer {
    /// Sends one write for one item, once: never retried.
    fn send(&self, item: &ItemRef, write: &Write) -> Result<Option<WriteReceipt>, WriteError>;
    /// What GitHub last said of a rate-limit resource: (remaining, when it resets).
    fn remaining(&self, resource: &str) -> Option<(i64, DateTime<Utc>)>;
    /// An item's page on GitHub, as GitHub named it in an answer.
    fn html_url(&self, item: &str) -> Option<String>;
}

/// Turns a parse failure into the item's own failure.
pub(super) fn malformed(why: impl std::fmt::Display) -> ApiError {
    ApiError::Item {
        status: None,
        message: why.to_string(),
    }
}
