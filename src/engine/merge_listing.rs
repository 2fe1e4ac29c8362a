//! `poll`'s repeat tick of one repository: its pool from the last tick's memory
//! (`merge_memory.rs`) and GitHub's list of what changed since, with every PR that must be read
//! again (changed, new, left waiting on its checks or found eligible) read at once, in batches
//! of aliased `pullRequest` fields, and every other PR keeping its last verdict unread.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use super::memory::{self, PullMemory};
use super::{MergeKind, StoreView};
use crate::engine::{ListError, Listed, Plan, ReadError, ScopeListing};
use crate::github::{ApiError, Reader};
use crate::item::{ItemRef, RepoRef};
use crate::policy::disposition::{Disposition, Skip};
use crate::policy::merge::Rule;
use crate::policy::{backoff, merge};

pub(super) fn ineligible(item: &ItemRef, title: String, rule: Rule, reason: String) -> Plan {
    Plan {
        item: item.clone(),
        title,
        disposition: Disposition::Ineligible(rule),
        reason,
        remote: Vec::new(),
        local: Vec::new(),
        updated_at: None,
    }
}

impl MergeKind<'_> {
    /// The plan for one PR, in seed 000's order of reads; a PR found not open is forgotten.
    pub(super) fn plan(
        &mut self,
        github: &dyn Reader,
        store: StoreView<'_>,
        item: &ItemRef,
        listed: Option<&Listed>,
        now: DateTime<Utc>,
    ) -> Result<Plan, ReadError> {
        let plan = self.plan_reads(github, store, item, listed, now)?;
        self.memories.link(item, github.link(item));
        if let Disposition::Skip(Skip::AlreadyMerged | Skip::NotOpen | Skip::Draft) =
            plan.disposition
        {
            self.memories.forget(item);
        }
        Ok(plan)
    }

    /// A repository's full listing starts its memory (`poll`, when every PR it found is the
    /// repository's own), each PR with what its listing showed.
    pub(super) fn remember_listing(
        &mut self,
        repo: &RepoRef,
        pool: &[(ItemRef, Listed)],
        now: DateTime<Utc>,
    ) {
        if self.classify || pool.iter().any(|(item, _)| item.repo != *repo) {
            return;
        }
        self.memories
            .start(repo, self.rules, now - memory::MARGIN, now);
        for (item, listed) in pool {
            let facts = match listed {
                Listed::Pull(Ok(facts)) => facts.clone(),
                _ => PullMemory::default().facts(),
            };
            self.memories.saw(item, &facts, None);
        }
    }

    /// The pool of `repo` from its memory and what changed since; `None` when this tick
    /// must list it in full (no usable memory, or a reader with no list by update).
    pub(super) fn list_from_memory(
        &mut self,
        github: &dyn Reader,
        store: StoreView<'_>,
        repo: &RepoRef,
    ) -> Option<ScopeListing> {
        if self.classify {
            return None;
        }
        // When things happened, not when decisions are taken: the memory's stamps are compared
        // with GitHub's `updatedAt`, so they are the wall clock on GitHub's clock, whatever
        // `--now` says (the run's clock is for the verdicts).
        let now = github.on_github_clock(crate::clock::wall());
        // A store that cannot say what it remembers is a store failure, told as one: the
        // repository is not listed in full as if the store had nothing.
        let stored = match store.poll_memory(repo) {
            Ok(stored) => stored,
            Err(error) => return Some(ScopeListing::of(Err(ListError::Store(error)))),
        };
        let remembered = memory::usable(stored, self.rules, now)?;
        let changed = match github.pulls_changed_since(repo, remembered.since?) {
            Ok(Some(changed)) => changed,
            Ok(None) => return None,
            Err(error) => return Some(ScopeListing::of(Err(error.into()))),
        };
        let full_at = remembered.full_at?;
        self.memories
            .start(repo, self.rules, now - memory::MARGIN, full_at);
        let mut kept = remembered.pulls;
        let mut again = BTreeSet::new();
        for pull in &changed {
            kept.remove(&pull.number);
            // What a search for open non-drafts would not list is not listed.
            if pull.open && !pull.draft {
                again.insert(pull.number);
            }
        }
        for (number, pull) in &kept {
            if self.read_needed(store, &ItemRef::new(repo, *number), pull) {
                again.insert(*number);
            }
        }
        let read: Vec<ItemRef> = again.iter().map(|n| ItemRef::new(repo, *n)).collect();
        github.pulls_ahead(&read);
        let numbers: BTreeSet<u64> = kept.keys().chain(again.iter()).copied().collect();
        let mut pool = Vec::new();
        for number in numbers {
            let item = ItemRef::new(repo, number);
            if !self.listed.insert(item.clone()) {
                continue;
            }
            self.candidates += 1;
            let listed = if again.contains(&number) {
                self.memories.read_again.insert(item.clone());
                self.memories
                    .saw(&item, &PullMemory::default().facts(), None);
                match github.pull(&item) {
                    Ok(facts) => Listed::Pull(Ok(facts)),
                    Err(error @ ApiError::Item { .. }) => Listed::Pull(Err(error.into())),
                    Err(error) => return Some(ScopeListing::of(Err(error.into()))),
                }
            } else {
                let pull = kept[&number].clone();
                if let Some(url) = &pull.url {
                    github.keep_link(url);
                }
                let facts = pull.facts();
                self.memories.saw(&item, &facts, Some(&pull));
                self.memories.carried.insert(item.clone(), pull);
                Listed::Pull(Ok(facts))
            };
            pool.push((item, listed));
        }
        Some(ScopeListing::of(Ok(pool)))
    }

    /// Whether a PR that did not change must be read again: not when a guard decides it
    /// without a read (held, in flight, backed off at its head), nor when its last verdict
    /// stands (judged at its head, not waiting on checks, not eligible).
    fn read_needed(&self, store: StoreView<'_>, item: &ItemRef, pull: &PullMemory) -> bool {
        if merge::held(&pull.title, &pull.labels, self.rules).is_some() {
            return false;
        }
        let Ok(rows) = store.queue_rows(&item.repo, item.number) else {
            return true;
        };
        if rows.iter().any(|row| merge::in_flight(row.status)) {
            return false;
        }
        if pull.kept_verdict().is_some() {
            return false;
        }
        let Some(head) = &pull.head_sha else {
            return true;
        };
        let now = crate::clock::wall();
        let window = self.rules.backoff();
        store
            .failures(&item.repo, item.number, now - window)
            .map_or(true, |failures| {
                backoff::backed_off(&failures, head, window, now).is_none()
            })
    }
}
