//! actions/stale's inputs, each with a scenario from actions/stale's own documentation of it
//! (its README and `action.yml`), run through `--from-workflow` on the fake: the issue-only and
//! PR-only variants over the generic ones, milestones, assignees, labels, updates, issue types,
//! the order, the dry run, the cap on operations and the statistics.

use serde_json::Value;

use crate::support::{issue, items, Outcome, Test, REPO};

/// A workflow whose actions/stale step has these `with:` inputs (YAML lines, indented here).
fn workflow(test: &Test, inputs: &[&str]) {
    let path = test.dir.path().join(".github/workflows/stale.yml");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let with: String = inputs
        .iter()
        .map(|line| format!("          {line}\n"))
        .collect();
    std::fs::write(
        &path,
        format!(
            "on:\n  schedule:\n    - cron: '30 1 * * *'\njobs:\n  stale:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/stale@v10\n        with:\n{with}"
        ),
    )
    .unwrap();
}

const FROM: [&str; 2] = ["--from-workflow", ".github/workflows/stale.yml"];

/// `classify stale` with the workflow's inputs, as JSON.
fn classify(test: &Test, extra: &[&str]) -> Value {
    let mut args = vec!["classify", "stale", "--repo", REPO, "--json"];
    args.extend(FROM);
    args.extend(extra);
    let outcome = test.run(&args);
    outcome.expect_code(0);
    outcome.json()
}

fn sweep(test: &Test, extra: &[&str]) -> Outcome {
    let mut args = vec!["stale-sweep", "--repo", REPO, "--json", "--yes"];
    args.extend(FROM);
    args.extend(extra);
    test.run(&args)
}

/// Each completed item's number and disposition, in the recap's (the pool's) order.
fn decided(recap: &Value) -> Vec<(u64, String)> {
    recap["completed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            let item = entry["item"].as_str().unwrap();
            let number = item.rsplit('#').next().unwrap().parse().unwrap();
            (number, entry["disposition"].as_str().unwrap().to_string())
        })
        .collect()
}

fn disposition(recap: &Value, number: u64) -> String {
    decided(recap)
        .into_iter()
        .find(|(n, _)| *n == number)
        .map(|(_, d)| d)
        .unwrap_or_else(|| panic!("#{number} not completed: {recap}"))
}

#[test]
fn only_labels_per_kind_override_the_generic_list() {
    // "only-issue-labels: Override only-labels for issues only" (and PRs alike).
    let test = Test::new(|world| {
        world.open_issue(1, 90).labels.push("bug".into());
        world.open_issue(2, 90).labels.push("everything".into());
        world.open_pr(3, 90).labels.push("everything".into());
        world.open_pr(4, 90).labels.push("bug".into());
    });
    workflow(
        &test,
        &["only-labels: everything", "only-issue-labels: bug"],
    );
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "mark-stale", "{recap}");
    assert_eq!(disposition(&recap, 2), "exempt: lacks label \"bug\"");
    assert_eq!(disposition(&recap, 3), "mark-stale");
    assert_eq!(disposition(&recap, 4), "exempt: lacks label \"everything\"");

    workflow(&test, &["only-labels: everything", "only-pr-labels: bug"]);
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 2), "mark-stale");
    assert_eq!(disposition(&recap, 3), "exempt: lacks label \"bug\"");
    assert_eq!(disposition(&recap, 4), "mark-stale");
}

#[test]
fn any_of_labels_per_kind_override_the_generic_list() {
    // "any-of-issue-labels: Override any-of-labels for issues only".
    let test = Test::new(|world| {
        world.open_issue(1, 90).labels.push("needs-info".into());
        world.open_issue(2, 90).labels.push("question".into());
        world.open_pr(3, 90).labels.push("question".into());
    });
    workflow(
        &test,
        &[
            "any-of-labels: question",
            "any-of-issue-labels: needs-info,wontfix",
        ],
    );
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "mark-stale");
    assert_eq!(disposition(&recap, 2), "exempt: has none of the labels");
    assert_eq!(disposition(&recap, 3), "mark-stale");
    workflow(&test, &["any-of-labels: question", "any-of-pr-labels: wip"]);
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "exempt: has none of the labels");
    assert_eq!(disposition(&recap, 2), "mark-stale");
    assert_eq!(disposition(&recap, 3), "exempt: has none of the labels");
}

