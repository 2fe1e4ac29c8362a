//! The lost-trigger sweep of seed 001: when a PR's merge may be tried, and the per-trigger
//! attempt budget with its watermark. Pure: the gate's fields, the budget and `now` in; due or
//! not (with the reason), and the budget after an attempt, out. It sets and triggers nothing.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::policy::disposition::{Disposition, Skip};
use crate::policy::merge::{ApprovalVerdict, MergeMethod, MergeRefusal, MergeableState, NotGreen};
use crate::policy::RuleError;

/// The `[sweep]` table.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SweepRules {
    pub attempts_per_trigger: u32,
    /// Minutes to wait after attempt n (the last entry repeats).
    pub backoff_minutes: Vec<u32>,
    pub settle_minutes: u32,
    pub merged_marker_hours: u32,
    pub merge_method: String,
    pub enabled: bool,
}

impl Default for SweepRules {
    fn default() -> Self {
        SweepRules {
            attempts_per_trigger: 12,
            backoff_minutes: vec![5, 10, 20, 40, 80, 120],
            settle_minutes: 2,
            merged_marker_hours: 1,
            merge_method: "merge".into(),
            enabled: true,
        }
    }
}

impl SweepRules {
    pub fn validate(&self) -> Result<(), RuleError> {
        if self.attempts_per_trigger == 0 {
            return Err(RuleError::value(
                "sweep",
                "attempts_per_trigger",
                0,
                "use 1 or more",
            ));
        }
        if self.backoff_minutes.is_empty() {
            return Err(RuleError::value(
                "sweep",
                "backoff_minutes",
                "[]",
                "give at least one number of minutes, e.g. [5, 10, 20]",
            ));
        }
        self.method()?;
        Ok(())
    }

    /// `merge_method` as a method; the error names the bad value.
    pub fn method(&self) -> Result<MergeMethod, RuleError> {
        MergeMethod::from_config(&self.merge_method)
    }

    /// The wait after `attempts` attempts: none before the first, then the schedule, capped.
    pub fn backoff_after(&self, attempts: u32) -> Duration {
        if attempts == 0 {
            return Duration::zero();
        }
        let index = (attempts as usize - 1).min(self.backoff_minutes.len() - 1);
        Duration::minutes(i64::from(self.backoff_minutes[index]))
    }

    fn settle(&self) -> Duration {
        Duration::minutes(i64::from(self.settle_minutes))
    }

    fn marker(&self) -> Duration {
        Duration::hours(i64::from(self.merged_marker_hours))
    }
}

/// What the store knows of a PR's merge conditions, stamped with GitHub's own times.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Gate {
    pub head_sha: String,
    /// The approval at the head (`review-approved`): its `submitted_at`.
    pub approved_at: Option<DateTime<Utc>>,
    /// When the head's checks went green (`ci-passed`): the newest `completed_at`.
    pub ci_passed_at: Option<DateTime<Utc>>,
    /// Why the PR must not be merged (held, changes requested, not docs-only).
    pub blocked: Option<String>,
    /// The merged marker: set after a real merge, it lives `merged_marker_hours`.
    pub merged_at: Option<DateTime<Utc>>,
}

impl Gate {
    /// The trigger's identity: the newest condition time.
    pub fn stamp(&self) -> Option<DateTime<Utc>> {
        self.approved_at.max(self.ci_passed_at)
    }
}

/// A PR's attempt budget. Missing or damaged reads as `Budget::default()`: fresh.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    pub attempts: u32,
    pub last: Option<DateTime<Utc>>,
    /// The newest stamp the budget has seen.
    pub watermark: Option<DateTime<Utc>>,
    /// Sweeps of this trigger that found GitHub still computing whether the PR can merge.
    pub computing: u32,
    /// GitHub refused a merge commit on the PR's base branch ("This branch must not contain
    /// merge commits.": classic protection's linear history, which only admins can read). A
    /// fact of the branch, not of the trigger: a fresh budget keeps it.
    pub merge_commit_refused: bool,
}

