//! `sweep`: the executor of seeds 001 and 002. It first turns due merge-gate entries (approved
//! PRs whose trigger was lost) into queue rows, then has the engine claim queue rows under a
//! lease with the sweep budget as the claim's `admit`, then re-checks the guard from fresh
//! reads for each claimed PR. Only a PR that passes the guard is merged, with `sha` = the
//! checked head. Decisions come from `policy::sweep`, `policy::merge` and `policy::lease`; this
//! file reads, and says what the store should keep as effects.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};

use super::merge_reads::MergeReads;
use super::settle::Effect;
use super::{
    AfterWrite, ClaimRequest, Classified, Kind, ListError, Listed, Plan, ReadError, Reconciled,
    ScopeListing, StoreView, Summary, Written,
};
use crate::exit::Fatal;
use crate::github::{Reader, WriteError};
use crate::item::{ItemRef, RepoRef, Scope};
use crate::policy::disposition::Disposition;
use crate::policy::lease::{self, Attempt, LeaseOutcome, Owner};
use crate::policy::merge::{self, MergeMethod, PollRules, QueueStatus};
use crate::policy::sweep::{self as budget_policy, Gate, PullState, Route, SweepRules};
use crate::policy::write::{Settled, Write};
use crate::store::queue::{merge_key, Holder, Lease, Pending, DEFAULT_LEASE_MINUTES};
use crate::store::UnknownWrite;

mod route;

/// A row this run leased: its key, and when its work started (for `fold`).
struct Leased {
    key: String,
    started: DateTime<Utc>,
}

pub(crate) struct SweepKind<'a> {
    rules: &'a SweepRules,
    /// `rules.merge_method`, read once.
    method: MergeMethod,
    poll: &'a PollRules,
    /// False for a dry run: list what would be claimed, lease nothing, record nothing.
    act: bool,
    owner: Owner,
    now: DateTime<Utc>,
    /// The rows this run leased, by PR, until their outcome is said.
    claims: BTreeMap<ItemRef, Leased>,
    /// Lost triggers queued again so far this run.
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

impl<'a> SweepKind<'a> {
    /// `owner` names the leases until the run is recorded (then they name the run).
    pub(crate) fn new(
        rules: &'a SweepRules,
        poll: &'a PollRules,
        act: bool,
        owner: String,
        now: DateTime<Utc>,
    ) -> Result<Self, Fatal> {
        Ok(SweepKind {
            method: rules.method().map_err(|e| Fatal::Usage(e.to_string()))?,
            rules,
            poll,
            act,
            owner: Owner::new(owner),
            now,
            claims: BTreeMap::new(),
            recovered: 0,
            notes: Vec::new(),
            held: Vec::new(),
            reads: MergeReads::default(),
            next_method: BTreeMap::new(),
        })
    }

    fn stored<T>(result: anyhow::Result<T>) -> Result<T, ReadError> {
        result.map_err(ReadError::store("the store"))
    }

