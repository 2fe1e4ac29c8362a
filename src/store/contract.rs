//! The store's contract: what every backend must do, written against `&mut dyn Store` only, so
//! the same checks run on each backend (SQLite on a temp file and in memory, PostgreSQL on a
//! throwaway server). Each check names the
//! guarantee it holds the backend to.

use chrono::{DateTime, Duration, TimeZone, Utc};

use super::queue::{merge_key, NewRow, DEFAULT_LEASE_MINUTES};
use super::{open, Admission, ClaimFacts, IntentStep, Location, PacedIntent, Store};
use crate::item::{ItemRef, RepoRef};
use crate::policy::merge::QueueStatus;
use crate::policy::recap::Recap;
use crate::policy::sweep::{Budget, Gate};
use crate::policy::write::{JournalWrite, Settled, WriteOutcome};

mod settle;
use settle::{
    settle_is_fenced_on_its_own_run, settle_is_refused_past_the_heartbeat_bound,
    settle_is_refused_to_a_run_taken_over, settle_is_whole_or_nothing, Beside,
};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 10, 12, 12, 0, 0).unwrap()
}

fn repo() -> RepoRef {
    "o/r".parse().unwrap()
}

fn lease() -> Duration {
    Duration::minutes(DEFAULT_LEASE_MINUTES)
}

/// Enqueues a merge row of PR `pr` at `head`, enqueued `offset` seconds after [`now`].
fn add(store: &dyn Store, pr: u64, head: &str, max_attempts: u32, offset: i64) -> String {
    let key = merge_key(&repo(), pr, head);
    let row = NewRow {
        key: &key,
        kind: "merge",
        repo: &repo(),
        pr,
        head_sha: Some(head),
        max_attempts,
    };
    assert!(store
        .enqueue(&row, now() + Duration::seconds(offset))
        .unwrap());
    key
}

/// Claims for `owner` at `at`, admitting every row.
fn claim_any(store: &mut dyn Store, owner: &str, at: DateTime<Utc>) -> Option<(String, u32)> {
    store
        .claim(at, owner, &[repo()], lease(), &mut |_, _, _| true)
        .unwrap()
        .map(|claim| (claim.key, claim.attempts))
}

/// The keys of the rows a sweep would claim at [`now`].
fn pending_keys(store: &dyn Store) -> Vec<String> {
    store
        .pending(&[repo()], now())
        .unwrap()
        .into_iter()
        .map(|row| row.key)
        .collect()
}

/// `admit` sees the row's gate and budget as stored; a refusal leases nothing, counts no
/// attempt and leaves the row pending however often it is refused; an acceptance leases it.
fn claim_with_admit(store: &mut dyn Store) {
    let key = add(store, 7, "a", 3, 0);
    let item = ItemRef::new(&repo(), 7);
    let gate = Gate {
        head_sha: "a".into(),
        approved_at: Some(now() - Duration::hours(1)),
        ..Gate::default()
    };
    store.record_gate(&item, &gate, now()).unwrap();
    let budget = Budget {
        attempts: 2,
        last: Some(now() - Duration::hours(2)),
        watermark: None,
        ..Budget::default()
    };
    store.record_budget(&item, &budget).unwrap();
    let mut seen: Vec<ClaimFacts> = Vec::new();
    for _ in 0..5 {
        let refused = store
            .claim(now(), "w1", &[repo()], lease(), &mut |claim, facts, _| {
                assert_eq!(claim.key, key);
                assert_eq!(claim.attempts, 1, "offered with this attempt counted");
                seen.push(facts.clone());
                false
            })
            .unwrap();
        assert_eq!(refused, None);
    }
    let expected = ClaimFacts {
        gate: Some(gate),
        budget,
    };
    assert_eq!(seen, vec![expected.clone(); 5]);
    assert_eq!(pending_keys(store), vec![key.clone()]);
    assert!(store.leases(&[repo()], now()).unwrap().is_empty());
    assert!(store.held_by("w1").unwrap().is_empty());
    let mut admitted = Vec::new();
    let claimed = store
        .claim(now(), "w1", &[repo()], lease(), &mut |_, facts, _| {
            admitted.push(facts.clone());
            true
        })
        .unwrap()
        .unwrap();
    assert_eq!(admitted, vec![expected]);
    assert_eq!((claimed.key.as_str(), claimed.attempts), (key.as_str(), 1));
    assert_eq!(claimed.leased_until, now() + lease());
    assert_eq!(store.held_by("w1").unwrap(), vec![key]);
    assert!(pending_keys(store).is_empty());
    // A PR the store knows nothing of: no gate, a fresh budget.
    add(store, 8, "b", 3, 1);
    let mut unknown = Vec::new();
    store
        .claim(now(), "w2", &[repo()], lease(), &mut |_, facts, _| {
            unknown.push(facts.clone());
            false
        })
        .unwrap();
    assert_eq!(unknown, vec![ClaimFacts::default()]);
}

