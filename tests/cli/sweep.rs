//! `sweep` end to end (seeds 001 and 002): the executor and the lost-trigger recovery. Each of
//! seed 001's service tests is one here; time moves with `GH_SWEEP_TEST_NOW` (the tests'
//! clock: `--now` is for classify and dry runs). Each scenario runs through both read APIs
//! (issue 13).

use chrono::{Duration, Utc};
use serde_json::Value;

use crate::support::{attempts, db, later, merge, sweep, sweep_at};
use crate::support::{items, numbers, Fault, Test, REPO};

fn dispositions(recap: &Value) -> Vec<(String, String)> {
    recap["completed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["item"].as_str().unwrap().to_string(),
                c["disposition"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn poll_then_sweep_merges_exactly_the_eligible_prs_with_their_head_sha() {
    Test::each_api(
        |world| {
            world.green_pr(1);
            world.green_pr(2).files = vec![("src/main.rs".into(), None)];
            world.green_pr(3);
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            let recap = sweep(&test, &[]);
            assert_eq!(recap["exit_code"], 0, "{recap}");
            assert_eq!(
                dispositions(&recap),
                vec![
                    ("octo/demo#1".into(), "merge".into()),
                    ("octo/demo#3".into(), "merge".into())
                ]
            );
            test.expect_writes(&[merge(1), merge(3)]);
            let puts: Vec<String> = test
                .requests()
                .iter()
                .filter(|r| r.method == "PUT")
                .map(|r| r.body.clone())
                .collect();
            assert_eq!(
                puts,
                vec![
                    r#"{"merge_method":"merge","sha":"pr-1-head"}"#,
                    r#"{"merge_method":"merge","sha":"pr-3-head"}"#
                ]
            );
            {
                let mut shared = test.world();
                assert!(
                    shared.world.issue(1).merged
                        && shared.world.issue(3).merged
                        && !shared.world.issue(2).merged
                );
            }
            // Nothing is left: the next sweep and the next tick do nothing.
            test.clear_log();
            let again = sweep(&test, &[]);
            assert!(again["completed"].as_array().unwrap().is_empty(), "{again}");
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            test.expect_no_writes();
            let stored = test.run(&["recap", "--json"]).json();
            assert_eq!(stored["command"], "poll");
        },
    );
}

#[test]
fn a_lost_trigger_merges_on_the_next_sweep() {
    // poll saw the PR approved while its checks ran, so it enqueued nothing; the checks went
    // green afterwards and no tick looked again. The gate remembers the approval.
    Test::each_api(
        |world| {
            let pr = world.green_pr(7);
            pr.check_runs[0].status = "in_progress".into();
            pr.check_runs[0].conclusion = None;
        },
        |test, _| {
            let polled = test.run(&["poll", "--repo", REPO, "--json"]).json();
            assert_eq!(polled["completed"][0]["disposition"], "ineligible: green");
            {
                let mut shared = test.world();
                let pr = shared.world.issue(7);
                pr.check_runs[0].status = "completed".into();
                pr.check_runs[0].conclusion = Some("success".into());
            }
            let recap = sweep(&test, &[]);
            assert_eq!(
                dispositions(&recap),
                vec![("octo/demo#7".into(), "merge".into())]
            );
            test.expect_writes(&[merge(7)]);
        },
    );
}

#[test]
fn a_cleared_ci_flag_merges_once_github_is_green_after_one_backoff() {
    Test::each_api(
        |world| {
            world.green_pr(7);
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            // A re-run of the checks starts before the sweep: the guard defers and clears ci-passed.
            {
                let mut shared = test.world();
                let pr = shared.world.issue(7);
                pr.check_runs[0].status = "in_progress".into();
                pr.check_runs[0].conclusion = None;
            }
            let first = sweep(&test, &[]);
            assert_eq!(
                dispositions(&first),
                vec![("octo/demo#7".into(), "defer".into())]
            );
            assert_eq!(
                first["completed"][0]["detail"],
                "check `ci` is in_progress on pr-7-head".replace("in_progress", "in progress")
            );
            {
                let mut shared = test.world();
                let pr = shared.world.issue(7);
                pr.check_runs[0].status = "completed".into();
                pr.check_runs[0].conclusion = Some("success".into());
            }
            // Inside the backoff (5 minutes after the first attempt) nothing is tried.
            test.clear_log();
            let early = sweep_at(&test, &later(2));
            assert!(early["completed"].as_array().unwrap().is_empty(), "{early}");
            assert!(test.requests().is_empty(), "not even a read");
            let recap = sweep_at(&test, &later(6));
            assert_eq!(
                dispositions(&recap),
                vec![("octo/demo#7".into(), "merge".into())]
            );
            test.expect_writes(&[merge(7)]);
            assert_eq!(attempts(&test, 7), 2);
        },
    );
}

#[test]
fn a_stranded_merged_marker_blocks_until_it_expires_then_exactly_one_merge_happens() {
    Test::each_api(
        |world| {
            world.green_pr(7);
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            // A run that died after setting the marker but before merging.
            let marked = (Utc::now() - Duration::minutes(10)).to_rfc3339();
            db(&test)
                .execute(
                    "UPDATE merge_gate SET merged_at = ?1 WHERE pr = 7",
                    [&marked],
                )
                .unwrap();
            let blocked = sweep(&test, &[]);
            assert!(
                blocked["completed"].as_array().unwrap().is_empty(),
                "{blocked}"
            );
            let still = sweep_at(&test, &later(45));
            assert!(still["completed"].as_array().unwrap().is_empty(), "{still}");
            test.expect_no_writes();
            let recap = sweep_at(&test, &later(55));
            assert_eq!(
                dispositions(&recap),
                vec![("octo/demo#7".into(), "merge".into())]
            );
            sweep_at(&test, &later(180));
            test.expect_writes(&[merge(7)]);
        },
    );
}

#[test]
fn changes_requested_at_the_head_defers_and_clears_the_approval() {
    Test::each_api(
        |world| {
            world.green_pr(7);
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            {
                let mut shared = test.world();
                let now = shared.world.now;
                let pr = shared.world.issue(7);
                pr.reviews.push(crate::support::world::Review {
                    user: "bob".into(),
                    state: "CHANGES_REQUESTED".into(),
                    commit_id: "pr-7-head".into(),
                    at: now,
                    association: "COLLABORATOR".into(),
                });
            }
            let recap = sweep(&test, &[]);
            assert_eq!(
                dispositions(&recap),
                vec![("octo/demo#7".into(), "skip: changes requested".into())]
            );
            assert_eq!(recap["completed"][0]["detail"], "bob requested changes");
            let approved: Option<String> = db(&test)
                .query_row(
                    "SELECT approved_at FROM merge_gate WHERE pr = 7",
                    [],
                    |row| row.get(0),
                )
                .unwrap();
            assert_eq!(approved, None, "the approval is cleared");
            // That ends the sweep for this PR: later sweeps read nothing about it.
            test.clear_log();
            sweep_at(&test, &later(24 * 60));
            assert!(test.requests().is_empty());
            test.expect_no_writes();
        },
    );
}

#[test]
fn a_closed_pr_spends_its_budget() {
    Test::each_api(
        |world| {
            world.green_pr(7);
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            test.world().world.issue(7).state = "closed".into();
            let recap = sweep(&test, &[]);
            assert_eq!(
                dispositions(&recap),
                vec![("octo/demo#7".into(), "skip: not open".into())]
            );
            assert_eq!(attempts(&test, 7), 12);
            // Reopened with the same approval: the budget stays spent.
            test.world().world.issue(7).state = "open".into();
            test.clear_log();
            sweep_at(&test, &later(24 * 60));
            assert!(test.requests().is_empty());
            test.expect_no_writes();
        },
    );
}

#[test]
fn a_recorded_merge_and_a_condition_inside_the_settle_are_left_alone() {
    Test::each_api(
        |world| {
            world.green_pr(1);
            let now = world.now;
            let pr = world.green_pr(2);
            pr.reviews.clear();
            pr.approve_at_head("reviewer", now);
        },
        |test, _| {
            // #2 was approved a moment ago: its own trigger is still at work.
            test.run(&["classify", "merge", "--repo", REPO])
                .expect_code(0);
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            let connection = db(&test);
            connection.execute("DELETE FROM queue", []).unwrap();
            connection
                .execute(
                    "UPDATE merge_gate SET merged_at = ?1 WHERE pr = 1",
                    [Utc::now().to_rfc3339()],
                )
                .unwrap();
            test.clear_log();
            let recap = sweep(&test, &[]);
            assert!(recap["completed"].as_array().unwrap().is_empty(), "{recap}");
            assert!(test.requests().is_empty());
            // Past the settle, #2's lost trigger is recovered; #1's merge is still recorded.
            let recap = sweep_at(&test, &later(3));
            assert_eq!(
                dispositions(&recap),
                vec![("octo/demo#2".into(), "merge".into())]
            );
            test.expect_writes(&[merge(2)]);
        },
    );
}

#[test]
fn an_unknown_merge_outcome_is_reconciled_not_resent() {
    Test::each_api(
        |world| {
            world.green_pr(7);
            world.green_pr(8);
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            test.fail("PUT", "/pulls/7/merge", Fault::ApplyThenDrop, 1);
            let stopped = test.run(&["sweep", "--repo", REPO, "--yes", "--json"]);
            stopped.expect_code(11);
            let recap = stopped.json();
            assert_eq!(recap["stopped"], "write_failed");
            assert_eq!(items(&recap["unfinished"]), numbers(8..=8));
            test.expect_writes(&[merge(7)]);
            test.clear_log();
            let next = test.run(&["sweep", "--repo", REPO, "--yes", "--json"]);
            next.expect_code(0);
            assert!(
                next.stderr
                    .contains("GitHub shows it merged; recorded, not sent again"),
                "{}",
                next.stderr
            );
            assert_eq!(
                dispositions(&next.json()),
                vec![("octo/demo#8".into(), "merge".into())]
            );
            test.expect_writes(&[merge(8)]);
        },
    );
}

#[test]
fn a_merge_that_failed_without_applying_is_checked_then_tried_again() {
    Test::each_api(
        |world| {
            world.green_pr(7);
        },
        |test, api| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            test.fail("PUT", "/pulls/7/merge", Fault::Status(502), 1);
            test.run(&["sweep", "--repo", REPO, "--yes"])
                .expect_code(11);
            test.clear_log();
            let next = test.run_at(&later(6), &["sweep", "--repo", REPO, "--yes", "--json"]);
            next.expect_code(0);
            assert!(
                next.stderr.contains("GitHub shows it not merged"),
                "{}",
                next.stderr
            );
            // The PR was read first; only then was the merge sent again.
            let requests = test.requests();
            if api == "rest" {
                let lines: Vec<String> = requests.iter().map(|r| r.line()).collect();
                assert_eq!(lines[0], format!("GET /repos/{REPO}/pulls/7"));
            } else {
                assert!(requests[0].is_graphql(), "{:?}", requests[0]);
            }
            test.expect_writes(&[merge(7)]);
        },
    );
}

#[test]
fn a_refused_merge_is_that_prs_failed_attempt_and_the_run_goes_on() {
    Test::each_api(
        |world| {
            world.green_pr(1);
            world.green_pr(2);
            world.green_pr(3);
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            test.fail("PUT", "/pulls/1/merge", Fault::Status(405), 1);
            test.fail("PUT", "/pulls/2/merge", Fault::Status(409), 1);
            let outcome = test.run(&["sweep", "--repo", REPO, "--yes", "--json"]);
            outcome.expect_code(8);
            let recap = outcome.json();
            assert!(recap["stopped"].is_null());
            assert_eq!(items(&recap["failed"]), numbers(1..=2));
            assert_eq!(
                dispositions(&recap),
                vec![("octo/demo#3".into(), "merge".into())]
            );
            assert_eq!(attempts(&test, 1), 1);
            test.expect_writes(&[merge(1), merge(2), merge(3)]);
            // The failure backs poll off this head.
            let polled = test.run(&["poll", "--repo", REPO, "--json"]).json();
            assert_eq!(polled["completed"][0]["disposition"], "skip: backed off");
        },
    );
}

#[test]
fn each_guard_mismatch_has_its_own_route() {
    Test::each_api(
        |world| {
            world.green_pr(1);
            world.green_pr(2);
            world.green_pr(3);
            world.green_pr(4);
            world.green_pr(5);
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            {
                let mut shared = test.world();
                let now = shared.world.now;
                shared.world.issue(1).mergeable = None;
                shared.world.issue(2).mergeable_state = "behind".into();
                shared.world.issue(3).push(now);
                shared.world.issue(4).merged = true;
                shared.world.issue(4).state = "closed".into();
                shared.world.issue(5).title = "Release notes (HELD)".into();
            }
            let recap = sweep(&test, &[]);
            let got = dispositions(&recap);
            assert_eq!(
                got,
                vec![
                    ("octo/demo#1".into(), "defer (no attempt spent)".into()),
                    ("octo/demo#2".into(), "defer".into()),
                    ("octo/demo#3".into(), "skip: head moved".into()),
                    ("octo/demo#4".into(), "skip: already merged".into()),
                    ("octo/demo#5".into(), "skip: held".into()),
                ]
            );
            assert_eq!(
                recap["completed"][1]["detail"],
                "behind its base branch, which requires branches to be up to date"
            );
            assert_eq!(
                recap["completed"][2]["detail"],
                "head moved: approved pr-3-head, now pr-3-head+; the old trigger ends"
            );
            assert_eq!(
                attempts(&test, 1),
                0,
                "GitHub still computing costs no attempt"
            );
            assert_eq!(attempts(&test, 2), 1);
            test.expect_no_writes();
        },
    );
}

#[test]
fn two_overlapping_sweeps_merge_each_pr_once() {
    Test::each_api(
        |world| {
            for number in 1..=6 {
                world.green_pr(number);
            }
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            let spawn = || {
                test.std_command(&["sweep", "--repo", REPO, "--yes", "--json"])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            };
            let first = spawn();
            let second = spawn();
            for child in [first, second] {
                let output = child.wait_with_output().unwrap();
                assert!(
                    matches!(output.status.code(), Some(0)),
                    "{}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }
            let expected: Vec<String> = (1..=6).map(merge).collect();
            test.expect_writes_in_any_order(&expected);
        },
    );
}

#[test]
fn a_dry_run_sweep_leases_nothing_and_merges_nothing() {
    Test::each_api(
        |world| {
            world.green_pr(7);
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            let recap = test
                .run(&["sweep", "--repo", REPO, "--dry-run", "--json"])
                .json();
            assert_eq!(items(&recap["unfinished"]), numbers(7..=7));
            assert_eq!(recap["planned"][0]["writes"][0], "merge pr-7-head (merge)");
            let status: String = db(&test)
                .query_row("SELECT status FROM queue", [], |row| row.get(0))
                .unwrap();
            assert_eq!(status, "pending");
            test.expect_no_writes();
            let recap = sweep(&test, &[]);
            assert_eq!(
                dispositions(&recap),
                vec![("octo/demo#7".into(), "merge".into())]
            );
            test.expect_writes(&[merge(7)]);
        },
    );
}

#[test]
fn recovery_can_be_turned_off() {
    Test::each_api(
        |world| {
            let pr = world.green_pr(7);
            pr.check_runs[0].status = "in_progress".into();
            pr.check_runs[0].conclusion = None;
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            {
                let mut shared = test.world();
                let pr = shared.world.issue(7);
                pr.check_runs[0].status = "completed".into();
                pr.check_runs[0].conclusion = Some("success".into());
            }
            test.config("[sweep]\nenabled = false\n");
            let recap = sweep(&test, &[]);
            assert!(recap["completed"].as_array().unwrap().is_empty(), "{recap}");
            // The environment beats the file, both ways.
            let output = test
                .command(&["sweep", "--repo", REPO, "--yes", "--json", "--dry-run"])
                .env("GH_SWEEP_SWEEP_ENABLED", "true")
                .output()
                .unwrap();
            let recap: Value = serde_json::from_slice(&output.stdout).unwrap();
            assert_eq!(items(&recap["unfinished"]), numbers(7..=7), "{recap}");
            test.config("");
            let output = test
                .command(&["sweep", "--repo", REPO, "--yes", "--json"])
                .env("GH_SWEEP_SWEEP_ENABLED", "false")
                .output()
                .unwrap();
            let recap: Value = serde_json::from_slice(&output.stdout).unwrap();
            assert!(recap["completed"].as_array().unwrap().is_empty(), "{recap}");
            let bad = test
                .command(&["sweep", "--repo", REPO, "--yes"])
                .env("GH_SWEEP_SWEEP_ENABLED", "maybe")
                .output()
                .unwrap();
            assert_eq!(bad.status.code(), Some(2));
            assert!(String::from_utf8_lossy(&bad.stderr)
                .contains("invalid GH_SWEEP_SWEEP_ENABLED `maybe`"));
            test.expect_no_writes();
        },
    );
}

#[test]
fn without_a_terminal_sweep_needs_yes() {
    Test::each_api(
        |world| {
            world.green_pr(7);
        },
        |test, _| {
            let outcome = test.run(&["sweep", "--repo", REPO]);
            outcome.expect_code(2);
            assert!(test.requests().is_empty());
        },
    );
}
