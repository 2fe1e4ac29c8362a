//! The seed 004 contract, end to end: budget, refusal without a terminal, write failures,
//! harness outages, the recap and its rerun selector.

use serde_json::json;

use crate::support::{issue, items, marked, numbers, Fault, Test, REPO, TOKEN, VIEWER};

#[test]
fn malformed_budgets_stop_before_anything_is_read() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    for bad in ["-1", "10 %", "max(3)", "150%", "abc"] {
        let outcome = test.run(&[
            "stale-sweep",
            "--repo",
            REPO,
            "--dry-run",
            "--item-failure-budget",
            bad,
        ]);
        outcome.expect_code(2);
        assert!(
            outcome.stderr.contains(&format!("`{bad}`")),
            "{bad}: {}",
            outcome.stderr
        );
        assert!(
            outcome.stdout.is_empty(),
            "no recap lists anything: {}",
            outcome.stdout
        );
    }
    test.config("item_failure_budget = \"10 %\"\n");
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--dry-run"]);
    outcome.expect_code(2);
    assert!(
        outcome
            .stderr
            .contains("invalid item_failure_budget `10 %`"),
        "{}",
        outcome.stderr
    );
    assert_eq!(test.requests().len(), 0, "nothing is read");
}

#[test]
fn valid_budgets_are_accepted() {
    let test = Test::new(|world| {
        world.open_issue(1, 5);
    });
    for good in ["0", "3", "10%", "max(2, 5%)", "max(2,5%)"] {
        test.run(&[
            "classify",
            "stale",
            "--repo",
            REPO,
            "--item-failure-budget",
            good,
        ])
        .expect_code(0);
    }
}

/// Items 2 and 3 are malformed; 4 carries the stale label, so classifying it needs a read.
fn broken_pool() -> Test {
    Test::new(|world| {
        world.open_issue(1, 5);
        world.open_issue(2, 74).patch = Some(json!({"updated_at": "not a date"}));
        world.open_issue(3, 74).patch = Some(json!({"title": null}));
        world.stale_issue(4, 8, VIEWER);
        for number in 5..=10 {
            world.open_issue(number, 90);
        }
    })
}

#[test]
fn an_exhausted_budget_stops_before_the_next_item_and_writes_nothing() {
    let test = broken_pool();
    test.read_with_rest();
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--json",
        "--item-failure-budget",
        "1",
    ]);
    outcome.expect_code(10);
    let recap = outcome.json();
    assert_eq!(recap["stopped"], "budget_exhausted");
    assert_eq!(items(&recap["completed"]), numbers(1..=1));
    assert_eq!(items(&recap["failed"]), numbers(2..=3));
    assert_eq!(
        recap["failed"][0]["reason"],
        "the `updated_at` timestamp `not a date` does not parse"
    );
    assert_eq!(recap["failed"][1]["reason"], "the `title` field is missing");
    assert_eq!(items(&recap["unfinished"]), numbers(4..=10));
    assert_eq!(recap["unfinished_reason"], "budget exhausted");
    assert_eq!(
        recap["budget"],
        json!({"value": "1", "allowed": 1, "failures": 2})
    );
    assert_eq!(
        recap["rerun"],
        "gh-sweep stale-sweep --repo octo/demo --item-failure-budget 1 --json --only 'octo/demo#2-#10'"
    );
    let reads: Vec<String> = test.requests().iter().map(|r| r.line()).collect();
    assert_eq!(
        reads,
        vec![format!("GET /repos/{REPO}/issues")],
        "item 4 was never read"
    );
    test.expect_no_writes();
}

#[test]
fn a_zero_budget_stops_at_the_first_failure() {
    let test = broken_pool();
    test.read_with_rest();
    let outcome = test.run(&[
        "classify",
        "stale",
        "--repo",
        REPO,
        "--json",
        "--item-failure-budget",
        "0",
    ]);
    outcome.expect_code(10);
    let recap = outcome.json();
    assert_eq!(items(&recap["failed"]), numbers(2..=2));
    assert_eq!(items(&recap["unfinished"]), numbers(3..=10));
}

