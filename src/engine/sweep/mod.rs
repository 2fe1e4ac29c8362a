//! `sweep`: the executor of seeds 001 and 002. It first turns due merge-gate entries (approved
//! PRs whose trigger was lost) into queue rows, then claims queue rows under a lease with the
//! sweep budget as the claim's `admit`, then re-checks the guard from fresh reads for each
//! claimed PR. Only a PR that passes the guard is merged, with `sha` = the checked head.
//! Decisions come from `policy::sweep` and `policy::merge`; this file reads, leases and records.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};

use super::merge_reads::MergeReads;
use super::settle::Effect;
use super::{Classifier, Listed, Plan, ReadError};
use crate::exit::Fatal;
use crate::github::{ApiError, Reader, WriteError};
use crate::item::{ItemRef, RepoRef, Scope};
use crate::policy::disposition::Disposition;
use crate::policy::merge::{self, MergeMethod, PollRules, QueueStatus, Refusal};
use crate::policy::sweep::{self as budget_policy, Gate, PullState, Route, SweepRules};
use crate::policy::write::{Settled, Write};
use crate::store::queue::{
    merge_key, run_owner, Claim, Holder, Lease, NewRow, Pending, DEFAULT_LEASE_MINUTES,
};
use crate::store::{ClaimFacts, Store, UnknownWrite};

mod route;

pub struct SweepClassifier<'a> {
    rules: &'a SweepRules,
    /// `rules.merge_method`, read once.
    method: MergeMethod,
    poll: &'a PollRules,
    /// False for a dry run: list what would be claimed, lease nothing, record nothing.
    act: bool,
    owner: String,
    now: DateTime<Utc>,
    /// The rows this run leased, by PR.
    claims: BTreeMap<ItemRef, Claim>,
    /// When each claimed PR's work started, for `fold`.
    started: BTreeMap<ItemRef, DateTime<Utc>>,
    recovered: usize,
    notes: Vec<String>,
    /// PRs another run still at work holds, with the reason: unfinished for this run.
    held: Vec<(ItemRef, String)>,
    /// Permissions, merge settings, branch rules: read once per run.
    reads: MergeReads,
    /// For each PR merged with a merge commit: the method its next attempt uses if GitHub
    /// refuses the merge commit (classic linear history), or `None` when no other is allowed.
    next_method: BTreeMap<ItemRef, Option<MergeMethod>>,
}

impl<'a> SweepClassifier<'a> {
    pub fn new(
        rules: &'a SweepRules,
        poll: &'a PollRules,
        act: bool,
        owner: String,
        now: DateTime<Utc>,
    ) -> Result<Self, Fatal> {
        Ok(SweepClassifier {
            method: rules.method().map_err(Fatal::Usage)?,
            rules,
            poll,
            act,
            owner,
            now,
            claims: BTreeMap::new(),
            started: BTreeMap::new(),
            recovered: 0,
            notes: Vec::new(),
            held: Vec::new(),
            reads: MergeReads::default(),
            next_method: BTreeMap::new(),
        })
    }

    fn stored<T>(result: Result<T, impl std::fmt::Display>) -> Result<T, ReadError> {
        result.map_err(|error| ReadError::Harness(format!("the store: {error}")))
    }

    /// The lost-trigger recovery: a due gate entry with no live queue row gets one.
    fn recover(
        &mut self,
        store: &dyn Store,
        scope: &[crate::item::RepoRef],
    ) -> anyhow::Result<Vec<(ItemRef, String)>> {
        let mut due = Vec::new();
        if !self.rules.enabled {
            return Ok(due);
        }
        for (item, gate) in store.gates(scope)? {
            let budget = store.budget(&item)?;
            if budget_policy::due(&gate, &budget, self.rules, self.now).is_err() {
                continue;
            }
            let live = store
                .queue_rows(&item.repo, item.number)?
                .iter()
                .any(|row| matches!(row.status, QueueStatus::Pending | QueueStatus::Claimed));
            if live {
                continue;
            }
            let key = merge_key(&item.repo, item.number, &gate.head_sha);
            if self.act {
                let row = NewRow {
                    key: &key,
                    kind: "merge",
                    repo: &item.repo,
                    pr: item.number,
                    head_sha: Some(&gate.head_sha),
                    max_attempts: self.rules.attempts_per_trigger,
                };
                if store.enqueue(&row, self.now)? {
                    self.recovered += 1;
                }
            } else {
                due.push((item, gate.head_sha.clone()));
            }
        }
        Ok(due)
    }

