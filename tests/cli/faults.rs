//! The fault table (issue 5): every kind of read fault on every sweep stops as a harness outage
//! with nothing written and every item accounted for; every kind of write fault sends that
//! write exactly once, stops the run and leaves the intent in the journal.

use std::time::Duration;

use crate::support::server::Parking;
use crate::support::{issue, items, marked, Fault, Test, WorldState, REPO, VIEWER};

/// Three items each sweep would act on; the fault hits the second one's read.
struct Case {
    name: &'static str,
    args: &'static [&'static str],
    setup: fn(&mut WorldState),
    before: fn(&Test),
    read: &'static str,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "stale-sweep",
            args: &["stale-sweep", "--repo", REPO, "--yes", "--json"],
            setup: |world| {
                for number in 1..=3 {
                    world.stale_issue(number, 8, "github-actions[bot]");
                }
            },
            before: |_| {},
            read: "/issues/2/events",
        },
        Case {
            name: "poll",
            args: &["poll", "--repo", REPO, "--json"],
            setup: |world| {
                for number in 1..=3 {
                    world.green_pr(number);
                }
            },
            before: |_| {},
            read: "/pulls/2/files",
        },
        Case {
            name: "sweep",
            args: &["sweep", "--repo", REPO, "--yes", "--json"],
            setup: |world| {
                for number in 1..=3 {
                    world.green_pr(number);
                }
            },
            before: |test| {
                test.run(&["poll", "--repo", REPO]).expect_code(0);
                test.clear_log();
            },
            read: "/pulls/2/reviews",
        },
    ]
}

#[test]
fn read_faults_stop_as_an_outage_with_nothing_written_and_nothing_lost() {
    let faults: Vec<(&str, Fault, &str)> = vec![
        ("5xx", Fault::Status(502), ""),
        (
            "429 with retry-after",
            Fault::RateLimit {
                status: 429,
                retry_after: 120,
            },
            "",
        ),
        (
            "403 secondary rate limit",
            Fault::RateLimit {
                status: 403,
                retry_after: 60,
            },
            "",
        ),
        ("connection reset", Fault::Drop, ""),
        (
            "slow past the timeout",
            Fault::Slow(Duration::from_millis(1500)),
            "timeout_seconds = 1\nread_retries = 0\n",
        ),
    ];
    let mut table = Vec::new();
    for case in cases() {
        for (fault_name, fault, config) in &faults {
            let test = Test::rest(case.setup);
            test.config(config);
            (case.before)(&test);
            test.fail("GET", case.read, fault.clone(), 10);
            let outcome = test.run(case.args);
            assert_eq!(
                outcome.code, 5,
                "{} / {fault_name}: {}\n{}",
                case.name, outcome.stdout, outcome.stderr
            );
            let recap = outcome.json();
            let mut all = items(&recap["completed"]);
            all.extend(items(&recap["failed"]));
            all.extend(items(&recap["unfinished"]));
            all.sort();
            let pool: Vec<String> = (1..=3).map(|n| format!("{REPO}#{n}")).collect();
            assert_eq!(
                all, pool,
                "{} / {fault_name}: the three groups are exactly the pool",
                case.name
            );
            assert_eq!(recap["stopped"], "harness_outage");
            assert!(
                recap["rerun"].as_str().unwrap().contains("--only"),
                "{recap}"
            );
            let writes = test.writes().len();
            test.expect_no_writes();
            table.push(format!(
                "{:<12} {:<26} writes {writes}, items {}",
                case.name,
                fault_name,
                all.len()
            ));
        }
    }
    eprintln!("{}", table.join("\n"));
}

/// A kind of write: its name, method, path, the world that needs it, and the command line.
type WriteCase = (
    &'static str,
    &'static str,
    &'static str,
    fn(&mut crate::support::WorldState),
    &'static [&'static str],
);

