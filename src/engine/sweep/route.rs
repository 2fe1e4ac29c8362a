//! The guard's routes: past the guard, the fresh judgement (branch rules, merge settings,
//! checks, approval); and the bookkeeping each route asks for (a merged PR recorded, a spent
//! budget, a cleared gate, the lease's outcome), as effects with the plan.

use chrono::{DateTime, Utc};

use super::{plan, SweepKind};
use crate::engine::{Classified, Effect, ReadError, StoreView};
use crate::github::Reader;
use crate::item::ItemRef;
use crate::policy::disposition::Disposition;
use crate::policy::lease::Attempt;
use crate::policy::merge::{self, short, MergeMethod, NoMethod};
use crate::policy::sweep::{self as budget_policy, Gate, Route};
use crate::policy::write::Write;

impl SweepKind<'_> {
    /// Past the guard: the branch's rules and the repository's settings, then the checks and
    /// the approval, read fresh with the same rules as poll's.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn judge_fresh(
        &mut self,
        github: &dyn Reader,
        store: StoreView<'_>,
        item: &ItemRef,
        title: &str,
        head: String,
        base: Option<String>,
        gate: Option<Gate>,
        now: DateTime<Utc>,
    ) -> Result<Classified, ReadError> {
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
            Err(NoMethod::NotAllowed(why)) => {
                let deferral = Deferral {
                    why,
                    charged: false,
                    gate: gate.as_ref(),
                };
                return self.defer(store, item, title, deferral, Vec::new());
            }
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
        let merge = vec![Write::Merge {
            sha: head,
            method: choice.method,
        }];
        Ok(plan(item, title, Disposition::Merge, reason, merge).into())
    }

    /// The rest of the PR's sweep budget is spent: its trigger ends (a sweep that acts).
    fn spend_budget(
        &self,
        store: StoreView<'_>,
        item: &ItemRef,
        gate: Option<&Gate>,
    ) -> Result<Vec<Effect>, ReadError> {
        if !self.act {
            return Ok(Vec::new());
        }
        let budget = Self::stored(store.budget(item))?;
        let stamp = gate.and_then(Gate::stamp);
        let spent = budget_policy::spent(&budget, stamp, self.rules, self.now);
        Ok(vec![Effect::RecordBudget {
            item: item.clone(),
            budget: spent,
        }])
    }

    /// The bookkeeping a guard route asks for, as effects with the plan that says so.
    pub(super) fn follow(
        &mut self,
        store: StoreView<'_>,
        item: &ItemRef,
        title: &str,
        head: &str,
        gate: Option<Gate>,
        route: Route,
    ) -> Result<Classified, ReadError> {
        let why = route.reason();
        let ended = |gate: Option<Gate>| Ending {
            disposition: route.disposition(),
            why: route.reason(),
            gate,
        };
        match &route {
            Route::Merged => Ok(self.found_merged(item, title, head, why)),
            Route::NotOpen => {
                let spent = self.spend_budget(store, item, gate.as_ref())?;
                Ok(self.end(item, title, ended(None), spent))
            }
            Route::HeadMoved { .. } => {
                let forgotten = gate.map(|gate| Gate {
                    approved_at: None,
                    ci_passed_at: None,
                    ..gate
                });
                Ok(self.end(item, title, ended(forgotten), Vec::new()))
            }
            Route::Held(why) | Route::ChangesRequested(why) => {
                // Changes requested fail closed: the approval is cleared, which ends the
                // sweep for this PR.
                let requested = matches!(route, Route::ChangesRequested(_));
                let blocked = gate.map(|gate| Gate {
                    approved_at: if requested { None } else { gate.approved_at },
                    blocked: Some(why.clone()),
                    ..gate
                });
                Ok(self.end(item, title, ended(blocked), Vec::new()))
            }
            Route::MergeQueue(why) | Route::NoMergeMethod(why) => {
                // Not retried: the rest of the budget is spent, the trigger ends, the gate
                // says why until poll looks again.
                let spent = self.spend_budget(store, item, gate.as_ref())?;
                let blocked = gate.map(|gate| Gate {
                    blocked: Some(why.clone()),
                    ..gate
                });
                Ok(self.end(item, title, ended(blocked), spent))
            }
            Route::Computing(why) => self.defer_computing(store, item, title, why, gate.as_ref()),
            Route::Blocked { .. } => {
                let deferral = Deferral {
                    why,
                    charged: true,
                    gate: gate.as_ref(),
                };
                self.defer(store, item, title, deferral, Vec::new())
            }
            Route::Defer {
                charged, not_green, ..
            } => self.defer_not_green(store, item, title, why, *charged, *not_green, gate),
        }
    }

    /// The PR is merged on GitHub: the merged marker, and every row of it settled as merged.
    fn found_merged(&mut self, item: &ItemRef, title: &str, head: &str, why: String) -> Classified {
        let mut effects = Vec::new();
        if self.act {
            effects.push(Effect::RecordMerged {
                item: item.clone(),
                head_sha: head.to_string(),
                at: self.now,
            });
            effects.push(Effect::SettleMerged {
                item: item.clone(),
                now: self.now,
            });
        }
        let disposition = Disposition::Skip(crate::policy::disposition::Skip::AlreadyMerged);
        effects.extend(self.lease(item, Attempt::Decided(&disposition)));
        let reason = format!("{why} at {}", short(head));
        Classified {
            plan: plan(item, title, disposition, reason, Vec::new()),
            effects,
        }
    }

    /// A deferral for checks that are not green: the gate's ci-passed flag is cleared first.
    #[allow(clippy::too_many_arguments)]
    fn defer_not_green(
        &mut self,
        store: StoreView<'_>,
        item: &ItemRef,
        title: &str,
        why: String,
        charged: bool,
        not_green: bool,
        gate: Option<Gate>,
    ) -> Result<Classified, ReadError> {
        let mut effects = Vec::new();
        let mut gate = gate;
        if let (true, true, Some(found)) = (self.act, not_green, &gate) {
            let cleared = Gate {
                ci_passed_at: None,
                ..found.clone()
            };
            effects.push(Effect::RecordGate {
                item: item.clone(),
                gate: cleared.clone(),
                now: self.now,
            });
            // The attempt is charged to the trigger as the gate now stands.
            gate = Some(cleared);
        }
        let deferral = Deferral {
            why,
            charged,
            gate: gate.as_ref(),
        };
        self.defer(store, item, title, deferral, effects)
    }

    /// A deferral: the PR stays, the attempt is charged (or not), the row goes back.
    fn defer(
        &mut self,
        store: StoreView<'_>,
        item: &ItemRef,
        title: &str,
        deferral: Deferral<'_>,
        mut effects: Vec<Effect>,
    ) -> Result<Classified, ReadError> {
        let disposition = Disposition::Defer {
            charged: deferral.charged,
        };
        if self.act && self.claims.contains_key(item) {
            if deferral.charged {
                effects.push(Self::stored(self.charged(store, item, deferral.gate))?);
            }
            effects.extend(self.lease(item, Attempt::Decided(&disposition)));
        }
        Ok(Classified {
            plan: plan(item, title, disposition, deferral.why, Vec::new()),
            effects,
        })
    }

    /// GitHub is still computing whether the PR can merge: the row goes back, free for the
    /// trigger's first sweeps that find it so, then charged (`policy::sweep::computing`).
    fn defer_computing(
        &mut self,
        store: StoreView<'_>,
        item: &ItemRef,
        title: &str,
        why: &str,
        gate: Option<&Gate>,
    ) -> Result<Classified, ReadError> {
        let stamp = gate.and_then(Gate::stamp);
        let budget = Self::stored(store.budget(item))?;
        let computing = budget_policy::computing(&budget, stamp, self.rules, self.now);
        let disposition = Disposition::Defer {
            charged: computing.charged,
        };
        let mut effects = Vec::new();
        if self.act && self.claims.contains_key(item) {
            effects.push(Effect::RecordBudget {
                item: item.clone(),
                budget: computing.budget,
            });
            effects.extend(self.lease(item, Attempt::Decided(&disposition)));
        }
        let why = format!("{why}; {}", computing.note);
        Ok(Classified {
            plan: plan(item, title, disposition, why, Vec::new()),
            effects,
        })
    }

    /// The trigger ends: the row is abandoned, the gate forgets what it no longer means.
    fn end(
        &mut self,
        item: &ItemRef,
        title: &str,
        ending: Ending,
        mut effects: Vec<Effect>,
    ) -> Classified {
        if self.act {
            effects.extend(self.lease(item, Attempt::Decided(&ending.disposition)));
            if let Some(gate) = ending.gate {
                effects.push(Effect::RecordGate {
                    item: item.clone(),
                    gate,
                    now: self.now,
                });
            }
        }
        Classified {
            plan: plan(item, title, ending.disposition, ending.why, Vec::new()),
            effects,
        }
    }
}

/// A deferral's reason, whether it is charged, and the gate the charge is stamped by.
struct Deferral<'a> {
    why: String,
    charged: bool,
    gate: Option<&'a Gate>,
}

/// A trigger's end: the plan's disposition and reason, and the gate as it should be kept.
struct Ending {
    disposition: Disposition,
    why: String,
    gate: Option<Gate>,
}
