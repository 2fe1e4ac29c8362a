//! Gathers what `poll` and `classify merge` need for one PR, in seed 000's fixed order, each
//! step cheaper than the next: held (from the search payload, before any database or GitHub
//! call), in flight (the queue), backoff (the queue, plus the PR's head only when a failure
//! exists), and only then the eligibility rules, read lazily so the first unmet one ends the
//! reads. Decisions come from `policy::merge` and `policy::backoff`.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use globset::GlobSet;
use serde::Serialize;

use super::merge_reads::MergeReads;
use listing::ineligible;
#[path = "merge_listing.rs"]
mod listing;
#[path = "merge_memory.rs"]
pub(super) mod memory;
use super::settle::Effect;
use super::{
    Classified, Counters, Kind, ListError, Listed, Plan, ReadError, Reconciled, ScopeListing,
    StoreView, Summary, UnreadEntry,
};
use crate::exit::Fatal;
use crate::github::reader::SearchHit;
use crate::github::{ApiError, Reader, SEARCH_CAP};
use crate::item::{ItemRef, Scope};
use crate::policy::backoff;
use crate::policy::disposition::{Disposition, Skip};
use crate::policy::merge::{self, PollRules, Rule};
use crate::policy::sweep::Gate;
use crate::policy::write::LocalWrite;
use crate::store::queue::merge_key;
use crate::store::UnknownWrite;

/// The counters of `poll` and `classify merge`: what the search found and what became of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MergeCounters {
    pub candidates: u64,
    pub drafts_dropped: u64,
    pub held: usize,
    pub in_flight: usize,
    pub backed_off: usize,
    /// By the first rule each PR did not meet.
    pub ineligible: BTreeMap<&'static str, usize>,
    /// `classify merge`: what poll would enqueue (nothing was).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eligible: Option<usize>,
    /// `poll`: the PRs queued.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enqueued: Option<usize>,
    pub failed: usize,
}

pub(crate) struct MergeKind<'a> {
    rules: &'a PollRules,
    globs: GlobSet,
    /// `classify merge`: drafts are listed too, to say why they are not merged, and what poll
    /// would enqueue is counted as `eligible`, not `enqueued` (nothing was).
    classify: bool,
    /// `poll` records what it saw in the merge gate; `classify merge` and dry runs do not.
    record: bool,
    /// What this run saw of each PR, for the merge gate; stored in one transaction at the end.
    observed: Vec<(ItemRef, Gate, DateTime<Utc>)>,
    candidates: u64,
    drafts_dropped: u64,
    /// Every PR the searches found: one found by `--org` and by `--repo` is one candidate.
    listed: std::collections::BTreeSet<ItemRef>,
    notes: Vec<String>,
    /// Permissions, branch rules: read once per run.
    reads: MergeReads,
    /// What the last tick saw of each repository, and what this one will remember.
    memories: memory::Memories,
}

impl<'a> MergeKind<'a> {
    pub(crate) fn new(rules: &'a PollRules, classify: bool, record: bool) -> Result<Self, Fatal> {
        Ok(MergeKind {
            rules,
            globs: rules.globs().map_err(|e| Fatal::Usage(e.to_string()))?,
            classify,
            record,
            observed: Vec::new(),
            candidates: 0,
            drafts_dropped: 0,
            listed: std::collections::BTreeSet::new(),
            notes: Vec::new(),
            reads: MergeReads::default(),
            memories: memory::Memories::default(),
        })
    }

    fn query(&self, scope: &Scope) -> String {
        let draft = if self.classify { "" } else { " draft:false" };
        let scope = match scope {
            Scope::Repo(repo) => format!("repo:{repo}"),
            Scope::Org(org) => format!("org:{org}"),
        };
        format!("is:pr is:open{draft} archived:false {scope}")
    }

