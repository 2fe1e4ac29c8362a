//! Rechecks by `since` in a long write phase: for a plan that carries the
//! `updated_at` its read saw (the stale rules), the engine asks GitHub at most once per recheck
//! window and repository which issues and PRs changed since the items were read, and reads
//! again only those whose `updated_at` moved; `policy::recheck` decides. Cost: one request (one
//! per page) per window, plus one re-read per changed item, instead of one re-read per item.
//!
//! gh-sweep's own writes are in GitHub's answer too (they move `updated_at`), but an item this
//! run wrote is settled and never rechecked again, so they cost nothing and are never re-read.
//! A merge plan carries no `updated_at` (check results do not move it) and is read again in
//! full, as `sweep`'s guard read before each merge needs.

use std::collections::BTreeMap;
use std::time::Instant;

use chrono::{DateTime, Utc};

use super::read::PendingPlan;
use super::state::State;
use super::Run;
use crate::github::ApiError;
use crate::item::RepoRef;
use crate::policy::recap::Stop;
use crate::policy::recheck::{self, Changes};

/// What the write phase has asked of each repository's changes so far.
#[derive(Default)]
pub(super) struct Watch {
    repos: BTreeMap<RepoRef, Watched>,
}

struct Watched {
    changes: Changes,
    /// When the last list was asked, on the monotonic clock: a window later, it is asked again.
    asked: Instant,
    /// The same moment on our wall clock: the next list starts there.
    asked_at: DateTime<Utc>,
}

impl Run<'_> {
    /// Whether a pending item whose read is older than the recheck window must be read again
    /// before its writes: always when its plan carries no `updated_at` to judge by, else when
    /// GitHub's list of changes shows it moved since its read. A list that does not parse
    /// leaves the repository's items to be read again one by one; an outage or a refused token
    /// stops the run (`None`).
    pub(super) fn must_reread(
        &self,
        watch: &mut Watch,
        state: &mut State,
        pending: &PendingPlan,
    ) -> Option<bool> {
        let Some(seen) = pending.plan.updated_at else {
            return Some(true);
        };
        let repo = &pending.plan.item.repo;
        let read_since = recheck::since(self.reader.on_github_clock(pending.read_at));
        let due = watch.repos.get(repo).is_none_or(|watched| {
            !watched.changes.blind() && watched.asked.elapsed() > self.options.recheck_after
        });
        if due {
            if let Err(error) = self.ask_changes(watch, repo, read_since) {
                match error {
                    ApiError::Auth { message, .. } => state.stop(Stop::Auth, message),
                    other => state.stop(Stop::HarnessOutage, other.to_string()),
                }
                return None;
            }
        }
        let number = pending.plan.item.number;
        Some(
            watch.repos.get(repo).is_none_or(|watched| {
                recheck::must_reread(&watched.changes, number, seen, read_since)
            }),
        )
    }

    /// Asks GitHub which items of `repo` changed: since the last list was asked, or for the
    /// first list since `first_since` (the first rechecked item's read).
    fn ask_changes(
        &self,
        watch: &mut Watch,
        repo: &RepoRef,
        first_since: DateTime<Utc>,
    ) -> Result<(), ApiError> {
        let since = match watch.repos.get(repo) {
            Some(watched) => recheck::since(self.reader.on_github_clock(watched.asked_at)),
            None => first_since,
        };
        let asked = Instant::now();
        let asked_at = self.clock.wall();
        let answer = match self.reader.changed_since(repo, since) {
            Ok(entries) => Some(entries),
            Err(ApiError::Item { .. }) => None,
            Err(error) => return Err(error),
        };
        let watched = watch.repos.entry(repo.clone()).or_insert_with(|| Watched {
            changes: Changes::new(since),
            asked,
            asked_at,
        });
        watched.asked = asked;
        watched.asked_at = asked_at;
        match answer {
            Some(entries) => watched.changes.add(entries),
            None => watched.changes.lose_sight(),
        }
        Ok(())
    }
}
