//! Each kind's effects for a given read: what the store should keep, as data, and nothing
//! written to the store by the kind itself.

use super::*;
use crate::engine::kind::{AfterWrite, Written};
use crate::engine::merge::MergeKind;
use crate::engine::sweep::SweepKind;
use crate::engine::Effect;
use crate::policy::disposition::Skip;
use crate::policy::lease::{LeaseOutcome, Owner};
use crate::policy::merge::{MergeMethod, MergeRefusal};
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
    merge: Option<MergeWorld>,
) -> Classified {
    let mut github = Scripted::new(Vec::new());
    github.pulls.insert(number, pull);
    github.merge = merge;
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
    let classified = classify_queued(
        &mut kind,
        store.as_ref(),
        7,
        pull("closed", false, false),
        None,
    );
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
    swept_in(pull, None)
}

/// [`swept`], past the guard into `merge`.
fn swept_in(pull: PullFacts, merge: Option<MergeWorld>) -> (Disposition, Vec<Effect>, Gate) {
    let gate = Gate {
        ci_passed_at: Some(now() - chrono::Duration::hours(2)),
        ..approved()
    };
    let (_dir, store) = gated(6, &gate);
    let (rules, poll) = (SweepRules::default(), PollRules::default());
    let mut kind = SweepKind::new(&rules, &poll, true, "sweep-1".into(), now()).unwrap();
    kind.started(3);
    let classified = classify_queued(&mut kind, store.as_ref(), 6, pull, merge);
    (classified.plan.disposition, classified.effects, gate)
}

/// [`swept`], with only the gates its effects record.
fn swept_gate(pull: PullFacts) -> (Disposition, Vec<Gate>, Gate) {
    let (disposition, effects, gate) = swept(pull);
    (disposition, gates(&effects), gate)
}

/// The gates `effects` record.
fn gates(effects: &[Effect]) -> Vec<Gate> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::RecordGate { gate, .. } => Some(gate.clone()),
            _ => None,
        })
        .collect()
}

/// An open PR at head `h` that GitHub calls `clean`: mergeable, its required checks and
/// reviews passing as GitHub judges them.
fn clean(title: &str) -> PullFacts {
    PullFacts {
        mergeable_state: Some(crate::policy::merge::MergeableState::Clean),
        ..pull(title, true, false)
    }
}

/// One check run on the head, completed with `conclusion`.
fn check(conclusion: &str) -> crate::policy::merge::CheckRun {
    crate::policy::merge::CheckRun {
        name: "ci".into(),
        status: "completed".into(),
        conclusion: Some(conclusion.into()),
        started_at: Some(now() - chrono::Duration::hours(2)),
        completed_at: Some(now() - chrono::Duration::hours(2)),
        id: 1,
        suite_id: None,
        app: None,
    }
}

