//! The lost-trigger sweep of seed 001: when a PR's merge may be tried, and the per-trigger
//! attempt budget with its watermark. Pure: the gate's fields, the budget and `now` in; due or
//! not (with the reason), and the budget after an attempt, out. It sets and triggers nothing.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::policy::disposition::{Disposition, Skip};
use crate::policy::merge::{ApprovalVerdict, MergeMethod};

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
    pub fn validate(&self) -> Result<(), String> {
        if self.attempts_per_trigger == 0 {
            return Err("invalid [sweep] attempts_per_trigger = 0: use 1 or more".into());
        }
        if self.backoff_minutes.is_empty() {
            return Err("invalid [sweep] backoff_minutes = []: give at least one number of minutes, e.g. [5, 10, 20]".into());
        }
        self.method()?;
        Ok(())
    }

    /// `merge_method` as a method; the error names the bad value.
    pub fn method(&self) -> Result<MergeMethod, String> {
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
}

/// The budget that applies to a trigger stamped `stamp`: fresh only for a stamp newer than the
/// watermark; an older stamp (a cleared flag falling back to the approval) carries on.
pub fn effective(budget: &Budget, stamp: Option<DateTime<Utc>>) -> Budget {
    match (stamp, budget.watermark) {
        (Some(stamp), Some(watermark)) if stamp > watermark => Budget {
            attempts: 0,
            last: None,
            watermark: Some(stamp),
        },
        (Some(stamp), None) => Budget {
            attempts: 0,
            last: None,
            watermark: Some(stamp),
        },
        _ => budget.clone(),
    }
}

/// Whether the budget allows an attempt now, or why not.
pub fn allows(
    budget: &Budget,
    stamp: Option<DateTime<Utc>>,
    rules: &SweepRules,
    now: DateTime<Utc>,
) -> Result<(), String> {
    let budget = effective(budget, stamp);
    if budget.attempts >= rules.attempts_per_trigger {
        return Err(format!(
            "budget spent: {} of {} attempts",
            budget.attempts, rules.attempts_per_trigger
        ));
    }
    if let Some(last) = budget.last {
        let next = last + rules.backoff_after(budget.attempts);
        if next > now {
            let minutes = ((next - now).num_seconds() + 59) / 60;
            return Err(format!(
                "attempt {} of {} in {minutes} min",
                budget.attempts + 1,
                rules.attempts_per_trigger
            ));
        }
    }
    Ok(())
}

/// Whether a gate entry is due for an attempt (the lost trigger), or why not.
pub fn due(
    gate: &Gate,
    budget: &Budget,
    rules: &SweepRules,
    now: DateTime<Utc>,
) -> Result<(), String> {
    let Some(_) = gate.approved_at else {
        return Err("no approval recorded".into());
    };
    if let Some(why) = &gate.blocked {
        return Err(format!("blocked: {why}"));
    }
    if let Some(merged) = gate.merged_at {
        if now - merged < rules.marker() {
            return Err("a merge is recorded".into());
        }
    }
    let stamp = gate.stamp();
    if let Some(stamp) = stamp {
        if now - stamp < rules.settle() {
            return Err("settling: its own trigger is still at work".into());
        }
    }
    allows(budget, stamp, rules, now)
}

/// The budget after an attempt at `now` for the trigger stamped `stamp`.
pub fn after(budget: &Budget, stamp: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Budget {
    let budget = effective(budget, stamp);
    Budget {
        attempts: budget.attempts + 1,
        last: Some(now),
        watermark: budget.watermark.max(stamp),
    }
}

/// A PR that is not open spends the rest of its budget at once.
pub fn spent(
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
    }
}

/// What a PR looks like to the guard, from the single-PR read.
pub struct PullState<'a> {
    pub merged: bool,
    pub open: bool,
    pub head: &'a str,
    /// The head the trigger was for (the approval's, or the queued merge's).
    pub trigger_head: &'a str,
    /// Why the PR is held, if it is (`(HELD)` or a held label).
    pub held: Option<String>,
    pub draft: Option<bool>,
    pub mergeable: Option<bool>,
    pub mergeable_state: Option<&'a str>,
}