#[test]
fn failures_within_the_budget_finish_with_exit_8() {
    let test = broken_pool();
    test.read_with_rest();
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    outcome.expect_code(8);
    let recap = outcome.json();
    assert!(recap["stopped"].is_null());
    assert_eq!(items(&recap["failed"]), numbers(2..=3));
    assert_eq!(recap["budget"]["allowed"], 3);
    assert_eq!(
        recap["rerun"],
        "gh-sweep stale-sweep --repo octo/demo --json --only 'octo/demo#2,#3'"
    );
    let mut expected = vec![
        format!("POST {}/comments", issue(4)),
        format!("PATCH {}", issue(4)),
    ];
    for number in 5..=10 {
        expected.push(format!("POST {}/labels", issue(number)));
        expected.push(format!("POST {}/comments", issue(number)));
    }
    test.expect_writes(&expected.iter().map(String::as_str).collect::<Vec<_>>());
}

#[test]
fn the_rerun_selector_pasted_back_reruns_exactly_those_items() {
    let test = broken_pool();
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--dry-run",
        "--json",
        "--item-failure-budget",
        "1",
    ]);
    let rerun = outcome.json()["rerun"].as_str().unwrap().to_string();
    {
        let mut shared = test.world();
        shared.world.issue(2).patch = None;
        shared.world.issue(3).patch = None;
    }
    test.clear_log();
    let again = test.run_line(&rerun, &["--dry-run"]);
    again.expect_code(0);
    let recap = again.json();
    let mut seen = items(&recap["completed"]);
    seen.extend(items(&recap["unfinished"]));
    seen.sort();
    let mut expected = numbers(2..=10);
    expected.sort();
    assert_eq!(
        seen, expected,
        "exactly the failed and unfinished items, nothing else"
    );
    let read: Vec<String> = test.requests().iter().map(|r| r.path.clone()).collect();
    assert!(
        !read.contains(&issue(1)),
        "item 1 was completed and is not read again: {read:?}"
    );
}

#[test]
fn without_a_terminal_writes_need_yes_and_nothing_is_read() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    let outcome = test.run(&["stale-sweep", "--repo", REPO]);
    outcome.expect_code(2);
    assert!(
        outcome
            .stderr
            .contains("pass --yes to write, or --dry-run to preview"),
        "{}",
        outcome.stderr
    );
    assert!(test.requests().is_empty());
}

#[test]
fn a_failing_comment_stops_the_run_and_is_never_retried() {
    let test = Test::new(|world| {
        for number in 1..=3 {
            world.open_issue(number, 74);
        }
    });
    test.fail("POST", "/issues/2/comments", Fault::Status(502), 1);
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    outcome.expect_code(11);
    let recap = outcome.json();
    assert_eq!(recap["stopped"], "write_failed");
    assert_eq!(items(&recap["completed"]), numbers(1..=1));
    assert_eq!(items(&recap["failed"]), numbers(2..=2));
    assert_eq!(recap["failed"][0]["phase"], "write");
    assert!(
        recap["failed"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("outcome unknown"),
        "{recap}"
    );
    assert_eq!(items(&recap["unfinished"]), numbers(3..=3));
    assert_eq!(recap["unfinished_reason"], "a write stopped the run");
    assert_eq!(
        recap["rerun"],
        "gh-sweep stale-sweep --repo octo/demo --json --only 'octo/demo#3'"
    );
    test.expect_writes(&[marked(1), marked(2)].concat());

    // The next run first asks GitHub whether #2's comment happened (it did not: the 502 wrote
    // nothing) and says so; then it finishes #2's interrupted mark with the comment alone (the
    // label is there) and marks #3. Nothing is sent twice.
    test.clear_log();
    let next = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    next.expect_code(0);
    let recap = next.json();
    assert_eq!(
        recap["notes"][0],
        "octo/demo#2: `comment <!-- gh-sweep:mark-stale -->` of run 1 had an unknown outcome; found on GitHub that it did not happen; the item is swept again"
    );
    assert_eq!(recap["completed"][1]["disposition"], "mark-stale");
    assert_eq!(
        recap["completed"][1]["detail"],
        "finishing an interrupted mark: its comment was never posted"
    );
    test.expect_writes(&[vec![format!("POST {}/comments", issue(2))], marked(3)].concat());
    let mut shared = test.world();
    assert_eq!(shared.world.issue(2).comments.len(), 1);
    assert_eq!(
        shared
            .world
            .issue(2)
            .events
            .iter()
            .filter(|e| e.name == "labeled")
            .count(),
        1
    );
}

#[test]
fn a_write_nobody_can_check_blocks_its_item_until_acknowledged() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 74);
    });
    test.fail("POST", "/issues/2/comments", Fault::Status(502), 1);
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(11);
    // The issue is gone (transferred, deleted): GitHub cannot say whether the comment landed.
    test.fail("GET", "/issues/2", Fault::Status(404), 10);
    test.clear_log();
    let next = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    next.expect_code(11);
    let recap = next.json();
    assert_eq!(items(&recap["failed"]), numbers(2..=2));
    assert!(recap["failed"][0]["reason"].as_str().unwrap().starts_with(
        "outcome unknown: check by hand (comment <!-- gh-sweep:mark-stale --> in run 1)"
    ));
    test.expect_no_writes();

    test.run(&["recap", "--acknowledge", "octo/demo#2"])
        .expect_code(0);
    test.clear_log();
    let after = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    assert!(after.json()["failed"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| !f["reason"].as_str().unwrap().starts_with("outcome unknown")));
    test.expect_no_writes();
}