/// A row whose attempts are used up is abandoned when next offered, not leased, and is never
/// pending again (a re-poll of its key inserts nothing).
fn attempts_used_up_abandon_the_row(store: &mut dyn Store) {
    let key = add(store, 7, "a", 2, 0);
    for (minute, attempt) in [(0, 1), (1, 2)] {
        let at = now() + Duration::minutes(minute);
        assert_eq!(claim_any(store, "w", at), Some((key.clone(), attempt)));
        assert!(store.release(&key, "w", at).unwrap());
    }
    assert_eq!(pending_keys(store), vec![key.clone()]);
    assert_eq!(claim_any(store, "w", now() + Duration::minutes(2)), None);
    assert!(pending_keys(store).is_empty(), "abandoned, not pending");
    let rows = store.queue_rows(&repo(), 7).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].status, QueueStatus::Abandoned);
    let row = NewRow {
        key: &key,
        kind: "merge",
        repo: &repo(),
        pr: 7,
        head_sha: Some("a"),
        max_attempts: 2,
    };
    assert!(!store.enqueue(&row, now()).unwrap());
}

/// While one row of a PR holds a live lease, the PR's other rows are skipped (the next PR's
/// row is leased instead); once the lease runs out, the PR is claimable again.
fn one_live_lease_per_pr(store: &mut dyn Store) {
    let first = add(store, 7, "a", 3, 0);
    let second = add(store, 7, "b", 3, 1);
    let other = add(store, 8, "c", 3, 2);
    assert_eq!(claim_any(store, "w1", now()), Some((first.clone(), 1)));
    assert_eq!(claim_any(store, "w2", now()), Some((other.clone(), 1)));
    assert_eq!(claim_any(store, "w3", now()), None, "#7 is busy, #8 leased");
    let leased: Vec<(u64, String)> = store
        .leases(&[repo()], now())
        .unwrap()
        .into_iter()
        .map(|lease| (lease.pr, lease.owner))
        .collect();
    assert_eq!(leased, vec![(7, "w1".to_string()), (8, "w2".to_string())]);
    assert!(store.complete(&first, "w1", now()).unwrap());
    assert_eq!(claim_any(store, "w3", now()), Some((second.clone(), 1)));
    assert!(store.complete(&second, "w3", now()).unwrap());
    // Past the lease, w2's row is offered again, its attempt counted again.
    let later = now() + lease() + Duration::minutes(1);
    assert_eq!(claim_any(store, "w4", later), Some((other.clone(), 2)));
    assert!(!store.complete(&other, "w2", later).unwrap(), "w2 lost it");
    assert!(store.complete(&other, "w4", later).unwrap());
}