    /// Every result of `query`, split into creation-date windows while a window passes
    /// GitHub's 1,000-result cap. Results are never dropped silently.
    fn search(&mut self, github: &dyn Reader, query: &str) -> Result<Vec<SearchHit>, ApiError> {
        let first = github.search_pulls(query)?;
        self.notes.extend(first.incomplete_note(query));
        if first.total <= SEARCH_CAP {
            return Ok(first.items);
        }
        self.notes.push(format!(
            "The search `{query}` matches {} PRs, more than GitHub's {SEARCH_CAP}-result cap: reading it in windows by creation date.",
            first.total
        ));
        let start = DateTime::parse_from_rfc3339("2008-01-01T00:00:00Z")
            .map_or(crate::clock::wall(), |t| t.with_timezone(&Utc));
        let mut windows = vec![(start, crate::clock::wall() + Duration::days(1))];
        let mut items = Vec::new();
        while let Some((from, to)) = windows.pop() {
            let window = format!(
                "{query} created:{}..{}",
                from.to_rfc3339_opts(SecondsFormat::Secs, true),
                to.to_rfc3339_opts(SecondsFormat::Secs, true)
            );
            let page = github.search_pulls(&window)?;
            self.notes.extend(page.incomplete_note(&window));
            if page.total <= SEARCH_CAP {
                items.extend(page.items);
                continue;
            }
            if to - from <= Duration::seconds(1) {
                return Err(ApiError::Harness {
                    message: format!("more than {SEARCH_CAP} PRs were created within one second ({window}): cannot split further"),
                });
            }
            let middle = from + (to - from) / 2;
            // Later half first, so the earlier one is read first: oldest first overall.
            windows.push((middle + Duration::seconds(1), to));
            windows.push((from, middle));
        }
        Ok(items)
    }

    /// Marks a PR the gate already knows as blocked, without any read.
    fn block(
        &mut self,
        store: StoreView<'_>,
        item: &ItemRef,
        why: &str,
        now: DateTime<Utc>,
    ) -> Result<(), ReadError> {
        if let Some(mut gate) = store
            .gate(item)
            .map_err(ReadError::store("recording the merge gate"))?
        {
            gate.blocked = Some(why.to_string());
            self.observed.push((item.clone(), gate, now));
        }
        Ok(())
    }

    /// Reads what `rule` needs and judges it. Also notes, for the merge gate, when the head
    /// went green and when it was approved, by GitHub's clock, and what the green rule ignored
    /// (an app's suite left queued with no runs), for the reason in words.
    #[allow(clippy::too_many_arguments)]
    fn rule(
        &mut self,
        github: &dyn Reader,
        item: &ItemRef,
        rule: Rule,
        head: &str,
        base: Option<&str>,
        now: DateTime<Utc>,
        gate: &mut Gate,
        ignored: &mut Vec<String>,
    ) -> Result<Result<(), String>, ReadError> {
        Ok(match rule {
            Rule::DocsOnly => {
                let files = github.pull_files(item)?;
                let verdict = merge::docs_only(&files, &self.globs).map_err(|why| why.to_string());
                if let Err(why) = &verdict {
                    gate.blocked = Some(why.clone());
                }
                verdict
            }
            Rule::Green => {
                let green = self
                    .reads
                    .green(github, &item.repo, head, base, self.rules, now)?;
                gate.ci_passed_at = green.since;
                green
                    .verdict
                    .map(|notes| ignored.extend(notes))
                    .map_err(|why| why.to_string())
            }
            Rule::ApprovedAtHead => {
                let approval = self.reads.approval(github, item, head)?;
                gate.approved_at = approval.since;
                if let merge::ApprovalVerdict::ChangesRequested { .. } = &approval.verdict {
                    gate.blocked = approval.verdict.reason();
                }
                approval
                    .verdict
                    .into_result()
                    .map_err(|why| why.to_string())
            }
        })
    }
}