/// Branch `main` with `rules` past the defaults, its checks green, head `h` approved.
fn green_world(rules: crate::policy::merge::BranchRules) -> MergeWorld {
    MergeWorld {
        rules: crate::policy::merge::BranchRules {
            branch: "main".into(),
            ..rules
        },
        runs: vec![check("success")],
        approved: vec!["h".into()],
        ..MergeWorld::default()
    }
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

/// A branch that requires GitHub's merge queue is never tried: the trigger's budget is spent
/// and the gate records why, so neither this sweep nor the next retries it.
#[test]
fn a_branch_that_requires_the_merge_queue_spends_the_budget_and_blocks_the_gate() {
    let world = green_world(crate::policy::merge::BranchRules {
        merge_queue: true,
        ..Default::default()
    });
    let (disposition, effects, gate) = swept_in(clean("queued"), Some(world));
    assert_eq!(disposition, Disposition::Skip(Skip::MergeQueue));
    ended_blocked(&effects, &gate, "requires the merge queue");
}

/// That `effects` end PR 6's trigger: the one gate they record is `gate` blocked with a reason
/// that says `why`, and the rest of the budget is spent.
fn ended_blocked(effects: &[Effect], gate: &Gate, why: &str) {
    let recorded = gates(effects);
    let [blocked] = recorded.as_slice() else {
        panic!("one gate recorded: {effects:?}");
    };
    let said = blocked.blocked.as_deref().unwrap_or_default();
    assert!(said.contains(why), "{said}");
    let unblocked = Gate {
        blocked: None,
        ..blocked.clone()
    };
    assert_eq!(&unblocked, gate);
    let spent = sweep::spent(
        &Budget::default(),
        gate.stamp(),
        &SweepRules::default(),
        now(),
    );
    assert!(
        effects.contains(&Effect::RecordBudget {
            item: pr(6),
            budget: spent,
        }),
        "{effects:?}"
    );
}

/// A branch whose linear history rules out the configured merge commit, in a repository that
/// allows no squash or rebase merge, has no method gh-sweep may send: the budget is spent and
/// the gate says why.
#[test]
fn a_pr_no_allowed_method_can_merge_spends_the_budget_and_blocks_the_gate() {
    let mut world = green_world(crate::policy::merge::BranchRules {
        linear_history: true,
        ..Default::default()
    });
    world.settings = crate::policy::merge::MergeSettings {
        merge: Some(true),
        squash: Some(false),
        rebase: Some(false),
    };
    let (disposition, effects, gate) = swept_in(clean("linear"), Some(world));
    assert_eq!(disposition, Disposition::Skip(Skip::NoMergeMethod));
    ended_blocked(&effects, &gate, "nothing gh-sweep may send");
}

/// Checks that are not green by gh-sweep's rules clear the gate's green flag before the PR is
/// deferred, so a later sweep does not count the earlier green as this head's. GitHub calls a
/// head whose only check was skipped `clean`: "If a job in a workflow is skipped due to a
/// conditional, it will report its status as Success" (GitHub docs, "Troubleshooting required
/// status checks", Handling skipped but required checks,
/// docs.github.com/en/repositories/configuring-branches-and-merges-in-your-repository/defining-the-mergeability-of-pull-requests/troubleshooting-required-status-checks);
/// with skipped checks excluded, no check passed.
#[test]
fn checks_that_are_not_green_clear_the_gates_green_flag() {
    let mut world = green_world(Default::default());
    world.runs = vec![check("skipped")];
    let (disposition, effects, gate) = swept_in(clean("skipped"), Some(world));
    assert_eq!(disposition, Disposition::Defer { charged: true });
    let cleared = Gate {
        ci_passed_at: None,
        ..gate
    };
    assert_eq!(gates(&effects), [cleared]);
}

/// What a writing sweep makes of GitHub refusing, with `error`, the merge it planned for PR 6
/// (queued for head `h`, approved and green in `world`): the method it planned, and what the
/// refusal means for the run and the store.
fn refused(world: MergeWorld, error: WriteError) -> (Write, AfterWrite, Gate) {
    let gate = approved();
    let (_dir, store) = gated(6, &gate);
    let (rules, poll) = (SweepRules::default(), PollRules::default());
    let mut kind = SweepKind::new(&rules, &poll, true, "sweep-1".into(), now()).unwrap();
    kind.started(3);
    let classified = classify_queued(&mut kind, store.as_ref(), 6, clean("docs"), Some(world));
    assert_eq!(classified.plan.disposition, Disposition::Merge);
    let planned = classified.plan.remote[0].clone();
    let view = StoreView::new(store.as_ref());
    let after = kind
        .written(view, &classified.plan, Written::Refused(&error))
        .unwrap();
    (planned, after, gate)
}

/// GitHub's 405 to a merge commit on a branch whose classic protection requires linear
/// history ("This branch must not contain merge commits."; only an admin can read that
/// setting, so it shows first as this refusal).
fn linear_history_refusal() -> WriteError {
    WriteError {
        status: Some(405),
        message: "This branch must not contain merge commits.".into(),
        outcome_unknown: false,
        refusal: Default::default(),
    }
}

/// The budget a refused attempt leaves PR 6 with, its trigger stamped as `gate` says: what
/// `policy::sweep` decides for `refusal` with, or without, another method to try.
fn budget_after(gate: &Gate, refusal: Option<&MergeRefusal>, other_method: bool) -> Budget {
    let rules = SweepRules::default();
    sweep::after_refusal(
        Budget::default(),
        gate.stamp(),
        refusal,
        other_method,
        &rules,
        now(),
    )
}

/// That `effects` record `budget` for PR 6 and nothing else.
fn records_budget(effects: &[Effect], budget: Budget) {
    assert_eq!(
        effects,
        [Effect::RecordBudget {
            item: pr(6),
            budget
        }]
    );
}

/// A merge commit refused for linear history, in a repository that allows squash merges, is
/// an attempt like any other: the budget remembers the refusal and the next attempt squashes.
#[test]
fn a_refused_merge_commit_is_retried_with_the_method_the_repository_allows() {
    let (planned, after, gate) = refused(green_world(Default::default()), linear_history_refusal());
    assert!(
        matches!(
            planned,
            Write::Merge {
                method: MergeMethod::Merge,
                ..
            }
        ),
        "{planned:?}"
    );
    let retried = budget_after(&gate, Some(&MergeRefusal::MergeCommit), true);
    assert!(retried.merge_commit_refused);
    records_budget(&after.effects, retried);
    assert!(after.goes_on);
    let meaning = after.meaning.unwrap_or_default();
    assert!(
        meaning.contains("the next attempt uses squash"),
        "{meaning}"
    );
}

/// The same refusal where the repository allows merge commits only has no method left: the
/// rest of the budget is spent, so no later sweep sends the merge GitHub refuses.
#[test]
fn a_refused_merge_commit_with_no_other_method_spends_the_budget() {
    let mut world = green_world(Default::default());
    world.settings = crate::policy::merge::MergeSettings {
        merge: Some(true),
        squash: Some(false),
        rebase: Some(false),
    };
    let (_, after, gate) = refused(world, linear_history_refusal());
    let spent = budget_after(&gate, Some(&MergeRefusal::MergeCommit), false);
    let retried = budget_after(&gate, Some(&MergeRefusal::MergeCommit), true);
    assert_ne!(spent, retried, "spending differs from retrying");
    records_budget(&after.effects, spent);
    assert!(after.goes_on);
    let meaning = after.meaning.unwrap_or_default();
    assert!(
        meaning.contains("allows no other merge method"),
        "{meaning}"
    );
}

/// A 409 (the head moved under the merge) is this PR's failed attempt, read for no meaning of
/// a 405; any other refusal (a 422, say) stops the run and records nothing for the PR.
#[test]
fn a_409_is_an_attempt_and_any_other_refusal_stops_the_run() {
    let moved = WriteError {
        status: Some(409),
        message: "Head branch was modified. Review and try the merge again.".into(),
        ..linear_history_refusal()
    };
    let (_, after, gate) = refused(green_world(Default::default()), moved);
    records_budget(&after.effects, budget_after(&gate, None, true));
    assert!(after.goes_on);
    assert_eq!(after.meaning, None);
    let invalid = WriteError {
        status: Some(422),
        message: "Validation Failed".into(),
        ..linear_history_refusal()
    };
    let (_, after, _) = refused(green_world(Default::default()), invalid);
    assert_eq!(after.effects, []);
    assert!(!after.goes_on);
    assert_eq!(after.meaning, None);
}

/// Queues a merge row of `number` at `head` and leases it to `owner`; returns its key.
fn lease_to(store: &mut dyn Store, number: u64, head: &str, owner: &str) -> String {
    let item = pr(number);
    let key = crate::store::queue::merge_key(&item.repo, number, head);
    let row = NewRow {
        key: &key,
        kind: "merge",
        repo: &item.repo,
        pr: number,
        head_sha: Some(head),
        max_attempts: 12,
    };
    assert!(store.enqueue(&row, now()).unwrap());
    let claim = store
        .claim(
            now(),
            owner,
            &[repo()],
            chrono::Duration::minutes(30),
            &mut |_, _, _| true,
        )
        .unwrap()
        .unwrap();
    assert_eq!(claim.key, key);
    key
}

/// Marks run `run_id` finished, with an empty recap.
fn finish(store: &mut dyn Store, run_id: i64) {
    let recap: crate::policy::recap::Recap = serde_json::from_value(serde_json::json!({
        "schema": 1, "run_id": run_id, "command": "sweep", "dry_run": false,
        "stopped": null, "stop_detail": null, "completed": [], "failed": [],
        "unfinished": [], "unfinished_reason": null, "budget": null, "planned": [],
        "rerun": null, "exit_code": 0,
    }))
    .unwrap();
    store.finish_run(&recap).unwrap();
}

/// Other runs' leases as a sweep that writes finds them when it lists the repository: a run
/// still at work keeps its PR (held, with whose lease it is and until when); a run that finished without handing its row back has it
/// released at once, in words; the sweep's own leases are neither.
#[test]
fn a_sweep_holds_a_live_runs_lease_releases_a_finished_runs_and_leaves_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let location = crate::store::Location::File(dir.path().join("state.db"));
    let mut store = crate::store::open(&location).unwrap();
    let live = store.start_run("sweep", "gh-sweep sweep").unwrap();
    let finished = store.start_run("sweep", "gh-sweep sweep").unwrap();
    let own = store.start_run("sweep", "gh-sweep sweep").unwrap();
    let live_owner = Owner::run(live);
    lease_to(store.as_mut(), 1, "a", live_owner.as_str());
    let stranded = lease_to(store.as_mut(), 2, "c", Owner::run(finished).as_str());
    lease_to(store.as_mut(), 3, "d", Owner::run(own).as_str());
    finish(store.as_mut(), finished);

    let (rules, poll) = (SweepRules::default(), PollRules::default());
    let mut kind = SweepKind::new(&rules, &poll, true, "sweep-1".into(), now()).unwrap();
    kind.started(own);
    let github = Scripted::new(Vec::new());
    let listing = kind.list(
        &github,
        StoreView::new(store.as_ref()),
        &Scope::Repo(repo()),
    );
    let [(held, why)] = listing.held.as_slice() else {
        panic!("PR 1 held once: {:?}", listing.held);
    };
    assert_eq!(held, &pr(1));
    assert!(
        why.starts_with(&format!("leased to run {live} until 20"))
            && why.ends_with("(that run is still at work)"),
        "{why}"
    );
    assert_eq!(
        listing.effects,
        [Effect::Lease {
            key: stranded,
            owner: Owner::run(finished),
            outcome: LeaseOutcome::Release,
            started: now(),
            now: now(),
        }]
    );
    assert_eq!(
        listing.notes,
        [format!(
            "o/r#2: leased to run {finished}, which finished without handing them back; released at once and swept now"
        )]
    );
    assert!(listing.claim.is_some(), "a sweep that writes claims rows");
}