    /// Other runs' live leases in `repo`: those of a run known to be over (its process is gone,
    /// or it finished) are released at once (a dry run only says it would, and lists them as
    /// what it would claim); a PR leased to a run that may still be at work is held, unfinished,
    /// with whose lease it is and when it ends. Returns the rows a dry run would claim.
    fn settle_leases(
        &mut self,
        store: &dyn Store,
        repo: &crate::item::RepoRef,
    ) -> anyhow::Result<Vec<Lease>> {
        let mut released: BTreeMap<(Option<i64>, Holder), Vec<String>> = BTreeMap::new();
        let mut claimable = Vec::new();
        for lease in store.leases(std::slice::from_ref(repo), self.now)? {
            if lease.owner == self.owner {
                continue;
            }
            let item = ItemRef::new(repo, lease.pr);
            if lease.holder == Holder::Alive {
                let holder = match lease.run_id {
                    Some(run) => format!("run {run}"),
                    None => format!("another sweep ({})", lease.owner),
                };
                let until = lease
                    .leased_until
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                if !self.held.iter().any(|(held, _)| *held == item) {
                    self.held.push((
                        item,
                        format!("leased to {holder} until {until} (that run is still at work)"),
                    ));
                }
                continue;
            }
            if self.act && !store.release(&lease.key, &lease.owner, self.now)? {
                // Another run released it first.
                continue;
            }
            released
                .entry((lease.run_id, lease.holder))
                .or_default()
                .push(item.to_string());
            if !self.act {
                claimable.push(lease);
            }
        }
        for ((run, holder), items) in released {
            let run = run.map_or_else(|| "a sweep".to_string(), |run| format!("run {run}"));
            let why = match holder {
                Holder::Finished => "which finished without handing them back",
                _ => "whose process is gone (killed or crashed)",
            };
            let done = if self.act {
                "released at once and swept now"
            } else {
                "a sweep releases them at once"
            };
            self.notes.push(format!(
                "{}: leased to {run}, {why}; {done}",
                items.join(", ")
            ));
        }
        Ok(claimable)
    }

    /// Charges one attempt to the PR's budget.
    fn charge(&self, store: &dyn Store, item: &ItemRef) -> anyhow::Result<()> {
        let stamp = store.gate(item)?.and_then(|gate| gate.stamp());
        let budget = store.budget(item)?;
        Ok(store.record_budget(item, &budget_policy::after(&budget, stamp, self.now))?)
    }

    /// A deferral: the PR stays, the attempt is charged (or not), the row goes back.
    fn defer(
        &mut self,
        store: &dyn Store,
        item: &ItemRef,
        title: &str,
        why: String,
        charged: bool,
    ) -> Result<Plan, ReadError> {
        if self.act {
            if let Some(claim) = self.claims.remove(item) {
                if charged {
                    Self::stored(self.charge(store, item))?;
                    Self::stored(store.release(&claim.key, &self.owner, self.now))?;
                } else {
                    Self::stored(store.release_unattempted(&claim.key, &self.owner, self.now))?;
                }
            }
        }
        let disposition = Disposition::Defer { charged };
        Ok(plan(item, title, disposition, why, Vec::new()))
    }

