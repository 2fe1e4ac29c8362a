//! What `poll` remembers of a repository's last tick, so that a repeat tick reads only what
//! may have changed: the PRs whose `updatedAt` moved since the last tick (GitHub's
//! list of PRs by update, [`crate::github::reader::MergeReader::pulls_changed_since`]), and
//! the PRs whose verdict rests on what moves no `updatedAt`: those the last tick left waiting
//! on their checks (a check run or a status completing belongs to the commit and leaves the
//! PR's `updatedAt` unmoved), and those it found eligible (read fresh before they are queued
//! again). Every other PR keeps the verdict its last read gave: not docs-only and not approved
//! change only by a push, a review or an edit, which move `updatedAt`; held only by a label or
//! the title, which move it too. Other rules than the memory's, a memory older than a day, an
//! organisation's search, or a reader with no list by update: a full tick.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::github::model::PullFacts;
use crate::item::{ItemRef, RepoRef};
use crate::policy::merge::{PollRules, Rule};

/// A PR updated this long before a tick listed its repository is read again by the next tick
/// too: an update GitHub stamped just before the listing may not have been in what it served.
pub(crate) const MARGIN: Duration = Duration::minutes(2);

/// A full tick at least this often, for what moves no `updatedAt` and no check (a reviewer's
/// permission, the branch's rules).
pub(crate) const FULL_EVERY: Duration = Duration::hours(24);

/// One repository's memory, stored as JSON.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub(crate) struct RepoMemory {
    /// The rules the verdicts were judged by, as JSON.
    pub rules: String,
    /// A PR whose `updatedAt` is at or after this is read again.
    pub since: Option<DateTime<Utc>>,
    /// When the last full tick listed the repository.
    pub full_at: Option<DateTime<Utc>>,
    pub pulls: BTreeMap<u64, PullMemory>,
}

/// One open PR as the last tick saw it.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub(crate) struct PullMemory {
    pub title: String,
    pub labels: Vec<String>,
    pub head_sha: Option<String>,
    pub base_ref: Option<String>,
    pub judged: Option<Judged>,
    /// Its web address, as GitHub gave it, for the recap's link when it is not read again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// The eligibility rules' verdict at a head: the first rule unmet and why.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub(crate) struct Judged {
    pub head_sha: String,
    pub unmet: Rule,
    pub reason: String,
}

impl PullMemory {
    /// The verdict a repeat tick may keep without reading the PR: one judged at the head it
    /// knows, not waiting on the checks.
    pub(crate) fn kept_verdict(&self) -> Option<&Judged> {
        self.judged
            .as_ref()
            .filter(|judged| Some(&judged.head_sha) == self.head_sha.as_ref())
            .filter(|judged| judged.unmet != Rule::Green)
    }

    /// The PR's facts as its last read gave them: open, not a draft, its head and base.
    pub(crate) fn facts(&self) -> PullFacts {
        PullFacts {
            title: self.title.clone(),
            labels: self.labels.clone(),
            draft: Some(false),
            open: true,
            head_sha: self.head_sha.clone(),
            merged: false,
            mergeable: None,
            mergeable_state: None,
            base_ref: self.base_ref.clone(),
        }
    }
}

/// The rules as the memory names them.
pub(crate) fn rules_key(rules: &PollRules) -> String {
    serde_json::to_string(rules).unwrap_or_default()
}

/// This run's use of the memories: what it carries over, what it reads again, and what it
/// will remember.
#[derive(Default)]
pub(crate) struct Memories {
    /// PRs whose last verdict may be kept, with what the last tick saw of them.
    pub carried: BTreeMap<ItemRef, PullMemory>,
    /// PRs read on their own in the listing (changed, waiting on checks, new): their facts
    /// carry their head, as a single-PR read's do.
    pub read_again: BTreeSet<ItemRef>,
    /// What this tick will remember, by repository.
    pub next: BTreeMap<RepoRef, RepoMemory>,
}

impl Memories {
    /// Starts the memory of `repo` for this tick.
    pub(crate) fn start(
        &mut self,
        repo: &RepoRef,
        rules: &PollRules,
        since: DateTime<Utc>,
        full_at: DateTime<Utc>,
    ) {
        self.next.insert(
            repo.clone(),
            RepoMemory {
                rules: rules_key(rules),
                since: Some(since),
                full_at: Some(full_at),
                pulls: BTreeMap::new(),
            },
        );
    }

    fn entry(&mut self, item: &ItemRef) -> Option<&mut PullMemory> {
        let repo = self.next.get_mut(&item.repo)?;
        Some(repo.pulls.entry(item.number).or_default())
    }

