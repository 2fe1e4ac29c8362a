//! `apply` against the real store: one effect of every kind, each checked in the store after.
//! A kind of effect that `apply` skipped (or mistook for another) fails its check here; the
//! match in `check` is exhaustive, so a new kind of effect needs its check.

use chrono::{DateTime, Duration, Utc};

use super::*;
use crate::item::ItemRef;
use crate::policy::lease::{LeaseOutcome, Owner};
use crate::policy::merge::QueueStatus;
use crate::policy::sweep::{Budget, Gate};
use crate::store::queue::NewRow;

fn now() -> DateTime<Utc> {
    "2025-03-04T12:00:00Z".parse().unwrap()
}

fn item(pr: u64) -> ItemRef {
    ItemRef::new(&"o/r".parse().unwrap(), pr)
}

fn enqueue(store: &dyn Store, key: &str, pr: u64, at: DateTime<Utc>) {
    let row = NewRow {
        key,
        kind: "merge",
        repo: &item(pr).repo,
        pr,
        head_sha: Some("h"),
        max_attempts: 5,
    };
    assert!(store.enqueue(&row, at).unwrap());
}

/// Leases the row of `pr` to `owner`.
fn claim(store: &mut dyn Store, pr: u64, owner: &str) -> crate::store::queue::Claim {
    let repos = [item(pr).repo];
    let mut only =
        |claim: &crate::store::queue::Claim, _: &crate::store::ClaimFacts, _| claim.pr == pr;
    store
        .claim(now(), owner, &repos, Duration::minutes(30), &mut only)
        .unwrap()
        .expect("a row to claim")
}

fn status(store: &dyn Store, pr: u64, key: &str) -> QueueStatus {
    let rows = store.queue_rows(&item(pr).repo, pr).unwrap();
    rows.iter().find(|row| row.key == key).expect(key).status
}

fn lease(key: &str, outcome: LeaseOutcome) -> Effect {
    Effect::Lease {
        key: key.into(),
        owner: Owner::run(1),
        outcome,
        started: now(),
        now: now() + Duration::minutes(1),
    }
}

fn gate(head: &str) -> Gate {
    Gate {
        head_sha: head.into(),
        approved_at: Some(now() - Duration::hours(2)),
        ..Gate::default()
    }
}

/// One effect of every kind, on PRs 1 to 15, and the store made ready for each.
fn one_of_each(store: &mut dyn Store) -> Vec<Effect> {
    let earlier = now() - Duration::hours(1);
    store
        .record_stale_mark(&item(2), "Stale", earlier, earlier)
        .unwrap();
    enqueue(store, "m4", 4, earlier);
    enqueue(store, "m5", 5, earlier);
    claim(store, 5, "run-0");
    enqueue(store, "m10", 10, earlier);
    enqueue(store, "m10-again", 10, earlier + Duration::seconds(1));
    claim(store, 10, "run-1");
    for pr in 11..=14 {
        enqueue(store, &format!("m{pr}"), pr, earlier);
        claim(store, pr, "run-1");
    }
    vec![
        Effect::RecordStaleMark {
            item: item(1),
            label: "Stale".into(),
            labeled_at: now(),
            last_write_at: now(),
        },
        Effect::ForgetStaleMark { item: item(2) },
        Effect::RecordMerged {
            item: item(3),
            head_sha: "h".into(),
            at: now(),
        },
        Effect::SettleMerged {
            item: item(4),
            now: now(),
        },
        Effect::ReopenClaims {
            item: item(5),
            now: now(),
        },
        Effect::RecordBudget {
            item: item(6),
            budget: Budget {
                attempts: 3,
                ..Budget::default()
            },
        },
        Effect::RecordGate {
            item: item(7),
            gate: gate("h7"),
            now: now(),
        },
        Effect::RecordGates(vec![(item(8), gate("h8"), now())]),
        Effect::RecordPollMemory(vec![(item(8).repo, "{\"pulls\":{}}".into())]),
        Effect::Enqueue {
            key: "m9".into(),
            repo: item(9).repo,
            pr: 9,
            head_sha: "h".into(),
            max_attempts: 5,
            now: now(),
        },
        lease("m10", LeaseOutcome::Complete),
        lease("m11", LeaseOutcome::Release),
        lease("m12", LeaseOutcome::ReleaseUnattempted),
        lease("m13", LeaseOutcome::Abandon),
        lease(
            "m14",
            LeaseOutcome::Fail {
                error: "Pull Request is not mergeable".into(),
            },
        ),
    ]
}