#[test]
fn a_refused_write_is_a_failure_not_a_silent_success() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    test.fail("POST", "/issues/1/labels", Fault::Status(403), 1);
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    outcome.expect_code(11);
    let recap = outcome.json();
    assert!(
        recap["failed"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("refused"),
        "{recap}"
    );
    test.expect_writes(&[&format!("POST {}/labels", issue(1))]);
    // A refusal wrote nothing, so it does not block the next run.
    test.clear_log();
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(0);
    test.expect_writes(&marked(1));
}

#[test]
fn reads_are_retried_on_5xx_then_stop_as_a_harness_outage() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
    });
    test.fail("GET", "/issues", Fault::Status(502), 10);
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    outcome.expect_code(5);
    let recap = outcome.json();
    assert_eq!(recap["stopped"], "harness_outage");
    assert!(
        recap["stop_detail"]
            .as_str()
            .unwrap()
            .contains("gave up after 3 tries"),
        "{recap}"
    );
    assert_eq!(
        recap["rerun"], "gh-sweep stale-sweep --repo octo/demo --json",
        "the pool was never read: rerun it all"
    );
    assert_eq!(test.requests().len(), 3, "read_retries = 2: three tries");
    test.expect_no_writes();
}

#[test]
fn a_read_that_recovers_within_the_retries_goes_on() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
    });
    test.fail("GET", "/issues", Fault::Status(503), 1);
    test.fail("GET", "/issues", Fault::Drop, 1);
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(0);
    // Three tries of the list, then the account the writes count against.
    let gets: Vec<String> = test
        .requests()
        .iter()
        .filter(|r| r.method == "GET")
        .map(|r| r.path.clone())
        .collect();
    assert_eq!(gets.len(), 4, "{gets:?}");
    assert_eq!(gets[3], "/user");
    test.expect_writes(&marked(1));
}

#[test]
fn an_outage_mid_pool_leaves_the_rest_unfinished_and_writes_nothing() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
        world.stale_issue(2, 3, "someone-else");
        world.open_issue(3, 74);
    });
    test.fail("GET", "/issues/2/events", Fault::Status(500), 10);
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    outcome.expect_code(5);
    let recap = outcome.json();
    let mut all = items(&recap["completed"]);
    all.extend(items(&recap["failed"]));
    all.extend(items(&recap["unfinished"]));
    all.sort();
    assert_eq!(
        all,
        numbers(1..=3),
        "the three groups together are exactly the pool"
    );
    assert_eq!(items(&recap["unfinished"]), numbers(1..=3));
    assert_eq!(recap["unfinished_reason"], "harness outage");
    test.expect_no_writes();
}

#[test]
fn a_rate_limit_longer_than_the_wait_limit_is_an_outage_that_says_so() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
    });
    test.fail(
        "GET",
        "/issues",
        Fault::RateLimit {
            status: 403,
            retry_after: 120,
        },
        5,
    );
    let outcome = test.run(&["classify", "stale", "--repo", REPO]);
    outcome.expect_code(5);
    assert!(
        outcome.stdout.contains("asks to wait 120s"),
        "{}",
        outcome.stdout
    );
    assert_eq!(
        test.requests().len(),
        1,
        "no sleeping past a limit it prints"
    );
}