/// An intent without an outcome, or with `unknown`, is an unknown write once its run is over;
/// one with a known outcome never is; acknowledging or resolving settles it.
fn journal_intent_outcome_unknown(store: &mut dyn Store) {
    let run = store
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    // The store's clock before any of the writes below: a read then is out of date after.
    let before = store.read_mark().unwrap();
    let item = ItemRef::new(&repo(), 3);
    let other = ItemRef::new(&repo(), 4);
    let label = JournalWrite::AddLabels {
        labels: vec!["Stale".into()],
    };
    let close = JournalWrite::Close { reason: None };
    let done = store.journal_intent(run, &item, &label).unwrap();
    store.journal_outcome(done, WriteOutcome::Done, "").unwrap();
    let lost = store.journal_intent(run, &item, &close).unwrap();
    store
        .journal_outcome(lost, WriteOutcome::Unknown, "timed out")
        .unwrap();
    let sent = store.journal_intent(run, &other, &close).unwrap();
    assert_ne!(done, lost);
    assert!(
        store.unknown_writes(&[repo()], now()).unwrap().is_empty(),
        "its run is still at work"
    );
    store.finish_run(&recap(run, 0)).unwrap();
    let unknown: Vec<(i64, String, JournalWrite)> = store
        .unknown_writes(&[repo()], crate::clock::wall())
        .unwrap()
        .into_iter()
        .map(|write| (write.id, write.item, write.action))
        .collect();
    assert_eq!(
        unknown,
        vec![
            (lost, item.to_string(), close.clone()),
            (sent, other.to_string(), close.clone())
        ]
    );
    let elsewhere: RepoRef = "x/y".parse().unwrap();
    assert!(store
        .unknown_writes(&[elsewhere], now())
        .unwrap()
        .is_empty());
    assert_eq!(store.acknowledge(&item).unwrap(), 1);
    store
        .resolve_journal(sent, Settled::DidNotHappen, "not found")
        .unwrap();
    assert!(store
        .unknown_writes(&[repo()], crate::clock::wall())
        .unwrap()
        .is_empty());
    // A later run's first write to the item: refused when this run read the item before the
    // other run's writes there settled (what it read is out of date), allowed after.
    let next = store
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    let stale = store
        .journal_intent_since(next, &item, &label, before)
        .unwrap();
    assert_eq!(stale, None);
    let read_mark = store.read_mark().unwrap();
    let first = store
        .journal_intent_since(next, &item, &label, read_mark)
        .unwrap();
    assert!(first.is_some());
    store
        .journal_outcome(first.unwrap(), WriteOutcome::Done, "")
        .unwrap();
    // Every write checks, not only an item's first: another run's write since the read
    // stops this run's next one.
    let third = store
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    let third_mark = store.read_mark().unwrap();
    let other = store
        .journal_intent_since(third, &item, &label, third_mark)
        .unwrap();
    assert!(other.is_some(), "{other:?}");
    store
        .journal_outcome(other.unwrap(), WriteOutcome::Done, "")
        .unwrap();
    assert_eq!(
        store
            .journal_intent_since(next, &item, &close, read_mark)
            .unwrap(),
        None
    );
}