/// What the store shows after `effect` was applied.
fn check(store: &mut dyn Store, effect: &Effect) {
    match effect {
        Effect::RecordStaleMark { item, .. } => {
            assert_eq!(
                store.stale_mark(item, "Stale").unwrap(),
                Some((now(), now()))
            );
        }
        Effect::ForgetStaleMark { item } => {
            assert_eq!(store.stale_mark(item, "Stale").unwrap(), None);
        }
        Effect::RecordMerged { item, .. } => {
            assert_eq!(store.gate(item).unwrap().unwrap().merged_at, Some(now()));
        }
        Effect::SettleMerged { .. } => assert_eq!(status(store, 4, "m4"), QueueStatus::Done),
        Effect::ReopenClaims { .. } => assert_eq!(status(store, 5, "m5"), QueueStatus::Pending),
        Effect::RecordBudget { item, budget } => assert_eq!(&store.budget(item).unwrap(), budget),
        Effect::RecordGate { item, gate, .. } => {
            assert_eq!(store.gate(item).unwrap().unwrap().head_sha, gate.head_sha);
        }
        Effect::RecordGates(observed) => {
            let (item, gate, _) = &observed[0];
            assert_eq!(store.gate(item).unwrap().unwrap().head_sha, gate.head_sha);
        }
        Effect::RecordPollMemory(memories) => {
            let (repo, memory) = &memories[0];
            assert_eq!(store.poll_memory(repo).unwrap().as_ref(), Some(memory));
        }
        Effect::Enqueue { key, pr, .. } => {
            assert_eq!(status(store, *pr, key), QueueStatus::Pending)
        }
        Effect::Lease { key, outcome, .. } => check_lease(store, key, outcome),
    }
}

fn check_lease(store: &mut dyn Store, key: &str, outcome: &LeaseOutcome) {
    let pr: u64 = key.trim_start_matches('m').parse().unwrap();
    match outcome {
        LeaseOutcome::Complete => {
            assert_eq!(status(store, pr, key), QueueStatus::Done);
            assert_eq!(
                status(store, pr, "m10-again"),
                QueueStatus::Done,
                "folded into the completed row"
            );
        }
        // Back in the queue, its attempt counted or not: the next claim says which.
        LeaseOutcome::Release => assert_eq!(claim(store, pr, "run-2").attempts, 2),
        LeaseOutcome::ReleaseUnattempted => assert_eq!(claim(store, pr, "run-2").attempts, 1),
        LeaseOutcome::Abandon => assert_eq!(status(store, pr, key), QueueStatus::Abandoned),
        LeaseOutcome::Fail { .. } => {
            assert_eq!(status(store, pr, key), QueueStatus::Failed);
            let since = now() - Duration::hours(1);
            assert_eq!(store.failures(&item(pr).repo, pr, since).unwrap().len(), 1);
        }
    }
}

#[test]
fn every_kind_of_effect_reaches_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let location = crate::store::Location::File(dir.path().join("state.db"));
    let mut store = crate::store::open(&location).unwrap();
    let run = store.start_run("sweep", "gh-sweep sweep").unwrap();
    let effects = one_of_each(store.as_mut());
    apply(store.as_ref(), run, &effects).unwrap();
    for effect in &effects {
        check(store.as_mut(), effect);
    }
}

#[test]
fn a_lease_of_another_owner_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let location = crate::store::Location::File(dir.path().join("state.db"));
    let mut store = crate::store::open(&location).unwrap();
    let run = store.start_run("sweep", "gh-sweep sweep").unwrap();
    enqueue(store.as_ref(), "m1", 1, now() - Duration::hours(1));
    claim(store.as_mut(), 1, "run-9");
    apply(store.as_ref(), run, &[lease("m1", LeaseOutcome::Abandon)]).unwrap();
    assert_eq!(status(store.as_ref(), 1, "m1"), QueueStatus::Claimed);
}

/// A run that another run took over (paused past its bound, its claims taken) applies nothing
/// of what its item came to, and is told so: `apply` fails with the store's refusal, which
/// the run takes as a store failure and stops on.
#[test]
fn a_run_taken_over_applies_nothing_and_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.db");
    let mut store = crate::store::open(&crate::store::Location::File(path.clone())).unwrap();
    let run = store.start_run("sweep", "gh-sweep sweep").unwrap();
    assert_eq!(Owner::run(run), Owner::run(1), "the owner `lease` names");
    enqueue(store.as_ref(), "m1", 1, now() - Duration::hours(1));
    claim(store.as_mut(), 1, "run-1");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE runs SET taken_over_at = ?2, taken_over_by = 'another-host' WHERE id = ?1",
            rusqlite::params![run, "2025-03-04T12:00:00.000000Z"],
        )
        .unwrap();
    let effects = [
        Effect::RecordStaleMark {
            item: item(2),
            label: "Stale".into(),
            labeled_at: now(),
            last_write_at: now(),
        },
        lease("m1", LeaseOutcome::Abandon),
    ];
    let error = apply(store.as_ref(), run, &effects).unwrap_err();
    assert!(crate::store::is_failure(&error), "{error:#}");
    assert!(
        format!("{error:#}").contains("no longer holds its heartbeat"),
        "{error:#}"
    );
    assert_eq!(store.stale_mark(&item(2), "Stale").unwrap(), None);
    assert_eq!(status(store.as_ref(), 1, "m1"), QueueStatus::Claimed);
}