#[test]
fn milestones_per_kind_override_the_generic_ones() {
    // "exempt-issue-milestones: Override exempt-milestones for issues only";
    // "exempt-all-pr-milestones: Override exempt-all-milestones for PRs only".
    let test = Test::new(|world| {
        world.open_issue(1, 90).milestone = Some("v1".into());
        world.open_issue(2, 90).milestone = Some("v2".into());
        world.open_pr(3, 90).milestone = Some("v1".into());
        world.open_pr(4, 90).milestone = Some("v9".into());
    });
    workflow(
        &test,
        &["exempt-milestones: v1", "exempt-issue-milestones: v2"],
    );
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "mark-stale");
    assert_eq!(disposition(&recap, 2), "exempt: milestone \"v2\"");
    assert_eq!(disposition(&recap, 3), "exempt: milestone \"v1\"");
    workflow(
        &test,
        &["exempt-milestones: v1", "exempt-pr-milestones: v9"],
    );
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "exempt: milestone \"v1\"");
    assert_eq!(disposition(&recap, 3), "mark-stale");
    assert_eq!(disposition(&recap, 4), "exempt: milestone \"v9\"");

    workflow(
        &test,
        &[
            "exempt-all-milestones: true",
            "exempt-all-pr-milestones: false",
        ],
    );
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "exempt: milestone \"v1\"");
    assert_eq!(disposition(&recap, 3), "mark-stale");
    workflow(&test, &["exempt-all-issue-milestones: true"]);
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 2), "exempt: milestone \"v2\"");
    assert_eq!(disposition(&recap, 4), "mark-stale");
}

#[test]
fn assignees_per_kind_override_the_generic_ones() {
    // "exempt-pr-assignees: Override exempt-assignees for PRs only";
    // "exempt-all-issue-assignees: Override exempt-all-assignees for issues only".
    let test = Test::new(|world| {
        world.open_issue(1, 90).assignees = vec!["ann".into()];
        world.open_pr(2, 90).assignees = vec!["ann".into()];
        world.open_pr(3, 90).assignees = vec!["bob".into()];
    });
    workflow(
        &test,
        &["exempt-assignees: ann", "exempt-pr-assignees: bob"],
    );
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "exempt: assigned to ann");
    assert_eq!(disposition(&recap, 2), "mark-stale");
    assert_eq!(disposition(&recap, 3), "exempt: assigned to bob");
    workflow(&test, &["exempt-issue-assignees: bob"]);
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "mark-stale");

    workflow(
        &test,
        &[
            "exempt-all-assignees: true",
            "exempt-all-issue-assignees: false",
        ],
    );
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "mark-stale");
    assert_eq!(disposition(&recap, 2), "exempt: assigned to ann");
    workflow(&test, &["exempt-all-pr-assignees: true"]);
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "mark-stale");
    assert_eq!(disposition(&recap, 3), "exempt: assigned to bob");
}

#[test]
fn remove_stale_when_updated_per_kind_overrides_the_generic_flag() {
    // "remove-issue-stale-when-updated: Override remove-stale-when-updated for issues only".
    let test = Test::new(|world| {
        world.stale_issue(1, 3, "github-actions[bot]");
        world.comment(1, "ann", 1, "Still happening.");
        world.stale_issue(2, 3, "github-actions[bot]").is_pr = true;
        world.comment(2, "ann", 1, "Rebased.");
    });
    workflow(&test, &["remove-issue-stale-when-updated: false"]);
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "keep", "{recap}");
    assert_eq!(disposition(&recap, 2), "unmark");
    workflow(
        &test,
        &[
            "remove-stale-when-updated: false",
            "remove-pr-stale-when-updated: true",
        ],
    );
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "keep");
    assert_eq!(disposition(&recap, 2), "unmark");
    // Anything but true or false leaves the generic flag, as actions/stale's optional booleans.
    workflow(&test, &["remove-issue-stale-when-updated: maybe"]);
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "unmark");
}