    /// The lost-trigger recovery: a due gate entry with no live queue row gets one (a sweep
    /// that acts, in `effects`); a dry run returns them, as what it would claim.
    fn recover(
        &mut self,
        store: StoreView<'_>,
        scope: &[RepoRef],
        effects: &mut Vec<Effect>,
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
            if self.act {
                effects.push(Effect::Enqueue {
                    key: merge_key(&item.repo, item.number, &gate.head_sha),
                    repo: item.repo.clone(),
                    pr: item.number,
                    head_sha: gate.head_sha.clone(),
                    max_attempts: self.rules.attempts_per_trigger,
                    now: self.now,
                });
                self.recovered += 1;
            } else {
                due.push((item, gate.head_sha.clone()));
            }
        }
        Ok(due)
    }

    /// Other runs' live leases in `repo`: those of a run known to be over (its process is gone,
    /// or it finished) are released at once (in `effects`; a dry run only says it would, and
    /// lists them as what it would claim); a PR leased to a run that may still be at work is
    /// held, unfinished, with whose lease it is and when it ends. Returns the rows a dry run
    /// would claim.
    fn settle_leases(
        &mut self,
        store: StoreView<'_>,
        repo: &RepoRef,
        effects: &mut Vec<Effect>,
    ) -> anyhow::Result<Vec<Lease>> {
        let mut released: BTreeMap<(Option<i64>, Holder), Vec<String>> = BTreeMap::new();
        let mut claimable = Vec::new();
        for lease in store.leases(std::slice::from_ref(repo), self.now)? {
            if lease.owner == self.owner.as_str() {
                continue;
            }
            let item = ItemRef::new(repo, lease.pr);
            if lease.holder == Holder::Alive {
                self.hold(item, &lease);
                continue;
            }
            released
                .entry((lease.run_id, lease.holder))
                .or_default()
                .push(item.to_string());
            if self.act {
                effects.push(Effect::Lease {
                    key: lease.key.clone(),
                    owner: Owner::new(lease.owner.clone()),
                    outcome: LeaseOutcome::Release,
                    started: self.now,
                    now: self.now,
                });
            } else {
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

    /// A PR leased to a run that may still be at work: unfinished for this run.
    fn hold(&mut self, item: ItemRef, lease: &Lease) {
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
    }

    /// The repository's pool: a dry run lists what a sweep would claim; a sweep that acts
    /// asks the engine to claim rows, after its effects (stranded leases released, lost
    /// triggers queued again).
    fn list_repo(
        &mut self,
        store: StoreView<'_>,
        repo: &RepoRef,
        found: &mut ScopeListing,
    ) -> anyhow::Result<Vec<(ItemRef, Listed)>> {
        let repos = std::slice::from_ref(repo);
        let stranded = self.settle_leases(store, repo, &mut found.effects)?;
        let due = self.recover(store, repos, &mut found.effects)?;
        if self.recovered > 0 {
            self.notes.push(format!(
                "{}: {} approved PRs whose trigger was lost are due again.",
                repo, self.recovered
            ));
        }
        if !self.act {
            // A dry run leases nothing: it lists what a sweep would claim.
            let pending = store.pending(repos, self.now)?;
            return Ok(would_claim(repo, pending, stranded, due));
        }
        let rules = self.rules.clone();
        found.claim = Some(ClaimRequest {
            owner: self.owner.clone(),
            repos: repos.to_vec(),
            lease: Duration::minutes(DEFAULT_LEASE_MINUTES),
            now: self.now,
            // Read inside the claim's transaction: the budget read and the lease commit
            // together.
            admit: Box::new(move |_claim, facts, now| {
                budget_policy::admits(facts.gate.as_ref(), &facts.budget, &rules, now)
            }),
        });
        Ok(Vec::new())
    }

    /// The budget after one more attempt, the trigger stamped as `gate` says.
    fn charged(
        &self,
        store: StoreView<'_>,
        item: &ItemRef,
        gate: Option<&Gate>,
    ) -> anyhow::Result<Effect> {
        let stamp = gate.and_then(Gate::stamp);
        let budget = store.budget(item)?;
        Ok(Effect::RecordBudget {
            item: item.clone(),
            budget: budget_policy::after(&budget, stamp, self.now),
        })
    }

    /// The lease's outcome for the PR's claim, as `policy::lease` decides it from `attempt`,
    /// when this run holds one: the claim is then settled, and no longer this run's to say.
    fn lease(&mut self, item: &ItemRef, attempt: Attempt<'_>) -> Option<Effect> {
        let held = self.claims.remove(item)?;
        let outcome = lease::outcome(attempt)?;
        Some(Effect::Lease {
            key: held.key,
            owner: self.owner.clone(),
            outcome,
            started: held.started,
            now: self.now,
        })
    }

    /// The head the PR's trigger was for: the queue row's, else the gate's. A row this run
    /// leased is remembered, for its outcome.
    fn trigger_head(
        &mut self,
        item: &ItemRef,
        listed: Option<&Listed>,
        gate: Option<&Gate>,
    ) -> Option<String> {
        let queued = match listed {
            Some(Listed::Queued { head_sha }) => head_sha.clone(),
            Some(Listed::Claimed { claim, started }) => {
                let leased = Leased {
                    key: claim.key.clone(),
                    started: *started,
                };
                self.claims.insert(item.clone(), leased);
                claim.head_sha.clone()
            }
            _ => None,
        };
        queued.or_else(|| gate.map(|gate| gate.head_sha.clone()))
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

impl Kind for SweepKind<'_> {
    fn list(&mut self, _github: &dyn Reader, store: StoreView<'_>, scope: &Scope) -> ScopeListing {
        let mut found = ScopeListing::of(Ok(Vec::new()));
        found.entries = match scope {
            Scope::Repo(repo) => self
                .list_repo(store, repo, &mut found)
                .map_err(ListError::Store),
            Scope::Org(_) => Err(ListError::Unsupported(
                "sweep works on repositories, not organisations",
            )),
        };
        found.notes = std::mem::take(&mut self.notes);
        found.held = std::mem::take(&mut self.held);
        found
    }

    /// Only merges: a stale sweep's write is `stale-sweep`'s to settle, and a merge does not
    /// repeat it.
    fn concerns(&self, write: &UnknownWrite) -> bool {
        write.is_merge()
    }

    fn started(&mut self, run_id: i64) {
        // Leases name the run, so the next run can tell whether their holder is still at work.
        self.owner = Owner::run(run_id);
    }

    fn classify(
        &mut self,
        github: &dyn Reader,
        store: StoreView<'_>,
        item: &ItemRef,
        listed: Option<&Listed>,
        now: DateTime<Utc>,
    ) -> Result<Classified, ReadError> {
        let gate = Self::stored(store.gate(item))?;
        let trigger_head = self.trigger_head(item, listed, gate.as_ref());
        let pull = github.pull(item)?;
        let title = pull.title.clone();
        let head = pull
            .head_sha
            .clone()
            .ok_or_else(|| ReadError::Item("the PR's `head.sha` is missing".into()))?;
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

    fn written(
        &mut self,
        store: StoreView<'_>,
        plan: &Plan,
        written: Written<'_>,
    ) -> anyhow::Result<AfterWrite> {
        match written {
            Written::All(dates) => Ok(AfterWrite {
                effects: self.merged(store, plan, dates)?,
                ..AfterWrite::default()
            }),
            Written::Refused(error) => self.refused(store, plan, error),
        }
    }

    fn reconcile(
        &mut self,
        github: &dyn Reader,
        store: StoreView<'_>,
        write: &UnknownWrite,
    ) -> Result<Option<Reconciled>, ReadError> {
        if !write.is_merge() {
            return Ok(None);
        }
        let item: ItemRef = write
            .item
            .parse()
            .map_err(|why: crate::item::RefError| ReadError::Item(why.to_string()))?;
        let pull = github.pull(&item)?;
        if pull.merged {
            let head = pull.head_sha.unwrap_or_default();
            let gate = Self::stored(store.gate(&item))?;
            let charged = Self::stored(self.charged(store, &item, gate.as_ref()))?;
            let effects = vec![
                Effect::RecordMerged {
                    item: item.clone(),
                    head_sha: head,
                    at: self.now,
                },
                Effect::SettleMerged {
                    item: item.clone(),
                    now: self.now,
                },
                charged,
            ];
            return Ok(Some(Reconciled {
                settled: Settled::Happened,
                found: "GitHub shows it merged; recorded, not sent again".into(),
                effects,
            }));
        }
        Ok(Some(Reconciled {
            settled: Settled::DidNotHappen,
            found: "GitHub shows it not merged; it is swept again like any other".into(),
            effects: vec![Effect::ReopenClaims {
                item,
                now: self.now,
            }],
        }))
    }

    fn summary(&self, _completed: &[&Disposition], _failed: usize, _dry_run: bool) -> Summary {
        Summary::default()
    }

    fn finish(&mut self, store: StoreView<'_>) -> anyhow::Result<Vec<Effect>> {
        // Rows leased but not finished (not confirmed, a dry run, an outage) go back at once.
        let now = crate::clock::wall();
        let effects = store
            .held_by(&self.owner)?
            .into_iter()
            .map(|key| Effect::Lease {
                key,
                owner: self.owner.clone(),
                outcome: LeaseOutcome::Release,
                started: now,
                now,
            })
            .collect();
        self.claims.clear();
        Ok(effects)
    }
}

impl SweepKind<'_> {
    /// The merge went through: the merged marker, the attempt charged, the row completed.
    fn merged(
        &mut self,
        store: StoreView<'_>,
        plan: &Plan,
        dates: &[DateTime<Utc>],
    ) -> anyhow::Result<Vec<Effect>> {
        let Some(Write::Merge { sha, .. }) = plan.remote.first() else {
            return Ok(Vec::new());
        };
        let item = &plan.item;
        let gate = store.gate(item)?;
        let mut effects = vec![
            Effect::RecordMerged {
                item: item.clone(),
                head_sha: sha.clone(),
                at: dates.first().copied().unwrap_or(self.now),
            },
            self.charged(store, item, gate.as_ref())?,
        ];
        effects.extend(self.lease(item, Attempt::Merged));
        Ok(effects)
    }

    /// GitHub refused the merge. 405 (not mergeable) and 409 (head moved) are GitHub refusing
    /// this PR's merge: nothing was written. It is the trigger's failed attempt, and the run
    /// goes on; any other refusal stops it.
    fn refused(
        &mut self,
        store: StoreView<'_>,
        plan: &Plan,
        error: &WriteError,
    ) -> anyhow::Result<AfterWrite> {
        let is_merge = matches!(plan.remote.first(), Some(Write::Merge { .. }));
        let next = self.next_method.get(&plan.item).copied().flatten();
        let meaning = (is_merge && error.status == Some(405))
            .then(|| merge::refusal(&error.message).reason(next));
        if !matches!(error.status, Some(405) | Some(409)) {
            return Ok(AfterWrite {
                meaning,
                ..AfterWrite::default()
            });
        }
        let refusal = (error.status == Some(405)).then(|| merge::refusal(&error.message));
        let stamp = store.gate(&plan.item)?.and_then(|gate| gate.stamp());
        let budget = store.budget(&plan.item)?;
        let after = budget_policy::after_refusal(
            budget,
            stamp,
            refusal.as_ref(),
            next.is_some(),
            self.rules,
            self.now,
        );
        let mut effects = vec![Effect::RecordBudget {
            item: plan.item.clone(),
            budget: after,
        }];
        effects.extend(self.lease(&plan.item, Attempt::Refused(&error.message)));
        Ok(AfterWrite {
            effects,
            goes_on: true,
            meaning,
        })
    }
}