/// The budget that applies to a trigger stamped `stamp`: fresh only for a stamp newer than the
/// watermark; an older stamp (a cleared flag falling back to the approval) carries on.
pub(crate) fn effective(budget: &Budget, stamp: Option<DateTime<Utc>>) -> Budget {
    let fresh = |stamp| Budget {
        watermark: Some(stamp),
        merge_commit_refused: budget.merge_commit_refused,
        ..Budget::default()
    };
    match (stamp, budget.watermark) {
        (Some(stamp), Some(watermark)) if stamp > watermark => fresh(stamp),
        (Some(stamp), None) => fresh(stamp),
        _ => budget.clone(),
    }
}

/// Why a PR is not due for an attempt now.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotDue {
    #[error("budget spent: {attempts} of {limit} attempts")]
    Spent { attempts: u32, limit: u32 },
    /// In the backoff: the next attempt's number and how many minutes until it.
    #[error("attempt {next} of {limit} in {minutes} min")]
    Backoff { next: u32, limit: u32, minutes: i64 },
    #[error("no approval recorded")]
    NoApproval,
    #[error("blocked: {0}")]
    Blocked(String),
    #[error("a merge is recorded")]
    Merged,
    #[error("settling: its own trigger is still at work")]
    Settling,
}

/// Whether the budget allows an attempt now, or why not.
pub(crate) fn allows(
    budget: &Budget,
    stamp: Option<DateTime<Utc>>,
    rules: &SweepRules,
    now: DateTime<Utc>,
) -> Result<(), NotDue> {
    let budget = effective(budget, stamp);
    if budget.attempts >= rules.attempts_per_trigger {
        return Err(NotDue::Spent {
            attempts: budget.attempts,
            limit: rules.attempts_per_trigger,
        });
    }
    if let Some(last) = budget.last {
        let next = last + rules.backoff_after(budget.attempts);
        if next > now {
            let minutes = ((next - now).num_seconds() + 59) / 60;
            return Err(NotDue::Backoff {
                next: budget.attempts + 1,
                limit: rules.attempts_per_trigger,
                minutes,
            });
        }
    }
    Ok(())
}

/// Whether a gate entry is due for an attempt (the lost trigger), or why not.
pub(crate) fn due(
    gate: &Gate,
    budget: &Budget,
    rules: &SweepRules,
    now: DateTime<Utc>,
) -> Result<(), NotDue> {
    let Some(_) = gate.approved_at else {
        return Err(NotDue::NoApproval);
    };
    if let Some(why) = &gate.blocked {
        return Err(NotDue::Blocked(why.clone()));
    }
    if let Some(merged) = gate.merged_at {
        if now - merged < rules.marker() {
            return Err(NotDue::Merged);
        }
    }
    let stamp = gate.stamp();
    if let Some(stamp) = stamp {
        if now - stamp < rules.settle() {
            return Err(NotDue::Settling);
        }
    }
    allows(budget, stamp, rules, now)
}