/// Under the account's pacing, every write of an item, not only its first, is refused once
/// another run wrote the item since this run read it; a run that finished (or was taken over)
/// holds no heartbeat and journals nothing more.
fn paced_intent_checks_every_write(store: &mut dyn Store) {
    let item = ItemRef::new(&repo(), 7);
    let label = JournalWrite::AddLabels {
        labels: vec!["Stale".into()],
    };
    let comment = JournalWrite::Comment {
        marker: "<!-- gh-sweep:mark-stale -->".into(),
    };
    let paced = |run_id, action, step, read_mark| PacedIntent {
        run_id,
        item: &item,
        action,
        step,
        read_mark,
        account: "github.com/octocat",
        interval: std::time::Duration::ZERO,
    };
    let started = || {
        let run = store
            .start_run("stale-sweep", "gh-sweep stale-sweep")
            .unwrap();
        store.record_account(run, "github.com/octocat").unwrap();
        run
    };
    let (first_run, second_run) = (started(), started());
    let read = store.read_mark().unwrap();
    let Admission::Journaled(first) = store
        .journal_paced_intent(&paced(
            first_run,
            &label,
            IntentStep::First { writes: 2 },
            read,
        ))
        .unwrap()
    else {
        panic!("the first write of an item nobody wrote is journaled");
    };
    store
        .journal_outcome(first, WriteOutcome::Done, "")
        .unwrap();
    // Nobody else wrote it: the item's later write goes.
    let Admission::Journaled(later) = store
        .journal_paced_intent(&paced(
            first_run,
            &comment,
            IntentStep::Later { first },
            read,
        ))
        .unwrap()
    else {
        panic!("a later write of an item only this run wrote is journaled");
    };
    store
        .journal_outcome(later, WriteOutcome::Done, "")
        .unwrap();
    // Another run reads the item after those writes and writes it.
    let second_read = store.read_mark().unwrap();
    let Admission::Journaled(theirs) = store
        .journal_paced_intent(&paced(
            second_run,
            &label,
            IntentStep::First { writes: 1 },
            second_read,
        ))
        .unwrap()
    else {
        panic!("a run that read after the other's writes may write");
    };
    store
        .journal_outcome(theirs, WriteOutcome::Done, "")
        .unwrap();
    // The first run's next write of the item, on its old read: refused.
    assert_eq!(
        store
            .journal_paced_intent(&paced(
                first_run,
                &comment,
                IntentStep::Later { first },
                read
            ))
            .unwrap(),
        Admission::Overtaken
    );
    // A finished run journals nothing more.
    store.finish_run(&recap(second_run, 0)).unwrap();
    let error = store
        .journal_paced_intent(&paced(
            second_run,
            &comment,
            IntentStep::Later { first: theirs },
            store.read_mark().unwrap(),
        ))
        .unwrap_err();
    assert!(
        matches!(error.root(), crate::store::StoreError::LostLease(_)),
        "{error:#}"
    );
}

/// The writes of every run recorded as one account, since a time, ascending; not another
/// account's, not a run's that recorded none, not older ones.
fn account_writes_since(store: &mut dyn Store) {
    let label = JournalWrite::AddLabels {
        labels: vec!["Stale".into()],
    };
    let item = ItemRef::new(&repo(), 3);
    let mut runs = Vec::new();
    for account in [Some("github.com/octocat"), Some("github.com/hubot"), None] {
        let run = store
            .start_run("stale-sweep", "gh-sweep stale-sweep")
            .unwrap();
        if let Some(account) = account {
            store.record_account(run, account).unwrap();
        }
        runs.push(run);
    }
    let since = crate::clock::wall();
    let first = store.journal_intent(runs[0], &item, &label).unwrap();
    store
        .journal_outcome(first, WriteOutcome::Done, "")
        .unwrap();
    store.journal_intent(runs[1], &item, &label).unwrap();
    store.journal_intent(runs[2], &item, &label).unwrap();
    // A second run of the same account: its writes count with the first's.
    let again = store
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    store.record_account(again, "github.com/octocat").unwrap();
    let failed = store.journal_intent(again, &item, &label).unwrap();
    store
        .journal_outcome(failed, WriteOutcome::Failed, "refused")
        .unwrap();
    let until = crate::clock::wall();
    let times = store
        .account_writes_since("github.com/octocat", since)
        .unwrap();
    assert_eq!(times.len(), 2, "{times:?}");
    assert!(times[0] <= times[1]);
    assert!(times.iter().all(|time| *time >= since && *time <= until));
    assert_eq!(
        store
            .account_writes_since("github.com/hubot", since)
            .unwrap()
            .len(),
        1
    );
    assert!(store
        .account_writes_since("github.com/nobody", since)
        .unwrap()
        .is_empty());
    assert!(store
        .account_writes_since("github.com/octocat", until + Duration::seconds(1))
        .unwrap()
        .is_empty());
}

