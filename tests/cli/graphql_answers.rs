//! Issue 20, points 4, 11 and 12: the GraphQL read path takes no truncated list as whole,
//! trusts no impossible answer, and rereads a rerun line's items in batches.

use serde_json::Value;

use crate::support::{Request, Test, REPO};

/// The operation names of the GraphQL queries among `requests`, in order.
fn operations(requests: &[Request]) -> Vec<String> {
    requests
        .iter()
        .filter(|r| r.is_graphql())
        .map(|r| {
            let body: Value = serde_json::from_str(&r.body).unwrap();
            body["operationName"].as_str().unwrap_or("").to_string()
        })
        .collect()
}

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