impl MergeKind<'_> {
    /// The PRs the search finds in `scope`, each once, drafts dropped for poll.
    fn search_pool(
        &mut self,
        github: &dyn Reader,
        scope: &Scope,
    ) -> Result<Vec<(ItemRef, Listed)>, ApiError> {
        let query = self.query(scope);
        let mut pool = Vec::new();
        for hit in self.search(github, &query)? {
            let (Some(number), Some(repo)) = (hit.number, hit.repo) else {
                return Err(ApiError::Harness {
                    message: format!("a search result for `{query}` names no repository or number"),
                });
            };
            if !self.listed.insert(ItemRef::new(&repo, number)) {
                continue;
            }
            self.candidates += 1;
            // The query asked for non-drafts; drop any that is still marked one (seed 000).
            if !self.classify && hit.draft == Some(true) {
                self.drafts_dropped += 1;
                continue;
            }
            pool.push((
                ItemRef::new(&repo, number),
                Listed::Pull(hit.facts.map_err(UnreadEntry::from)),
            ));
        }
        Ok(pool)
    }

    /// Guards 1 and 2, in their fixed order: held (before any database or GitHub call),
    /// merged, closed or a draft as the listing shows it, and in flight in the queue (no
    /// GitHub call). `Some` is the item's plan: it goes no further.
    fn guards(
        &mut self,
        store: StoreView<'_>,
        item: &ItemRef,
        facts: &crate::github::model::PullFacts,
        now: DateTime<Utc>,
    ) -> Result<Option<Plan>, ReadError> {
        let title = &facts.title;
        if let Some(why) = merge::held(&facts.title, &facts.labels, self.rules) {
            if self.record {
                self.block(store, item, &why, now)?;
            }
            return Ok(Some(skip(item, title, Skip::Held, why)));
        }
        if facts.merged {
            let why = "merged on GitHub".into();
            return Ok(Some(skip(item, title, Skip::AlreadyMerged, why)));
        }
        if !facts.open {
            let why = "the PR is not open".into();
            return Ok(Some(skip(item, title, Skip::NotOpen, why)));
        }
        if facts.draft == Some(true) {
            let why = "the PR is a draft".into();
            return Ok(Some(skip(item, title, Skip::Draft, why)));
        }
        let rows = store
            .queue_rows(&item.repo, item.number)
            .map_err(ReadError::store("reading the queue"))?;
        if let Some(row) = rows.iter().find(|row| merge::in_flight(row.status)) {
            let why = format!("{} is {}", row.key, row.status);
            return Ok(Some(skip(item, title, Skip::InFlight, why)));
        }
        Ok(None)
    }

    /// Step 4: the eligibility rules, in order; the first unmet one is the answer. When only
    /// the checks are missing, the approval is still read, so that the gate knows the PR and
    /// `sweep` can merge it once it turns green.
    fn judge(
        &mut self,
        github: &dyn Reader,
        item: &ItemRef,
        title: String,
        head: String,
        base: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<Plan, ReadError> {
        let mut gate = Gate {
            head_sha: head.clone(),
            ..Gate::default()
        };
        let mut unmet: Option<(Rule, String)> = None;
        let mut ignored = Vec::new();
        let rules = self.rules.rules.clone();
        for rule in &rules {
            let wanted = match &unmet {
                None => true,
                Some((Rule::Green, _)) => self.record && *rule == Rule::ApprovedAtHead,
                Some(_) => false,
            };
            if !wanted {
                continue;
            }
            let verdict = self.rule(
                github,
                item,
                *rule,
                &head,
                base.as_deref(),
                now,
                &mut gate,
                &mut ignored,
            )?;
            if let Err(why) = verdict {
                unmet.get_or_insert((*rule, why));
            }
        }
        if self.record {
            self.observed.push((item.clone(), gate, now));
        }
        let verdict = unmet.as_ref().map(|(rule, why)| (*rule, why.as_str()));
        self.memories.judged(item, &head, verdict);
        if let Some((rule, why)) = unmet {
            return Ok(ineligible(item, title, rule, why));
        }
        let names: Vec<&str> = self.rules.rules.iter().map(|rule| rule.name()).collect();
        let mut reason = format!("{} at {}", names.join(", "), merge::short(&head));
        for note in ignored {
            reason.push_str(&format!("; {note}"));
        }
        Ok(Plan {
            item: item.clone(),
            title,
            disposition: Disposition::EnqueueMerge,
            reason,
            remote: Vec::new(),
            local: vec![LocalWrite::Enqueue {
                key: merge_key(&item.repo, item.number, &head),
                head_sha: head,
            }],
            updated_at: None,
        })
    }
}

/// What the single-PR read says of a search hit.
enum Confirmed {
    /// Its head, its base, and whether GitHub says if it is a draft.
    Read(Option<String>, Option<String>, bool),
    /// It is merged, closed or a draft after all.
    Skip(Skip, String),
}