/// A stale mark reads back as recorded (its label in any case), is replaced by a newer one,
/// and is gone once forgotten.
fn stale_mark_record_forget(store: &mut dyn Store) {
    let item = ItemRef::new(&repo(), 5);
    assert_eq!(store.stale_mark(&item, "Stale").unwrap(), None);
    let labeled = now() - Duration::days(3);
    store
        .record_stale_mark(&item, "Stale", labeled, now())
        .unwrap();
    assert_eq!(
        store.stale_mark(&item, "stale").unwrap(),
        Some((labeled, now()))
    );
    assert_eq!(store.stale_mark(&item, "other").unwrap(), None);
    let later = now() + Duration::hours(1);
    store
        .record_stale_mark(&item, "Stale", labeled, later)
        .unwrap();
    assert_eq!(
        store.stale_mark(&item, "Stale").unwrap(),
        Some((labeled, later))
    );
    store.forget_stale_mark(&item).unwrap();
    assert_eq!(store.stale_mark(&item, "Stale").unwrap(), None);
}

/// A recap with one completed item, its exit code `exit_code`.
fn recap(run_id: i64, exit_code: i32) -> Recap {
    serde_json::from_value(serde_json::json!({
        "schema": 1,
        "run_id": run_id,
        "command": "stale-sweep",
        "dry_run": false,
        "stopped": null,
        "stop_detail": null,
        "completed": [{"item": "o/r#3", "disposition": "mark-stale", "detail": "90 days"}],
        "failed": [],
        "unfinished": ["o/r#9"],
        "unfinished_reason": "the run was stopped",
        "budget": null,
        "planned": [],
        "rerun": null,
        "exit_code": exit_code,
    }))
    .unwrap()
}

/// A finished run's recap reads back whole, by id and as the latest; runs list newest first.
fn finish_run_recap_round_trip(store: &mut dyn Store) {
    assert_eq!(store.recap(None).unwrap(), None);
    let first = store
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    let second = store.start_run("sweep", "gh-sweep sweep --yes").unwrap();
    assert_ne!(first, second);
    assert_eq!(store.recap(Some(first)).unwrap(), None, "not finished yet");
    store.finish_run(&recap(first, 11)).unwrap();
    assert_eq!(store.recap(Some(first)).unwrap(), Some(recap(first, 11)));
    assert_eq!(store.recap(None).unwrap(), Some(recap(first, 11)));
    store.finish_run(&recap(second, 0)).unwrap();
    assert_eq!(store.recap(None).unwrap(), Some(recap(second, 0)));
    let runs: Vec<(i64, Option<i64>, String)> = store
        .runs(10)
        .unwrap()
        .into_iter()
        .map(|run| (run.id, run.exit_code, run.argv))
        .collect();
    assert_eq!(
        runs,
        vec![
            (second, Some(0), "gh-sweep sweep --yes".to_string()),
            (first, Some(11), "gh-sweep stale-sweep".to_string()),
        ]
    );
    assert_eq!(store.runs(1).unwrap().len(), 1);
}

/// Gate entries read back as recorded, in one transaction for a run's observations; the
/// merged marker survives a later observation; a budget reads back, a missing one is fresh.
fn gate_and_budget_round_trip(store: &mut dyn Store) {
    let seven = ItemRef::new(&repo(), 7);
    let eight = ItemRef::new(&repo(), 8);
    let gate = |head: &str| Gate {
        head_sha: head.into(),
        approved_at: Some(now() - Duration::hours(1)),
        ci_passed_at: Some(now() - Duration::minutes(5)),
        blocked: None,
        merged_at: None,
    };
    store
        .record_gates(&[
            (seven.clone(), gate("a"), now()),
            (eight.clone(), gate("b"), now()),
        ])
        .unwrap();
    assert_eq!(store.gate(&seven).unwrap(), Some(gate("a")));
    assert_eq!(
        store.gates(&[repo()]).unwrap(),
        vec![(seven.clone(), gate("a")), (eight.clone(), gate("b"))]
    );
    store.record_merged(&seven, "a", now()).unwrap();
    store.record_gate(&seven, &gate("a"), now()).unwrap();
    let kept = store.gate(&seven).unwrap().unwrap();
    assert_eq!(kept.merged_at, Some(now()), "the merged marker is kept");
    assert_eq!(store.budget(&eight).unwrap(), Budget::default());
    let budget = Budget {
        attempts: 3,
        last: Some(now()),
        watermark: Some(now() - Duration::hours(1)),
        ..Budget::default()
    };
    store.record_budget(&eight, &budget).unwrap();
    assert_eq!(store.budget(&eight).unwrap(), budget);
}

