//! The guard's routes: past the guard, the fresh judgement (branch rules, merge settings,
//! checks, approval); and the bookkeeping each route asks for (a merged PR recorded, a spent
//! budget, a cleared gate), said in the plan.

use chrono::{DateTime, Utc};

use super::{plan, SweepClassifier};
use crate::engine::{Plan, ReadError};
use crate::github::Reader;
use crate::item::ItemRef;
use crate::policy::disposition::Disposition;
use crate::policy::merge::{self, short, MergeMethod, NoMethod};
use crate::policy::sweep::{self as budget_policy, Gate, Route};
use crate::policy::write::Write;
use crate::store::Store;

impl SweepClassifier<'_> {
    /// Past the guard: the branch's rules and the repository's settings, then the checks and
    /// the approval, read fresh with the same rules as poll's.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn judge_fresh(
        &mut self,
        github: &dyn Reader,
        store: &dyn Store,
        item: &ItemRef,
        title: &str,
        head: String,
        base: Option<String>,
        gate: Option<Gate>,
        now: DateTime<Utc>,
    ) -> Result<Plan, ReadError> {
        // The branch's rules and the repository's settings, before any attempt: a branch that
        // requires the merge queue, or a merge method it does not allow, is never tried.
        let rules = match &base {
            Some(base) => self.reads.rules(github, &item.repo, base)?,
            None => merge::BranchRules::default(),
        };
        if rules.merge_queue {
            let route = Route::MergeQueue(format!(
                "{} requires the merge queue: gh-sweep does not enqueue into it, so it is not tried (add it to the queue on GitHub)",
                rules.branch
            ));
            return self.follow(store, item, title, &head, gate, route);
        }
        let settings = self.reads.settings(github, &item.repo)?;
        let repo = item.repo.to_string();
        let refused = Self::stored(store.budget(item))?.merge_commit_refused;
        let choice = match merge::choose_method(self.method, &repo, &settings, &rules, refused) {
            Ok(choice) => choice,
            Err(NoMethod::NotAllowed(why)) => return self.defer(store, item, title, why, false),
            Err(NoMethod::NoneLeft(why)) => {
                let route = Route::NoMergeMethod(why);
                return self.follow(store, item, title, &head, gate, route);
            }
        };
        // Classic protection's linear history shows only as GitHub's refusal of a merge
        // commit: what the next attempt would use then.
        let next = (choice.method == MergeMethod::Merge)
            .then(|| merge::choose_method(self.method, &repo, &settings, &rules, true).ok())
            .flatten()
            .map(|next| next.method)
            .filter(|next| *next != MergeMethod::Merge);
        self.next_method.insert(item.clone(), next);
        // The checks and the approval, read fresh; the same rules as poll's.
        let green = self
            .reads
            .green(github, &item.repo, &head, base.as_deref(), self.poll, now)?;
        let approval = self.reads.approval(github, item, &head)?;
        let ignored = green.verdict.clone().unwrap_or_default();
        if let Some(route) = budget_policy::verdict(green.verdict.map(|_| ()), approval.verdict) {
            return self.follow(store, item, title, &head, gate, route);
        }
        let mut reason = format!("open, green and approved at {}", short(&head));
        for note in ignored.into_iter().chain(choice.why) {
            reason.push_str(&format!("; {note}"));
        }
        Ok(plan(
            item,
            title,
            Disposition::Merge,
            reason,
            vec![Write::Merge {
                sha: head,
                method: choice.method,
            }],
        ))
    }

    /// The rest of the PR's sweep budget is spent: its trigger ends (a sweep that acts).
    fn spend_budget(
        &self,
        store: &dyn Store,
        item: &ItemRef,
        gate: Option<&Gate>,
    ) -> Result<(), ReadError> {
        if self.act {
            let budget = Self::stored(store.budget(item))?;
            let stamp = gate.and_then(Gate::stamp);
            let spent = budget_policy::spent(&budget, stamp, self.rules, self.now);
            Self::stored(store.record_budget(item, &spent))?;
        }
        Ok(())
    }

    /// Carries out the bookkeeping a guard route asks for, and says so in the plan.
    pub(super) fn follow(
        &mut self,
        store: &dyn Store,
        item: &ItemRef,
        title: &str,
        head: &str,
        gate: Option<Gate>,
        route: Route,
    ) -> Result<Plan, ReadError> {
        let why = route.reason();
        match &route {
            Route::Merged => {
                if self.act {
                    Self::stored(store.record_merged(item, head, self.now))?;
                    Self::stored(store.settle_merged(item, self.now))?;
                    self.claims.remove(item);
                }
                Ok(plan(
                    item,
                    title,
                    route.disposition(),
                    format!("{why} at {}", short(head)),
                    Vec::new(),
                ))
            }
            Route::NotOpen => {
                self.spend_budget(store, item, gate.as_ref())?;
                self.end(store, item, title, route.disposition(), why, None)
            }
            Route::HeadMoved { .. } => {
                let forgotten = gate.map(|gate| Gate {
                    approved_at: None,
                    ci_passed_at: None,
                    ..gate
                });
                self.end(store, item, title, route.disposition(), why, forgotten)
            }
            Route::Held(held) => {
                let blocked = gate.map(|gate| Gate {
                    blocked: Some(held.clone()),
                    ..gate
                });
                self.end(store, item, title, route.disposition(), why, blocked)
            }
            Route::MergeQueue(why) | Route::NoMergeMethod(why) => {
                // Not retried: the rest of the budget is spent, the trigger ends, the gate
                // says why until poll looks again.
                self.spend_budget(store, item, gate.as_ref())?;
                let blocked = gate.map(|gate| Gate {
                    blocked: Some(why.clone()),
                    ..gate
                });
                let why = route.reason();
                self.end(store, item, title, route.disposition(), why, blocked)
            }
            Route::ChangesRequested(requested) => {
                // Fail closed: the approval is cleared, which ends the sweep for this PR.
                let cleared = gate.map(|gate| Gate {
                    approved_at: None,
                    blocked: Some(requested.clone()),
                    ..gate
                });
                self.end(store, item, title, route.disposition(), why, cleared)
            }
            Route::Computing(why) => self.defer_computing(store, item, title, why.clone()),
            Route::Blocked { .. } => self.defer(store, item, title, why, true),
            Route::Defer {
                charged, not_green, ..
            } => {
                // A guard that found the checks not green clears the gate's ci-passed flag.
                if let (true, true, Some(gate)) = (self.act, *not_green, &gate) {
                    let cleared = Gate {
                        ci_passed_at: None,
                        ..gate.clone()
                    };
                    Self::stored(store.record_gate(item, &cleared, self.now))?;
                }
                self.defer(store, item, title, why, *charged)
            }
        }
    }
}
