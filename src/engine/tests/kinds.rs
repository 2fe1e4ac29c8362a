//! Each kind's effects for a given read: what the store should keep, as data, and nothing
//! written to the store by the kind itself.

use super::*;
use crate::engine::merge::MergeKind;
use crate::engine::sweep::SweepKind;
use crate::engine::Effect;
use crate::policy::disposition::Skip;
use crate::policy::lease::{LeaseOutcome, Owner};
use crate::policy::merge::{PollRules, QueueStatus};
use crate::policy::sweep::{self, Budget, Gate, SweepRules};
use crate::store::queue::{Claim, NewRow};

fn pr(number: u64) -> ItemRef {
    ItemRef::new(&repo(), number)
}

fn pull(title: &str, open: bool, merged: bool) -> PullFacts {
    PullFacts {
        title: title.into(),
        labels: Vec::new(),
        draft: Some(false),
        open,
        head_sha: Some("h".into()),
        merged,
        mergeable: Some(true),
        mergeable_state: None,
        base_ref: Some("main".into()),
    }
}

fn approved() -> Gate {
    Gate {
        head_sha: "h".into(),
        approved_at: Some(now() - chrono::Duration::hours(3)),
        ..Gate::default()
    }
}

/// A store where `number` has `gate`.
fn gated(number: u64, gate: &Gate) -> (tempfile::TempDir, Box<dyn Store>) {
    let dir = tempfile::tempdir().unwrap();
    let location = crate::store::Location::File(dir.path().join("state.db"));
    let store = crate::store::open(&location).unwrap();
    store.record_gate(&pr(number), gate, now()).unwrap();
    (dir, store)
}

/// What `kind` decides for `number`, listed as a queued row for head `h` that this run did
/// not lease, when GitHub shows `pull`.
fn classify_queued(
    kind: &mut SweepKind<'_>,
    store: &dyn Store,
    number: u64,
    pull: PullFacts,
) -> Classified {
    let mut github = Scripted::new(Vec::new());
    github.pulls.insert(number, pull);
    let listed = Listed::Queued {
        head_sha: Some("h".into()),
    };
    kind.classify(
        &github,
        StoreView::new(store),
        &pr(number),
        Some(&listed),
        now(),
    )
    .unwrap()
}

/// A store where `number` has an approved gate and a queued row that `run-3` leased.
fn leased(number: u64) -> (tempfile::TempDir, Box<dyn Store>, Claim) {
    let (dir, mut store) = gated(number, &approved());
    let item = pr(number);
    let row = NewRow {
        key: "row",
        kind: "merge",
        repo: &item.repo,
        pr: number,
        head_sha: Some("h"),
        max_attempts: 12,
    };
    store.enqueue(&row, now()).unwrap();
    let claim = store
        .claim(
            now(),
            "run-3",
            &[repo()],
            chrono::Duration::minutes(30),
            &mut |_, _, _| true,
        )
        .unwrap()
        .unwrap();
    (dir, store, claim)
}

fn untouched(store: &dyn Store, number: u64) {
    let rows = store.queue_rows(&repo(), number).unwrap();
    assert_eq!(
        rows[0].status,
        QueueStatus::Claimed,
        "the lease is the store's"
    );
    assert_eq!(store.budget(&pr(number)).unwrap(), Budget::default());
}

#[test]
fn a_closed_pr_spends_its_budget_and_abandons_its_lease_as_effects() {
    let (_dir, store, claim) = leased(5);
    let (rules, poll) = (SweepRules::default(), PollRules::default());
    let mut kind = SweepKind::new(&rules, &poll, true, "sweep-1".into(), now()).unwrap();
    kind.started(3);
    let mut github = Scripted::new(Vec::new());
    github.pulls.insert(5, pull("closed", false, false));
    let listed = Listed::Claimed {
        claim,
        started: now(),
    };
    let view = StoreView::new(store.as_ref());
    let classified = kind
        .classify(&github, view, &pr(5), Some(&listed), now())
        .unwrap();
    assert_eq!(
        classified.plan.disposition,
        Disposition::Skip(Skip::NotOpen)
    );
    let spent = sweep::spent(&Budget::default(), approved().stamp(), &rules, now());
    assert_eq!(
        classified.effects,
        [
            Effect::RecordBudget {
                item: pr(5),
                budget: spent,
            },
            Effect::Lease {
                key: "row".into(),
                owner: Owner::run(3),
                outcome: LeaseOutcome::Abandon,
                started: now(),
                now: now(),
            },
        ]
    );
    untouched(store.as_ref(), 5);
}