#[test]
fn ignore_updates_per_kind_overrides_the_generic_flag() {
    // "ignore-issue-updates: Override ignore-updates for issues only": the stale counter then
    // starts at creation, whatever happened since.
    let test = Test::new(|world| {
        world.open_issue(1, 1);
        world.open_pr(2, 1);
    });
    workflow(&test, &["ignore-issue-updates: true"]);
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "mark-stale", "{recap}");
    assert_eq!(disposition(&recap, 2), "keep");
    workflow(&test, &["ignore-updates: true", "ignore-pr-updates: false"]);
    let recap = classify(&test, &[]);
    assert_eq!(disposition(&recap, 1), "mark-stale");
    assert_eq!(disposition(&recap, 2), "keep");
}

#[test]
fn only_issue_types_reads_the_issue_type_and_leaves_prs_alone() {
    // "only-issue-types: Only issues with a matching type are processed"; PRs have no type and
    // are not filtered by it (actions/stale #1338). The type is REST's `type.name`.
    let test = Test::new(|world| {
        world.open_issue(1, 90).issue_type = Some("Bug".into());
        world.open_issue(2, 90).issue_type = Some("Task".into());
        world.open_issue(3, 90);
        world.open_pr(4, 90);
    });
    workflow(&test, &["only-issue-types: bug, feature"]);
    let mut args = vec![
        "classify",
        "stale",
        "--repo",
        REPO,
        "--json",
        "--read-api",
        "graphql",
    ];
    args.extend(FROM);
    let outcome = test.run(&args);
    outcome.expect_code(0);
    assert!(
        outcome
            .stderr
            .contains("only_issue_types needs each issue's type"),
        "{}",
        outcome.stderr
    );
    let recap = outcome.json();
    assert_eq!(disposition(&recap, 1), "mark-stale", "{recap}");
    assert_eq!(
        disposition(&recap, 2),
        "exempt: type \"Task\" is not in only_issue_types"
    );
    assert_eq!(disposition(&recap, 3), "exempt: has no issue type");
    assert_eq!(disposition(&recap, 4), "mark-stale");
    assert!(
        test.requests().iter().any(|r| r.path.ends_with("/issues")),
        "the list was read through REST"
    );
}

#[test]
fn sort_by_and_ascending_set_the_order() {
    // "sort-by: What to sort results by. Valid options are created, updated, and comments";
    // "ascending: The order to get issues or pull requests".
    let test = Test::new(|world| {
        world.open_issue(1, 90);
        world.open_issue(2, 80);
        world.open_issue(3, 95);
        for _ in 0..3 {
            world.comment(1, "ann", 100, "a");
        }
        world.comment(3, "ann", 100, "a");
    });
    let order =
        |recap: &Value| -> Vec<u64> { decided(recap).into_iter().map(|(n, _)| n).collect() };
    workflow(&test, &[]);
    assert_eq!(
        order(&classify(&test, &[])),
        [1, 2, 3],
        "oldest created first"
    );
    workflow(&test, &["ascending: false"]);
    assert_eq!(order(&classify(&test, &[])), [3, 2, 1]);
    workflow(&test, &["sort-by: updated"]);
    assert_eq!(order(&classify(&test, &[])), [3, 1, 2]);
    workflow(&test, &["sort-by: comments", "ascending: false"]);
    assert_eq!(order(&classify(&test, &[])), [1, 3, 2]);
    workflow(&test, &["sort-by: size"]);
    let mut args = vec!["classify", "stale", "--repo", REPO];
    args.extend(FROM);
    let refused = test.run(&args);
    refused.expect_code(2);
    assert!(refused
        .stderr
        .contains("invalid [stale] sort_by = \"size\""));
}

