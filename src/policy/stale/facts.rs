//! What was read about an item: the list payload's facts, and for an item carrying the stale
//! label, the comments and events since the label was put on.

use chrono::{DateTime, Utc};

/// What the list payload says about an open issue or PR.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemFacts {
    pub number: u64,
    pub is_pr: bool,
    pub draft: bool,
    pub open: bool,
    pub title: String,
    pub labels: Vec<String>,
    pub milestone: Option<String>,
    pub assignees: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Which of GitHub's two stamps `updated_at` is: a PR has its issue's and its pull
    /// request's, kept apart (hub4j/github-api#178). REST's issues list and actions/stale judge
    /// by the issue's; GraphQL's `PullRequest.updatedAt` is the pull request's.
    pub updated_at_of: StampOf,
    /// A locked conversation: GitHub refuses comments on it from anyone who is not a
    /// collaborator.
    pub locked: bool,
    /// The issue's type (GitHub's `type.name` in REST, `issueType.name` in GraphQL), if any.
    pub issue_type: Option<String>,
    /// How many comments it has (the list's `comments` count), for `sort_by = "comments"`.
    pub comments: u64,
}

/// Which stamp an item's `updated_at` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StampOf {
    /// The issue's (every issue; a PR as the issues list gives it).
    Issue,
    /// A PR's own, as GraphQL's `PullRequest.updatedAt` gives it.
    PullRequest,
}

impl ItemFacts {
    pub fn has_label(&self, name: &str) -> bool {
        self.labels
            .iter()
            .any(|label| label.eq_ignore_ascii_case(name))
    }
}

/// A closed PR's head branch, as the PR and the branch's own read show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadBranch {
    pub name: String,
    /// The head lives in the PR's own repository (not a fork, not a deleted one).
    pub same_repository: bool,
    /// It is the repository's default branch.
    pub default: bool,
    /// GitHub says it is protected.
    pub protected: bool,
}

/// Where an [`Activity`] was read, which decides how it is told apart from gh-sweep's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActivityKind {
    /// A comment: gh-sweep's own carry its marker.
    Comment,
    /// A `labeled` or `unlabeled` event: gh-sweep's own are the token user's, at the times
    /// of its writes.
    LabelEvent,
    /// Any other event, or a review from the timeline.
    Event,
    /// `updated_at` moved and nothing read names who did it (a body edit, a plain push).
    Unattributed,
}

/// Something that happened on an item: a comment or an event, with who did it.
#[derive(Clone, Debug, PartialEq)]
pub struct Activity {
    pub kind: ActivityKind,
    pub at: DateTime<Utc>,
    pub login: String,
    pub is_bot: bool,
    /// The gh-sweep marker in a comment's body, if any.
    pub marker: Option<String>,
    /// "comment" or the event's name.
    pub what: String,
    /// A notification such as `mentioned` or `subscribed`: it happened, but nobody acted.
    pub notification: bool,
}

/// What was read about an item that carries the stale label.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct History {
    pub label_added_at: DateTime<Utc>,
    /// Comments and events after the label was put on, as far as they were read.
    pub activity: Vec<Activity>,
    /// gh-sweep put the label on but its stale comment was never posted: a run stopped (or
    /// was killed) between the two writes.
    pub mark_unfinished: bool,
    /// When gh-sweep's own writes of the mark happened, first and last, on GitHub's clock:
    /// from the store, or (without its record) the label event's own time. The token user's
    /// label events then are gh-sweep's, not the maintainer's activity.
    pub own_writes: Option<(DateTime<Utc>, DateTime<Utc>)>,
}