#[test]
fn a_pr_merged_on_github_is_recorded_and_its_rows_settled_with_no_lease_outcome() {
    let (_dir, store, claim) = leased(6);
    let (rules, poll) = (SweepRules::default(), PollRules::default());
    let mut kind = SweepKind::new(&rules, &poll, true, "sweep-1".into(), now()).unwrap();
    kind.started(3);
    let mut github = Scripted::new(Vec::new());
    github.pulls.insert(6, pull("merged", false, true));
    let listed = Listed::Claimed {
        claim,
        started: now(),
    };
    let view = StoreView::new(store.as_ref());
    let classified = kind
        .classify(&github, view, &pr(6), Some(&listed), now())
        .unwrap();
    assert_eq!(
        classified.effects,
        [
            Effect::RecordMerged {
                item: pr(6),
                head_sha: "h".into(),
                at: now(),
            },
            Effect::SettleMerged {
                item: pr(6),
                now: now(),
            },
        ]
    );
    untouched(store.as_ref(), 6);
}

#[test]
fn a_dry_run_sweep_says_nothing_for_the_store() {
    let (_dir, store, _claim) = leased(7);
    let (rules, poll) = (SweepRules::default(), PollRules::default());
    let mut kind = SweepKind::new(&rules, &poll, false, "sweep-1".into(), now()).unwrap();
    let classified = classify_queued(&mut kind, store.as_ref(), 7, pull("closed", false, false));
    assert_eq!(classified.effects, []);
}

#[test]
fn a_sweeps_end_hands_back_the_rows_it_still_holds() {
    let (_dir, store, claim) = leased(8);
    let (rules, poll) = (SweepRules::default(), PollRules::default());
    let mut kind = SweepKind::new(&rules, &poll, true, "sweep-1".into(), now()).unwrap();
    kind.started(3);
    let effects = kind.finish(StoreView::new(store.as_ref())).unwrap();
    let [Effect::Lease {
        key,
        owner,
        outcome,
        ..
    }] = effects.as_slice()
    else {
        panic!("one lease handed back: {effects:?}");
    };
    assert_eq!(
        (key, owner, outcome),
        (&claim.key, &Owner::run(3), &LeaseOutcome::Release)
    );
    untouched(store.as_ref(), 8);
}

#[test]
fn polls_observations_are_one_effect_at_the_runs_end() {
    let (_dir, store, _claim) = leased(9);
    let poll = PollRules::default();
    let mut kind = MergeKind::new(&poll, false, true).unwrap();
    let github = Scripted::new(Vec::new());
    let listed = Listed::Pull(Ok(pull("work (HELD)", true, false)));
    let view = StoreView::new(store.as_ref());
    let classified = kind
        .classify(&github, view, &pr(9), Some(&listed), now())
        .unwrap();
    assert_eq!(classified.plan.disposition, Disposition::Skip(Skip::Held));
    assert_eq!(classified.effects, []);
    let blocked = Gate {
        blocked: Some("title has (HELD)".into()),
        ..approved()
    };
    assert_eq!(
        kind.finish(view).unwrap(),
        [Effect::RecordGates(vec![(pr(9), blocked, now())])]
    );
    assert_eq!(store.gate(&pr(9)).unwrap().unwrap().blocked, None);
}

