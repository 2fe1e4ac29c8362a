//! Gathers what the stale rules need for one item, with as few requests as GitHub allows: the
//! list entry; for items carrying the stale label, the label's time (from the store when
//! gh-sweep put it there, else from the events; unknown when no event names it), comments only
//! when `updated_at` shows something happened after the label, and a PR's timeline only when
//! those leave the update unexplained (a review has no issue event). Decisions come from
//! `policy::stale`.

use std::cell::Cell;
use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::settle::Effect;
use super::{
    AfterWrite, Classified, Counters, Kind, ListError, Listed, Plan, ReadError, Reconciled,
    ScopeListing, StoreView, Summary, UnreadEntry, Written,
};
use crate::github::{self, ApiError, Reader};
use crate::item::{ItemRef, Scope};
use crate::policy::disposition::Disposition;
use crate::policy::stale::{self, ItemFacts, StaleRules};
use crate::policy::write::{JournalWrite, Settled, Write};
use crate::store::UnknownWrite;

mod history;

pub(crate) struct StaleKind<'a> {
    rules: &'a StaleRules,
    /// The token's login, read once when first needed.
    viewer: Option<Option<String>>,
    /// How far our clock is ahead of GitHub's, read once when a reconcile needs it.
    skew: Option<Option<chrono::Duration>>,
    /// Whether durations are measured on GitHub's clock (the `Date` of its answers): always,
    /// but for an explicit `--now`, which is taken as it is.
    github_clock: bool,
    /// The operations spent so far, counted as actions/stale counts them
    /// (`policy::stale::order`): list pages, the reads of each item, its planned writes.
    operations: Cell<u64>,
    /// The items decided to be marked stale and closed, and those whose writes were all sent,
    /// for the outputs.
    outputs: Outputs,
}

/// actions/stale's outputs: the items planned and written, each kind apart.
#[derive(Default)]
struct Outputs {
    planned_staled: Vec<stale::OutputItem>,
    planned_closed: Vec<stale::OutputItem>,
    staled: Vec<stale::OutputItem>,
    closed: Vec<stale::OutputItem>,
}

/// `[stale] enable_statistics`: actions/stale's statistics of the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StaleCounters {
    pub processed: usize,
    pub staled: usize,
    pub closed: usize,
    pub unstaled: usize,
    pub kept: usize,
    pub exempt: usize,
    pub failed: usize,
    pub operations: u64,
}

impl<'a> StaleKind<'a> {
    pub(crate) fn new(rules: &'a StaleRules, github_clock: bool) -> Self {
        StaleKind {
            rules,
            viewer: None,
            skew: None,
            github_clock,
            operations: Cell::new(0),
            outputs: Outputs::default(),
        }
    }

    /// One more operation (a read of the item's events, comments, timeline or own entry).
    fn spend(&self, count: u64) {
        self.operations.set(self.operations.get() + count);
    }

    fn viewer(&mut self, github: &dyn Reader) -> Result<Option<String>, ApiError> {
        if self.viewer.is_none() {
            self.viewer = Some(github.viewer()?);
        }
        Ok(self.viewer.clone().flatten())
    }
}

impl StaleKind<'_> {
    /// The stale rules' decision on `facts`, reading the history they need; `true` with it when
    /// the stale label's date is unknown (the item is kept as it is, nothing else applies).
    fn decision(
        &mut self,
        github: &dyn Reader,
        store: StoreView<'_>,
        item: &ItemRef,
        facts: &ItemFacts,
        now: DateTime<Utc>,
    ) -> Result<(stale::Decision, bool), ReadError> {
        let history = if stale::needs_history(facts, self.rules) {
            match self.history(github, store, item, facts)? {
                Some(history) => Some(history),
                None => return Ok((stale::label_date_unknown(facts, self.rules), true)),
            }
        } else {
            None
        };
        let viewer = if history
            .as_ref()
            .is_some_and(|history| !history.activity.is_empty())
        {
            self.viewer(github)?
        } else {
            None
        };
        let decision = stale::decide(facts, history.as_ref(), self.rules, viewer.as_deref(), now)
            .map_err(|why| ReadError::Item(why.to_string()))?;
        Ok((decision, false))
    }

    /// `delete_branch`: a PR being closed also gets its head branch deleted, after the close,
    /// when [`stale::branch_deletion`] allows it; else the reason says why not. Two operations,
    /// as actions/stale counts them (the PR's read and the deletion).
    fn with_branch_deletion(
        &self,
        github: &dyn Reader,
        item: &ItemRef,
        facts: &ItemFacts,
        mut decision: stale::Decision,
    ) -> Result<stale::Decision, ReadError> {
        if !self.rules.delete_branch
            || !facts.is_pr
            || decision.disposition != stale::Verdict::Close
        {
            return Ok(decision);
        }
        self.spend(1);
        let branch = github.head_branch(item)?;
        match stale::branch_deletion(branch.as_ref()) {
            Ok(write) => {
                self.spend(1);
                decision.writes.push(write);
            }
            Err(why) => decision.reason = format!("{}; {why}, not deleted", decision.reason),
        }
        Ok(decision)
    }
}

