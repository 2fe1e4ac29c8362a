//! Queue leases of runs that died or are still at work (issue 10, point 5), and clearer stops
//! (point 14). A sweep is killed, or left running, at a point the test chooses: the fake GitHub
//! parks one of its reads until the test lets it go.

use std::process::{Child, Stdio};

use crate::support::server::Parking;
use crate::support::{items, numbers, Fault, Test, REPO};

fn merge(number: u64) -> String {
    format!("PUT /repos/{REPO}/pulls/{number}/merge")
}

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