/// Where the guard sends a PR that must not be merged now. Each mismatch has its own route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
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
    /// Not now: tried again after the backoff. `charged` says whether it costs an attempt
    /// (GitHub still computing mergeability does not).
    Defer {
        why: String,
        charged: bool,
        not_green: bool,
    },
}

impl Route {
    pub fn disposition(&self) -> Disposition {
        match self {
            Route::Merged => Disposition::Skip(Skip::AlreadyMerged),
            Route::NotOpen => Disposition::Skip(Skip::NotOpen),
            Route::HeadMoved { .. } => Disposition::Skip(Skip::HeadMoved),
            Route::Held(_) => Disposition::Skip(Skip::Held),
            Route::ChangesRequested(_) => Disposition::Skip(Skip::ChangesRequested),
            Route::MergeQueue(_) => Disposition::Skip(Skip::MergeQueue),
            Route::Defer { charged, .. } => Disposition::Defer { charged: *charged },
        }
    }

    pub fn reason(&self) -> String {
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
            Route::Held(why)
            | Route::ChangesRequested(why)
            | Route::MergeQueue(why)
            | Route::Defer { why, .. } => why.clone(),
        }
    }
}

/// The guard's first part, before checks and reviews are read: the cheap facts of the PR.
pub fn guard(pull: &PullState<'_>) -> Option<Route> {
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
    let state = pull.mergeable_state.filter(|state| !state.is_empty());
    match (pull.mergeable, state) {
        (None, _) | (_, None) | (_, Some("unknown")) => defer(
            "GitHub is still computing whether it can merge (mergeable_state unknown)",
            false,
        ),
        (Some(false), state) | (Some(true), state @ Some("dirty")) => Some(Route::Defer {
            why: format!(
                "GitHub cannot merge it (mergeable_state {})",
                state.unwrap_or("unknown")
            ),
            charged: true,
            not_green: false,
        }),
        (Some(true), Some("clean")) | (Some(true), Some("has_hooks")) => None,
        (Some(true), Some("blocked")) => defer(BLOCKED, true),
        // The checks ran on the PR head, not on the head merged onto today's base: a
        // repository that requires up-to-date branches says `behind`, and that is respected.
        (Some(true), Some("behind")) => defer(
            "behind its base branch, which requires branches to be up to date",
            true,
        ),
        (Some(true), Some("draft")) => defer("the PR is a draft (mergeable_state draft)", true),
        (Some(true), Some("unstable")) => defer(
            "a check or commit status is not passing (mergeable_state unstable)",
            true,
        ),
        (Some(true), Some(other)) => Some(Route::Defer {
            why: format!("mergeable_state {other} is not one gh-sweep merges"),
            charged: true,
            not_green: false,
        }),
    }
}

/// The start of a `blocked` PR's reason; the engine adds the rules it could read.
pub const BLOCKED: &str = "blocked by branch protection or a ruleset (mergeable_state blocked)";