    /// GitHub is still computing whether the PR can merge: the row goes back, free for the
    /// trigger's first sweeps that find it so, then charged (`policy::sweep::computing`).
    fn defer_computing(
        &mut self,
        store: &dyn Store,
        item: &ItemRef,
        title: &str,
        why: String,
    ) -> Result<Plan, ReadError> {
        let stamp = Self::stored(store.gate(item))?.and_then(|gate| gate.stamp());
        let budget = Self::stored(store.budget(item))?;
        let computing = budget_policy::computing(&budget, stamp, self.rules, self.now);
        if self.act {
            if let Some(claim) = self.claims.remove(item) {
                Self::stored(store.record_budget(item, &computing.budget))?;
                if computing.charged {
                    Self::stored(store.release(&claim.key, &self.owner, self.now))?;
                } else {
                    Self::stored(store.release_unattempted(&claim.key, &self.owner, self.now))?;
                }
            }
        }
        let disposition = Disposition::Defer {
            charged: computing.charged,
        };
        let why = format!("{why}; {}", computing.note);
        Ok(plan(item, title, disposition, why, Vec::new()))
    }

    /// The trigger ends: the row is abandoned, the gate forgets what it no longer means.
    fn end(
        &mut self,
        store: &dyn Store,
        item: &ItemRef,
        title: &str,
        disposition: Disposition,
        why: String,
        gate: Option<Gate>,
    ) -> Result<Plan, ReadError> {
        if self.act {
            if let Some(claim) = self.claims.remove(item) {
                Self::stored(store.abandon(&claim.key, &self.owner, self.now))?;
            }
            if let Some(gate) = gate {
                Self::stored(store.record_gate(item, &gate, self.now))?;
            }
        }
        Ok(plan(item, title, disposition, why, Vec::new()))
    }
}

/// What a sweep that acts would claim: the pending rows, the stranded leases, the recovered
/// triggers, each PR once.
fn would_claim(
    repo: &RepoRef,
    pending: Vec<Pending>,
    stranded: Vec<Lease>,
    due: Vec<(ItemRef, String)>,
) -> Vec<(ItemRef, Listed)> {
    let queued = |head_sha| Listed::Queued { head_sha };
    let mut pool: Vec<(ItemRef, Listed)> = pending
        .into_iter()
        .map(|row| (ItemRef::new(repo, row.pr), queued(row.head_sha)))
        .collect();
    for lease in stranded {
        let item = ItemRef::new(repo, lease.pr);
        if pool.iter().all(|(listed, _)| *listed != item) {
            pool.push((item, queued(lease.head_sha)));
        }
    }
    for (item, head) in due {
        pool.push((item, queued(Some(head))));
    }
    pool
}

fn plan(
    item: &ItemRef,
    title: &str,
    disposition: Disposition,
    reason: String,
    writes: Vec<Write>,
) -> Plan {
    Plan {
        item: item.clone(),
        title: title.to_string(),
        disposition,
        reason,
        remote: writes,
        local: Vec::new(),
        updated_at: None,
    }
}