#[test]
fn a_bad_token_stops_at_once_with_exit_4() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
    });
    test.fail("GET", "/issues", Fault::Status(401), 5);
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes"]);
    outcome.expect_code(4);
    assert!(
        outcome.stdout.contains("GitHub refused the token (401)"),
        "{}",
        outcome.stdout
    );
    assert_eq!(test.requests().len(), 1, "401 is not retried");
}

#[test]
fn no_token_exits_4_and_says_where_it_looked() {
    let test = Test::new(|_| {});
    let outcome = test.run_without_token(&["classify", "stale", "--repo", REPO]);
    outcome.expect_code(4);
    assert!(
        outcome.stderr.contains("looked in GH_TOKEN, GITHUB_TOKEN"),
        "{}",
        outcome.stderr
    );
    assert!(test.requests().is_empty());
}

#[test]
fn a_missing_repository_is_named() {
    let test = Test::new(|_| {});
    let outcome = test.run(&["classify", "stale", "--repo", "octo/nope"]);
    outcome.expect_code(4);
    assert!(
        outcome
            .stdout
            .contains("repository octo/nope was not found, or the token cannot see it"),
        "{}",
        outcome.stdout
    );
}

#[test]
fn two_runs_in_a_row_do_not_double_post() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
        world.stale_issue(2, 8, VIEWER);
    });
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(0);
    test.expect_writes(&[
        &format!("POST {}/labels", issue(1)),
        &format!("POST {}/comments", issue(1)),
        &format!("POST {}/comments", issue(2)),
        &format!("PATCH {}", issue(2)),
    ]);
    test.clear_log();
    let second = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    second.expect_code(0);
    assert_eq!(second.json()["completed"][0]["disposition"], "keep");
    test.expect_no_writes();
    // The label's time comes from the store, so the second run reads only the list.
    assert_eq!(test.requests().len(), 1, "{:?}", test.requests());
    let shared = test.world();
    let comments = &shared.world.issues[0].comments;
    assert_eq!(comments.len(), 1);
    assert!(comments[0].body.contains("<!-- gh-sweep:mark-stale -->"));
}

#[test]
fn a_dry_run_writes_nothing_and_its_rerun_does_it_for_real() {
    let test = Test::new(|world| {
        world.open_issue(1, 5);
        world.open_issue(2, 74);
    });
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--dry-run", "--json"]);
    outcome.expect_code(0);
    let recap = outcome.json();
    assert_eq!(recap["dry_run"], true);
    assert_eq!(items(&recap["unfinished"]), numbers(2..=2));
    assert_eq!(recap["unfinished_reason"], "dry run");
    assert_eq!(
        recap["planned"][0]["writes"],
        json!(["label +Stale", "comment"])
    );
    let rerun = recap["rerun"].as_str().unwrap();
    assert!(!rerun.contains("--dry-run"), "{rerun}");
    assert!(
        outcome
            .stderr
            .contains("Dry run: 2 writes on 1 item planned, none sent."),
        "{}",
        outcome.stderr
    );
    test.expect_no_writes();
    test.run_line(rerun, &["--yes"]).expect_code(0);
    test.expect_writes(&marked(2));
}

#[test]
fn max_writes_leaves_items_past_the_cap_unfinished() {
    let test = Test::new(|world| {
        for number in 1..=3 {
            world.open_issue(number, 74);
        }
    });
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--json",
        "--max-writes",
        "3",
    ]);
    let recap = outcome.json();
    assert_eq!(items(&recap["completed"]), numbers(1..=1));
    assert_eq!(items(&recap["unfinished"]), numbers(2..=3));
    assert_eq!(recap["unfinished_reason"], "write cap reached");
    assert_eq!(
        recap["rerun"],
        "gh-sweep stale-sweep --repo octo/demo --max-writes 3 --json --only 'octo/demo#2,#3'"
    );
    test.expect_writes(&marked(1));
}