/// The budget after an attempt at `now` for the trigger stamped `stamp`.
pub(crate) fn after(budget: &Budget, stamp: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Budget {
    let budget = effective(budget, stamp);
    Budget {
        attempts: budget.attempts + 1,
        last: Some(now),
        watermark: budget.watermark.max(stamp),
        ..budget
    }
}

/// A PR that is not open spends the rest of its budget at once.
pub(crate) fn spent(
    budget: &Budget,
    stamp: Option<DateTime<Utc>>,
    rules: &SweepRules,
    now: DateTime<Utc>,
) -> Budget {
    let budget = effective(budget, stamp);
    Budget {
        attempts: rules.attempts_per_trigger,
        last: Some(now),
        watermark: budget.watermark.max(stamp),
        ..budget
    }
}

/// GitHub refused a merge commit on the PR's branch: the budget remembers it, so the next
/// attempt uses another method.
pub(crate) fn merge_commit_refused(budget: Budget) -> Budget {
    Budget {
        merge_commit_refused: true,
        ..budget
    }
}

/// Whether a claim may lease a PR's row now: no merge recorded within the merged marker's
/// hours, and the budget allows an attempt. Read with the claim, in its transaction.
pub(crate) fn admits(
    gate: Option<&Gate>,
    budget: &Budget,
    rules: &SweepRules,
    now: DateTime<Utc>,
) -> bool {
    let stamp = gate.and_then(Gate::stamp);
    let marked = gate
        .and_then(|gate| gate.merged_at)
        .is_some_and(|merged| now - merged < rules.marker());
    !marked && allows(budget, stamp, rules, now).is_ok()
}

/// The budget after GitHub refused the PR's merge (a 405 or a 409: nothing was written).
/// `refusal` is what a 405 said (`None` for a 409, the head moved); `other_method` whether a
/// method other than a merge commit is left. A refusal that trying again cannot help spends
/// the rest of the budget; a refused merge commit costs one attempt when another method is
/// left (the next attempt uses it).
pub(crate) fn after_refusal(
    budget: Budget,
    stamp: Option<DateTime<Utc>>,
    refusal: Option<&MergeRefusal>,
    other_method: bool,
    rules: &SweepRules,
    now: DateTime<Utc>,
) -> Budget {
    match refusal {
        None => after(&budget, stamp, now),
        Some(refusal) if refusal.retryable() => after(&budget, stamp, now),
        Some(MergeRefusal::MergeCommit) => {
            let budget = merge_commit_refused(budget);
            if other_method {
                after(&budget, stamp, now)
            } else {
                spent(&budget, stamp, rules, now)
            }
        }
        Some(_) => spent(&budget, stamp, rules, now),
    }
}

/// What a PR looks like to the guard, from the single-PR read.
pub(crate) struct PullState<'a> {
    pub merged: bool,
    pub open: bool,
    pub head: &'a str,
    /// The head the trigger was for (the approval's, or the queued merge's).
    pub trigger_head: &'a str,
    /// Why the PR is held, if it is (`(HELD)` or a held label).
    pub held: Option<String>,
    pub draft: Option<bool>,
    pub mergeable: Option<bool>,
    pub mergeable_state: Option<&'a MergeableState>,
}

/// Where the guard sends a PR that must not be merged now. Each mismatch has its own route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// Merged already: recorded quietly, no attempt spent.
    Merged,
    /// Closed without merging: the rest of the budget is spent at once.
    NotOpen,
    /// The head moved since the trigger: the old trigger ends.
    HeadMoved { approved: String, now: String },
    /// Held: the trigger ends and the gate is blocked.
    Held(String),
    /// Changes requested at the head: the approval is cleared, which ends the sweep (seed 001).
    ChangesRequested(String),
    /// The base branch requires the merge queue: the trigger ends and its budget is spent, so
    /// it is not tried 12 times over 15 hours. gh-sweep does not enqueue into it.
    MergeQueue(String),
    /// Linear history rules out a merge commit and the repository allows no other method:
    /// the trigger ends and its budget is spent, as for the merge queue.
    NoMergeMethod(String),
    /// GitHub is still computing whether the PR can merge: the engine asks it to (one REST
    /// read of the PR) and reads it again on the next sweep; [`computing`] says whether this
    /// deferral is charged.
    Computing(String),
    /// Blocked by branch protection or a ruleset (`mergeable_state` blocked): deferred and
    /// charged, with the rules gh-sweep could read (the engine fills them in) in its reason.
    Blocked { rules: Option<String> },
    /// Not now: tried again after the backoff. `charged` says whether it costs an attempt
    /// (GitHub still computing mergeability does not).
    Defer {
        why: String,
        charged: bool,
        not_green: bool,
    },
}

impl Route {
    pub(crate) fn disposition(&self) -> Disposition {
        match self {
            Route::Merged => Disposition::Skip(Skip::AlreadyMerged),
            Route::NotOpen => Disposition::Skip(Skip::NotOpen),
            Route::HeadMoved { .. } => Disposition::Skip(Skip::HeadMoved),
            Route::Held(_) => Disposition::Skip(Skip::Held),
            Route::ChangesRequested(_) => Disposition::Skip(Skip::ChangesRequested),
            Route::MergeQueue(_) => Disposition::Skip(Skip::MergeQueue),
            Route::NoMergeMethod(_) => Disposition::Skip(Skip::NoMergeMethod),
            Route::Computing(_) => Disposition::Defer { charged: false },
            Route::Blocked { .. } => Disposition::Defer { charged: true },
            Route::Defer { charged, .. } => Disposition::Defer { charged: *charged },
        }
    }