#[test]
fn debug_only_is_a_dry_run() {
    // "debug-only: Run the processor in debug mode without actually performing any operations
    // on live issues."
    let test = Test::new(|world| {
        world.open_issue(1, 90);
    });
    workflow(&test, &["debug-only: true"]);
    let mut args = vec!["stale-sweep", "--repo", REPO, "--json"];
    args.extend(FROM);
    let outcome = test.run(&args);
    outcome.expect_code(0);
    let recap = outcome.json();
    assert_eq!(recap["dry_run"], true, "{recap}");
    assert_eq!(recap["planned"][0]["item"], format!("{REPO}#1"));
    test.expect_no_writes();
}

#[test]
fn operations_per_run_caps_the_run_and_the_next_run_carries_on_first() {
    // "operations-per-run: The maximum number of operations per run, used to control rate
    // limiting". One operation per page of the list and per write; checked before each item,
    // as actions/stale does. Here: the list (1), #1 label (2), #2 label (3), then the cap.
    let test = Test::new(|world| {
        for number in 1..=5 {
            world.open_issue(number, 90);
        }
    });
    workflow(&test, &["operations-per-run: 3"]);
    let outcome = sweep(&test, &["--read-api", "rest"]);
    outcome.expect_code(9);
    let recap = outcome.json();
    assert_eq!(
        items(&recap["completed"]),
        [format!("{REPO}#1"), format!("{REPO}#2")]
    );
    assert_eq!(
        items(&recap["unfinished"]),
        (3..=5).map(|n| format!("{REPO}#{n}")).collect::<Vec<_>>()
    );
    assert!(
        recap["stop_detail"]
            .as_str()
            .unwrap()
            .contains("operations_per_run 3 reached after 3 operations"),
        "{recap}"
    );
    assert!(
        recap["rerun"].as_str().unwrap().contains("--only"),
        "{recap}"
    );
    test.expect_writes(&[
        format!("POST {}/labels", issue(1)),
        format!("POST {}/labels", issue(2)),
    ]);

    // Newest first, the next run would start with a new #6; it carries on with what the capped
    // run left first.
    test.world().world.open_issue(6, 90);
    test.clear_log();
    workflow(&test, &["operations-per-run: 3", "ascending: false"]);
    let recap = sweep(&test, &["--read-api", "rest"]).json();
    assert_eq!(
        items(&recap["completed"]),
        [format!("{REPO}#5"), format!("{REPO}#4")],
        "{recap}"
    );
}

#[test]
fn a_workflow_without_operations_per_run_is_capped_at_actions_stales_thirty() {
    let test = Test::new(|world| {
        for number in 1..=40 {
            world.open_issue(number, 90);
        }
    });
    workflow(&test, &[]);
    let recap = sweep(&test, &["--read-api", "rest"]).json();
    // The list (1) and 29 labels: the cap of 30 is reached before #30.
    assert_eq!(recap["completed"].as_array().unwrap().len(), 29, "{recap}");
    assert_eq!(recap["unfinished"].as_array().unwrap().len(), 11);
    test.clear_log();
}

#[test]
fn reading_a_stale_items_history_spends_operations_as_actions_stale_counts_them() {
    // actions/stale spends an operation on the label's events (`getLabelCreationDate`), one on
    // the comments since (`hasCommentsSince`) and one on taking the label off. Here each item
    // was labelled 3 days ago and commented on by a person since: events (1), comments (1), the
    // label off (1). The list (1), #1 (4) and #2 (7); the cap of 7 stops the run before #3.
    let test = Test::new(|world| {
        for number in 1..=4 {
            world.stale_issue(number, 3, "github-actions[bot]");
            world.comment(number, "octocat", 1, "still happening");
        }
    });
    workflow(&test, &["operations-per-run: 7"]);
    let outcome = sweep(&test, &["--read-api", "rest"]);
    outcome.expect_code(9);
    let recap = outcome.json();
    assert_eq!(
        items(&recap["completed"]),
        [format!("{REPO}#1"), format!("{REPO}#2")],
        "{recap}"
    );
    assert!(
        recap["stop_detail"]
            .as_str()
            .unwrap()
            .contains("operations_per_run 7 reached after 7 operations"),
        "{recap}"
    );
    test.expect_writes(&[
        format!("DELETE {}/labels/Stale", issue(1)),
        format!("DELETE {}/labels/Stale", issue(2)),
    ]);
}