/// A search result carries no head: the single-PR read gives it, and confirms the draft flag.
/// The search index lags: this read, not the hit, says whether the PR is open.
fn confirm_by_reading(github: &dyn Reader, item: &ItemRef) -> Result<Confirmed, ReadError> {
    let read = github.pull(item)?;
    if read.merged {
        let why = "merged on GitHub (the search index still shows it open)".into();
        return Ok(Confirmed::Skip(Skip::AlreadyMerged, why));
    }
    if !read.open {
        let why = "the PR is closed (the search index still shows it open)".into();
        return Ok(Confirmed::Skip(Skip::NotOpen, why));
    }
    if read.draft == Some(true) {
        let why = "the PR is a draft (confirmed by reading it)".into();
        return Ok(Confirmed::Skip(Skip::Draft, why));
    }
    let draft_known = read.draft.is_some();
    Ok(Confirmed::Read(read.head_sha, read.base_ref, draft_known))
}

fn skip(item: &ItemRef, title: &str, why: Skip, reason: String) -> Plan {
    Plan {
        item: item.clone(),
        title: title.to_string(),
        disposition: Disposition::Skip(why),
        reason,
        remote: Vec::new(),
        local: Vec::new(),
        updated_at: None,
    }
}

impl Kind for MergeKind<'_> {
    fn read_ahead(&mut self, github: &dyn Reader, items: &[ItemRef]) {
        github.pulls_ahead(items);
    }

    /// A merge whose outcome is unknown still holds its PR back (it may have merged); a stale
    /// sweep's write is `stale-sweep`'s to settle and changes nothing `poll` decides.
    fn concerns(&self, write: &UnknownWrite) -> bool {
        write.is_merge()
    }

    fn list(&mut self, github: &dyn Reader, store: StoreView<'_>, scope: &Scope) -> ScopeListing {
        if let Scope::Repo(repo) = scope {
            if let Some(found) = self.list_from_memory(github, store, repo) {
                return found;
            }
        }
        let now = github.on_github_clock(crate::clock::wall());
        let pool = self.search_pool(github, scope);
        if let (Scope::Repo(repo), Ok(pool)) = (scope, &pool) {
            self.remember_listing(repo, pool, now);
        }
        let mut found = ScopeListing::of(pool.map_err(ListError::from));
        found.notes = std::mem::take(&mut self.notes);
        found
    }

    /// Settled only by `sweep`: a merge whose outcome is unknown holds its PR back.
    fn reconcile(
        &mut self,
        _github: &dyn Reader,
        _store: StoreView<'_>,
        _write: &UnknownWrite,
    ) -> Result<Option<Reconciled>, ReadError> {
        Ok(None)
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

    fn finish(&mut self, _store: StoreView<'_>) -> anyhow::Result<Vec<Effect>> {
        let mut effects = vec![Effect::RecordGates(std::mem::take(&mut self.observed))];
        let memories = self.memories.take_stored();
        if self.record && !memories.is_empty() {
            effects.push(Effect::RecordPollMemory(memories));
        }
        Ok(effects)
    }

    fn summary(&self, completed: &[&Disposition], failed: usize, _dry_run: bool) -> Summary {
        Summary {
            counters: Some(Counters::Merge(self.counters(completed, failed))),
            outputs: None,
        }
    }
}