/// Rows kept under a repository's old name move to its new one when its id is seen renamed.
fn rows_follow_a_renamed_repository(store: &mut dyn Store) {
    assert_eq!(store.follow_repository(42, &repo()).unwrap(), None);
    let key = add(store, 7, "a", 3, 0);
    let item = ItemRef::new(&repo(), 7);
    store.record_gate(&item, &Gate::default(), now()).unwrap();
    store
        .record_stale_mark(&item, "Stale", now(), now())
        .unwrap();
    let renamed: RepoRef = "o/renamed".parse().unwrap();
    assert_eq!(
        store.follow_repository(42, &renamed).unwrap().as_deref(),
        Some("o/r")
    );
    assert_eq!(store.follow_repository(42, &renamed).unwrap(), None);
    let moved = ItemRef::new(&renamed, 7);
    let rows = store.queue_rows(&renamed, 7).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].key, key.replace("o/r#", "o/renamed#"));
    assert!(store.queue_rows(&repo(), 7).unwrap().is_empty());
    assert!(store.gate(&moved).unwrap().is_some());
    assert!(store.gate(&item).unwrap().is_none());
    assert!(store.stale_mark(&moved, "Stale").unwrap().is_some());
}

/// `prune` forgets settled writes past the journal window and keeps every row a decision
/// still reads: a write of unknown outcome (still settled after), a young write (still
/// refusing another run's second write), a stale label whose comment never followed (still an
/// unfinished mark). A cached answer goes once it is older than the cache's window.
fn prune_keeps_what_decisions_need(store: &mut dyn Store) {
    use super::retention::{CACHE_KEPT, JOURNAL_KEPT};
    let wall = crate::clock::wall();
    let run = store
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    let read_before = store.read_mark().unwrap();
    let label = JournalWrite::AddLabels {
        labels: vec!["Stale".into()],
    };
    let comment = JournalWrite::Comment {
        marker: crate::policy::write::marker("mark-stale"),
    };
    let close = JournalWrite::Close { reason: None };
    let item = |number| ItemRef::new(&repo(), number);
    let write = |number, action: &JournalWrite, outcome| {
        let id = store.journal_intent(run, &item(number), action).unwrap();
        store.journal_outcome(id, outcome, "").unwrap();
        id
    };
    write(3, &label, WriteOutcome::Done);
    write(3, &comment, WriteOutcome::Done);
    write(4, &label, WriteOutcome::Done);
    let lost = write(5, &close, WriteOutcome::Unknown);
    write(6, &close, WriteOutcome::Failed);
    store.finish_run(&recap(run, 0)).unwrap();
    let cache = store.response_cache().unwrap();
    let answer = crate::http_cache::Cached {
        etag: Some("W/\"1\"".into()),
        last_modified: None,
        body: "[]".into(),
        next: None,
        token: Some("fingerprint".into()),
    };
    cache.keep(
        "https://api.github.com/repos/o/r/issues?per_page=100",
        &answer,
    );
    let kept = cache
        .lookup("https://api.github.com/repos/o/r/issues?per_page=100")
        .is_some();

    // Young rows all stay: another run that read item 3 before its writes settled is refused.
    assert_eq!(store.prune(wall).unwrap(), super::Pruned::default());
    let next = store
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    assert_eq!(
        store
            .journal_intent_since(next, &item(3), &label, read_before)
            .unwrap(),
        None
    );

    // Past the journal window: item 3's finished mark and item 6's refused close go.
    let later = wall + Duration::from_std(JOURNAL_KEPT).unwrap() + Duration::minutes(1);
    let pruned = store.prune(later).unwrap();
    assert_eq!(pruned.journal, 3);
    assert_eq!(pruned.cache, 0);
    assert!(store.mark_unfinished(&item(4), "Stale").unwrap());
    assert!(!store.mark_unfinished(&item(3), "Stale").unwrap());
    let unknown: Vec<i64> = store
        .unknown_writes(&[repo()], later)
        .unwrap()
        .into_iter()
        .map(|write| write.id)
        .collect();
    assert_eq!(unknown, vec![lost]);
    store
        .resolve_journal(lost, Settled::DidNotHappen, "not found")
        .unwrap();
    assert!(store.unknown_writes(&[repo()], later).unwrap().is_empty());
    assert_eq!(store.prune(later).unwrap().journal, 1, "settled now");
    assert!(store.mark_unfinished(&item(4), "Stale").unwrap());

    // Past the cache's window the answer is gone (a store that keeps none has none to prune).
    let much_later = wall + Duration::from_std(CACHE_KEPT).unwrap() + Duration::minutes(1);
    assert_eq!(store.prune(much_later).unwrap().cache, usize::from(kept));
    assert!(cache
        .lookup("https://api.github.com/repos/o/r/issues?per_page=100")
        .is_none());
}

