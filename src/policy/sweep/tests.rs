//! Unit tests of the sweep's timing, attempt budget and guard, with properties over the guard.

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
        bad.validate().map_err(|e| e.to_string()),
        Err(
            r#"invalid [sweep] merge_method = "fast-forward": use "merge", "squash" or "rebase""#
                .into()
        )
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
        due(&gate, &Budget::default(), &rules(), t(30))
            .unwrap_err()
            .to_string(),
        "a merge is recorded"
    );
    let gate = Gate {
        blocked: Some("held".into()),
        ..approved(0)
    };
    assert!(due(&gate, &Budget::default(), &rules(), t(30))
        .unwrap_err()
        .to_string()
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
        .to_string()
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
        allows(&budget, stamp, &rules(), t(7))
            .unwrap_err()
            .to_string(),
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
        allows(&budget, stamp, &rules(), now)
            .unwrap_err()
            .to_string(),
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
        due(&cleared, &budget, &rules(), later)
            .unwrap_err()
            .to_string(),
        "budget spent: 12 of 12 attempts"
    );
    assert_eq!(effective(&budget, cleared.stamp()).watermark, Some(t(5)));

    let spaced = after(&Budget::default(), green.stamp(), t(10));
    assert!(due(&cleared, &spaced, &rules(), t(12))
        .unwrap_err()
        .to_string()
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
        ..Budget::default()
    };
    assert_eq!(decode(Some(&encode(&budget))), budget);
    let known = Budget {
        computing: 2,
        merge_commit_refused: true,
        ..budget.clone()
    };
    assert_eq!(decode(Some(&encode(&known))), known);
    // A budget stored before `computing` and the refusal were kept reads with their defaults.
    let old = format!("3|{}|{}", t(4).to_rfc3339(), t(1).to_rfc3339());
    assert_eq!(decode(Some(&old)), budget);
    assert_eq!(decode(Some(&encode(&Budget::default()))), Budget::default());
    for damaged in [
        None,
        Some(""),
        Some("x|y|z"),
        Some("3|not a time|"),
        Some("3||||"),
        Some("3|||1|"),
        Some("3|||x|0"),
        Some("3|||1|2"),
        Some("3|||1|0|"),
    ] {
        assert_eq!(decode(damaged), Budget::default(), "{damaged:?}");
    }
}