#[test]
fn an_item_that_changed_since_it_was_read_is_not_written() {
    // Through either read API: the re-read is the reader's, the list of changes REST's.
    for read_api in ["rest", "graphql"] {
        let test = Test::new(|world| {
            world.open_issue(1, 74);
            world.open_issue(2, 74);
        });
        test.config(&format!(
            "recheck_after_seconds = 0\nread_api = \"{read_api}\"\n"
        ));
        // Someone comments on #2 between the read and the write (while GitHub works on #1's
        // first write): GitHub's list of changes shows it moved, the re-read sees the comment.
        let shared = std::sync::Arc::clone(&test.server.shared);
        test.world().on_first_write = Some(Box::new(move || {
            let mut shared = shared.lock().unwrap();
            let now = chrono::DateTime::from_timestamp(chrono::Utc::now().timestamp(), 0).unwrap();
            shared.world.comment_at(2, "alice", now, "still happening");
        }));
        let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
        outcome.expect_code(0);
        let recap = outcome.json();
        assert_eq!(
            recap["completed"][1]["disposition"], "changed since read: now keep",
            "{read_api}"
        );
        test.expect_writes(&marked(1));
    }
}

#[test]
fn the_token_never_reaches_output_database_or_snapshot() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
        world.stale_issue(2, 8, "someone-else");
        world.comment(2, "dependabot[bot]", 1, "bump");
        world.open_issue(3, 74).patch = Some(json!({"created_at": 12}));
    });
    test.fail("POST", "/issues/1/comments", Fault::Status(500), 1);
    let snapshot = test.dir.path().join("snap.json");
    let first = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--verbose",
        "--save-snapshot",
        snapshot.to_str().unwrap(),
    ]);
    first.expect_code(11);
    let recap = test.run(&["recap", "--json"]);
    let list = test.run(&["recap", "--list"]);
    test.expect_writes(&marked(1));
    // The server did get the token, so not finding it elsewhere means something.
    assert!(test
        .requests()
        .iter()
        .all(|r| r.authorization.as_deref() == Some(&format!("Bearer {TOKEN}"))));
    for text in [&first.stdout, &first.stderr, &recap.stdout, &list.stdout] {
        assert!(!text.contains(TOKEN));
        assert!(!text.contains("SENTINEL"));
    }
    for file in [test.db_path(), snapshot] {
        let bytes = std::fs::read(&file).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("SENTINEL"),
            "the token is in {}",
            file.display()
        );
    }
    assert!(
        first.stderr.contains("Using the token from GH_TOKEN"),
        "{}",
        first.stderr
    );
}

#[test]
fn recap_prints_a_stored_run_again() {
    let test = Test::new(|world| {
        world.open_issue(1, 5);
    });
    let run = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
    let again = test.run(&["recap", "--json"]);
    again.expect_code(0);
    assert_eq!(run.json(), again.json());
    let by_id = test.run(&["recap", "1"]);
    assert!(
        by_id.stdout.starts_with("Recap of run 1: classify stale"),
        "{}",
        by_id.stdout
    );
    let listed = test.run(&["recap", "--list", "--json"]).json();
    assert_eq!(listed[0]["id"], 1);
    assert_eq!(listed[0]["exit_code"], 0);
    let list = test.run(&["recap", "--list"]);
    assert!(
        list.stdout
            .contains("classify stale --repo octo/demo --json"),
        "{}",
        list.stdout
    );
    let missing = test.run(&["recap", "42"]);
    missing.expect_code(2);
    assert!(
        missing.stderr.contains("no finished run 42"),
        "{}",
        missing.stderr
    );
}

#[test]
fn the_table_recap_keeps_its_order_and_omits_the_budget_when_clean() {
    let test = Test::new(|world| {
        world.open_issue(1, 5);
        world.open_issue(2, 74);
    });
    let clean = test.run(&["stale-sweep", "--repo", REPO, "--dry-run"]);
    let text = &clean.stdout;
    let completed = text.find("Completed (1)").unwrap();
    let failed = text.find("Failed (0)").unwrap();
    let unfinished = text.find("Unfinished (1): dry run").unwrap();
    let rerun = text.find("Rerun what is left:").unwrap();
    assert!(
        completed < failed && failed < unfinished && unfinished < rerun,
        "{text}"
    );
    assert!(
        !text.to_lowercase().contains("budget"),
        "a clean run does not mention the budget: {text}"
    );
}