impl MergeKind<'_> {
    /// The plan for one PR, in seed 000's order of reads.
    fn plan_reads(
        &mut self,
        github: &dyn Reader,
        store: StoreView<'_>,
        item: &ItemRef,
        listed: Option<&Listed>,
        now: DateTime<Utc>,
    ) -> Result<Plan, ReadError> {
        // An `--only` item is read on its own, which gives its head: it is not read twice; so
        // are a repeat tick's PRs (read again in its listing, or known from the last tick).
        let carried = self.memories.carried.get(item).cloned();
        let confirmed = carried.is_some() || self.memories.read_again.contains(item);
        let (mut facts, read_alone) = match listed {
            Some(Listed::Pull(facts)) => (facts.clone().map_err(ReadError::from)?, confirmed),
            _ => (github.pull(item)?, true),
        };
        self.memories.saw(item, &facts, carried.as_ref());
        if let Some(plan) = self.guards(store, item, &facts, now)? {
            return Ok(plan);
        }
        // 3. Backoff: a failure of this same head, read fresh; the rules come only after.
        let window = self.rules.backoff();
        let failures = store
            .failures(&item.repo, item.number, now - window)
            .map_err(ReadError::store("reading the queue"))?;
        let (head, base, draft_known) = if read_alone {
            let draft_known = facts.draft.is_some();
            (facts.head_sha.clone(), facts.base_ref.clone(), draft_known)
        } else {
            match confirm_by_reading(github, item)? {
                Confirmed::Read(head, base, draft_known) => (head, base, draft_known),
                Confirmed::Skip(why, reason) => return Ok(skip(item, &facts.title, why, reason)),
            }
        };
        // A PR the last tick knew no head of, that no guard decided: read it now.
        let (head, base) = match head {
            None if carried.is_some() => {
                facts = github.pull(item)?;
                (facts.head_sha.clone(), facts.base_ref.clone())
            }
            head => (head, base),
        };
        let head = head.ok_or_else(|| ReadError::Item("the PR's `head.sha` is missing".into()))?;
        self.memories.head(item, &head, base.as_deref());
        if !draft_known {
            return Err(ReadError::Item(
                "GitHub does not say whether the PR is a draft".into(),
            ));
        }
        if let Some(why) = backoff::backed_off(&failures, &head, window, now) {
            return Ok(skip(item, &facts.title, Skip::BackedOff, why));
        }
        // Unchanged since the last tick, and its verdict rests on nothing that moves without
        // moving `updatedAt`: the verdict stands, unread.
        if let Some(judged) = carried.as_ref().and_then(|pull| pull.kept_verdict()) {
            if judged.head_sha == head {
                return Ok(ineligible(
                    item,
                    facts.title,
                    judged.unmet,
                    judged.reason.clone(),
                ));
            }
        }
        self.judge(github, item, facts.title, head, base, now)
    }

    /// Counters of the run: the candidates, and the completed items by disposition.
    fn counters(&self, completed: &[&Disposition], failed: usize) -> MergeCounters {
        let count = |wanted: Disposition| completed.iter().filter(|d| ***d == wanted).count();
        let mut ineligible: BTreeMap<&'static str, usize> = BTreeMap::new();
        for disposition in completed {
            if let Disposition::Ineligible(rule) = disposition {
                *ineligible.entry(rule.name()).or_default() += 1;
            }
        }
        let queued = count(Disposition::EnqueueMerge);
        MergeCounters {
            candidates: self.candidates,
            drafts_dropped: self.drafts_dropped + count(Disposition::Skip(Skip::Draft)) as u64,
            held: count(Disposition::Skip(Skip::Held)),
            in_flight: count(Disposition::Skip(Skip::InFlight)),
            backed_off: count(Disposition::Skip(Skip::BackedOff)),
            ineligible,
            eligible: self.classify.then_some(queued),
            enqueued: (!self.classify).then_some(queued),
            failed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::stale;
    use serde_json::json;

    #[test]
    fn the_counters_count_dispositions_by_variant() {
        let rules = PollRules::default();
        let mut classifier = MergeKind::new(&rules, false, false).unwrap();
        classifier.candidates = 12;
        classifier.drafts_dropped = 1;
        let completed = [
            Disposition::Skip(Skip::Held),
            Disposition::Skip(Skip::Held),
            Disposition::Skip(Skip::Draft),
            Disposition::Skip(Skip::InFlight),
            Disposition::Skip(Skip::BackedOff),
            Disposition::Ineligible(Rule::Green),
            Disposition::Ineligible(Rule::Green),
            Disposition::Ineligible(Rule::DocsOnly),
            Disposition::EnqueueMerge,
            // Counted by none: no counter stands for them.
            Disposition::Skip(Skip::AlreadyMerged),
            Disposition::Skip(Skip::NotOpen),
            Disposition::Merge,
            Disposition::Stale(stale::Verdict::Skip("held".into())),
        ];
        let completed: Vec<&Disposition> = completed.iter().collect();
        let counters = serde_json::to_value(classifier.counters(&completed, 2)).unwrap();
        assert_eq!(
            counters,
            json!({
                "candidates": 12,
                "drafts_dropped": 2,
                "held": 2,
                "in_flight": 1,
                "backed_off": 1,
                "ineligible": { "docs-only": 1, "green": 2 },
                "enqueued": 1,
                "failed": 2,
            })
        );
        // `classify merge` enqueues nothing: what poll would enqueue is eligible.
        let classify = MergeKind::new(&rules, true, false).unwrap();
        let counters = serde_json::to_value(classify.counters(&completed, 2)).unwrap();
        assert_eq!(
            (&counters["eligible"], counters.get("enqueued")),
            (&json!(1), None)
        );
    }
}