/// `poll` is held back by a merge of unknown outcome (the PR may have merged: enqueueing it
/// again could merge twice) and not by a stale sweep's label or comment, which `stale-sweep`
/// settles and which changes nothing `poll` decides.
#[test]
fn poll_is_held_back_by_an_unknown_merge_and_not_by_a_stale_sweeps_write() {
    use crate::policy::write::JournalWrite;
    let poll = PollRules::default();
    let kind = MergeKind::new(&poll, false, true).unwrap();
    let unknown = |action| crate::store::UnknownWrite {
        id: 1,
        run_id: 1,
        item: "o/r#9".into(),
        action,
        intent_at: now(),
    };
    assert!(kind.concerns(&unknown(JournalWrite::Merge {
        sha: "h".into(),
        method: "squash".into(),
    })));
    assert!(!kind.concerns(&unknown(JournalWrite::AddLabels {
        labels: vec!["Stale".into()],
    })));
}

/// What a sweep that writes decides for PR 6, queued for head `h` (a row this run did not
/// lease) with an approved, green gate, when GitHub shows `pull`: its disposition, its
/// effects, and the gate it started from.
fn swept(pull: PullFacts) -> (Disposition, Vec<Effect>, Gate) {
    let gate = Gate {
        ci_passed_at: Some(now() - chrono::Duration::hours(2)),
        ..approved()
    };
    let (_dir, store) = gated(6, &gate);
    let (rules, poll) = (SweepRules::default(), PollRules::default());
    let mut kind = SweepKind::new(&rules, &poll, true, "sweep-1".into(), now()).unwrap();
    kind.started(3);
    let classified = classify_queued(&mut kind, store.as_ref(), 6, pull);
    (classified.plan.disposition, classified.effects, gate)
}

/// [`swept`], with only the gates its effects record.
fn swept_gate(pull: PullFacts) -> (Disposition, Vec<Gate>, Gate) {
    let (disposition, effects, gate) = swept(pull);
    let recorded = effects
        .into_iter()
        .filter_map(|effect| match effect {
            Effect::RecordGate { gate, .. } => Some(gate),
            _ => None,
        })
        .collect();
    (disposition, recorded, gate)
}

/// A PR whose head moved since its trigger ends that trigger: the gate the sweep records for
/// it forgets the old head's approval and green checks, so no later sweep counts an approval
/// or a check run of other code as this head's.
#[test]
fn a_moved_head_forgets_the_approval_and_the_green_checks_of_the_old_one() {
    let mut moved = pull("moved", true, false);
    moved.head_sha = Some("h2".into());
    let (disposition, recorded, gate) = swept_gate(moved);
    assert_eq!(disposition, Disposition::Skip(Skip::HeadMoved));
    let forgotten = Gate {
        approved_at: None,
        ci_passed_at: None,
        ..gate
    };
    assert_eq!(recorded, [forgotten]);
}

/// A held PR (`(HELD)` in its title) ends its trigger with the gate blocked by the hold, its
/// approval kept: the hold, not a lost approval, is what keeps later sweeps off it.
#[test]
fn a_held_pr_records_its_gate_blocked_by_the_hold() {
    let (disposition, recorded, gate) = swept_gate(pull("(HELD) docs", true, false));
    assert_eq!(disposition, Disposition::Skip(Skip::Held));
    let blocked = Gate {
        blocked: Some("title has (HELD)".into()),
        ..gate
    };
    assert_eq!(recorded, [blocked]);
}

/// A deferred PR whose queue row this run did not lease is charged nothing and hands back no
/// lease: a draft (a charged deferral) and a PR whose mergeability GitHub is still computing
/// both leave the budget to the run that holds the row.
#[test]
fn a_deferral_of_a_row_this_run_did_not_lease_charges_nothing() {
    let mut draft = pull("draft", true, false);
    draft.draft = Some(true);
    let (disposition, effects, _) = swept(draft);
    assert_eq!(disposition, Disposition::Defer { charged: true });
    assert_eq!(effects, []);
    let mut computing = pull("computing", true, false);
    computing.mergeable = None;
    let (disposition, effects, _) = swept(computing);
    assert!(
        matches!(disposition, Disposition::Defer { .. }),
        "{disposition:?}"
    );
    assert_eq!(effects, []);
}