#[test]
fn a_write_applied_but_unanswered_is_never_sent_again() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 74);
    });
    test.fail("POST", "/issues/1/comments", Fault::ApplyThenDrop, 1);
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    outcome.expect_code(11);
    assert_eq!(items(&outcome.json()["unfinished"]), numbers(2..=2));
    test.expect_writes(&marked(1));
    test.clear_log();
    let next = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    next.expect_code(0);
    assert!(next.json()["notes"][0]
        .as_str()
        .unwrap()
        .ends_with("found on GitHub that it happened; recorded, not sent again"));
    test.expect_writes(&marked(2));
    let mut shared = test.world();
    assert_eq!(
        shared.world.issue(1).comments.len(),
        1,
        "the comment was posted exactly once"
    );
}

#[test]
fn a_read_slower_than_the_timeout_is_a_harness_failure() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
    });
    test.config("timeout_seconds = 1\nread_retries = 0\n");
    test.fail(
        "GET",
        "/issues",
        Fault::Slow(std::time::Duration::from_millis(2500)),
        1,
    );
    let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
    outcome.expect_code(5);
    assert!(
        outcome.json()["stop_detail"]
            .as_str()
            .unwrap()
            .contains("timed out"),
        "{}",
        outcome.stdout
    );
}

#[test]
fn a_link_header_that_loops_back_stops_instead_of_reading_forever() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
    });
    test.fail("GET", "/issues", Fault::LinkLoop, 3);
    let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
    outcome.expect_code(5);
    assert!(
        outcome.json()["stop_detail"]
            .as_str()
            .unwrap()
            .contains("pagination loops"),
        "{}",
        outcome.stdout
    );
    assert_eq!(test.requests().len(), 1);
}

#[test]
fn malformed_bodies_are_item_failures_or_a_clean_stop_never_a_panic() {
    let test = Test::rest(|world| {
        world.stale_issue(1, 8, "github-actions[bot]");
        world.stale_issue(2, 8, "github-actions[bot]");
        world.stale_issue(3, 8, "github-actions[bot]");
        world.open_issue(4, 74);
    });
    test.fail(
        "GET",
        "/issues/1/events",
        Fault::Body("[{\"event\": \"labeled\", \"crea".into()),
        1,
    );
    test.fail(
        "GET",
        "/issues/2/events",
        Fault::Body("{\"not\": \"a list\"}".into()),
        1,
    );
    test.fail(
        "GET",
        "/issues/3/events",
        Fault::Body("[{\"event\": 5}]".into()),
        1,
    );
    let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
    outcome.expect_code(8);
    let recap = outcome.json();
    assert_eq!(items(&recap["failed"]), numbers(1..=3));
    assert!(
        recap["failed"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("malformed body"),
        "{recap}"
    );
    assert!(
        recap["failed"][1]["reason"]
            .as_str()
            .unwrap()
            .contains("expected a list"),
        "{recap}"
    );
    assert!(
        recap["failed"][2]["reason"]
            .as_str()
            .unwrap()
            .contains("`event` field is not a string"),
        "{recap}"
    );
    assert_eq!(items(&recap["completed"]), numbers(4..=4));

    // A list page that is not JSON at all is the harness's problem, not an item's.
    test.fail(
        "GET",
        "/repos/octo/demo/issues?",
        Fault::Body("<html>502 Bad Gateway</html>".into()),
        1,
    );
    let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
    outcome.expect_code(5);
}

/// The request counts quoted in the closing note of issue 2.
#[test]
fn a_200_item_pool_costs_the_list_pages_plus_the_reads_it_needs() {
    let test = Test::rest(|world| {
        for number in 1..=150 {
            world.open_issue(number, 5 + (number % 50) as i64);
        }
        for number in 151..=180 {
            world.open_issue(number, 61 + number as i64 % 30);
        }
        for number in 181..=190 {
            world.stale_issue(number, 8, "github-actions[bot]");
        }
        for number in 191..=200 {
            world.stale_issue(number, 3, "github-actions[bot]");
        }
    });
    test.run(&["stale-sweep", "--repo", REPO, "--dry-run"])
        .expect_code(0);
    let dry = test.requests().len();
    // 2 list pages + the events of the 20 stale-labelled items; nothing else.
    assert_eq!(dry, 22);
    test.clear_log();
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(0);
    let requests = test.requests();
    let writes = requests.iter().filter(|r| r.is_write()).count();
    // 30 marked (label + comment), 10 closed (comment + close).
    assert_eq!(writes, 80);
    // The dry run's reads, and the account the writes count against (`GET /user`, once).
    assert_eq!(requests.len() - writes, 23);
    assert_eq!(requests.iter().filter(|r| r.path == "/user").count(), 1);
    let expected: Vec<String> = test.writes();
    test.expect_writes(&expected.iter().map(String::as_str).collect::<Vec<_>>());
    test.clear_log();
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(0);
    // The 30 labels gh-sweep put on are known from the store; the 10 older ones are read again.
    assert_eq!(test.requests().len(), 12);
    test.expect_no_writes();
    eprintln!(
        "200 items: dry run {dry} requests; sweep {} reads + {writes} writes; next sweep 12",
        dry
    );
}

#[test]
fn a_failure_on_the_last_item_can_exhaust_the_budget_too() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 74).patch = Some(json!({"created_at": "soon"}));
    });
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--json",
        "--item-failure-budget",
        "0",
    ]);
    outcome.expect_code(10);
    let recap = outcome.json();
    assert_eq!(recap["stopped"], "budget_exhausted");
    assert_eq!(
        items(&recap["unfinished"]),
        numbers(1..=1),
        "its writes were never sent"
    );
    test.expect_no_writes();
}