/// `prune` keeps the newest runs' recaps and the newer runs' summaries, and forgets the rest,
/// but never a run a journal row names.
fn prune_summarises_old_runs(store: &mut dyn Store) {
    use super::retention::{RECAPS_KEPT, RUNS_KEPT};
    let total = RUNS_KEPT + 3;
    let mut ids = Vec::new();
    let mut written = 0;
    for _ in 0..total {
        let id = store
            .start_run("stale-sweep", "gh-sweep stale-sweep")
            .unwrap();
        if ids.is_empty() {
            // The oldest run sent a write whose outcome is unknown (while it was at work, as
            // a run writes): the journal names it.
            written = store
                .journal_intent(
                    id,
                    &ItemRef::new(&repo(), 3),
                    &JournalWrite::Close { reason: None },
                )
                .unwrap();
            store
                .journal_outcome(written, WriteOutcome::Unknown, "timed out")
                .unwrap();
        }
        store.finish_run(&recap(id, 0)).unwrap();
        ids.push(id);
    }
    let wall = crate::clock::wall();
    let pruned = store.prune(wall).unwrap();
    assert_eq!(pruned.recaps, total - RECAPS_KEPT);
    assert_eq!(
        pruned.runs, 0,
        "every run started inside the journal window"
    );
    assert_eq!(
        store.recap(Some(ids[total - RECAPS_KEPT - 1])).unwrap(),
        None
    );
    assert_eq!(
        store.recap(Some(ids[total - RECAPS_KEPT])).unwrap(),
        Some(recap(ids[total - RECAPS_KEPT], 0))
    );
    assert_eq!(store.recap(None).unwrap(), Some(recap(ids[total - 1], 0)));
    assert_eq!(store.runs(total + 10).unwrap().len(), total);
    let later = wall + Duration::days(2);
    let pruned = store.prune(later).unwrap();
    // Runs 2 and 3 go; run 1 stays while its write is in the journal.
    assert_eq!((pruned.journal, pruned.runs), (0, 2));
    let listed: Vec<i64> = store
        .runs(total + 10)
        .unwrap()
        .into_iter()
        .map(|run| run.id)
        .collect();
    assert_eq!(listed.len(), RUNS_KEPT + 1);
    assert!(listed.contains(&ids[0]) && !listed.contains(&ids[1]));
    store
        .resolve_journal(written, Settled::DidNotHappen, "not found")
        .unwrap();
    let pruned = store.prune(later).unwrap();
    assert_eq!(
        (pruned.journal, pruned.runs),
        (1, 1),
        "its write settled and went"
    );
}

/// A test per check for a backend, each on a fresh store from `$fresh` (which returns what must
/// live as long as the store, and the store).
macro_rules! contract {
    ($backend:ident, $fresh:expr, [$($check:ident),* $(,)?]) => {
        mod $backend {
            $(
                #[test]
                fn $check() {
                    let (_keep, mut store) = $fresh;
                    super::$check(store.as_mut());
                }
            )*
        }
    };
}