/// The guard's second part, from the fresh checks and reviews (the same rules as `poll`'s).
pub fn verdict(green: Result<(), String>, approval: ApprovalVerdict) -> Option<Route> {
    if let Err(why) = green {
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

/// The budget as stored: `attempts|last|watermark`, times in RFC 3339.
pub fn encode(budget: &Budget) -> String {
    let time = |time: Option<DateTime<Utc>>| time.map(|t| t.to_rfc3339()).unwrap_or_default();
    format!(
        "{}|{}|{}",
        budget.attempts,
        time(budget.last),
        time(budget.watermark)
    )
}

/// Reads a stored budget; anything missing or damaged reads as fresh.
pub fn decode(text: Option<&str>) -> Budget {
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
        parts.next().is_none().then_some(Budget {
            attempts,
            last,
            watermark,
        })
    };
    parse().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use proptest::prelude::*;

    const DEFER: Disposition = Disposition::Defer { charged: true };
    const DEFER_FREE: Disposition = Disposition::Defer { charged: false };

    #[test]
    fn the_merge_method_is_read_from_the_config_word() {
        assert_eq!(SweepRules::default().method(), Ok(MergeMethod::Merge));
        let squash = SweepRules {
            merge_method: "squash".into(),
            ..SweepRules::default()
        };
        assert_eq!(squash.method(), Ok(MergeMethod::Squash));
        let bad = SweepRules {
            merge_method: "fast-forward".into(),
            ..SweepRules::default()
        };
        assert_eq!(
            bad.validate(),
            Err(r#"invalid [sweep] merge_method = "fast-forward": use "merge", "squash" or "rebase""#.into())
        );
    }

    fn t(minute: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 9, 23, 22, 0, 0).unwrap() + Duration::minutes(minute)
    }

    fn rules() -> SweepRules {
        SweepRules::default()
    }

    fn approved(at: i64) -> Gate {
        Gate {
            head_sha: "pr-2355-head".into(),
            approved_at: Some(t(at)),
            ..Gate::default()
        }
    }

    #[test]
    fn due_needs_an_approval_but_not_ci_passed() {
        let gate = approved(0);
        assert_eq!(
            due(&gate, &Budget::default(), &rules(), t(3)),
            Ok(()),
            "a missing ci-passed is fine"
        );
        let gate = Gate {
            approved_at: None,
            ci_passed_at: Some(t(0)),
            ..approved(0)
        };
        assert!(due(&gate, &Budget::default(), &rules(), t(3)).is_err());
    }

    #[test]
    fn merged_and_blocked_entries_are_not_due() {
        let gate = Gate {
            merged_at: Some(t(1)),
            ..approved(0)
        };
        assert_eq!(
            due(&gate, &Budget::default(), &rules(), t(30)).unwrap_err(),
            "a merge is recorded"
        );
        let gate = Gate {
            blocked: Some("held".into()),
            ..approved(0)
        };
        assert!(due(&gate, &Budget::default(), &rules(), t(30))
            .unwrap_err()
            .starts_with("blocked"));
    }

    #[test]
    fn a_stranded_merged_marker_expires() {
        let gate = Gate {
            merged_at: Some(t(0)),
            ..approved(0)
        };
        assert!(due(&gate, &Budget::default(), &rules(), t(59)).is_err());
        assert_eq!(due(&gate, &Budget::default(), &rules(), t(61)), Ok(()));
    }

    #[test]
    fn a_condition_inside_the_settle_is_left_to_its_own_trigger() {
        let gate = Gate {
            ci_passed_at: Some(t(1)),
            ..approved(0)
        };
        assert!(due(&gate, &Budget::default(), &rules(), t(2))
            .unwrap_err()
            .starts_with("settling"));
        assert_eq!(due(&gate, &Budget::default(), &rules(), t(3)), Ok(()));
    }

    #[test]
    fn old_conditions_stay_recoverable() {
        let gate = approved(0);
        assert_eq!(
            due(&gate, &Budget::default(), &rules(), t(60 * 24 * 30)),
            Ok(()),
            "no upper age limit"
        );
    }

    #[test]
    fn the_backoff_schedule_and_its_cap() {
        let minutes: Vec<i64> = (0..14)
            .map(|n| rules().backoff_after(n).num_minutes())
            .collect();
        assert_eq!(
            minutes,
            vec![0, 5, 10, 20, 40, 80, 120, 120, 120, 120, 120, 120, 120, 120]
        );
        let total: i64 = (0..12)
            .map(|n| rules().backoff_after(n).num_minutes())
            .sum();
        assert_eq!(total, 875, "about 15 h in all");
    }

    #[test]
    fn spacing_within_one_trigger_and_a_spent_budget() {
        let stamp = Some(t(0));
        let budget = after(&Budget::default(), stamp, t(3));
        assert_eq!(budget.attempts, 1);
        assert_eq!(
            allows(&budget, stamp, &rules(), t(7)).unwrap_err(),
            "attempt 2 of 12 in 1 min"
        );
        assert_eq!(allows(&budget, stamp, &rules(), t(8)), Ok(()));
        let mut budget = budget;
        let mut now = t(8);
        for _ in 1..12 {
            budget = after(&budget, stamp, now);
            now += Duration::hours(3);
        }
        assert_eq!(budget.attempts, 12);
        assert_eq!(
            allows(&budget, stamp, &rules(), now).unwrap_err(),
            "budget spent: 12 of 12 attempts"
        );
    }

    #[test]
    fn a_cleared_newer_flag_keeps_an_exhausted_budget_its_spacing_and_watermark() {
        // ci-passed at 5 was the stamp; the guard cleared it, so the stamp falls back to the
        // approval at 0, which is older: nothing resets.
        let green = Gate {
            ci_passed_at: Some(t(5)),
            ..approved(0)
        };
        let mut budget = Budget::default();
        for attempt in 0..12 {
            budget = after(&budget, green.stamp(), t(10 + attempt * 200));
        }
        let cleared = approved(0);
        let later = t(10_000);
        assert_eq!(
            due(&cleared, &budget, &rules(), later).unwrap_err(),
            "budget spent: 12 of 12 attempts"
        );
        assert_eq!(effective(&budget, cleared.stamp()).watermark, Some(t(5)));

        let spaced = after(&Budget::default(), green.stamp(), t(10));
        assert!(due(&cleared, &spaced, &rules(), t(12))
            .unwrap_err()
            .starts_with("attempt 2 of 12"));
        assert_eq!(
            after(&spaced, cleared.stamp(), t(20)).watermark,
            Some(t(5)),
            "the watermark never goes back"
        );
    }

    #[test]
    fn a_fresh_budget_only_for_a_newer_condition() {
        let gate = approved(0);
        let mut budget = Budget::default();
        for attempt in 0..12 {
            budget = after(&budget, gate.stamp(), t(10 + attempt * 200));
        }
        let same = approved(0);
        assert!(due(&same, &budget, &rules(), t(10_000)).is_err());
        let newer = Gate {
            ci_passed_at: Some(t(9_000)),
            ..approved(0)
        };
        assert_eq!(due(&newer, &budget, &rules(), t(10_000)), Ok(()));
        assert_eq!(after(&budget, newer.stamp(), t(10_000)).attempts, 1);
    }

    #[test]
    fn a_pr_that_is_not_open_spends_its_budget() {
        let budget = spent(&Budget::default(), Some(t(0)), &rules(), t(3));
        assert_eq!(budget.attempts, 12);
        assert!(due(&approved(0), &budget, &rules(), t(10_000)).is_err());
    }

    #[test]
    fn the_budget_round_trips_and_damage_reads_as_fresh() {
        let budget = Budget {
            attempts: 3,
            last: Some(t(4)),
            watermark: Some(t(1)),
        };
        assert_eq!(decode(Some(&encode(&budget))), budget);
        assert_eq!(decode(Some(&encode(&Budget::default()))), Budget::default());
        for damaged in [
            None,
            Some(""),
            Some("x|y|z"),
            Some("3|not a time|"),
            Some("3||||"),
        ] {
            assert_eq!(decode(damaged), Budget::default(), "{damaged:?}");
        }
    }

    fn pull<'a>(head: &'a str) -> PullState<'a> {
        PullState {
            merged: false,
            open: true,
            head,
            trigger_head: "pr-7-head",
            held: None,
            draft: Some(false),
            mergeable: Some(true),
            mergeable_state: Some("clean"),
        }
    }

    #[test]
    fn the_guard_routes_each_mismatch() {
        assert_eq!(guard(&pull("pr-7-head")), None);
        assert_eq!(
            guard(&PullState {
                merged: true,
                open: false,
                ..pull("pr-7-head")
            }),
            Some(Route::Merged)
        );
        assert_eq!(
            guard(&PullState {
                open: false,
                ..pull("pr-7-head")
            }),
            Some(Route::NotOpen)
        );
        assert_eq!(
            guard(&pull("pr-7-head-2")).unwrap().reason(),
            "head moved: approved pr-7-head, now pr-7-head-2; the old trigger ends"
        );
        assert_eq!(
            guard(&PullState {
                held: Some("title has (HELD)".into()),
                ..pull("pr-7-head")
            }),
            Some(Route::Held("title has (HELD)".into()))
        );
        let computing = guard(&PullState {
            mergeable: None,
            ..pull("pr-7-head")
        })
        .unwrap();
        assert_eq!(computing.disposition(), DEFER_FREE);
        let dirty = guard(&PullState {
            mergeable_state: Some("dirty"),
            ..pull("pr-7-head")
        })
        .unwrap();
        assert_eq!(
            dirty.reason(),
            "GitHub cannot merge it (mergeable_state dirty)"
        );
        let behind = guard(&PullState {
            mergeable_state: Some("behind"),
            ..pull("pr-7-head")
        })
        .unwrap();
        assert_eq!(behind.disposition(), DEFER);
        // `blocked` is never merged, though an admin's token would get it merged.
        let blocked = guard(&PullState {
            mergeable_state: Some("blocked"),
            ..pull("pr-7-head")
        })
        .unwrap();
        assert_eq!(
            (blocked.disposition(), blocked.reason()),
            (DEFER, BLOCKED.to_string())
        );
        for state in ["unstable", "draft", "something-new"] {
            assert_eq!(
                guard(&PullState {
                    mergeable_state: Some(state),
                    ..pull("pr-7-head")
                })
                .unwrap()
                .disposition(),
                DEFER,
                "{state}"
            );
        }
        assert_eq!(
            guard(&PullState {
                mergeable_state: Some("has_hooks"),
                ..pull("pr-7-head")
            }),
            None
        );
        let unknown = guard(&PullState {
            mergeable_state: Some("unknown"),
            ..pull("pr-7-head")
        })
        .unwrap();
        assert_eq!(unknown.disposition(), DEFER_FREE);
        assert!(
            guard(&PullState {
                draft: None,
                ..pull("pr-7-head")
            })
            .is_some(),
            "an unknown draft state fails closed"
        );
    }

    #[test]
    fn changes_requested_ends_the_sweep_other_gaps_defer() {
        use crate::policy::merge::ApprovalVerdict;
        assert_eq!(verdict(Ok(()), ApprovalVerdict::Approved), None);
        assert_eq!(
            verdict(
                Ok(()),
                ApprovalVerdict::ChangesRequested {
                    reviewer: "bob".into()
                }
            ),
            Some(Route::ChangesRequested("bob requested changes".into()))
        );
        assert_eq!(
            verdict(
                Err("check `ci` failed on x".into()),
                ApprovalVerdict::Approved
            )
            .unwrap()
            .disposition(),
            DEFER
        );
        assert_eq!(
            verdict(Ok(()), ApprovalVerdict::NotApproved("no approval".into()))
                .unwrap()
                .disposition(),
            DEFER
        );
        // The route is the verdict's kind, whatever its words end with.
        assert_eq!(
            verdict(
                Ok(()),
                ApprovalVerdict::NotApproved(
                    "bob's request for changes cannot be counted: bob requested changes".into()
                )
            )
            .unwrap()
            .disposition(),
            DEFER
        );
    }

    proptest! {
        #[test]
        fn held_closed_or_blocked_prs_are_never_merged(
            merged in proptest::bool::ANY,
            open in proptest::bool::ANY,
            held in proptest::bool::ANY,
            mergeable in proptest::option::of(proptest::bool::ANY),
            state in proptest::sample::select(vec![
                "clean", "has_hooks", "blocked", "behind", "dirty", "unstable", "draft", "unknown", "", "new",
            ]),
            moved in proptest::bool::ANY,
            attempts in 0u32..20,
            minutes in 0i64..100_000,
        ) {
            let pull = PullState {
                merged,
                open,
                head: if moved { "pr-7-head-2" } else { "pr-7-head" },
                trigger_head: "pr-7-head",
                held: held.then(|| "title has (HELD)".to_string()),
                draft: Some(false),
                mergeable,
                mergeable_state: Some(state),
            };
            if merged || !open || held || moved || mergeable != Some(true)
                || !matches!(state, "clean" | "has_hooks")
            {
                prop_assert!(guard(&pull).is_some(), "{state}");
            }
            let blocked = Gate { blocked: Some("held".into()), ..approved(0) };
            let budget = Budget { attempts, last: Some(t(0)), watermark: Some(t(0)) };
            prop_assert!(due(&blocked, &budget, &rules(), t(minutes)).is_err());
        }

        #[test]
        fn the_schedule_never_decreases_and_is_capped(schedule in proptest::collection::vec(1u32..500, 1..8), n in 0u32..50) {
            let mut sorted = schedule.clone();
            sorted.sort_unstable();
            let rules = SweepRules { backoff_minutes: sorted.clone(), ..SweepRules::default() };
            prop_assert!(rules.backoff_after(n) <= rules.backoff_after(n + 1));
            prop_assert!(rules.backoff_after(n).num_minutes() <= i64::from(*sorted.last().unwrap()));
        }
    }
}
