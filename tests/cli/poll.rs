//! `poll` and `classify merge` end to end (seeds 000 and 002): every guard in its order, the
//! counters, the dedupe, drafts dropped twice, failing closed, and the backoff.

use chrono::{Duration, Utc};
use serde_json::json;

use crate::support::{items, numbers, Fault, Test, REPO};

/// The GET paths a run read, without queries.
fn reads(test: &Test) -> Vec<String> {
    test.requests()
        .iter()
        .filter(|r| r.method == "GET")
        .map(|r| r.path.clone())
        .collect()
}

/// Whether the classifier asked GitHub anything about PR `number` beyond the PR itself.
fn classified(test: &Test, number: u64) -> bool {
    let head = format!("pr-{number}-head");
    reads(test).iter().any(|path| {
        path.starts_with(&format!("/repos/{REPO}/pulls/{number}/"))
            || path.contains(&format!("/commits/{head}"))
    })
}

fn queue_rows(test: &Test) -> Vec<(String, String)> {
    let connection = rusqlite::Connection::open(test.db_path()).unwrap();
    let mut statement = connection
        .prepare("SELECT key, status FROM queue ORDER BY key")
        .unwrap();
    let rows = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

/// Records a failed merge of `head`, `minutes` ago, as the executor would.
fn failed_merge(test: &Test, number: u64, head: &str, minutes: i64) {
    // A run creates the store; then the failure is written beside it.
    if !test.db_path().exists() {
        test.run(&["recap", "--list"]);
        test.run(&["classify", "merge", "--repo", REPO, "--only", "#999999"]);
    }
    let connection = rusqlite::Connection::open(test.db_path()).unwrap();
    let at = (Utc::now() - Duration::minutes(minutes))
        .to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    connection
        .execute(
            "INSERT INTO queue (key, kind, repo, pr, head_sha, status, attempts, enqueued_at, updated_at, failed_at, last_error)
             VALUES (?1, 'merge', ?2, ?3, ?4, 'failed', 1, ?5, ?5, ?5, '405 Pull Request is not mergeable')",
            rusqlite::params![format!("merge:{REPO}#{number}@{head}"), REPO, number as i64, head, at],
        )
        .unwrap();
}

#[test]
fn an_eligible_pr_is_enqueued_once_per_head() {
    let test = Test::rest(|world| {
        world.green_pr(7);
    });
    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    outcome.expect_code(0);
    let recap = outcome.json();
    assert_eq!(recap["completed"][0]["disposition"], "enqueue-merge");
    assert_eq!(
        recap["completed"][0]["detail"],
        "docs-only, green, approved-at-head at pr-7-head"
    );
    assert_eq!(recap["counters"]["enqueued"], 1);
    assert_eq!(
        reads(&test),
        vec![
            "/search/issues".to_string(),
            format!("/repos/{REPO}/pulls/7"),
            format!("/repos/{REPO}/pulls/7/files"),
            format!("/repos/{REPO}/commits/pr-7-head/check-runs"),
            format!("/repos/{REPO}/commits/pr-7-head/check-suites"),
            format!("/repos/{REPO}/commits/pr-7-head/status"),
            // Once per branch and run: the checks its rules require (rulesets, and classic
            // protection's summary).
            format!("/repos/{REPO}/rules/branches/main"),
            format!("/repos/{REPO}/branches/main"),
            format!("/repos/{REPO}/pulls/7/reviews"),
            // Once per reviewer and run: only reviewers with write access count.
            format!("/repos/{REPO}/collaborators/reviewer/permission"),
        ]
    );
    assert_eq!(
        queue_rows(&test),
        vec![(format!("merge:{REPO}#7@pr-7-head"), "pending".to_string())]
    );
    test.expect_no_writes();

    // The next tick sees the merge in flight and asks GitHub nothing about the PR.
    test.clear_log();
    let again = test.run(&["poll", "--repo", REPO, "--json"]);
    let recap = again.json();
    assert_eq!(recap["completed"][0]["disposition"], "skip: in flight");
    assert_eq!(
        recap["completed"][0]["detail"],
        format!("merge:{REPO}#7@pr-7-head is pending")
    );
    assert_eq!(recap["counters"]["in_flight"], 1);
    assert_eq!(reads(&test), vec!["/search/issues".to_string()]);
    assert_eq!(queue_rows(&test).len(), 1, "a re-tick enqueues nothing");
}

#[test]
fn held_prs_are_skipped_before_any_database_or_github_call() {
    let test = Test::rest(|world| {
        world.green_pr(1).title = "Runbook for the outage (HELD)".into();
        world.green_pr(2).labels.push("do-not-merge".into());
        world.green_pr(3);
    });
    test.config("[poll]\nheld_labels = ['do-not-merge']\n");
    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    let recap = outcome.json();
    assert_eq!(recap["completed"][0]["disposition"], "skip: held");
    assert_eq!(recap["completed"][0]["detail"], "title has (HELD)");
    assert_eq!(recap["completed"][1]["detail"], "label \"do-not-merge\"");
    assert_eq!(recap["counters"]["held"], 2);
    assert!(
        !classified(&test, 1) && !classified(&test, 2),
        "{:?}",
        reads(&test)
    );
    assert!(!reads(&test).contains(&format!("/repos/{REPO}/pulls/1")));
    assert!(classified(&test, 3));
}

#[test]
fn drafts_are_dropped_by_the_query_and_again_in_code() {
    let test = Test::rest(|world| {
        world.green_pr(1).draft = true;
        world.green_pr(2);
    });
    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    let recap = outcome.json();
    assert_eq!(
        items(&recap["completed"]),
        numbers(2..=2),
        "the query asked for draft:false"
    );
    let search = &test.requests()[0];
    assert!(
        search.query.contains("draft%3Afalse") || search.query.contains("draft:false"),
        "{}",
        search.query
    );

    // A search that returns a draft anyway (the qualifier misbehaving): dropped in code.
    let draft = {
        let shared = test.world();
        let pr = shared.world.issues.iter().find(|i| i.number == 1).unwrap();
        json!({"total_count": 1, "incomplete_results": false, "items": [pr.search_json()]})
            .to_string()
    };
    test.fail("GET", "/search/issues", Fault::Body(draft), 1);
    test.clear_log();
    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    let recap = outcome.json();
    assert_eq!(recap["counters"]["drafts_dropped"], 1);
    assert_eq!(recap["counters"]["candidates"], 1);
    assert!(recap["completed"].as_array().unwrap().is_empty());
    assert_eq!(reads(&test).len(), 1, "nothing read about a dropped draft");
}

#[test]
fn a_missing_draft_field_is_confirmed_with_the_single_pr_read() {
    let test = Test::rest(|world| {
        let pr = world.green_pr(1);
        pr.draft = true;
        pr.patch = Some(json!({"draft": null}));
        world.green_pr(2).patch = Some(json!({"draft": null}));
    });
    let search = {
        let shared = test.world();
        let items: Vec<_> = shared
            .world
            .issues
            .iter()
            .map(|i| {
                let mut value = i.search_json();
                value.as_object_mut().unwrap().remove("draft");
                value
            })
            .collect();
        json!({"total_count": 2, "incomplete_results": false, "items": items}).to_string()
    };
    {
        let mut shared = test.world();
        shared.world.issue(1).patch = None;
        shared.world.issue(2).patch = None;
    }
    test.fail("GET", "/search/issues", Fault::Body(search), 1);
    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    let recap = outcome.json();
    assert_eq!(recap["completed"][0]["disposition"], "skip: draft");
    assert_eq!(
        recap["completed"][0]["detail"],
        "the PR is a draft (confirmed by reading it)"
    );
    assert_eq!(recap["completed"][1]["disposition"], "enqueue-merge");
    assert_eq!(recap["counters"]["drafts_dropped"], 1);
    assert!(!classified(&test, 1));
}

#[test]
fn a_failed_merge_backs_off_for_the_window_and_the_classifier_is_not_called() {
    let test = Test::new(|world| {
        world.green_pr(7);
    });
    failed_merge(&test, 7, "pr-7-head", 10);
    test.clear_log();
    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    let recap = outcome.json();
    assert_eq!(recap["completed"][0]["disposition"], "skip: backed off");
    assert_eq!(
        recap["completed"][0]["detail"],
        "merge of pr-7-head failed 10 min ago; retry in 350 min"
    );
    assert_eq!(recap["counters"]["backed_off"], 1);
    assert!(!classified(&test, 7), "{:?}", reads(&test));
    assert_eq!(
        queue_rows(&test),
        vec![(format!("merge:{REPO}#7@pr-7-head"), "failed".to_string())]
    );
}

#[test]
fn a_failure_five_minutes_past_the_window_does_not_block_a_retry() {
    let test = Test::new(|world| {
        world.green_pr(7);
    });
    failed_merge(&test, 7, "pr-7-head", 6 * 60 + 5);
    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    assert_eq!(
        outcome.json()["completed"][0]["disposition"],
        "enqueue-merge"
    );
    assert_eq!(
        queue_rows(&test),
        vec![(format!("merge:{REPO}#7@pr-7-head"), "pending".to_string())]
    );
}

#[test]
fn a_new_head_after_a_failure_is_a_new_trigger() {
    // Seed 000's worst case: a docs-only PR that failed once for a fixable reason (a conflict,
    // since resolved) waits the whole window. A new head is new work here.
    let test = Test::new(|world| {
        let now = world.now;
        let pr = world.green_pr(7);
        pr.push(now);
        pr.approve_at_head("reviewer", now);
    });
    failed_merge(&test, 7, "pr-7-head", 10);
    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    let recap = outcome.json();
    assert_eq!(
        recap["completed"][0]["disposition"], "enqueue-merge",
        "{recap}"
    );
    let rows = queue_rows(&test);
    assert!(
        rows.contains(&(format!("merge:{REPO}#7@pr-7-head+"), "pending".to_string())),
        "{rows:?}"
    );
}

#[test]
fn the_first_unmet_condition_is_said_in_words() {
    let test = Test::new(|world| {
        let now = world.now;
        world.green_pr(1).files = vec![("docs/a.md".into(), None), ("src/main.rs".into(), None)];
        world.green_pr(2).files = vec![("docs/new.md".into(), Some("src/old.rs".into()))];
        let pr = world.green_pr(3);
        pr.check_runs[0].name = "lint".into();
        pr.check_runs[0].conclusion = Some("failure".into());
        let pr = world.green_pr(4);
        pr.reviews.clear();
        pr.reviews.push(crate::support::world::Review {
            user: "ann".into(),
            state: "APPROVED".into(),
            commit_id: "older".into(),
            at: now,
            association: "COLLABORATOR".into(),
        });
        let pr = world.green_pr(5);
        pr.reviews.push(crate::support::world::Review {
            user: "bob".into(),
            state: "CHANGES_REQUESTED".into(),
            commit_id: "pr-5-head".into(),
            at: now,
            association: "COLLABORATOR".into(),
        });
        world.green_pr(6).check_runs.clear();
        let pr = world.green_pr(7);
        pr.check_runs[0].status = "in_progress".into();
        pr.check_runs[0].conclusion = None;
        world
            .green_pr(8)
            .statuses
            .push(("ci/legacy".into(), "failure".into()));
    });
    let outcome = test.run(&["classify", "merge", "--repo", REPO, "--json"]);
    outcome.expect_code(0);
    let recap = outcome.json();
    let got: Vec<(String, String)> = recap["completed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["disposition"].as_str().unwrap().to_string(),
                c["detail"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected = [
        (
            "ineligible: docs-only",
            "docs-only: src/main.rs is not docs",
        ),
        ("ineligible: docs-only", "docs-only: src/old.rs is not docs"),
        ("ineligible: green", "check `lint` failed on pr-3-head"),
        (
            "ineligible: approved-at-head",
            "approval is on an older commit, not pr-4-head",
        ),
        ("ineligible: approved-at-head", "bob requested changes"),
        ("ineligible: green", "no check has passed on pr-6-head"),
        (
            "ineligible: green",
            "check `ci` is in progress on pr-7-head",
        ),
        (
            "ineligible: green",
            "status `ci/legacy` is failure on pr-8-head",
        ),
    ];
    assert_eq!(
        got,
        expected
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .to_vec()
    );
    assert_eq!(
        recap["counters"]["ineligible"],
        json!({"approved-at-head": 2, "docs-only": 2, "green": 4})
    );
    // The first unmet rule ends the reads: no checks or reviews for a PR that is not docs.
    assert!(!reads(&test).contains(&format!("/repos/{REPO}/commits/pr-1-head/check-runs")));
    assert!(!reads(&test).contains(&format!("/repos/{REPO}/pulls/1/reviews")));
    assert!(
        queue_rows(&test).is_empty(),
        "classify merge never touches the queue"
    );
}

#[test]
fn the_newest_run_of_each_check_counts_and_skipped_runs_follow_the_config() {
    let test = Test::new(|world| {
        let now = world.now;
        let pr = world.green_pr(1);
        pr.check_runs.push(crate::support::world::CheckRun {
            id: 1,
            name: "ci".into(),
            status: "completed".into(),
            conclusion: Some("failure".into()),
            started_at: now - Duration::hours(2),
            suite: 100,
        });
        let pr = world.green_pr(2);
        pr.check_runs[0].conclusion = Some("skipped".into());
    });
    let outcome = test.run(&["classify", "merge", "--repo", REPO, "--json"]);
    let recap = outcome.json();
    assert_eq!(
        recap["completed"][0]["disposition"], "enqueue-merge",
        "a passing re-run replaces the failure"
    );
    assert_eq!(
        recap["completed"][1]["detail"],
        "no check has passed on pr-2-head"
    );
    test.config("[poll]\nskipped_counts_as = 'success'\n");
    let outcome = test.run(&["classify", "merge", "--repo", REPO, "--json"]);
    assert_eq!(
        outcome.json()["completed"][1]["disposition"],
        "enqueue-merge"
    );
}

#[test]
fn the_counters_tell_a_quiet_poller_from_a_broken_one() {
    let test = Test::new(|world| {
        world.green_pr(1).title = "(HELD) big change".into();
        world.green_pr(2).files = vec![("src/lib.rs".into(), None)];
        world.green_pr(3);
        world.green_pr(4).draft = true;
    });
    let outcome = test.run(&["poll", "--repo", REPO]);
    outcome.expect_code(0);
    assert!(
        outcome.stdout.contains(
            "Counters: candidates 3, drafts dropped 0, held 1, in flight 0, backed off 0, ineligible 1 (docs-only 1), enqueued 1, failed 0"
        ),
        "{}",
        outcome.stdout
    );
    let quiet = test.run(&["poll", "--repo", REPO, "-q"]);
    assert!(
        quiet.stdout.contains("Counters: candidates 3"),
        "{}",
        quiet.stdout
    );
    assert!(quiet.stdout.contains("in flight 1"), "{}", quiet.stdout);
}

#[test]
fn an_unreadable_pr_is_an_item_failure_and_fails_closed() {
    let test = Test::rest(|world| {
        world.green_pr(1);
        world.green_pr(2);
    });
    test.fail(
        "GET",
        "/pulls/1/files",
        Fault::Body("[{\"status\": \"modified\"}]".into()),
        1,
    );
    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    outcome.expect_code(8);
    let recap = outcome.json();
    assert_eq!(items(&recap["failed"]), numbers(1..=1));
    assert_eq!(
        recap["failed"][0]["reason"],
        "in a changed file: the `filename` field is missing"
    );
    assert_eq!(
        recap["rerun"],
        "gh-sweep poll --repo octo/demo --json --only 'octo/demo#1'"
    );
    assert_eq!(
        queue_rows(&test),
        vec![(format!("merge:{REPO}#2@pr-2-head"), "pending".to_string())]
    );
}

#[test]
fn an_organisation_is_searched_across_its_repositories() {
    let test = Test::rest(|world| {
        world.repos.push("octo/docs".into());
        world.green_pr(1);
        world.green_pr(2).repo = "octo/docs".into();
    });
    let outcome = test.run(&["poll", "--org", "octo", "--json"]);
    let recap = outcome.json();
    assert_eq!(
        items(&recap["completed"]),
        vec!["octo/demo#1", "octo/docs#2"]
    );
    assert!(
        test.requests()[0].query.contains("org%3Aocto")
            || test.requests()[0].query.contains("org:octo")
    );
}

#[test]
fn a_search_past_the_1000_cap_is_read_in_windows_and_nothing_is_dropped() {
    let test = Test::new(|world| {
        for number in 1..=1050 {
            world.open_pr(number, 1).title = format!("(HELD) {number}");
        }
    });
    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    outcome.expect_code(0);
    let recap = outcome.json();
    assert_eq!(recap["counters"]["candidates"], 1050);
    assert_eq!(recap["counters"]["held"], 1050);
    assert!(
        outcome
            .stderr
            .contains("more than GitHub's 1000-result cap: reading it in windows"),
        "{}",
        outcome.stderr
    );
    let mut seen = items(&recap["completed"]);
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 1050, "no PR dropped or read twice");
}

#[test]
fn confirm_needs_a_terminal() {
    let test = Test::new(|world| {
        world.green_pr(1);
    });
    let outcome = test.run(&["poll", "--repo", REPO, "--confirm"]);
    outcome.expect_code(2);
    assert!(
        outcome.stderr.contains("--confirm asks on a terminal"),
        "{}",
        outcome.stderr
    );
    assert!(test.requests().is_empty());
}

#[test]
fn a_dry_run_tick_enqueues_nothing() {
    let test = Test::new(|world| {
        world.green_pr(1);
    });
    let outcome = test.run(&["poll", "--repo", REPO, "--dry-run", "--json"]);
    let recap = outcome.json();
    assert_eq!(items(&recap["unfinished"]), numbers(1..=1));
    assert_eq!(
        recap["planned"][0]["writes"],
        json!(["enqueue merge of pr-1-head"])
    );
    assert!(!test.db_path().exists() || queue_rows(&test).is_empty());
}

#[test]
fn a_pr_that_never_says_whether_it_is_a_draft_fails_closed() {
    let test = Test::rest(|world| {
        world.green_pr(1).patch = Some(json!({"draft": null}));
    });
    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    outcome.expect_code(8);
    let recap = outcome.json();
    assert_eq!(
        recap["failed"][0]["reason"],
        "GitHub does not say whether the PR is a draft"
    );
    assert!(queue_rows(&test).is_empty());
}

/// The request counts quoted in the closing note of issue 3.
#[test]
fn one_tick_over_100_prs_costs_the_reads_its_guards_leave() {
    let test = Test::rest(|world| {
        for number in 1..=100 {
            let pr = world.green_pr(number);
            match number % 10 {
                0 => {}                                                        // eligible: 10
                1..=3 => pr.files = vec![("src/lib.rs".into(), None)],         // not docs: 30
                4..=6 => pr.check_runs[0].conclusion = Some("failure".into()), // red: 30
                _ => pr.reviews.clear(),                                       // unapproved: 30
            }
        }
    });
    test.run(&["poll", "--repo", REPO]).expect_code(0);
    let first = test.requests().len();
    // search 1 page; per PR: read + files (30), + check runs + check suites + status + reviews
    // (30 red ones: the approval is read anyway, for the merge gate), + reviews (30 unapproved
    // + 10 eligible); once per run: the branch's rules, its summary (classic protection's
    // required checks) and the reviewer's permission.
    assert_eq!(first, 1 + 30 * 2 + 30 * 6 + 30 * 6 + 10 * 6 + 3);
    test.clear_log();
    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    let second = test.requests().len();
    assert_eq!(outcome.json()["counters"]["in_flight"], 10);
    // The 10 enqueued PRs cost nothing; the 90 ineligible ones are read again.
    assert_eq!(second, first - 10 * 6);
    eprintln!("100 PRs, 10 eligible: first tick {first} requests, second tick {second}");
}

/// Issue 6's target: a repeated tick over unchanged PRs costs (almost) no rate limit.
#[test]
fn a_second_tick_over_unchanged_prs_is_answered_by_304s() {
    let test = Test::rest(|world| {
        for number in 1..=100 {
            let pr = world.green_pr(number);
            if number % 10 != 0 {
                pr.files = vec![("src/lib.rs".into(), None)];
            }
        }
    });
    test.run(&["poll", "--repo", REPO]).expect_code(0);
    test.clear_log();
    let outcome = test.run(&["poll", "--repo", REPO, "--json", "--verbose"]);
    outcome.expect_code(0);
    let requests = test.requests();
    let charged = requests.iter().filter(|r| r.status != 304).count();
    assert!(
        charged <= 1,
        "non-304 answers on the second tick: {charged} of {}",
        requests.len()
    );
    assert_eq!(
        requests.len(),
        1 + 90 * 2,
        "the search, then each ineligible PR's read and files"
    );
    assert!(
        outcome
            .stderr
            .contains("answered 304 Not Modified from the cache"),
        "{}",
        outcome.stderr
    );
    // A change is seen at once: the changed page answers 200 and is read again.
    test.world().world.issue(1).files = vec![("docs/a.md".into(), None)];
    test.clear_log();
    let changed = test.run(&["poll", "--repo", REPO, "--json"]).json();
    assert_eq!(changed["counters"]["enqueued"], 1, "{changed}");
}

#[test]
fn an_only_item_with_a_failure_is_read_once() {
    let test = Test::rest(|world| {
        world.green_pr(7);
    });
    failed_merge(&test, 7, "pr-7-head", 10);
    test.clear_log();
    let recap = test
        .run(&["poll", "--repo", REPO, "--only", "#7", "--json"])
        .json();
    assert_eq!(recap["completed"][0]["disposition"], "skip: backed off");
    assert_eq!(
        reads(&test),
        vec![format!("/repos/{REPO}/pulls/7")],
        "the PR read once, nothing else"
    );
}