impl Classifier for SweepClassifier<'_> {
    fn list(
        &mut self,
        _github: &dyn Reader,
        store: &mut dyn Store,
        scope: &Scope,
    ) -> Result<Vec<(ItemRef, Listed)>, ApiError> {
        let Scope::Repo(repo) = scope else {
            return Err(ApiError::Harness {
                message: "sweep works on repositories, not organisations".into(),
            });
        };
        let harness = |error: anyhow::Error| ApiError::Harness {
            message: format!("the store: {error}"),
        };
        let repos = std::slice::from_ref(repo);
        let stranded = self.settle_leases(store, repo).map_err(harness)?;
        let due = self.recover(store, repos).map_err(harness)?;
        if self.recovered > 0 {
            self.notes.push(format!(
                "{}: {} approved PRs whose trigger was lost are due again.",
                repo, self.recovered
            ));
        }
        if !self.act {
            // A dry run leases nothing: it lists what a sweep would claim.
            let pending = store
                .pending(repos, self.now)
                .map_err(|e| harness(e.into()))?;
            return Ok(would_claim(repo, pending, stranded, due));
        }
        let mut pool = Vec::new();
        let rules = self.rules;
        let lease = Duration::minutes(DEFAULT_LEASE_MINUTES);
        let mut admit = |_claim: &Claim, facts: &ClaimFacts, now: DateTime<Utc>| {
            // Read inside the claim's transaction: the budget read and the lease commit together.
            let gate = facts.gate.clone().unwrap_or_default();
            let budget = facts.budget.clone();
            let marked = gate.merged_at.is_some_and(|merged| {
                now - merged < Duration::hours(i64::from(rules.merged_marker_hours))
            });
            !marked && budget_policy::allows(&budget, gate.stamp(), rules, now).is_ok()
        };
        while let Some(claim) = store
            .claim(self.now, &self.owner, repos, lease, &mut admit)
            .map_err(|e| harness(e.into()))?
        {
            let item = ItemRef::new(repo, claim.pr);
            let entry = Listed::Queued {
                head_sha: claim.head_sha.clone(),
            };
            self.started.insert(item.clone(), crate::clock::wall());
            self.claims.insert(item.clone(), claim);
            pool.push((item, entry));
        }
        Ok(pool)
    }

    fn notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// Only merges: a stale sweep's write is `stale-sweep`'s to settle, and a merge does not
    /// repeat it.
    fn concerns(&self, write: &UnknownWrite) -> bool {
        write.is_merge()
    }

    fn started(&mut self, run_id: i64) {
        // Leases name the run, so the next run can tell whether their holder is still at work.
        self.owner = run_owner(run_id);
    }

    fn held_elsewhere(&mut self) -> Vec<(ItemRef, String)> {
        std::mem::take(&mut self.held)
    }

    fn classify(
        &mut self,
        github: &dyn Reader,
        store: &dyn Store,
        item: &ItemRef,
        listed: Option<&Listed>,
        now: DateTime<Utc>,
    ) -> Result<Plan, ReadError> {
        let trigger_head = match listed {
            Some(Listed::Queued {
                head_sha: Some(head_sha),
            }) => Some(head_sha.clone()),
            _ => Self::stored(store.gate(item))?.map(|gate| gate.head_sha),
        };
        let pull = github.pull(item)?;
        let title = pull.title.clone();
        let head = pull
            .head_sha
            .clone()
            .ok_or_else(|| ReadError::Item("the PR's `head.sha` is missing".into()))?;
        let gate = Self::stored(store.gate(item))?;

        let Some(trigger_head) = trigger_head else {
            return Err(ReadError::Item("no head is recorded for this merge".into()));
        };
        let state = PullState {
            merged: pull.merged,
            open: pull.open,
            head: &head,
            trigger_head: &trigger_head,
            held: merge::held(&pull.title, &pull.labels, self.poll),
            draft: pull.draft,
            mergeable: pull.mergeable,
            mergeable_state: pull.mergeable_state.as_ref(),
        };
        let base = pull.base_ref.clone();
        if let Some(mut route) = budget_policy::guard(&state) {
            if let Route::Computing(_) = &route {
                // The one REST read that starts GitHub's computation; read again next sweep.
                github.start_mergeability(item)?;
            }
            // A blocked PR is deferred with the rules gh-sweep could read, in words.
            if let Route::Blocked { rules } = &mut route {
                *rules = Some(match &base {
                    Some(base) => self.reads.rules(github, &item.repo, base)?.explain(),
                    None => "GitHub does not say which branch it merges into".into(),
                });
            }
            return self.follow(store, item, &title, &head, gate, route);
        }
        self.judge_fresh(github, store, item, &title, head, base, gate, now)
    }

    fn after_writes(
        &mut self,
        store: &dyn Store,
        plan: &Plan,
        dates: &[DateTime<Utc>],
    ) -> anyhow::Result<Vec<Effect>> {
        let Some(Write::Merge { sha, .. }) = plan.remote.first() else {
            return Ok(Vec::new());
        };
        let item = &plan.item;
        let stamp = store.gate(item)?.and_then(|gate| gate.stamp());
        let budget = budget_policy::after(&store.budget(item)?, stamp, self.now);
        let mut effects = vec![
            Effect::RecordMerged {
                item: item.clone(),
                head_sha: sha.clone(),
                at: dates.first().copied().unwrap_or(self.now),
            },
            Effect::RecordBudget {
                item: item.clone(),
                budget,
            },
        ];
        if let Some(claim) = self.claims.remove(item) {
            effects.push(Effect::CompleteLease {
                key: claim.key,
                owner: self.owner.clone(),
                started: self.started.get(item).copied().unwrap_or(self.now),
                now: self.now,
            });
        }
        Ok(effects)
    }

    fn after_refused_write(
        &mut self,
        store: &dyn Store,
        plan: &Plan,
        error: &WriteError,
    ) -> anyhow::Result<Option<Vec<Effect>>> {
        // 405 (not mergeable) and 409 (head moved) are GitHub refusing this PR's merge: nothing
        // was written. It is the trigger's failed attempt, and the run goes on.
        if !matches!(error.status, Some(405) | Some(409)) {
            return Ok(None);
        }
        // A 405 is not one thing: the merge queue or a merge method the repository does not
        // allow will not change by trying again, so the rest of the budget is spent. A refused
        // merge commit costs one attempt when another method is left: the next one uses it.
        let refusal = (error.status == Some(405)).then(|| merge::refusal(&error.message));
        let stamp = store.gate(&plan.item)?.and_then(|gate| gate.stamp());
        let budget = store.budget(&plan.item)?;
        let after = match refusal {
            None => budget_policy::after(&budget, stamp, self.now),
            Some(refusal) if refusal.retry() => budget_policy::after(&budget, stamp, self.now),
            Some(Refusal::MergeCommit) => {
                let budget = budget_policy::merge_commit_refused(budget);
                match self.next_method.get(&plan.item).copied().flatten() {
                    Some(_) => budget_policy::after(&budget, stamp, self.now),
                    None => budget_policy::spent(&budget, stamp, self.rules, self.now),
                }
            }
            Some(_) => budget_policy::spent(&budget, stamp, self.rules, self.now),
        };
        let mut effects = vec![Effect::RecordBudget {
            item: plan.item.clone(),
            budget: after,
        }];
        if let Some(claim) = self.claims.remove(&plan.item) {
            effects.push(Effect::FailLease {
                key: claim.key,
                owner: self.owner.clone(),
                error: error.message.clone(),
                now: self.now,
            });
        }
        Ok(Some(effects))
    }

    fn refusal(&self, plan: &Plan, error: &WriteError) -> Option<String> {
        match (plan.remote.first(), error.status) {
            (Some(Write::Merge { .. }), Some(405)) => {
                let next = self.next_method.get(&plan.item).copied().flatten();
                Some(merge::refusal(&error.message).reason(next))
            }
            _ => None,
        }
    }

    fn reconcile(
        &mut self,
        github: &dyn Reader,
        store: &dyn Store,
        write: &UnknownWrite,
    ) -> Result<Option<(Settled, String)>, ReadError> {
        if !write.is_merge() {
            return Ok(None);
        }
        let item: ItemRef = write.item.parse().map_err(ReadError::Item)?;
        let pull = github.pull(&item)?;
        if pull.merged {
            let head = pull.head_sha.unwrap_or_default();
            Self::stored(store.record_merged(&item, &head, self.now))?;
            Self::stored(store.settle_merged(&item, self.now))?;
            Self::stored(self.charge(store, &item))?;
            return Ok(Some((
                Settled::Happened,
                "GitHub shows it merged; recorded, not sent again".into(),
            )));
        }
        Self::stored(store.reopen_claims(&item, self.now))?;
        Ok(Some((
            Settled::DidNotHappen,
            "GitHub shows it not merged; it is swept again like any other".into(),
        )))
    }

    fn finish(&mut self, store: &dyn Store) -> anyhow::Result<()> {
        // Rows leased but not finished (not confirmed, a dry run, an outage) go back at once.
        for key in store.held_by(&self.owner)? {
            store.release(&key, &self.owner, crate::clock::wall())?;
        }
        self.claims.clear();
        Ok(())
    }
}
