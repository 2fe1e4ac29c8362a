//! Issue 20, points 4, 11 and 12: the GraphQL read path takes no truncated list as whole,
//! trusts no impossible answer, and rereads a rerun line's items in batches.

use serde_json::Value;

use crate::support::{operations, Test, REPO};

/// `--only #1,#3,#5,…`: every other item of `1..=count`.
fn every_other(count: u64) -> String {
    (1..=count)
        .step_by(2)
        .map(|n| format!("#{n}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Point 12: a rerun line naming 199 of 400 issues reads them in batches of 100 aliased
/// `issueOrPullRequest(number:)` fields, not one query each; the verdicts are REST's.
#[test]
fn a_rerun_line_naming_199_issues_reads_them_in_two_queries() {
    let only = every_other(398);
    Test::each_api(
        |world| {
            for number in 1..=400 {
                world.open_issue(number, 90);
            }
        },
        |test, api| {
            let outcome = test.run(&[
                "classify", "stale", "--repo", REPO, "--only", &only, "--json",
            ]);
            outcome.expect_code(0);
            let recap = outcome.json();
            assert_eq!(
                recap["completed"].as_array().map_or(0, Vec::len),
                199,
                "{recap}"
            );
            if api == "graphql" {
                let queries = operations(&test.requests());
                let points = 5000 - test.world().world.graphql_points;
                eprintln!(
                    "199 --only issues through GraphQL: {} queries, {points} points",
                    queries.len()
                );
                assert_eq!(queries, ["Items", "Items"], "{queries:?}");
                // One `Item` query (a point) each before: 199 queries, 199 points.
                assert!(points <= 12, "{points} points");
            }
        },
    );
}

/// Point 12 for PRs: 199 PRs named read in pages of aliased `pullRequest(number:)` fields,
/// as many PRs a query as a search page holds (50: a page of PRs with their files and checks
/// can pass GitHub's time limit), not one `Pull` query each.
#[test]
fn a_rerun_line_naming_199_prs_reads_them_in_batches() {
    let only = every_other(398);
    Test::each_api(
        |world| {
            for number in 1..=400 {
                world.green_pr(number);
            }
        },
        |test, api| {
            let outcome = test.run(&[
                "classify", "merge", "--repo", REPO, "--only", &only, "--json",
            ]);
            outcome.expect_code(0);
            let recap = outcome.json();
            assert_eq!(
                recap["completed"].as_array().map_or(0, Vec::len),
                199,
                "{recap}"
            );
            if api == "graphql" {
                let queries = operations(&test.requests());
                let points = 5000 - test.world().world.graphql_points;
                eprintln!(
                    "199 --only PRs through GraphQL: {} queries, {points} points",
                    queries.len()
                );
                assert_eq!(queries, ["Pulls"; 4], "{queries:?}");
                // One `Pull` query (a point) each before: 199 queries, 199 points.
                assert!(points <= 12, "{points} points");
            }
        },
    );
}

/// The items of `recap[group]` (`failed`, `completed`), by name.
fn named(recap: &Value, group: &str) -> Vec<String> {
    recap[group]
        .as_array()
        .map(|entries| {
            entries
                .iter()
                .filter_map(|entry| entry["item"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Point 11: `#3000000000` is past GraphQL's 32-bit `Int` ("Scalars" in GitHub's GraphQL
/// docs; GitHub refuses the whole query whose variable holds it, octokit/graphql-action#7):
/// that item's failure, as REST's 404 is, and the other item is read, on both paths.
#[test]
fn an_issue_number_past_graphqls_int_is_that_items_failure() {
    let huge = format!("{REPO}#3000000000");
    for command in ["stale", "merge"] {
        Test::each_api(
            |world| {
                world.green_pr(1);
            },
            |test, _| {
                let only = format!("#1,{huge}");
                let outcome = test.run(&[
                    "classify", command, "--repo", REPO, "--only", &only, "--json",
                ]);
                let recap = outcome.json();
                assert_eq!(named(&recap, "failed"), vec![huge.clone()], "{recap}");
                assert_eq!(named(&recap, "completed"), [format!("{REPO}#1")], "{recap}");
                assert!(recap["stopped"].is_null(), "{recap}");
            },
        );
    }
}

/// Point 11: a list whose next page starts at the cursor just asked (`hasNextPage: true`
/// with the same `endCursor`) ends with an error naming it, after one repeated page, as the
/// REST path's loop guard ends a `Link` that points back (exit 5): the stale listing, the PR
/// search, a PR's files past their first page, and an item's older timeline entries.
#[test]
fn a_cursor_that_repeats_ends_the_list_with_an_error() {
    type Case = (
        &'static str,
        fn(&mut crate::support::WorldState),
        [&'static str; 2],
    );
    let cases: [Case; 4] = [
        (
            "stale",
            |world| {
                for number in 1..=150 {
                    world.open_issue(number, 90);
                }
            },
            ["OpenItemsPage", "OpenItemsPage"],
        ),
        (
            "merge",
            |world| {
                for number in 1..=60 {
                    world.green_pr(number);
                }
            },
            ["PullsPage", "PullsPage"],
        ),
        (
            "merge",
            |world| {
                world.green_pr(1).files = (0..150)
                    .map(|index| (format!("docs/page-{index}.md"), None))
                    .collect();
            },
            ["PullsPage", "PullFiles"],
        ),
        (
            "stale",
            |world| {
                world.stale_issue(1, 30, "github-actions[bot]");
                for _ in 0..150 {
                    world.comment(1, "dependabot[bot]", 20, "bump");
                }
            },
            ["OpenItemsPage", "ItemTimeline"],
        ),
    ];
    for (command, setup, expected) in cases {
        let test = Test::new(|world| {
            setup(world);
            world.graphql_cursor_stuck = true;
        });
        let outcome = test.run(&[
            "classify",
            command,
            "--repo",
            REPO,
            "--json",
            "--read-api",
            "graphql",
        ]);
        outcome.expect_code(5);
        let recap = outcome.json();
        let detail = recap["stop_detail"].as_str().unwrap_or_default();
        assert!(
            detail.contains("pagination loops") && detail.contains("cursor:"),
            "{recap}"
        );
        assert_eq!(operations(&test.requests()), expected, "{recap}");
        test.expect_no_writes();
    }
}

/// Point 11: a node `null` with an error whose `path` names it (a field of it GitHub could not
/// serve, so its non-null parent is null: the shape of github/advisory-database#221 and
/// golang/go#52550; here the `FORBIDDEN` of fpicalausa/remove-stale-branches#49 on a non-null
/// `title`) is that item's failure, and the rest of the page (or batch) goes on, not an outage.
#[test]
fn a_null_node_with_an_error_is_that_items_failure_and_the_page_goes_on() {
    for (command, only) in [
        ("merge", None),
        ("stale", None),
        ("merge", Some("#1,#2,#3")),
        ("stale", Some("#1,#2,#3")),
    ] {
        let test = Test::new(|world| {
            world.green_pr(1);
            world.open_issue(2, 90).is_pr = command == "merge";
            if command == "merge" {
                world.issues.pop();
                world.green_pr(2);
            }
            world.green_pr(3);
            world.graphql_forbidden.push((2, "title".into()));
        });
        let mut args = vec![
            "classify",
            command,
            "--repo",
            REPO,
            "--json",
            "--read-api",
            "graphql",
        ];
        if let Some(only) = only {
            args.extend(["--only", only]);
        }
        let outcome = test.run(&args);
        let recap = outcome.json();
        assert!(recap["stopped"].is_null(), "{command} {only:?}: {recap}");
        assert_eq!(named(&recap, "failed"), [format!("{REPO}#2")], "{recap}");
        assert_eq!(
            named(&recap, "completed"),
            [format!("{REPO}#1"), format!("{REPO}#3")],
            "{recap}"
        );
        let reason = recap["failed"][0]["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("FORBIDDEN"), "{recap}");
    }
}

/// Point 11: `repository: null` without an error is not a repository with nothing open: it
/// ends the stale listing as REST's 404 does (not found, exit 4).
#[test]
fn a_null_repository_without_an_error_is_not_found() {
    let rest = Test::rest(|world| world.repos.clear());
    let expected = rest
        .run(&["classify", "stale", "--repo", REPO, "--json"])
        .json();
    assert_eq!(expected["exit_code"], 4, "{expected}");
    let test = Test::new(|world| {
        world.open_issue(1, 90);
        world.graphql_repository_null = true;
    });
    let outcome = test.run(&[
        "classify",
        "stale",
        "--repo",
        REPO,
        "--json",
        "--read-api",
        "graphql",
    ]);
    outcome.expect_code(4);
    let recap = outcome.json();
    assert_eq!(recap["stopped"], expected["stopped"], "{recap}");
}

/// Point 11: a list answered `null` with no error (`files`, `reviews`, `labels`: nullable in
/// the schema) is not an empty list: a PR with no files is not docs-only, an item with no
/// labels not unlabelled. That item fails, closed; the others are read.
#[test]
fn a_null_list_is_not_an_empty_one() {
    for (command, lists) in [
        ("merge", vec![(2, "files"), (3, "reviews"), (4, "labels")]),
        ("stale", vec![(2, "labels")]),
    ] {
        let test = Test::new(|world| {
            for number in 1..=4 {
                if command == "merge" {
                    world.green_pr(number);
                } else {
                    world.stale_issue(number, 30, "github-actions[bot]");
                }
            }
            for (number, field) in &lists {
                world.graphql_null_lists.push((*number, field.to_string()));
            }
        });
        let outcome = test.run(&[
            "classify",
            command,
            "--repo",
            REPO,
            "--json",
            "--read-api",
            "graphql",
        ]);
        let recap = outcome.json();
        let failed: Vec<String> = lists
            .iter()
            .map(|(number, _)| format!("{REPO}#{number}"))
            .collect();
        assert_eq!(named(&recap, "failed"), failed, "{command}: {recap}");
        assert!(
            named(&recap, "completed").contains(&format!("{REPO}#1")),
            "{recap}"
        );
        let reason = recap["failed"][0]["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("null"), "{recap}");
    }
}

/// Point 11: `poll --org nobody` (an organisation GitHub's search cannot see: REST's 422
/// "The listed users and repositories cannot be searched…", GraphQL's same reason as the
/// `search` field's error) stops with REST's message and exit 2 on both paths, not as an
/// outage. (Each path quotes GitHub's answer in its own words around that reason.)
#[test]
fn poll_over_an_unknown_org_exits_2_with_rests_message_on_both_paths() {
    let mut stops = Vec::new();
    for api in ["graphql", "rest"] {
        let test = Test::new(|_| {});
        let outcome = test.run(&["poll", "--org", "nobody", "--json", "--read-api", api]);
        outcome.expect_code(2);
        let recap = outcome.json();
        let detail = recap["stop_detail"].as_str().unwrap_or_default();
        assert!(
            detail.starts_with("organisation nobody cannot be searched")
                && detail.contains("The listed users and repositories cannot be searched")
                && detail.ends_with("check the spelling of --org nobody"),
            "{api}: {recap}"
        );
        stops.push(recap["stopped"].clone());
    }
    assert_eq!(stops[0], stops[1]);
}

/// Point 4: no truncated list is taken as whole. Past the first 100 of a head's rollup
/// contexts (check runs, commit statuses) and of its check suites, the one that fails or is
/// still pending decides, on both paths; each list is followed for that PR alone. (Files,
/// reviews and timeline entries past 100: `graphql::classify_merge_gives_the_same_verdicts…`
/// and `graphql::classify_stale_gives_the_same_verdicts…`.)
#[test]
fn check_runs_statuses_and_suites_past_their_first_100_are_read() {
    Test::each_api(
        |world| {
            let at = world.days_ago(0);
            let pr = world.green_pr(1);
            for index in 0..150 {
                let mut run = pr.check_runs[0].clone();
                run.id = 1000 + index;
                run.name = format!("job-{index}");
                run.started_at = at - chrono::Duration::minutes(30);
                pr.check_runs.push(run);
            }
            pr.check_runs[140].conclusion = Some("failure".into());
            let pr = world.green_pr(2);
            pr.statuses = (0..150)
                .map(|index| (format!("ci/legacy-{index}"), "success".into()))
                .collect();
            pr.statuses[149].1 = "failure".into();
            let pr = world.green_pr(3);
            for index in 0..120 {
                pr.suite(5000 + index, "codecov", 10, "completed", Some("success"));
            }
            pr.suite(6000, "codecov", 10, "queued", None);
            world.green_pr(4);
        },
        |test, api| {
            let outcome = test.run(&["classify", "merge", "--repo", REPO, "--json"]);
            outcome.expect_code(0);
            let recap = outcome.json();
            let dispositions: Vec<&str> = recap["completed"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|entry| entry["disposition"].as_str())
                .collect();
            assert_eq!(
                dispositions,
                [
                    "ineligible: green",
                    "ineligible: green",
                    "ineligible: green",
                    "enqueue-merge"
                ],
                "{recap}"
            );
            if api == "graphql" {
                let queries = operations(&test.requests());
                assert_eq!(
                    queries,
                    [
                        "PullsPage",
                        "CommitContexts",
                        "CommitContexts",
                        "CommitSuites"
                    ],
                    "{recap}"
                );
            }
        },
    );
}