#[test]
fn each_kind_of_write_fault_is_sent_once_stops_the_run_and_is_journaled() {
    let kinds: Vec<WriteCase> = vec![
        (
            "label add",
            "POST",
            "/issues/1/labels",
            |world| {
                world.open_issue(1, 74);
                world.open_issue(2, 74);
            },
            &["stale-sweep", "--repo", REPO, "--yes", "--json"],
        ),
        (
            "comment",
            "POST",
            "/issues/1/comments",
            |world| {
                world.open_issue(1, 74);
                world.open_issue(2, 74);
            },
            &["stale-sweep", "--repo", REPO, "--yes", "--json"],
        ),
        (
            "label remove",
            "DELETE",
            "/issues/1/labels/Stale",
            |world| {
                world.stale_issue(1, 8, "github-actions[bot]");
                world.comment(1, "alice", 1, "still here");
                world.open_issue(2, 74);
            },
            &["stale-sweep", "--repo", REPO, "--yes", "--json"],
        ),
        (
            "close",
            "PATCH",
            "/issues/1",
            |world| {
                world.stale_issue(1, 8, VIEWER);
                world.open_issue(2, 74);
            },
            &["stale-sweep", "--repo", REPO, "--yes", "--json"],
        ),
        (
            "merge",
            "PUT",
            "/pulls/1/merge",
            |world| {
                world.green_pr(1);
                world.green_pr(2);
            },
            &["sweep", "--repo", REPO, "--yes", "--json"],
        ),
    ];
    // Every fault a read can meet, on every kind of write. A 4xx is a refusal (nothing was
    // written); anything else leaves the outcome unknown. Either way: one request, a stop.
    let faults: Vec<(&str, Fault, &str, &str)> = vec![
        ("503", Fault::Status(503), "unknown", ""),
        (
            "429 with retry-after",
            Fault::RateLimit {
                status: 429,
                retry_after: 60,
            },
            "failed",
            "",
        ),
        (
            "403 secondary rate limit",
            Fault::RateLimit {
                status: 403,
                retry_after: 60,
            },
            "failed",
            "",
        ),
        ("connection reset", Fault::Drop, "unknown", ""),
        (
            "slow past the timeout",
            Fault::Slow(Duration::from_millis(1500)),
            "unknown",
            "timeout_seconds = 1\n",
        ),
    ];
    let mut table = Vec::new();
    for (kind, method, path, setup, args) in kinds {
        for (fault_name, fault, journaled, config) in &faults {
            // The slow case costs real seconds: one kind shows it.
            if fault_name.starts_with("slow") && kind != "comment" {
                continue;
            }
            let test = Test::new(setup);
            test.config(config);
            if kind == "merge" {
                test.run(&["poll", "--repo", REPO]).expect_code(0);
            }
            test.clear_log();
            test.fail(method, path, fault.clone(), 10);
            let outcome = test.run(args);
            assert_eq!(
                outcome.code, 11,
                "{kind} / {fault_name}: {}",
                outcome.stdout
            );
            if fault_name.starts_with("slow") {
                // The fake GitHub is still answering the request the client gave up on.
                std::thread::sleep(Duration::from_millis(700));
            }
            let recap = outcome.json();
            assert_eq!(recap["stopped"], "write_failed", "{kind} / {fault_name}");
            assert_eq!(
                items(&recap["failed"]),
                vec![format!("{REPO}#1")],
                "{kind} / {fault_name}"
            );
            assert_eq!(
                items(&recap["unfinished"]),
                vec![format!("{REPO}#2")],
                "{kind} / {fault_name}"
            );
            let sent = test
                .requests()
                .iter()
                .filter(|r| r.method == method && r.path.ends_with(path))
                .count();
            assert_eq!(
                sent, 1,
                "{kind} / {fault_name}: the failed write was sent exactly once"
            );
            let journal: i64 = rusqlite::Connection::open(test.db_path())
                .unwrap()
                .query_row(
                    "SELECT COUNT(*) FROM journal WHERE outcome = ?2 AND item = ?1",
                    [format!("{REPO}#1"), journaled.to_string()],
                    |row| row.get(0),
                )
                .unwrap();
            assert_eq!(
                journal, 1,
                "{kind} / {fault_name}: the intent is journaled with outcome {journaled}"
            );
            table.push(format!(
                "{kind:<13} {fault_name:<26} sent once, journal {journaled}"
            ));
            let writes = test.writes();
            test.expect_writes(&writes);
        }
    }
    eprintln!("{}", table.join("\n"));
}

