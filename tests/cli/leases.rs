//! Queue leases of runs that died or are still at work (issue 10, point 5), and clearer stops
//! (point 14). A sweep is killed, or left running, at a point the test chooses: the fake GitHub
//! parks one of its reads until the test lets it go.

use std::process::{Child, Stdio};

use crate::support::server::Parking;
use crate::support::{items, merge, numbers, Fault, Test, REPO};

/// Three green, approved PRs that `poll` has queued.
fn queued() -> Test {
    let test = Test::new(|world| {
        for number in 1..=3 {
            world.green_pr(number);
        }
    });
    test.run(&["poll", "--repo", REPO]).expect_code(0);
    test
}

/// Starts a sweep and returns once it holds its claims and waits on GitHub for PR 1's read.
fn sweep_parked_on_its_first_read(test: &Test) -> (Child, Parking) {
    let parking = Parking::default();
    test.fail(
        "GET",
        &format!("/repos/{REPO}/pulls/1?"),
        Fault::Park(parking.clone()),
        1,
    );
    let child = test
        .std_command(&["sweep", "--repo", REPO, "--yes", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    parking.wait_parked();
    (child, parking)
}

#[test]
fn a_killed_sweeps_claims_are_released_at_once_and_merged_by_the_next_sweep() {
    let test = queued();
    test.read_with_rest();
    let (mut child, parking) = sweep_parked_on_its_first_read(&test);
    // SIGKILL while it holds all three claims: no destructor, nothing released.
    child.kill().unwrap();
    child.wait().unwrap();
    parking.release();
    test.expect_no_writes();

    // A dry run says what a sweep would do with them, and leases nothing.
    let dry = test.run(&["sweep", "--repo", REPO, "--dry-run", "--json"]);
    dry.expect_code(0);
    let recap = dry.json();
    assert_eq!(items(&recap["unfinished"]), numbers(1..=3), "{recap}");
    assert!(
        recap["notes"]
            .to_string()
            .contains("leased to run 2, whose process is gone"),
        "{recap}"
    );

    let next = test.run(&["sweep", "--repo", REPO, "--yes", "--json"]);
    next.expect_code(0);
    let recap = next.json();
    assert_eq!(items(&recap["completed"]), numbers(1..=3), "{recap}");
    assert!(items(&recap["unfinished"]).is_empty(), "{recap}");
    let notes = recap["notes"].to_string();
    assert!(
        notes.contains(
            "octo/demo#1, octo/demo#2, octo/demo#3: leased to run 2, whose process is gone"
        ) && notes.contains("released at once"),
        "the recap says whose leases were released: {notes}"
    );
    test.expect_writes(&[merge(1), merge(2), merge(3)]);
}

#[test]
fn a_pr_leased_to_a_live_sweep_is_unfinished_with_its_lease_end() {
    let test = queued();
    test.read_with_rest();
    let (child, parking) = sweep_parked_on_its_first_read(&test);

    let overlapping = test.run(&["sweep", "--repo", REPO, "--yes", "--json"]);
    parking.release();
    let first = child.wait_with_output().unwrap();
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );

    overlapping.expect_code(0);
    let recap = overlapping.json();
    assert!(items(&recap["completed"]).is_empty(), "{recap}");
    assert_eq!(items(&recap["unfinished"]), numbers(1..=3), "{recap}");
    let reason = recap["unfinished_reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("leased to run 2 until 20"),
        "the reason names the run and when its lease ends: {reason}"
    );
    // The lease ends 30 minutes after the claim.
    let until = reason
        .trim_start_matches("leased to run 2 until ")
        .split([' ', ';'])
        .next()
        .unwrap_or_default();
    let until = chrono::DateTime::parse_from_rfc3339(until)
        .unwrap_or_else(|error| panic!("{until}: {error}"));
    let left = until.with_timezone(&chrono::Utc) - chrono::Utc::now();
    assert!(
        left > chrono::Duration::minutes(25) && left <= chrono::Duration::minutes(30),
        "{reason}"
    );
    // The live run merged them, each once; the overlapping one touched none.
    test.expect_writes(&[merge(1), merge(2), merge(3)]);
}

// Point 14: clearer stops.

#[test]
fn a_snapshot_of_another_subcommand_or_repository_is_a_usage_error() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    let snapshot = test.dir.path().join("snap.json");
    let path = snapshot.to_str().unwrap();
    test.run(&["classify", "stale", "--repo", REPO, "--save-snapshot", path])
        .expect_code(0);
    test.clear_log();

    let other_command = test.run(&["poll", "--snapshot", path, "--json"]);
    other_command.expect_code(2);
    assert!(
        other_command.stderr.contains("`gh-sweep classify stale`")
            && other_command.stderr.contains("`gh-sweep poll`")
            && other_command.stderr.contains(path),
        "names the snapshot and both subcommands:\n{}",
        other_command.stderr
    );
    assert!(other_command.stdout.is_empty(), "{}", other_command.stdout);

    let other_repo = test.run(&[
        "classify",
        "stale",
        "--repo",
        "octo/other",
        "--snapshot",
        path,
    ]);
    other_repo.expect_code(2);
    assert!(
        other_repo.stderr.contains("octo/other") && other_repo.stderr.contains(REPO),
        "names both repositories:\n{}",
        other_repo.stderr
    );

    // What reads the same is replayed: a stale sweep reads what `classify stale` read.
    let same_reads = test.run(&["stale-sweep", "--snapshot", path, "--json"]);
    same_reads.expect_code(0);
    assert_eq!(
        items(&same_reads.json()["unfinished"]),
        numbers(1..=1),
        "{}",
        same_reads.stdout
    );
    assert!(
        test.requests().is_empty(),
        "a snapshot run sends no request"
    );
}