/// A dry run leases and releases nothing: it lists what a sweep would claim, each PR once (a
/// pending row, a finished run's stranded lease of the same PR, and an approved PR whose
/// trigger was lost), and says so.
#[test]
fn a_dry_run_lists_what_a_sweep_would_claim_each_pr_once() {
    let (dir, mut store) = gated(4, &approved());
    let finished = store.start_run("sweep", "gh-sweep sweep").unwrap();
    lease_to(store.as_mut(), 5, "e", Owner::run(finished).as_str());
    finish(store.as_mut(), finished);
    let item = pr(5);
    let pending = crate::store::queue::merge_key(&item.repo, 5, "f");
    let row = NewRow {
        key: &pending,
        kind: "merge",
        repo: &item.repo,
        pr: 5,
        head_sha: Some("f"),
        max_attempts: 12,
    };
    assert!(store.enqueue(&row, now()).unwrap());

    let (rules, poll) = (SweepRules::default(), PollRules::default());
    let mut kind = SweepKind::new(&rules, &poll, false, "sweep-1".into(), now()).unwrap();
    let github = Scripted::new(Vec::new());
    let listing = kind.list(
        &github,
        StoreView::new(store.as_ref()),
        &Scope::Repo(repo()),
    );
    let entries: Vec<(u64, Option<String>)> = listing
        .entries
        .unwrap()
        .into_iter()
        .map(|(item, listed)| match listed {
            Listed::Queued { head_sha } => (item.number, head_sha),
            _ => panic!("a dry run leases nothing"),
        })
        .collect();
    assert_eq!(
        entries,
        [(5, Some("f".into())), (4, Some("h".into()))],
        "the pending row of PR 5 stands for its stranded lease too; PR 4's lost trigger is due"
    );
    assert_eq!(listing.effects, []);
    assert!(listing.claim.is_none());
    assert_eq!(
        listing.notes,
        [format!(
            "o/r#5: leased to run {finished}, which finished without handing them back; a sweep releases them at once"
        )]
    );
    drop(dir);
}