/// How many kill points the loops below try: a short default for `cargo test`, and the long
/// mode with `GH_SWEEP_KILL_RUNS=50 cargo test --test cli killed`.
fn kill_runs() -> u64 {
    std::env::var("GH_SWEEP_KILL_RUNS")
        .ok()
        .and_then(|runs| runs.parse().ok())
        .unwrap_or(6)
}

/// The kill point of a seed among `points`: the first seeds walk the points from both ends
/// (the first, the last, the second, the one before last, ...), the rest land anywhere
/// (splitmix64, so neighbouring seeds land far apart).
fn kill_point(seed: u64, points: usize) -> usize {
    let points = points as u64;
    if seed < points {
        let step = seed / 2;
        return (if seed % 2 == 0 {
            step
        } else {
            points - 1 - step
        }) as usize;
    }
    let mut x = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((x ^ (x >> 31)) % points) as usize
}

/// The writes a run sends when nothing stops it, in order: `args` on a world of its own built
/// by `setup` (after `before`, which readies the store as the killed run's was).
fn writes_unkilled(
    setup: impl Fn(&mut WorldState),
    before: impl Fn(&Test),
    args: &[&str],
) -> Vec<String> {
    let test = Test::new(setup);
    before(&test);
    test.clear_log();
    test.run(args).expect_code(0);
    let writes = test.writes();
    test.expect_writes(&writes);
    writes
}

