//! The SQLite queue's own tests: its SQL, its claim under contention, its leases.

use super::*;
use crate::store::queue::{merge_key, run_owner, DEFAULT_LEASE_MINUTES};

/// The status words the store's SQL names, from its source: `status = 'w'` and
/// `status IN ('w', ...)`.
fn status_words_in_sql(source: &str) -> Vec<String> {
    let mut words = Vec::new();
    for (index, _) in source.match_indices("status ") {
        let rest = &source[index + "status ".len()..];
        let list = if let Some(rest) = rest.strip_prefix("= '") {
            &rest[..rest.find('\'').unwrap_or(0)]
        } else if let Some(rest) = rest.strip_prefix("IN (") {
            &rest[..rest.find(')').unwrap_or(0)]
        } else {
            continue;
        };
        words.extend(
            list.split(',')
                .map(|word| word.trim().trim_matches('\'').to_string()),
        );
    }
    words
}

#[test]
fn every_status_the_sql_names_is_a_queue_status() {
    // Their code, not their tests.
    let words: Vec<String> = [include_str!("queue.rs"), include_str!("gate.rs")]
        .iter()
        .flat_map(|source| status_words_in_sql(source.split("#[cfg(test)]").next().unwrap()))
        .collect();
    for word in &words {
        assert!(word.parse::<QueueStatus>().is_ok(), "`{word}` in the SQL");
    }
    for status in QueueStatus::ALL {
        assert!(
            words.iter().any(|word| word == status.as_str()),
            "{status} is never named"
        );
    }
}

#[test]
fn a_status_gh_sweep_does_not_know_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("state.db")).unwrap();
    let repo: RepoRef = "o/r".parse().unwrap();
    let key = merge_key(&repo, 1, "h");
    let row = NewRow {
        key: &key,
        kind: "merge",
        repo: &repo,
        pr: 1,
        head_sha: Some("h"),
        max_attempts: 3,
    };
    store.enqueue(&row, now()).unwrap();
    assert_eq!(
        store.queue_rows(&repo, 1).unwrap()[0].status,
        QueueStatus::Pending
    );
    store
        .connection
        .execute("UPDATE queue SET status = 'flying'", [])
        .unwrap();
    let error = format!("{:#}", store.queue_rows(&repo, 1).unwrap_err());
    assert!(error.contains("`flying`"), "{error}");
}

/// Seed 002's bound for rows whose kind has no budget of its own.
const DEFAULT_MAX_ATTEMPTS: u32 = 3;
use chrono::TimeZone;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 10, 12, 12, 0, 0).unwrap()
}

fn repo() -> RepoRef {
    "o/r".parse().unwrap()
}

fn open() -> (tempfile::TempDir, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("state.db")).unwrap();
    (dir, store)
}

fn add(store: &SqliteStore, pr: u64, head: &str, at: DateTime<Utc>) -> String {
    let key = merge_key(&repo(), pr, head);
    store
        .enqueue(
            &NewRow {
                key: &key,
                kind: "merge",
                repo: &repo(),
                pr,
                head_sha: Some(head),
                max_attempts: DEFAULT_MAX_ATTEMPTS,
            },
            at,
        )
        .unwrap();
    key
}

fn claim(store: &mut SqliteStore, owner: &str, at: DateTime<Utc>) -> Option<Claim> {
    store
        .claim(
            at,
            owner,
            &[repo()],
            Duration::minutes(DEFAULT_LEASE_MINUTES),
            &mut |_, _, _| true,
        )
        .unwrap()
}

#[test]
fn enqueue_is_insert_or_ignore_and_rows_are_kept() {
    let (_dir, mut store) = open();
    let key = merge_key(&repo(), 7, "pr-7-head");
    let row = NewRow {
        key: &key,
        kind: "merge",
        repo: &repo(),
        pr: 7,
        head_sha: Some("pr-7-head"),
        max_attempts: DEFAULT_MAX_ATTEMPTS,
    };
    assert!(store.enqueue(&row, now()).unwrap());
    assert!(
        !store.enqueue(&row, now()).unwrap(),
        "a re-poll inserts nothing"
    );
    let claimed = claim(&mut store, "w1", now()).unwrap();
    assert!(store.complete(&claimed.key, "w1", now()).unwrap());
    assert!(
        !store.enqueue(&row, now()).unwrap(),
        "a done row is a fact, not re-enqueued"
    );
    assert_eq!(
        store.queue_status(&key).unwrap(),
        Some((QueueStatus::Done, 1))
    );
    assert!(
        claim(&mut store, "w1", now()).is_none(),
        "done is never offered again"
    );
}