/// A sweep that writes queues a lost trigger again as an effect and says how many.
#[test]
fn a_sweep_queues_a_lost_trigger_again_and_says_so() {
    let (_dir, store) = gated(4, &approved());
    let (rules, poll) = (SweepRules::default(), PollRules::default());
    let mut kind = SweepKind::new(&rules, &poll, true, "sweep-1".into(), now()).unwrap();
    kind.started(3);
    let github = Scripted::new(Vec::new());
    let listing = kind.list(
        &github,
        StoreView::new(store.as_ref()),
        &Scope::Repo(repo()),
    );
    let item = pr(4);
    assert_eq!(
        listing.effects,
        [Effect::Enqueue {
            key: crate::store::queue::merge_key(&item.repo, 4, "h"),
            repo: item.repo.clone(),
            pr: 4,
            head_sha: "h".into(),
            max_attempts: rules.attempts_per_trigger,
            now: now(),
        }]
    );
    assert_eq!(
        listing.notes,
        ["o/r: 1 approved PRs whose trigger was lost are due again."]
    );
    let disabled = SweepRules {
        enabled: false,
        ..SweepRules::default()
    };
    let mut kind = SweepKind::new(&disabled, &poll, true, "sweep-1".into(), now()).unwrap();
    let listing = kind.list(
        &github,
        StoreView::new(store.as_ref()),
        &Scope::Repo(repo()),
    );
    assert_eq!(listing.effects, [], "a disabled sweep recovers nothing");
    assert_eq!(listing.notes, Vec::<String>::new());
}