    pub(crate) fn reason(&self) -> String {
        match self {
            Route::Merged => "merged on GitHub".into(),
            Route::NotOpen => "closed without merging; the rest of its budget is spent".into(),
            Route::HeadMoved { approved, now } => {
                format!(
                    "head moved: approved {}, now {}; the old trigger ends",
                    super::merge::short(approved),
                    super::merge::short(now)
                )
            }
            Route::Blocked { rules: None } => BLOCKED.into(),
            Route::Blocked { rules: Some(rules) } => format!("{BLOCKED}; {rules}"),
            Route::Held(why)
            | Route::ChangesRequested(why)
            | Route::MergeQueue(why)
            | Route::NoMergeMethod(why)
            | Route::Computing(why)
            | Route::Defer { why, .. } => why.clone(),
        }
    }
}

/// The guard's first part, before checks and reviews are read: the cheap facts of the PR.
pub(crate) fn guard(pull: &PullState<'_>) -> Option<Route> {
    if pull.merged {
        return Some(Route::Merged);
    }
    if !pull.open {
        return Some(Route::NotOpen);
    }
    if pull.head != pull.trigger_head {
        return Some(Route::HeadMoved {
            approved: pull.trigger_head.to_string(),
            now: pull.head.to_string(),
        });
    }
    if let Some(why) = &pull.held {
        return Some(Route::Held(why.clone()));
    }
    let defer = |why: &str, charged: bool| {
        Some(Route::Defer {
            why: why.to_string(),
            charged,
            not_green: false,
        })
    };
    if pull.draft != Some(false) {
        return defer("the PR is a draft, or GitHub does not say", true);
    }
    // Only what GitHub itself calls mergeable, and even that is necessary, not sufficient: the
    // checks and reviews are judged after. `blocked` is no 405: an admin's or a bypass actor's
    // token gets the merge anyway, so gh-sweep's own guard is what refuses it.
    use MergeableState as State;
    match (pull.mergeable, pull.mergeable_state) {
        (None, _) | (_, None) | (_, Some(State::Unknown)) => Some(Route::Computing(
            "GitHub is still computing whether it can merge (mergeable_state unknown)".into(),
        )),
        (Some(false), state) | (Some(true), state @ Some(State::Dirty)) => Some(Route::Defer {
            why: format!(
                "GitHub cannot merge it (mergeable_state {})",
                state.map_or("unknown", MergeableState::word)
            ),
            charged: true,
            not_green: false,
        }),
        (Some(true), Some(State::Clean | State::HasHooks)) => None,
        (Some(true), Some(State::Blocked)) => Some(Route::Blocked { rules: None }),
        // The checks ran on the PR head, not on the head merged onto today's base: a
        // repository that requires up-to-date branches says `behind`, and that is respected.
        (Some(true), Some(State::Behind)) => defer(
            "behind its base branch, which requires branches to be up to date",
            true,
        ),
        (Some(true), Some(State::Draft)) => {
            defer("the PR is a draft (mergeable_state draft)", true)
        }
        (Some(true), Some(State::Unstable)) => defer(
            "a check or commit status is not passing (mergeable_state unstable)",
            true,
        ),
        (Some(true), Some(State::Other(other))) => Some(Route::Defer {
            why: format!("mergeable_state {other} is not one gh-sweep merges"),
            charged: true,
            not_green: false,
        }),
    }
}

/// Sweeps of one trigger that may find GitHub still computing whether the PR can merge without
/// spending an attempt. From the next on, each such deferral is charged, so a computation that
/// never ends (or a GitHub that never starts it) ends with the budget.
pub(crate) const COMPUTING_FREE_SWEEPS: u32 = 3;