/// The items of `repo` the last `stale-sweep` run that wrote left unfinished when a cap stopped
/// it (`operations_per_run`, `--max-writes`), if the store knows of one: the next run carries
/// on with them first. A store that cannot say leaves the order as the rules have it.
fn left_unfinished(store: StoreView<'_>, repo: &crate::item::RepoRef) -> BTreeSet<u64> {
    let mut recaps = store
        .runs(20)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|run| store.recap(run.id).ok().flatten());
    let Some(last) = recaps.find(|recap| recap.command == "stale-sweep" && !recap.dry_run) else {
        return BTreeSet::new();
    };
    if last.stopped != Some(crate::exit::Stop::WriteCap) {
        return BTreeSet::new();
    }
    last.unfinished
        .iter()
        .filter_map(|item| item.parse::<ItemRef>().ok())
        .filter(|item| item.repo == *repo)
        .map(|item| item.number)
        .collect()
}

impl StaleKind<'_> {
    /// The repository's open issues and PRs, in the order the stale rules read them.
    fn list_repo(
        &mut self,
        github: &dyn Reader,
        store: StoreView<'_>,
        scope: &Scope,
    ) -> Result<Vec<(ItemRef, Listed)>, ListError> {
        let Scope::Repo(repo) = scope else {
            return Err(ListError::Unsupported(
                "the stale rules sweep repositories, not organisations",
            ));
        };
        let mut listed = github
            .open_items(repo)?
            .into_iter()
            .map(|entry| match entry.number {
                Some(number) => Ok((
                    ItemRef::new(repo, number),
                    Listed::Issue(entry.facts.map_err(UnreadEntry::from)),
                )),
                None => Err(ApiError::Harness {
                    message: format!("GitHub's list of {repo} holds an entry without a number"),
                }),
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.spend(stale::list_operations(listed.len()));
        let first = left_unfinished(store, repo);
        stale::order(
            &mut listed,
            self.rules,
            &first,
            |(item, _)| item.number,
            |(_, listed)| match listed {
                Listed::Issue(Ok(facts)) => Some(facts),
                _ => None,
            },
        );
        Ok(listed)
    }

    fn counters(&self, completed: &[&Disposition], failed: usize) -> StaleCounters {
        let count = |wanted: fn(&stale::Verdict) -> bool| {
            completed
                .iter()
                .filter(
                    |disposition| matches!(disposition, Disposition::Stale(stale) if wanted(stale)),
                )
                .count()
        };
        StaleCounters {
            processed: completed.len() + failed,
            staled: count(|d| *d == stale::Verdict::MarkStale),
            closed: count(|d| *d == stale::Verdict::Close),
            unstaled: count(|d| *d == stale::Verdict::Unmark),
            kept: count(|d| *d == stale::Verdict::Keep),
            exempt: count(|d| matches!(d, stale::Verdict::Exempt(_))),
            failed,
            operations: self.operations.get(),
        }
    }

    /// The plan for one item, reading what its decision needs.
    fn plan(
        &mut self,
        github: &dyn Reader,
        store: StoreView<'_>,
        item: &ItemRef,
        listed: Option<&Listed>,
        now: DateTime<Utc>,
    ) -> Result<Plan, ReadError> {
        let facts = match listed {
            Some(Listed::Issue(facts)) => facts.clone().map_err(ReadError::from)?,
            _ => {
                self.spend(1);
                github.item(item)?
            }
        };
        // Idle days and days stale compare GitHub's stamps with now, so now is GitHub's:
        // with our clock 8 days ahead, items were closed the run after they were marked.
        let now = if self.github_clock {
            github.on_github_clock(now)
        } else {
            now
        };
        let mut facts = facts;
        let (mut decision, mut settled) = self.decision(github, store, item, &facts, now)?;
        // A PR read through GraphQL carries its pull request's stamp; the rules (and REST, and
        // actions/stale) judge idleness by its issue's. GitHub keeps the two apart and does not
        // say when they differ, so a mark or a close is only ever decided on the issue's stamp:
        // one read of it, and the decision again when it is another.
        if facts.updated_at_of == stale::StampOf::PullRequest && decision.rests_on_idleness() {
            self.spend(1);
            let stamp = github.issue_stamp(item)?;
            facts.updated_at_of = stale::StampOf::Issue;
            if stamp != facts.updated_at {
                facts.updated_at = stamp;
                (decision, settled) = self.decision(github, store, item, &facts, now)?;
            }
        }
        // A recheck compares GitHub's list of changed issues (issue stamps) with the stamp the
        // read saw: only an issue stamp is comparable; any other is read again in full.
        let updated_at = (facts.updated_at_of == stale::StampOf::Issue).then_some(facts.updated_at);
        if settled {
            return Ok(Plan {
                item: item.clone(),
                title: facts.title,
                disposition: decision.disposition.into(),
                reason: decision.reason,
                remote: decision.writes,
                local: Vec::new(),
                updated_at,
            });
        }
        // Each write is one operation, as actions/stale counts a label add, a label removal, a
        // comment or a close.
        self.spend(decision.writes.len() as u64);
        let decision = self.with_branch_deletion(github, item, &facts, decision)?;
        let listed = stale::OutputItem::of(&facts, &item.repo.to_string());
        match decision.disposition {
            stale::Verdict::MarkStale => self.outputs.planned_staled.push(listed),
            stale::Verdict::Close => self.outputs.planned_closed.push(listed),
            _ => {}
        }
        // Every fact the stale rules take moves `updated_at` (a comment, a label, a review, a
        // push, a close): a recheck before writing asks GitHub's list of changes by it.
        Ok(Plan {
            item: item.clone(),
            title: facts.title,
            disposition: decision.disposition.into(),
            reason: decision.reason,
            remote: decision.writes,
            local: Vec::new(),
            updated_at,
        })
    }
}

impl Kind for StaleKind<'_> {
    fn read_ahead(&mut self, github: &dyn Reader, items: &[ItemRef]) {
        github.items_ahead(items);
    }

    fn list(&mut self, github: &dyn Reader, store: StoreView<'_>, scope: &Scope) -> ScopeListing {
        ScopeListing::of(self.list_repo(github, store, scope))
    }

    /// `[stale] enable_statistics`: the run's counts, as actions/stale's statistics give them
    /// (items processed, marked stale, closed, unmarked, left alone, operations spent); and
    /// actions/stale's outputs, the items planned (a dry run) or written.
    fn summary(&self, completed: &[&Disposition], failed: usize, dry_run: bool) -> Summary {
        let counters = self
            .rules
            .enable_statistics
            .then(|| Counters::Stale(self.counters(completed, failed)));
        let (staled, closed) = if dry_run {
            (&self.outputs.planned_staled, &self.outputs.planned_closed)
        } else {
            (&self.outputs.staled, &self.outputs.closed)
        };
        Summary {
            counters,
            outputs: Some(stale::outputs(staled, closed)),
        }
    }

    fn read_cap(&self) -> Option<String> {
        stale::operations_spent(self.operations.get(), self.rules)
    }

    fn classify(
        &mut self,
        github: &dyn Reader,
        store: StoreView<'_>,
        item: &ItemRef,
        listed: Option<&Listed>,
        now: DateTime<Utc>,
    ) -> Result<Classified, ReadError> {
        self.plan(github, store, item, listed, now)
            .map(Classified::from)
    }

    /// A stale write whose answer was lost is looked up on GitHub: a comment by its marker, a
    /// label by its presence, a close by the state. Found: recorded, not sent again. Not found:
    /// it did not happen, and the item is swept again like any other.
    fn reconcile(
        &mut self,
        github: &dyn Reader,
        _store: StoreView<'_>,
        write: &UnknownWrite,
    ) -> Result<Option<Reconciled>, ReadError> {
        let item: ItemRef = write
            .item
            .parse()
            .map_err(|why: crate::item::RefError| ReadError::Item(why.to_string()))?;
        let facts = github.item(&item)?;
        let happened = match &write.action {
            JournalWrite::Comment { marker } => {
                // The journal's time is our clock's, the comment's GitHub's: GitHub's `Date`
                // says how far apart the two are, and the look-up reaches back by the slack too.
                let skew = *self.skew.get_or_insert_with(|| {
                    github.server_clock().map(|(theirs, ours)| ours - theirs)
                });
                let since = stale::reconcile_since(write.intent_at, skew);
                github
                    .comments_since(&item, since)?
                    .iter()
                    .any(|comment| comment.body.contains(marker.as_str()))
            }
            JournalWrite::AddLabels { labels } => labels.iter().all(|label| facts.has_label(label)),
            JournalWrite::RemoveLabel { label } => !facts.has_label(label),
            JournalWrite::Close { .. } => !facts.open,
            // The branch gone is the deletion done: nothing else deletes it while the journal
            // waits, and deleting it again would be refused anyway.
            JournalWrite::DeleteBranch { .. } => github.head_branch(&item)?.is_none(),
            JournalWrite::Merge { .. }
            | JournalWrite::Enqueue { .. }
            | JournalWrite::Unrecognised { .. } => return Ok(None),
        };
        let (settled, found) = if happened {
            (
                Settled::Happened,
                "found on GitHub that it happened; recorded, not sent again",
            )
        } else {
            (
                Settled::DidNotHappen,
                "found on GitHub that it did not happen; the item is swept again",
            )
        };
        Ok(Some(Reconciled {
            settled,
            found: found.to_string(),
            effects: Vec::new(),
        }))
    }

    /// A comment GitHub refused because the conversation got locked after it was read: that
    /// item's failure, and the run goes on. Safe: GitHub wrote nothing for that request, the
    /// item's later writes (a close after its comment) are not sent, and no other item's write
    /// depends on it. Any other refusal stops the run. Once all its writes went through, the
    /// item counts for the outputs and its stale mark is recorded or forgotten.
    fn written(
        &mut self,
        _store: StoreView<'_>,
        plan: &Plan,
        written: Written<'_>,
    ) -> anyhow::Result<AfterWrite> {
        Ok(match written {
            Written::Refused(error) => AfterWrite {
                goes_on: github::refused_as_locked(error),
                ..AfterWrite::default()
            },
            Written::All(dates) => AfterWrite {
                effects: self.after_writes(plan, dates),
                ..AfterWrite::default()
            },
        })
    }
}