/// A test per check for a backend that needs a way into the database beside the store, each
/// on a fresh store from `$fresh` (which returns what must live as long as the store, the
/// store, and the [`Beside`]).
macro_rules! contract_beside {
    ($backend:ident, $fresh:expr, [$($check:ident),* $(,)?]) => {
        mod $backend {
            $(
                #[test]
                fn $check() {
                    let (_keep, mut store, beside) = $fresh;
                    super::$check(store.as_mut(), &beside);
                }
            )*
        }
    };
}

/// A SQLite store in a new temp file, and the file.
fn sqlite_file_beside() -> (tempfile::TempDir, Box<dyn Store>, Beside) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.db");
    let store = open(&Location::File(path.clone())).unwrap();
    (dir, store, Beside::File(path))
}

/// A PostgreSQL store on a new database, and the database's URL.
#[cfg(feature = "postgres")]
fn postgres_beside() -> ((), Box<dyn Store>, Beside) {
    let url = super::postgres::test_server::fresh_database();
    let target = super::Target::new(&url, "test-host".into());
    let store = open(&Location::Postgres(Box::new(target))).unwrap();
    ((), store, Beside::Postgres(url))
}

contract_beside!(
    sqlite_settle,
    super::sqlite_file_beside(),
    [
        settle_is_whole_or_nothing,
        settle_is_refused_to_a_run_taken_over,
        settle_is_refused_past_the_heartbeat_bound,
        settle_is_fenced_on_its_own_run,
    ]
);

#[cfg(feature = "postgres")]
contract_beside!(
    postgres_settle,
    super::postgres_beside(),
    [
        settle_is_whole_or_nothing,
        settle_is_refused_to_a_run_taken_over,
        settle_is_refused_past_the_heartbeat_bound,
        settle_is_fenced_on_its_own_run,
    ]
);

/// A SQLite store in a new temp file.
fn sqlite_file() -> (tempfile::TempDir, Box<dyn Store>) {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&Location::File(dir.path().join("state.db"))).unwrap();
    (dir, store)
}

contract!(
    sqlite,
    super::sqlite_file(),
    [
        claim_with_admit,
        attempts_used_up_abandon_the_row,
        one_live_lease_per_pr,
        journal_intent_outcome_unknown,
        paced_intent_checks_every_write,
        account_writes_since,
        stale_mark_record_forget,
        finish_run_recap_round_trip,
        gate_and_budget_round_trip,
        rows_follow_a_renamed_repository,
        prune_keeps_what_decisions_need,
        prune_summarises_old_runs,
    ]
);

contract!(
    sqlite_in_memory,
    ((), super::open(&super::Location::Memory).unwrap()),
    [
        claim_with_admit,
        attempts_used_up_abandon_the_row,
        one_live_lease_per_pr,
        journal_intent_outcome_unknown,
        paced_intent_checks_every_write,
        account_writes_since,
        stale_mark_record_forget,
        finish_run_recap_round_trip,
        gate_and_budget_round_trip,
        rows_follow_a_renamed_repository,
        prune_keeps_what_decisions_need,
        prune_summarises_old_runs,
    ]
);

#[cfg(feature = "postgres")]
contract!(
    postgres,
    ((), super::open(&super::postgres_database()).unwrap()),
    [
        claim_with_admit,
        attempts_used_up_abandon_the_row,
        one_live_lease_per_pr,
        journal_intent_outcome_unknown,
        paced_intent_checks_every_write,
        account_writes_since,
        stale_mark_record_forget,
        finish_run_recap_round_trip,
        gate_and_budget_round_trip,
        rows_follow_a_renamed_repository,
        prune_keeps_what_decisions_need,
        prune_summarises_old_runs,
    ]
);

/// A new database on the tests' throwaway PostgreSQL.
#[cfg(feature = "postgres")]
fn postgres_database() -> Location {
    let url = super::postgres::test_server::fresh_database();
    Location::Postgres(Box::new(super::Target::new(&url, "test-host".into())))
}