#[test]
fn a_403_without_rate_limit_signs_is_a_permission_error() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
    });
    test.fail("GET", "/issues", Fault::Status(403), 5);
    let outcome = test.run(&["classify", "stale", "--repo", REPO]);
    outcome.expect_code(4);
    assert!(
        outcome.stdout.contains("permission denied (403)"),
        "{}",
        outcome.stdout
    );
    assert_eq!(
        test.requests().len(),
        1,
        "a permission error is not retried"
    );
}

#[test]
fn gone_and_unprocessable_items_are_item_failures() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 74);
        world.open_issue(3, 5);
    });
    test.fail("GET", "/issues/1", Fault::Status(410), 1);
    test.fail("GET", "/issues/2", Fault::Status(422), 1);
    let outcome = test.run(&[
        "classify", "stale", "--repo", REPO, "--only", "#1-#3", "--json",
    ]);
    outcome.expect_code(8);
    let recap = outcome.json();
    assert_eq!(items(&recap["failed"]), numbers(1..=2));
    assert!(recap["failed"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("410"));
    assert!(recap["failed"][1]["reason"]
        .as_str()
        .unwrap()
        .contains("422"));
    assert_eq!(test.requests().len(), 3, "item failures are not retried");
}

#[test]
fn a_huge_body_is_not_read_into_memory() {
    let test = Test::rest(|world| {
        world.stale_issue(1, 8, "github-actions[bot]");
        world.open_issue(2, 5);
    });
    let huge = format!("[{}]", "0,".repeat(17 << 20) + "0");
    test.fail("GET", "/issues/1/events", Fault::Body(huge), 1);
    let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
    outcome.expect_code(8);
    let recap = outcome.json();
    assert!(
        recap["failed"][0]["reason"]
            .as_str()
            .unwrap()
            .ends_with("answered more than 32 MiB; not read"),
        "{recap}"
    );
    assert_eq!(items(&recap["completed"]), numbers(2..=2));
}

#[test]
fn the_recap_as_markdown_links_items_and_lands_in_the_job_summary() {
    let test = Test::rest(|world| {
        world.open_issue(1, 5);
        world.open_issue(2, 74).patch = Some(json!({"updated_at": "soon | maybe"}));
        world.open_issue(3, 74);
    });
    let summary = test.dir.path().join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let output = test
        .command(&["stale-sweep", "--repo", REPO, "--dry-run"])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(8));
    let markdown = test.run(&["recap", "--markdown"]);
    markdown.expect_code(0);
    let text = &markdown.stdout;
    assert!(text.starts_with("### gh-sweep stale-sweep: run 1\n\n**1 completed · 1 failed · 1 unfinished** (dry run)"), "{text}");
    assert!(
        text.contains(
            "| [octo/demo#1](https://github.com/octo/demo/issues/1) | keep | idle 5 days < 60 |"
        ),
        "{text}"
    );
    assert!(
        text.contains(r"the `updated_at` timestamp `soon \| maybe` does not parse"),
        "pipes escaped: {text}"
    );
    assert!(text.contains("#### Unfinished: dry run"), "{text}");
    assert!(
        text.trim_end()
            .ends_with("```sh\ngh-sweep stale-sweep --repo octo/demo --only 'octo/demo#2,#3'\n```"),
        "{text}"
    );
    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(
        written.starts_with("earlier step\n### gh-sweep stale-sweep: run 1"),
        "{written}"
    );
    assert!(
        written.contains(&text[..]),
        "the job summary holds the same Markdown"
    );
}