#[test]
fn a_refused_candidate_keeps_its_status_and_attempts_and_the_next_is_leased() {
    let (_dir, mut store) = open();
    let first = add(&store, 1, "a", now());
    let second = add(&store, 2, "b", now() + Duration::seconds(1));
    let claimed = store
        .claim(
            now(),
            "w1",
            &[repo()],
            Duration::minutes(30),
            &mut |claim, _, _| claim.key != first,
        )
        .unwrap()
        .unwrap();
    assert_eq!(claimed.key, second);
    assert_eq!(
        store.queue_status(&first).unwrap(),
        Some((QueueStatus::Pending, 0))
    );
}

#[test]
fn one_pr_one_worker() {
    let (_dir, mut store) = open();
    let first = add(&store, 7, "a", now());
    add(&store, 7, "b", now() + Duration::seconds(1));
    assert_eq!(claim(&mut store, "w1", now()).unwrap().key, first);
    assert!(
        claim(&mut store, "w2", now()).is_none(),
        "the PR's other row waits for the live lease"
    );
}

#[test]
fn a_claim_is_scoped_to_the_run_repositories() {
    let (_dir, mut store) = open();
    add(&store, 1, "a", now());
    let other: RepoRef = "x/y".parse().unwrap();
    let claimed = store
        .claim(
            now(),
            "w1",
            &[other],
            Duration::minutes(30),
            &mut |_, _, _| true,
        )
        .unwrap();
    assert!(claimed.is_none());
}

#[test]
fn leases_expire_and_owner_guards_close_the_row() {
    let (_dir, mut store) = open();
    let key = add(&store, 1, "a", now());
    claim(&mut store, "w1", now()).unwrap();
    assert!(claim(&mut store, "w2", now() + Duration::minutes(29)).is_none());
    let reclaimed = claim(&mut store, "w2", now() + Duration::minutes(31)).unwrap();
    assert_eq!(reclaimed.attempts, 2);
    assert!(
        !store.complete(&key, "w1", now()).unwrap(),
        "w1's lease lapsed and was re-claimed"
    );
    assert!(!store.release(&key, "w1", now()).unwrap());
    assert!(!store.abandon(&key, "w1", now()).unwrap());
    assert!(store.release(&key, "w2", now()).unwrap());
    assert_eq!(
        store.queue_status(&key).unwrap(),
        Some((QueueStatus::Pending, 2))
    );
}

#[test]
fn retries_are_bounded() {
    let (_dir, mut store) = open();
    let key = add(&store, 1, "a", now());
    for attempt in 0..3 {
        let claimed = claim(&mut store, "w", now() + Duration::minutes(attempt)).unwrap();
        store.release(&claimed.key, "w", now()).unwrap();
    }
    assert!(claim(&mut store, "w", now() + Duration::minutes(10)).is_none());
    assert_eq!(
        store.queue_status(&key).unwrap(),
        Some((QueueStatus::Abandoned, 3))
    );
}

#[test]
fn a_failure_is_recorded_for_the_backoff_and_can_be_retried_later() {
    let (_dir, mut store) = open();
    let key = add(&store, 1, "a", now());
    claim(&mut store, "w", now()).unwrap();
    assert!(store.fail(&key, "w", "405 not mergeable", now()).unwrap());
    let failures = store
        .failures(&repo(), 1, now() - Duration::hours(6))
        .unwrap();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].head_sha, "a");
    let row = NewRow {
        key: &key,
        kind: "merge",
        repo: &repo(),
        pr: 1,
        head_sha: Some("a"),
        max_attempts: DEFAULT_MAX_ATTEMPTS,
    };
    assert!(
        store.enqueue(&row, now() + Duration::hours(7)).unwrap(),
        "a failed row is made pending again"
    );
    assert_eq!(
        store.queue_status(&key).unwrap(),
        Some((QueueStatus::Pending, 1))
    );
}