/// GitHub's word as the guard reads it (leaked: a test's states live as long as it does).
fn state_of(word: &str) -> Option<&'static MergeableState> {
    MergeableState::parse(word).map(|state| &*Box::leak(Box::new(state)))
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
        mergeable_state: state_of("clean"),
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
        mergeable_state: state_of("dirty"),
        ..pull("pr-7-head")
    })
    .unwrap();
    assert_eq!(
        dirty.reason(),
        "GitHub cannot merge it (mergeable_state dirty)"
    );
    let behind = guard(&PullState {
        mergeable_state: state_of("behind"),
        ..pull("pr-7-head")
    })
    .unwrap();
    assert_eq!(behind.disposition(), DEFER);
    // `blocked` is never merged, though an admin's token would get it merged.
    let blocked = guard(&PullState {
        mergeable_state: state_of("blocked"),
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
                mergeable_state: state_of(state),
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
            mergeable_state: state_of("has_hooks"),
            ..pull("pr-7-head")
        }),
        None
    );
    let unknown = guard(&PullState {
        mergeable_state: state_of("unknown"),
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
            Err(NotGreen("check `ci` failed on x".into())),
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
            mergeable_state: state_of(state),
        };
        if merged || !open || held || moved || mergeable != Some(true)
            || !matches!(state, "clean" | "has_hooks")
        {
            prop_assert!(guard(&pull).is_some(), "{state}");
        }
        let blocked = Gate { blocked: Some("held".into()), ..approved(0) };
        let budget = Budget { attempts, last: Some(t(0)), watermark: Some(t(0)), ..Budget::default() };
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

#[test]
fn a_fresh_budget_keeps_a_refused_merge_commit_and_forgets_the_computing_sweeps() {
    let old = Budget {
        attempts: 4,
        last: Some(t(10)),
        watermark: Some(t(0)),
        computing: 2,
        merge_commit_refused: true,
    };
    let fresh = effective(&old, Some(t(5)));
    assert_eq!(
        fresh,
        Budget {
            watermark: Some(t(5)),
            merge_commit_refused: true,
            ..Budget::default()
        },
        "the refusal is the branch's, the count the trigger's"
    );
    assert_eq!(
        effective(&old, Some(t(0))),
        old,
        "an older stamp carries on"
    );
    let after_attempt = after(&old, Some(t(0)), t(20));
    assert_eq!(
        (after_attempt.computing, after_attempt.merge_commit_refused),
        (2, true)
    );
}

#[test]
fn computing_is_free_for_three_sweeps_of_a_trigger_then_charged() {
    let rules = rules();
    let mut budget = Budget::default();
    for sweep in 1..=COMPUTING_FREE_SWEEPS {
        let found = computing(&budget, Some(t(0)), &rules, t(i64::from(sweep)));
        assert!(!found.charged, "sweep {sweep}");
        assert_eq!(found.budget.attempts, 0);
        assert_eq!(found.budget.last, None, "no backoff either");
        assert!(found
            .note
            .ends_with(&format!("{sweep} of 3 sweeps without spending an attempt")));
        budget = found.budget;
    }
    let found = computing(&budget, Some(t(0)), &rules, t(10));
    assert!(found.charged);
    assert_eq!((found.budget.attempts, found.budget.last), (1, Some(t(10))));
    assert_eq!(
        found.budget.computing, 4,
        "the charged sweep is counted too"
    );
    assert_eq!(
        found.note,
        "after 3 sweeps this deferral is charged: attempt 1 of 12"
    );
    // A newer trigger (a new approval) starts the count again.
    let fresh = computing(&found.budget, Some(t(5)), &rules, t(11));
    assert!(!fresh.charged);
    assert_eq!(fresh.budget.computing, 1);
}

/// The first trigger a budget sees starts it afresh at that stamp (its watermark), keeping
/// only a refused merge commit, which is the branch's.
#[test]
fn a_budget_without_a_watermark_starts_at_the_first_stamp() {
    let old = Budget {
        attempts: 3,
        last: Some(t(1)),
        watermark: None,
        computing: 2,
        merge_commit_refused: true,
    };
    assert_eq!(
        effective(&old, Some(t(5))),
        Budget {
            watermark: Some(t(5)),
            merge_commit_refused: true,
            ..Budget::default()
        }
    );
    assert_eq!(effective(&old, None), old, "no stamp: the budget as it is");
}

/// An attempt counts, is stamped and raises the watermark; a PR that is not open spends all.
#[test]
fn an_attempt_and_a_spent_budget_keep_the_newest_stamp() {
    let budget = Budget {
        attempts: 2,
        last: Some(t(1)),
        watermark: Some(t(0)),
        computing: 0,
        merge_commit_refused: true,
    };
    assert_eq!(
        after(&budget, Some(t(0)), t(30)),
        Budget {
            attempts: 3,
            last: Some(t(30)),
            ..budget.clone()
        }
    );
    assert_eq!(
        spent(&budget, Some(t(0)), &rules(), t(30)),
        Budget {
            attempts: 12,
            last: Some(t(30)),
            ..budget.clone()
        }
    );
    // A newer stamp: fresh, then this attempt; the refused merge commit stays.
    assert_eq!(
        after(&budget, Some(t(20)), t(30)),
        Budget {
            attempts: 1,
            last: Some(t(30)),
            watermark: Some(t(20)),
            computing: 0,
            merge_commit_refused: true,
        }
    );
}

/// What each refusal costs: one attempt for a 409 or a refusal worth retrying, and for a
/// refused merge commit while another method is left (remembered for the next attempt);
/// the whole budget otherwise.
#[test]
fn each_refusal_costs_what_trying_again_can_win() {
    let stamp = Some(t(0));
    let fresh = Budget::default();
    let now = t(10);
    let one = |budget: &Budget| (budget.attempts, budget.merge_commit_refused);
    let cost = |refusal: Option<&MergeRefusal>, other_method| {
        one(&after_refusal(
            fresh.clone(),
            stamp,
            refusal,
            other_method,
            &rules(),
            now,
        ))
    };
    assert_eq!(cost(None, false), (1, false), "a 409: the head moved");
    assert_eq!(
        cost(Some(&MergeRefusal::Retry("mergeability unknown")), false),
        (1, false)
    );
    assert_eq!(cost(Some(&MergeRefusal::MergeCommit), true), (1, true));
    assert_eq!(cost(Some(&MergeRefusal::MergeCommit), false), (12, true));
    assert_eq!(cost(Some(&MergeRefusal::MergeQueue), true), (12, false));
    assert_eq!(
        cost(Some(&MergeRefusal::MethodNotAllowed), true),
        (12, false)
    );
    assert_eq!(
        merge_commit_refused(fresh.clone()),
        Budget {
            merge_commit_refused: true,
            ..fresh
        }
    );
}

/// A claim leases a row only when the budget allows an attempt and no merge is recorded
/// within the marker's hour.
#[test]
fn a_claim_is_admitted_only_when_an_attempt_is_allowed_and_no_merge_is_recorded() {
    let gate = approved(0);
    let fresh = Budget::default();
    assert!(admits(Some(&gate), &fresh, &rules(), t(10)));
    assert!(
        admits(None, &fresh, &rules(), t(10)),
        "no gate: the budget decides"
    );
    let spent = spent(&fresh, gate.stamp(), &rules(), t(5));
    assert!(!admits(Some(&gate), &spent, &rules(), t(10)));
    let merged = Gate {
        merged_at: Some(t(0)),
        ..approved(0)
    };
    assert!(!admits(Some(&merged), &fresh, &rules(), t(59)));
    assert!(
        admits(Some(&merged), &fresh, &rules(), t(60)),
        "the marker holds for an hour, then the claim may go on"
    );
}

/// The settle holds a trigger for exactly its minutes (at two minutes it is due), and a
/// recorded merge for exactly its hour.
#[test]
fn the_settle_and_the_merged_marker_end_on_their_minute() {
    let gate = approved(0);
    assert_eq!(
        due(&gate, &Budget::default(), &rules(), t(1)),
        Err(NotDue::Settling)
    );
    assert_eq!(due(&gate, &Budget::default(), &rules(), t(2)), Ok(()));
    // A recorded merge holds the entry for exactly the marker's hour.
    let merged = Gate {
        merged_at: Some(t(0)),
        ..approved(0)
    };
    assert_eq!(
        due(&merged, &Budget::default(), &rules(), t(59)),
        Err(NotDue::Merged)
    );
    assert_eq!(due(&merged, &Budget::default(), &rules(), t(60)), Ok(()));
}