    /// The PR is listed: its title and labels, its head and base when known. A verdict
    /// judged at another head is forgotten.
    pub(crate) fn saw(&mut self, item: &ItemRef, facts: &PullFacts, kept: Option<&PullMemory>) {
        if let Some(entry) = self.entry(item) {
            let judged = kept
                .and_then(|kept| kept.judged.clone())
                .filter(|judged| facts.head_sha.as_ref() == Some(&judged.head_sha));
            *entry = PullMemory {
                title: facts.title.clone(),
                labels: facts.labels.clone(),
                head_sha: facts.head_sha.clone(),
                base_ref: facts.base_ref.clone(),
                judged,
                url: kept.and_then(|kept| kept.url.clone()),
            };
        }
    }

    /// The PR's web address, as an answer gave it.
    pub(crate) fn link(&mut self, item: &ItemRef, url: Option<String>) {
        if let (Some(entry), Some(url)) = (self.entry(item), url) {
            entry.url = Some(url);
        }
    }

    /// The PR's head and base, once its single read gave them.
    pub(crate) fn head(&mut self, item: &ItemRef, head: &str, base: Option<&str>) {
        if let Some(entry) = self.entry(item) {
            if entry.head_sha.as_deref() != Some(head) {
                entry.judged = None;
            }
            entry.head_sha = Some(head.to_string());
            entry.base_ref = base.map(str::to_string);
        }
    }

    /// The rules' verdict at `head`: `None` when every rule was met.
    pub(crate) fn judged(&mut self, item: &ItemRef, head: &str, unmet: Option<(Rule, &str)>) {
        if let Some(entry) = self.entry(item) {
            entry.judged = unmet.map(|(rule, reason)| Judged {
                head_sha: head.to_string(),
                unmet: rule,
                reason: reason.to_string(),
            });
        }
    }

    /// The PR is not open (merged, closed, a draft): nothing to remember.
    pub(crate) fn forget(&mut self, item: &ItemRef) {
        if let Some(repo) = self.next.get_mut(&item.repo) {
            repo.pulls.remove(&item.number);
        }
    }

    /// What the store should keep: each repository's memory as JSON.
    pub(crate) fn take_stored(&mut self) -> Vec<(RepoRef, String)> {
        std::mem::take(&mut self.next)
            .into_iter()
            .filter_map(|(repo, memory)| Some((repo, serde_json::to_string(&memory).ok()?)))
            .collect()
    }
}

/// A stored memory, when it can serve a repeat tick judged by `rules` at `now`.
pub(crate) fn usable(
    stored: Option<String>,
    rules: &PollRules,
    now: DateTime<Utc>,
) -> Option<RepoMemory> {
    let memory: RepoMemory = serde_json::from_str(&stored?).ok()?;
    let fresh = memory.full_at.is_some_and(|at| now - at < FULL_EVERY);
    (memory.rules == rules_key(rules) && fresh && memory.since.is_some()).then_some(memory)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(head: &str, judged_at: &str, unmet: Rule) -> PullMemory {
        PullMemory {
            head_sha: Some(head.into()),
            judged: Some(Judged {
                head_sha: judged_at.into(),
                unmet,
                reason: "why".into(),
            }),
            ..PullMemory::default()
        }
    }

    #[test]
    fn a_verdict_is_kept_only_at_its_head_and_never_while_waiting_on_checks() {
        assert!(memory("a", "a", Rule::DocsOnly).kept_verdict().is_some());
        assert!(memory("a", "a", Rule::ApprovedAtHead)
            .kept_verdict()
            .is_some());
        assert!(memory("a", "a", Rule::Green).kept_verdict().is_none());
        assert!(memory("b", "a", Rule::DocsOnly).kept_verdict().is_none());
        assert!(PullMemory::default().kept_verdict().is_none());
    }

    #[test]
    fn a_memory_of_other_rules_or_older_than_a_day_is_not_used() {
        let rules = PollRules::default();
        let now = Utc::now();
        let stored = |rules: &PollRules, full_at: DateTime<Utc>| {
            serde_json::to_string(&RepoMemory {
                rules: rules_key(rules),
                since: Some(full_at),
                full_at: Some(full_at),
                pulls: BTreeMap::new(),
            })
            .ok()
        };
        assert!(usable(stored(&rules, now), &rules, now).is_some());
        assert!(usable(stored(&rules, now - FULL_EVERY), &rules, now).is_none());
        let other = PollRules {
            failed_backoff_hours: 1,
            ..PollRules::default()
        };
        assert!(usable(stored(&other, now), &rules, now).is_none());
        assert!(usable(Some("not json".into()), &rules, now).is_none());
        assert!(usable(None, &rules, now).is_none());
    }
}