#[test]
fn fold_closes_what_was_waiting_for_the_same_commit() {
    let (_dir, mut store) = open();
    let done = add(&store, 7, "a", now());
    let waiting = add(&store, 7, "a2", now());
    // A row naming the same commit under another key (another trigger kind of the same PR).
    let same_commit = "merge:o/r#7@a:retrigger".to_string();
    store
        .enqueue(
            &NewRow {
                key: &same_commit,
                kind: "merge",
                repo: &repo(),
                pr: 7,
                head_sha: Some("a"),
                max_attempts: DEFAULT_MAX_ATTEMPTS,
            },
            now(),
        )
        .unwrap();
    let later = "merge:o/r#7@a:later".to_string();
    store
        .enqueue(
            &NewRow {
                key: &later,
                kind: "merge",
                repo: &repo(),
                pr: 7,
                head_sha: Some("a"),
                max_attempts: DEFAULT_MAX_ATTEMPTS,
            },
            now() + Duration::minutes(5),
        )
        .unwrap();
    claim(&mut store, "w", now()).unwrap();
    store.complete(&done, "w", now()).unwrap();
    assert_eq!(
        store
            .fold(&done, now() + Duration::minutes(1), now())
            .unwrap(),
        1
    );
    assert_eq!(
        store.queue_status(&same_commit).unwrap().unwrap().0,
        QueueStatus::Done
    );
    assert_eq!(
        store.queue_status(&waiting).unwrap().unwrap().0,
        QueueStatus::Pending,
        "names another commit"
    );
    assert_eq!(
        store.queue_status(&later).unwrap().unwrap().0,
        QueueStatus::Pending,
        "enqueued after the work started"
    );
}

#[test]
fn a_lease_tells_a_dead_or_finished_run_from_one_at_work() {
    let (_dir, mut store) = open();
    // A process that has exited: its pid names nothing in /proc.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead_pid = child.id();
    child.wait().unwrap();
    let host = super::super::host();
    let runs = [
        (1, None, i64::from(std::process::id())), // this process: at work
        (2, None, i64::from(dead_pid)),           // killed
        (
            3,
            Some("2026-10-12T12:00:00Z"),
            i64::from(std::process::id()),
        ), // finished
    ];
    // Each run as this kernel and PID namespace record it, beating now.
    let me = crate::store::identity::Identity::this_process();
    for (id, finished, pid) in runs {
        let start_time = if pid == me.pid { me.start_time } else { None };
        store
            .connection
            .execute(
                "INSERT INTO runs (id, command, argv, started_at, finished_at, pid, host, boot_id, pid_ns, start_time, heartbeat_at)
                 VALUES (?1, 'sweep', 'gh-sweep sweep', '2026-10-12T12:00:00Z', ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    id,
                    finished,
                    pid,
                    host,
                    me.boot_id,
                    me.pid_ns,
                    start_time,
                    super::super::stamp(crate::clock::wall())
                ],
            )
            .unwrap();
    }
    let owners = [run_owner(1), run_owner(2), run_owner(3), "sweep-1-2".into()];
    for (pr, owner) in (1..).zip(&owners) {
        add(&store, pr, "h", now());
        assert_eq!(claim(&mut store, owner, now()).unwrap().pr, pr);
    }
    let leases = store.leases(&[repo()], now()).unwrap();
    let holders: Vec<(u64, Option<i64>, Holder)> = leases
        .iter()
        .map(|lease| (lease.pr, lease.run_id, lease.holder))
        .collect();
    assert_eq!(
        holders,
        vec![
            (1, Some(1), Holder::Alive),
            (2, Some(2), Holder::Dead),
            (3, Some(3), Holder::Finished),
            // An owner that names no run: nothing can be told, so it is waited for.
            (4, None, Holder::Alive),
        ]
    );
    assert_eq!(
        leases[0].leased_until,
        now() + Duration::minutes(DEFAULT_LEASE_MINUTES)
    );
    assert!(
        store
            .leases(&[repo()], now() + Duration::minutes(31))
            .unwrap()
            .is_empty(),
        "a lease that ran out is no lease"
    );
    assert!(store
        .leases(&["x/y".parse().unwrap()], now())
        .unwrap()
        .is_empty());
}

#[test]
fn two_connections_racing_a_claim_lease_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.db");
    let store = SqliteStore::open(&path).unwrap();
    for pr in 1..=20 {
        add(&store, pr, "h", now());
    }
    drop(store);
    let workers: Vec<_> = (0..4)
        .map(|worker| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut store = SqliteStore::open(&path).unwrap();
                let mut keys = Vec::new();
                while let Some(claimed) = claim(&mut store, &format!("w{worker}"), now()) {
                    keys.push(claimed.key);
                }
                keys
            })
        })
        .collect();
    let mut all: Vec<String> = workers
        .into_iter()
        .flat_map(|worker| worker.join().unwrap())
        .collect();
    let total = all.len();
    all.sort();
    all.dedup();
    assert_eq!(total, 20, "every row claimed");
    assert_eq!(all.len(), 20, "no row claimed twice");
}