impl StaleKind<'_> {
    /// What the store keeps of an item whose writes all went through, and its place in the
    /// outputs.
    fn after_writes(&mut self, plan: &Plan, dates: &[DateTime<Utc>]) -> Vec<Effect> {
        let written = |planned: &[stale::OutputItem]| {
            planned
                .iter()
                .find(|listed| {
                    listed.number == plan.item.number
                        && listed.repository == plan.item.repo.to_string()
                })
                .cloned()
        };
        match &plan.disposition {
            Disposition::Stale(stale::Verdict::MarkStale) => {
                if let Some(listed) = written(&self.outputs.planned_staled) {
                    self.outputs.staled.push(listed);
                }
            }
            Disposition::Stale(stale::Verdict::Close) => {
                if let Some(listed) = written(&self.outputs.planned_closed) {
                    self.outputs.closed.push(listed);
                }
            }
            _ => {}
        }
        let labelled = plan.remote.iter().position(|write| {
            matches!(write, Write::AddLabels { labels } if matches!(plan.disposition, Disposition::Stale(stale::Verdict::MarkStale)) && !labels.is_empty())
        });
        match (labelled, plan.remote.first()) {
            (Some(index), _) => {
                let Write::AddLabels { labels } = &plan.remote[index] else {
                    return Vec::new();
                };
                let labeled_at = dates.get(index).copied().unwrap_or_else(crate::clock::wall);
                let last_write_at = dates.last().copied().unwrap_or(labeled_at);
                vec![Effect::RecordStaleMark {
                    item: plan.item.clone(),
                    label: labels[0].clone(),
                    labeled_at,
                    last_write_at,
                }]
            }
            _ if matches!(
                plan.disposition,
                Disposition::Stale(stale::Verdict::Unmark | stale::Verdict::Close)
            ) =>
            {
                vec![Effect::ForgetStaleMark {
                    item: plan.item.clone(),
                }]
            }
            _ => Vec::new(),
        }
    }
}