/// Runs `args` until GitHub holds the request `gate` parks, then kills the process with SIGKILL
/// while it waits for the answer (no destructor, no recap, nothing flushed): a kill inside the
/// write phase, at a point the test chose. `landed` checks, at that moment, where the run was.
/// Then GitHub finishes the parked request (a write is applied: its answer never reached
/// gh-sweep), and the test goes on once the fake has logged it.
fn kill_when_parked(test: &Test, args: &[&str], gate: &Parking, landed: impl FnOnce()) {
    let mut child = test
        .std_command(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    gate.wait_parked();
    landed();
    let logged = test.all_requests().len();
    let _ = child.kill();
    let _ = child.wait();
    gate.release();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while test.all_requests().len() == logged {
        assert!(
            std::time::Instant::now() < deadline,
            "the parked request was never answered"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Parks the request `line` (`METHOD /path`) the `nth` time it is sent (0: the first).
fn park(test: &Test, line: &str, nth: u32) -> Parking {
    let (method, path) = line.split_once(' ').expect("METHOD /path");
    let gate = Parking::default();
    test.server
        .fail_after(method, path, nth, Fault::Park(gate.clone()), 1);
    gate
}

/// How many times `lines[index]` stands in `lines` before `index`.
fn earlier_sends(lines: &[String], index: usize) -> u32 {
    lines[..index]
        .iter()
        .filter(|line| **line == lines[index])
        .count() as u32
}

fn six_idle_and_two_stale(world: &mut WorldState) {
    for number in 1..=6 {
        world.open_issue(number, 74);
    }
    world.stale_issue(7, 8, VIEWER);
    world.stale_issue(8, 9, VIEWER);
}

#[test]
fn killed_mid_stale_sweep_the_next_run_finishes_with_no_duplicate_write() {
    let args = ["stale-sweep", "--repo", REPO, "--yes"];
    let order = writes_unkilled(six_idle_and_two_stale, |_| {}, &args);
    // Exactly the marks and the closes, each once, whichever run sent them.
    let mut expected: Vec<String> = (1..=6).flat_map(marked).collect();
    for number in [7, 8] {
        expected.push(format!("POST {}/comments", issue(number)));
        expected.push(format!("PATCH {}", issue(number)));
    }
    let mut sorted = order.clone();
    sorted.sort();
    expected.sort();
    assert_eq!(sorted, expected, "the writes of a run nothing stops");
    let mut table = vec!["seed  killed at write  writes  duplicates  items lost".to_string()];
    for seed in 0..kill_runs() {
        let test = Test::new(six_idle_and_two_stale);
        let at = kill_point(seed, order.len());
        let gate = park(&test, &order[at], earlier_sends(&order, at));
        kill_when_parked(&test, &args, &gate, || {
            // Killed inside the write phase: every write before this one answered, this one
            // at GitHub, none after it sent.
            assert_eq!(
                test.writes(),
                order[..at],
                "seed {seed}: the writes before the kill"
            );
        });
        let finish = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
        assert!(
            matches!(finish.code, 0),
            "seed {seed}: {}\n{}",
            finish.stdout,
            finish.stderr
        );
        let shared = test.world();
        let mut duplicates = 0;
        let mut lost = 0;
        for issue in &shared.world.issues {
            for marker in ["<!-- gh-sweep:mark-stale -->", "<!-- gh-sweep:close -->"] {
                let posted = issue
                    .comments
                    .iter()
                    .filter(|c| c.body.contains(marker))
                    .count();
                duplicates += posted.saturating_sub(1);
            }
            let labelled = issue
                .events
                .iter()
                .filter(|e| e.name == "labeled" && e.label.as_deref() == Some("Stale"))
                .count();
            duplicates += labelled.saturating_sub(1);
            let closed = issue.events.iter().filter(|e| e.name == "closed").count();
            duplicates += closed.saturating_sub(1);
            let marked = issue
                .comments
                .iter()
                .any(|c| c.body.contains("<!-- gh-sweep:mark-stale -->"));
            let done = if issue.number <= 6 {
                issue.has_label("Stale") && marked
            } else {
                issue.state == "closed"
            };
            lost += usize::from(!done);
        }
        let writes = shared.log.iter().filter(|r| r.is_write()).count();
        drop(shared);
        table.push(format!(
            "{seed:>4}  {at:>15}  {writes:>6}  {duplicates:>10}  {lost:>10}"
        ));
        assert_eq!(duplicates, 0, "seed {seed}: a write was sent twice");
        assert_eq!(lost, 0, "seed {seed}: an item was left undone");
        test.expect_writes_in_any_order(&expected);
    }
    eprintln!("{}", table.join("\n"));
}

fn four_green_prs(world: &mut WorldState) {
    for number in 1..=4 {
        world.green_pr(number);
    }
}

#[test]
fn killed_mid_sweep_the_next_sweep_merges_each_pr_once() {
    let args = ["sweep", "--repo", REPO, "--yes"];
    let poll = |test: &Test| {
        test.run(&["poll", "--repo", REPO]).expect_code(0);
    };
    let order = writes_unkilled(four_green_prs, poll, &args);
    let mut expected: Vec<String> = (1..=4)
        .map(|number| format!("PUT /repos/{REPO}/pulls/{number}/merge"))
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    expected.sort();
    assert_eq!(sorted, expected, "the merges of a sweep nothing stops");
    let mut table = vec!["seed  killed at merge  merges sent  duplicates  PRs lost".to_string()];
    for seed in 0..kill_runs() {
        let test = Test::new(four_green_prs);
        poll(&test);
        let at = kill_point(seed, order.len());
        let gate = park(&test, &order[at], earlier_sends(&order, at));
        kill_when_parked(&test, &args, &gate, || {
            assert_eq!(
                test.writes(),
                order[..at],
                "seed {seed}: the merges before the kill"
            );
        });
        // The dead run's leases are released at once: the very next sweep settles its PRs.
        let finish = test.run(&["sweep", "--repo", REPO, "--yes", "--json"]);
        assert!(
            matches!(finish.code, 0),
            "seed {seed}: {}\n{}",
            finish.stdout,
            finish.stderr
        );
        let shared = test.world();
        let merges: Vec<String> = shared
            .log
            .iter()
            .filter(|r| r.method == "PUT")
            .map(|r| r.path.clone())
            .collect();
        let mut unique = merges.clone();
        unique.sort();
        unique.dedup();
        let lost = shared
            .world
            .issues
            .iter()
            .filter(|issue| !issue.merged)
            .count();
        drop(shared);
        table.push(format!(
            "{seed:>4}  {at:>15}  {:>11}  {:>10}  {lost:>8}",
            merges.len(),
            merges.len() - unique.len()
        ));
        assert_eq!(
            merges.len(),
            unique.len(),
            "seed {seed}: a PR was merged twice: {merges:?}"
        );
        assert_eq!(lost, 0, "seed {seed}: a PR was left unmerged");
        test.expect_writes_in_any_order(&expected);
    }
    eprintln!("{}", table.join("\n"));
}

fn overlapping_stale_sweeps(processes: usize) {
    let test = Test::new(|world| {
        for number in 1..=8 {
            world.open_issue(number, 74);
        }
        world.stale_issue(9, 8, VIEWER);
    });
    test.config("write_interval = 0.01\n");
    let children: Vec<_> = (0..processes)
        .map(|_| {
            test.std_command(&["stale-sweep", "--repo", REPO, "--yes", "--json"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    // Each item is completed by exactly one run; a run that found an item written by another
    // since it read it leaves it unfinished for that reason and exits 9 (issue 21 point 13),
    // else it exits 0.
    let mut completed = std::collections::BTreeMap::<String, usize>::new();
    for child in children {
        let output = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let recap: serde_json::Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|error| panic!("no JSON recap ({error}): {stdout}"));
        let unfinished = crate::support::items(&recap["unfinished"]);
        let expected = if unfinished.is_empty() { 0 } else { 9 };
        assert_eq!(
            output.status.code(),
            Some(expected),
            "{recap}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        if expected == 9 {
            assert_eq!(
                recap["unfinished_reason"], "written by another run since it was read",
                "{recap}"
            );
        }
        assert_eq!(recap["failed"], serde_json::json!([]), "{recap}");
        for item in crate::support::items(&recap["completed"]) {
            *completed.entry(item).or_default() += 1;
        }
    }
    assert_eq!(
        completed.keys().cloned().collect::<Vec<_>>(),
        crate::support::numbers(1..=9),
        "every item completed by some run"
    );
    let shared = test.world();
    for issue in &shared.world.issues {
        let comments = issue.comments.len();
        let labelled = issue
            .events
            .iter()
            .filter(|e| e.name == "labeled" && e.label.as_deref() == Some("Stale"))
            .count();
        let closed = issue.events.iter().filter(|e| e.name == "closed").count();
        if issue.number <= 8 {
            assert_eq!(
                (comments, labelled),
                (1, 1),
                "#{}: one comment and one label, with {processes} runs",
                issue.number
            );
        } else {
            assert_eq!(
                (comments, closed),
                (1, 1),
                "#{}: closed once, with {processes} runs",
                issue.number
            );
        }
    }
    drop(shared);
    let mut expected: Vec<String> = (1..=8).flat_map(marked).collect();
    expected.push(format!("POST {}/comments", issue(9)));
    expected.push(format!("PATCH {}", issue(9)));
    test.expect_writes_in_any_order(&expected);
}

#[test]
fn two_overlapping_stale_sweeps_write_each_thing_once() {
    overlapping_stale_sweeps(2);
}

#[test]
fn four_overlapping_stale_sweeps_write_each_thing_once() {
    overlapping_stale_sweeps(4);
}

fn five_green_prs(world: &mut WorldState) {
    for number in 1..=5 {
        world.green_pr(number);
    }
}

/// The PRs in gh-sweep's queue (none before the run made its store).
fn queued(test: &Test) -> Vec<String> {
    if !test.db_path().exists() {
        return Vec::new();
    }
    let connection = rusqlite::Connection::open(test.db_path()).unwrap();
    let keys = connection
        .prepare("SELECT repo || '#' || pr FROM queue ORDER BY pr")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    keys
}

/// `poll` asks GitHub nothing in its write phase (its writes are rows of gh-sweep's own queue,
/// checked again by `sweep`'s guard), so GitHub can park it only in its reads: each of its
/// requests is a kill point, and one more is past them all, where the store is held locked
/// by the test (SQLite's `BEGIN IMMEDIATE`) so the run waits at its first store write after
/// the reads, before any row is queued. A kill between two rows would need a point to park
/// at inside the write phase, which only gh-sweep itself could offer.
#[test]
fn killed_or_overlapping_polls_enqueue_each_merge_once() {
    let args = ["poll", "--repo", REPO];
    let order: Vec<String> = {
        let test = Test::new(five_green_prs);
        test.run(&args).expect_code(0);
        test.all_requests().iter().map(|r| r.line()).collect()
    };
    let lines =
        |test: &Test| -> Vec<String> { test.all_requests().iter().map(|r| r.line()).collect() };
    let mut table = vec!["seed  killed at request  rows  duplicates  PRs lost".to_string()];
    for seed in 0..kill_runs() {
        let test = Test::new(five_green_prs);
        let at = kill_point(seed, order.len() + 1);
        if at < order.len() {
            let gate = park(&test, &order[at], earlier_sends(&order, at));
            kill_when_parked(&test, &args, &gate, || {
                assert_eq!(
                    lines(&test),
                    order[..at],
                    "seed {seed}: the reads before the kill"
                );
                assert_eq!(
                    queued(&test),
                    Vec::<String>::new(),
                    "seed {seed}: nothing queued yet"
                );
            });
        } else {
            let last = order.len() - 1;
            let gate = park(&test, &order[last], earlier_sends(&order, last));
            let mut child = test
                .std_command(&args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            gate.wait_parked();
            let lock = rusqlite::Connection::open(test.db_path()).unwrap();
            lock.execute_batch("BEGIN IMMEDIATE").unwrap();
            gate.release();
            let deadline = std::time::Instant::now() + Duration::from_secs(20);
            while test.all_requests().len() < order.len() {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the last read never answered"
                );
                std::thread::sleep(Duration::from_millis(5));
            }
            assert_eq!(lines(&test), order, "seed {seed}: every read done");
            let _ = child.kill();
            let _ = child.wait();
            lock.execute_batch("ROLLBACK").unwrap();
            drop(lock);
            assert_eq!(
                queued(&test),
                Vec::<String>::new(),
                "seed {seed}: nothing queued"
            );
        }
        // An overlapping pair, then a last tick to finish what the killed one left.
        let children: Vec<_> = (0..2)
            .map(|_| {
                test.std_command(&["poll", "--repo", REPO])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let output = child.wait_with_output().unwrap();
            assert_eq!(
                output.status.code(),
                Some(0),
                "seed {seed}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        // One row per PR: the key is the table's primary key, so duplicates can only show as
        // two rows (two keys) for one PR.
        let connection = rusqlite::Connection::open(test.db_path()).unwrap();
        let keys: Vec<String> = connection
            .prepare("SELECT repo || '#' || pr FROM queue")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let mut unique = keys.clone();
        unique.sort();
        unique.dedup();
        let lost = 5 - unique.len();
        table.push(format!(
            "{seed:>4}  {at:>16}  {:>4}  {:>10}  {lost:>8}",
            keys.len(),
            keys.len() - unique.len()
        ));
        assert_eq!(
            keys.len(),
            5,
            "seed {seed}: one queue row per eligible PR: {keys:?}"
        );
        assert_eq!(lost, 0);
        test.expect_no_writes();
    }
    eprintln!("{}", table.join("\n"));
}

#[test]
fn a_trickling_answer_is_cut_off_by_the_timeout_body_included() {
    // 20 pieces, 600 ms apart: every piece arrives well inside a 1 s timeout, the whole body
    // takes 12 s. The timeout covers the whole request, so each attempt fails after about a
    // second and the run stops as an outage instead of waiting minutes for a slow proxy.
    let test = Test::rest(|world| {
        world.open_issue(1, 90);
    });
    test.config("timeout_seconds = 1\nread_retries = 1\n");
    test.fail(
        "GET",
        "/repos/octo/demo/issues",
        Fault::Trickle(Duration::from_millis(600)),
        10,
    );
    let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
    assert_eq!(outcome.code, 5, "{}\n{}", outcome.stdout, outcome.stderr);
    assert_eq!(outcome.json()["stopped"], "harness_outage");
    let listed = test
        .requests()
        .iter()
        .filter(|request| request.path == "/repos/octo/demo/issues")
        .count();
    assert_eq!(listed, 2, "the list and its one retry");
}

#[test]
fn a_write_still_in_flight_at_github_is_not_sent_again_before_it_can_have_landed() {
    // The client gives up on a slow comment after 1 s; GitHub carries it out after 3 s. The
    // run right after does not find it yet: that is no proof until `settle_after_seconds`
    // (default 120) have passed since it was sent, so the item stays blocked and the recap
    // says when it settles. Sent again, it would be on the issue twice.
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    test.config("timeout_seconds = 1\nsettle_after_seconds = 120\n");
    test.fail(
        "POST",
        "/issues/1/comments",
        Fault::Slow(Duration::from_millis(3000)),
        1,
    );
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(11);
    let next = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    next.expect_code(11);
    let recap = next.json();
    let reason = recap["failed"][0]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("GitHub may still be carrying it out; a run after"),
        "{recap:#}"
    );
    // GitHub finishes the slow one; nothing else was sent.
    std::thread::sleep(Duration::from_millis(2500));
    let mut shared = test.world();
    let comments = shared.world.issue(1).comments.len();
    assert_eq!(comments, 1, "the comment once");
    let writes: Vec<String> = shared
        .log
        .iter()
        .filter(|request| request.is_write())
        .map(|request| format!("{} {}", request.method, request.path))
        .collect();
    drop(shared);
    assert_eq!(
        writes,
        [
            "POST /repos/octo/demo/issues/1/labels",
            "POST /repos/octo/demo/issues/1/comments"
        ]
    );
    test.expect_writes(&writes);
}

#[test]
fn a_store_that_fails_in_mid_run_ends_with_a_recap_and_exit_5() {
    // While gh-sweep waits for GitHub's answer to its first write (#1's label), its database
    // loses the journal (as a full disk or a foreign lock would make every write to it fail).
    // The run stops as a harness failure: the recap on stdout, #1's write unknown, #2 and #3
    // not reached.
    let test = Test::new(|world| {
        for number in 1..=3 {
            world.open_issue(number, 74);
        }
    });
    test.run(&["classify", "stale", "--repo", REPO])
        .expect_code(0);
    let db = test.db_path();
    let mut shared = test.world();
    shared.on_first_write = Some(Box::new(move || {
        let connection = rusqlite::Connection::open(&db).unwrap();
        connection
            .execute_batch("ALTER TABLE journal RENAME TO journal_lost;")
            .unwrap();
    }));
    drop(shared);
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    outcome.expect_code(5);
    let recap = outcome.json();
    assert_eq!(recap["stopped"], "harness_outage", "{recap:#}");
    assert!(
        recap["stop_detail"]
            .as_str()
            .unwrap_or_default()
            .starts_with("the store failed in mid-run"),
        "{recap:#}"
    );
    assert_eq!(items(&recap["failed"]), ["octo/demo#1"], "{recap:#}");
    assert!(recap["failed"][0]["reason"]
        .as_str()
        .unwrap()
        .starts_with("outcome unknown"));
    assert_eq!(
        items(&recap["unfinished"]),
        ["octo/demo#2", "octo/demo#3"],
        "{recap:#}"
    );
    assert!(recap["rerun"]
        .as_str()
        .unwrap()
        .ends_with("--only 'octo/demo#2,#3'"));
    test.expect_writes(&[format!("POST {}/labels", crate::support::issue(1))]);
}