#[test]
fn a_database_missing_a_table_is_a_usage_error_naming_the_file() {
    let test = Test::new(|world| {
        world.green_pr(1);
    });
    test.run(&["poll", "--repo", REPO]).expect_code(0);
    let connection = rusqlite::Connection::open(test.db_path()).unwrap();
    connection.execute_batch("DROP TABLE queue").unwrap();
    drop(connection);
    test.clear_log();

    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    outcome.expect_code(2);
    let db = test.db_path();
    assert!(
        outcome
            .stderr
            .contains(&format!("cannot use the database {}", db.display()))
            && outcome.stderr.contains("queue")
            && outcome.stderr.contains("--db"),
        "{}",
        outcome.stderr
    );
    assert!(
        !outcome.stderr.contains("no such table"),
        "not a raw SQL error:\n{}",
        outcome.stderr
    );
    assert!(test.requests().is_empty(), "nothing is read");
}

#[test]
fn poll_and_sweep_go_on_past_a_stale_sweeps_unknown_write() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
        world.green_pr(2);
    });
    test.fail("POST", "/issues/1/comments", Fault::ApplyThenDrop, 1);
    test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"])
        .expect_code(11);
    test.expect_writes(&crate::support::marked(1));
    test.clear_log();

    let polled = test.run(&["poll", "--repo", REPO, "--json"]);
    polled.expect_code(0);
    let recap = polled.json();
    assert!(recap["failed"].as_array().unwrap().is_empty(), "{recap}");
    assert_eq!(items(&recap["completed"]), numbers(2..=2), "{recap}");
    let notes = recap["notes"].to_string();
    assert!(
        notes.contains("octo/demo#1") && notes.contains("gh-sweep stale-sweep"),
        "the note names the item and who settles it: {notes}"
    );

    let swept = test.run(&["sweep", "--repo", REPO, "--yes", "--json"]);
    swept.expect_code(0);
    let recap = swept.json();
    assert_eq!(items(&recap["completed"]), numbers(2..=2), "{recap}");
    assert!(
        recap["notes"].to_string().contains("gh-sweep stale-sweep"),
        "{recap}"
    );
    test.expect_writes(&[merge(2)]);

    // And the stale sweep settles it, by asking GitHub: the comment is there, nothing is sent.
    test.clear_log();
    let stale = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    stale.expect_code(0);
    let notes = stale.json()["notes"].to_string();
    assert!(
        notes.contains(
            "octo/demo#1: `comment <!-- gh-sweep:mark-stale -->` of run 1 had an unknown outcome"
        ),
        "{notes}"
    );
    test.expect_no_writes();
}