#[test]
fn enable_statistics_puts_the_counts_in_the_recap() {
    // "enable-statistics: Display some statistics at the end regarding the stale workflow".
    let test = Test::new(|world| {
        world.open_issue(1, 90);
        world.open_issue(2, 1);
        world.stale_issue(3, 10, "github-actions[bot]");
    });
    workflow(&test, &[]);
    let recap = classify(&test, &[]);
    let counters = &recap["counters"];
    assert_eq!(counters["processed"], 3, "{recap}");
    assert_eq!(counters["staled"], 1);
    assert_eq!(counters["closed"], 1);
    assert_eq!(counters["kept"], 1);
    workflow(&test, &["enable-statistics: false"]);
    let recap = classify(&test, &[]);
    assert!(recap.get("counters").is_none(), "{recap}");
    let mut args = vec!["classify", "stale", "--repo", REPO];
    workflow(&test, &[]);
    args.extend(FROM);
    let text = test.run(&args);
    assert!(text.stdout.contains("Counters: "), "{}", text.stdout);
}

#[test]
fn delete_branch_deletes_a_closed_prs_own_branch_once_and_never_a_forks_default_or_protected_one() {
    // "delete-branch: Delete the git branch after closing a stale pull request". As
    // actions/stale, only a head in the same repository; gh-sweep also never deletes the
    // default branch or a protected one.
    let test = Test::new(|world| {
        world.stale_issue(1, 10, "github-actions[bot]").is_pr = true;
        let fork = world.stale_issue(2, 10, "github-actions[bot]");
        fork.is_pr = true;
        fork.head_repo = Some("someone/demo".into());
        world.stale_issue(3, 10, "github-actions[bot]").is_pr = true;
        world.protected_branches.push("branch-3".into());
        world.stale_issue(4, 10, "github-actions[bot]");
    });
    workflow(&test, &["delete-branch: true"]);
    let outcome = sweep(&test, &["--read-api", "rest"]);
    outcome.expect_code(0);
    let recap = outcome.json();
    let writes = |number: u64| -> Vec<String> {
        recap["completed"]
            .as_array()
            .unwrap()
            .iter()
            .find(|entry| entry["item"] == format!("{REPO}#{number}"))
            .map(|entry| {
                entry["writes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|w| w.as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap()
    };
    assert_eq!(writes(1), ["close", "delete branch branch-1"], "{recap}");
    assert_eq!(writes(2), ["close"]);
    assert_eq!(writes(3), ["close"]);
    assert_eq!(writes(4), ["close (not_planned)"], "issues have no branch");
    let detail = |number: u64| -> String {
        recap["completed"]
            .as_array()
            .unwrap()
            .iter()
            .find(|entry| entry["item"] == format!("{REPO}#{number}"))
            .map(|entry| entry["detail"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert!(
        detail(2).contains("lives in another repository, not deleted"),
        "{recap}"
    );
    assert!(detail(3).contains("is protected, not deleted"), "{recap}");
    test.expect_writes(&[
        format!("PATCH {}", issue(1)),
        format!("DELETE /repos/{REPO}/git/refs/heads/branch-1"),
        format!("PATCH {}", issue(2)),
        format!("PATCH {}", issue(3)),
        format!("PATCH {}", issue(4)),
    ]);
    assert!(test.world().world.deleted_branches == ["branch-1"]);
    // Closed, the PR is not swept again: the branch is deleted once.
    test.clear_log();
    sweep(&test, &["--read-api", "rest"]).expect_code(0);
    test.expect_no_writes();

    // Without the input, no branch is read or deleted.
    let test = Test::new(|world| {
        world.stale_issue(1, 10, "github-actions[bot]").is_pr = true;
    });
    workflow(&test, &[]);
    sweep(&test, &["--read-api", "rest"]).expect_code(0);
    test.expect_writes(&[format!("PATCH {}", issue(1))]);
    assert!(!test
        .requests()
        .iter()
        .any(|r| r.path.contains("/branches/")));
}