/// A deferral because GitHub is still computing: whether it is charged, the budget after it,
/// and what the recap adds to the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Computing {
    pub charged: bool,
    pub budget: Budget,
    pub note: String,
}

/// This sweep found GitHub still computing: free for the trigger's first
/// [`COMPUTING_FREE_SWEEPS`] sweeps, then charged like any attempt.
pub(crate) fn computing(
    budget: &Budget,
    stamp: Option<DateTime<Utc>>,
    rules: &SweepRules,
    now: DateTime<Utc>,
) -> Computing {
    let current = effective(budget, stamp);
    let seen = current.computing + 1;
    if seen <= COMPUTING_FREE_SWEEPS {
        return Computing {
            charged: false,
            budget: Budget {
                computing: seen,
                ..current
            },
            note: format!(
                "gh-sweep asked GitHub to compute it (a REST read of the PR) and reads it again next sweep: {seen} of {COMPUTING_FREE_SWEEPS} sweeps without spending an attempt"
            ),
        };
    }
    let charged = after(
        &Budget {
            computing: seen,
            ..current
        },
        stamp,
        now,
    );
    Computing {
        charged: true,
        note: format!(
            "after {COMPUTING_FREE_SWEEPS} sweeps this deferral is charged: attempt {} of {}",
            charged.attempts, rules.attempts_per_trigger
        ),
        budget: charged,
    }
}

/// The start of a `blocked` PR's reason; the engine adds the rules it could read.
const BLOCKED: &str = "blocked by branch protection or a ruleset (mergeable_state blocked)";

/// The guard's second part, from the fresh checks and reviews (the same rules as `poll`'s).
pub(crate) fn verdict(green: Result<(), NotGreen>, approval: ApprovalVerdict) -> Option<Route> {
    if let Err(NotGreen(why)) = green {
        return Some(Route::Defer {
            why,
            charged: true,
            not_green: true,
        });
    }
    match approval {
        ApprovalVerdict::Approved => None,
        ApprovalVerdict::ChangesRequested { .. } => approval.reason().map(Route::ChangesRequested),
        ApprovalVerdict::NotApproved(why) => Some(Route::Defer {
            why,
            charged: true,
            not_green: false,
        }),
    }
}

/// The budget as stored: `attempts|last|watermark|computing|merge_commit_refused`, times in
/// RFC 3339, the flag `0` or `1`. A budget stored before the last two fields existed
/// (`attempts|last|watermark`) reads with them at their defaults.
pub(crate) fn encode(budget: &Budget) -> String {
    let time = |time: Option<DateTime<Utc>>| time.map(|t| t.to_rfc3339()).unwrap_or_default();
    format!(
        "{}|{}|{}|{}|{}",
        budget.attempts,
        time(budget.last),
        time(budget.watermark),
        budget.computing,
        u8::from(budget.merge_commit_refused)
    )
}

/// Reads a stored budget; anything missing or damaged reads as fresh.
pub(crate) fn decode(text: Option<&str>) -> Budget {
    let parse = || -> Option<Budget> {
        let mut parts = text?.split('|');
        let attempts = parts.next()?.parse().ok()?;
        let time = |part: Option<&str>| -> Option<Option<DateTime<Utc>>> {
            match part? {
                "" => Some(None),
                text => DateTime::parse_from_rfc3339(text)
                    .ok()
                    .map(|t| Some(t.with_timezone(&Utc))),
            }
        };
        let last = time(parts.next())?;
        let watermark = time(parts.next())?;
        let (computing, merge_commit_refused) = match (parts.next(), parts.next()) {
            (None, None) => (0, false),
            (Some(computing), Some(flag)) => (
                computing.parse().ok()?,
                match flag {
                    "0" => false,
                    "1" => true,
                    _ => return None,
                },
            ),
            _ => return None,
        };
        parts.next().is_none().then_some(Budget {
            attempts,
            last,
            watermark,
            computing,
            merge_commit_refused,
        })
    };
    parse().unwrap_or_default()
}

#[cfg(test)]
mod tests;