#[test]
fn writes_the_rate_limit_cannot_pay_for_wait_for_its_reset_unfinished() {
    // Issue 13, point 6 (this test pinned the old refusal to write anything): the run writes
    // what the limit pays for, oldest first, and leaves the rest for after the reset.
    let test = Test::rest(|world| {
        for number in 1..=3 {
            world.open_issue(number, 74);
        }
    });
    // The repository's canonical name, the list and the account spend three: two are left,
    // one item's writes.
    test.world().core_limit = Some(5);
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--json",
        "--read-api",
        "rest",
    ]);
    outcome.expect_code(9);
    let recap = outcome.json();
    assert_eq!(recap["stopped"], "write_limit");
    assert!(
        recap["stop_detail"]
            .as_str()
            .unwrap()
            .starts_with("GitHub's rate limit has 0 requests left until"),
        "{recap}"
    );
    assert_eq!(recap["failed"], json!([]));
    assert_eq!(items(&recap["unfinished"]), numbers(2..=3));
    test.expect_writes(&marked(1));
}

#[test]
fn a_spent_rate_limit_stops_reads_before_asking_again() {
    let test = Test::rest(|world| {
        world.stale_issue(1, 8, "github-actions[bot]");
        world.stale_issue(2, 8, "github-actions[bot]");
    });
    // One more than before: the run first reads the repository's canonical name.
    test.world().core_limit = Some(3);
    let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
    outcome.expect_code(5);
    let recap = outcome.json();
    assert!(
        recap["stop_detail"]
            .as_str()
            .unwrap()
            .contains("rate limit is spent until"),
        "{recap}"
    );
    assert_eq!(
        test.requests().len(),
        2,
        "the list and one item's events; then nothing"
    );
}

#[test]
fn an_acknowledged_mark_comment_is_done_and_never_posted_again() {
    // The mark's comment landed but its answer was lost, and GitHub could not be asked about
    // it on the next run; the maintainer checked by hand and acknowledged it. The comment is
    // there: the run after must not "finish the interrupted mark" by posting it again.
    let test = Test::rest(|world| {
        world.open_issue(2, 74);
    });
    test.fail("POST", "/issues/2/comments", Fault::ApplyThenDrop, 1);
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(11);
    test.fail("GET", "/repos/octo/demo/issues/2", Fault::Status(404), 1);
    let blocked = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    blocked.expect_code(11);
    assert!(blocked.json()["failed"][0]["reason"]
        .as_str()
        .unwrap()
        .starts_with("outcome unknown: check by hand"));
    test.run(&["recap", "--acknowledge", "octo/demo#2"])
        .expect_code(0);
    test.clear_log();
    let after = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    after.expect_code(0);
    test.expect_no_writes();
    let mut shared = test.world();
    let marks = shared
        .world
        .issue(2)
        .comments
        .iter()
        .filter(|comment| comment.body.contains("gh-sweep:mark-stale"))
        .count();
    assert_eq!(marks, 1, "one stale comment on the issue");
}

#[test]
fn a_mark_comment_already_on_the_item_is_not_posted_again() {
    // The store lost the comment's journal row (a fresh database on another runner) but the
    // comment with gh-sweep's marker is on the item after the label: the mark is finished.
    let test = Test::new(|world| {
        world.open_issue(2, 74);
    });
    test.fail("POST", "/issues/2/comments", Fault::ApplyThenDrop, 1);
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(11);
    // Journal rows of the comment gone, the label's kept: an interrupted mark, as far as the
    // store knows.
    let db = rusqlite::Connection::open(test.db_path()).unwrap();
    let deleted = db
        .execute(
            "DELETE FROM journal WHERE json_extract(action, '$.kind') = 'comment'",
            [],
        )
        .unwrap();
    assert_eq!(deleted, 1, "the comment's journal row");
    drop(db);
    test.clear_log();
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(0);
    test.expect_no_writes();
}
