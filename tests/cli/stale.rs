//! `stale-sweep` and `classify stale` end to end: each actions/stale rule, with gh-sweep's
//! documented differences. Each scenario runs through both read APIs (issue 13) but those
//! about REST's own requests and the workflow's move, whose config file is the workflow's.

use crate::support::{issue, Test, REPO, VIEWER};

#[test]
fn marks_closes_unmarks_and_keeps_in_one_sweep() {
    Test::each_api(
        |world| {
            world.open_issue(1, 5); // fresh
            world.open_issue(2, 74); // idle
            world.stale_issue(3, 8, VIEWER); // stale long enough
            world.stale_issue(4, 9, VIEWER);
            world.comment(4, "alice", 2, "still happening on 1.2");
        },
        |test, _| {
            let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
            outcome.expect_code(0);
            let recap = outcome.json();
            let dispositions: Vec<(String, String)> = recap["completed"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    (
                        c["item"].as_str().unwrap().to_string(),
                        c["disposition"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            assert_eq!(
                dispositions,
                vec![
                    ("octo/demo#1".to_string(), "keep".to_string()),
                    ("octo/demo#2".to_string(), "mark-stale".to_string()),
                    ("octo/demo#3".to_string(), "close".to_string()),
                    ("octo/demo#4".to_string(), "unmark".to_string()),
                ]
            );
            test.expect_writes(&[
                &format!("POST {}/labels", issue(2)),
                &format!("POST {}/comments", issue(2)),
                &format!("POST {}/comments", issue(3)),
                &format!("PATCH {}", issue(3)),
                &format!("DELETE {}/labels/Stale", issue(4)),
            ]);
            let mut world = test.world();
            assert!(world.world.issue(2).has_label("Stale"));
            assert_eq!(world.world.issue(3).state, "closed");
            assert_eq!(
                world.world.issue(3).state_reason.as_deref(),
                Some("not_planned")
            );
            assert!(!world.world.issue(4).has_label("Stale"));
            assert!(recap["budget"].is_null());
            assert!(recap["rerun"].is_null());
        },
    );
}

use crate::support::{items, marked, numbers};

#[test]
fn the_pool_is_read_oldest_first_a_page_at_a_time() {
    let test = Test::rest(|world| {
        for number in 1..=250 {
            world.open_issue(number, 5);
        }
    });
    test.run(&["classify", "stale", "--repo", REPO])
        .expect_code(0);
    let requests = test.requests();
    assert_eq!(requests.len(), 3, "250 items are three pages of 100");
    assert!(
        requests[0].query.contains("sort=created") && requests[0].query.contains("direction=asc"),
        "{}",
        requests[0].query
    );
    assert!(requests[0].query.contains("per_page=100"));
    assert!(
        requests[2].query.contains("page=3"),
        "the next page comes from the Link header"
    );
}

#[test]
fn bots_and_gh_sweeps_own_comments_never_count_as_activity() {
    // actions/stale un-stales on any update, including its own and a bot's. gh-sweep's own
    // comments are known by their marker; the token's user without one is the maintainer
    // speaking (see stale_rules.rs).
    Test::each_api(
        |world| {
            world.stale_issue(1, 8, VIEWER);
            world.comment(1, "dependabot[bot]", 3, "Bumps foo from 1.0 to 1.1");
            world.comment(
                1,
                VIEWER,
                2,
                "Still stale, as noted.\n\n<!-- gh-sweep:mark-stale -->",
            );
        },
        |test, _| {
            let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
            outcome.expect_code(0);
            let recap = outcome.json();
            assert_eq!(recap["completed"][0]["disposition"], "close", "{recap}");
        },
    );
}

#[test]
fn a_human_comment_unmarks_and_applies_the_unstale_labels() {
    Test::each_api(
        |world| {
            world.stale_issue(1, 8, "github-actions[bot]");
            world.issue(1).labels.push("needs-info".into());
            world.comment(1, "alice", 2, "here is the info");
        },
        |test, _| {
            test.config(
            "[stale]\nlabels_to_add_when_unstale = ['triage']\nlabels_to_remove_when_unstale = 'needs-info'\n",
        );
            let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
            outcome.expect_code(0);
            assert_eq!(
                outcome.json()["completed"][0]["detail"],
                "comment by alice after it was marked stale"
            );
            test.expect_writes(&[
                &format!("DELETE {}/labels/Stale", issue(1)),
                &format!("POST {}/labels", issue(1)),
                &format!("DELETE {}/labels/needs-info", issue(1)),
            ]);
            let mut shared = test.world();
            assert_eq!(shared.world.issue(1).labels, vec!["triage".to_string()]);
        },
    );
}

#[test]
fn the_close_clock_starts_at_the_label_not_at_updated_at() {
    // A bot commented two days ago, so updated_at is recent; actions/stale would wait another
    // week. The label went on eight days ago, so gh-sweep closes.
    Test::each_api(
        |world| {
            world.stale_issue(1, 8, VIEWER);
            world.comment(1, "renovate[bot]", 2, "rebased");
            world.stale_issue(2, 3, VIEWER);
        },
        |test, _| {
            let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
            let recap = outcome.json();
            assert_eq!(recap["completed"][0]["disposition"], "close");
            assert_eq!(
                recap["completed"][0]["detail"],
                "stale for 8 days >= 7; would write: comment; close (not_planned)"
            );
            assert_eq!(recap["completed"][1]["disposition"], "keep");
            assert_eq!(
                recap["completed"][1]["detail"],
                "stale for 3 days; closes after 7"
            );
        },
    );
}

#[test]
fn a_stale_label_without_a_labeled_event_is_kept_not_failed() {
    // GitHub's events keep a label's old name after a rename, so a label no event names is
    // GitHub's normal answer, not a fault of the item (see stale_rules.rs).
    Test::each_api(
        |world| {
            world.open_issue(1, 90).labels.push("Stale".into());
            world.open_issue(2, 5);
        },
        |test, _| {
            let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
            outcome.expect_code(0);
            let recap = outcome.json();
            assert_eq!(recap["completed"][0]["disposition"], "keep");
            assert!(
                recap["completed"][0]["detail"]
                    .as_str()
                    .unwrap()
                    .starts_with("the \"Stale\" label's date is unknown"),
                "{recap}"
            );
            assert!(recap["rerun"].is_null(), "{recap}");
        },
    );
}

#[test]
fn requests_stay_near_the_minimum() {
    // Comments are read only where updated_at moved after the label.
    let test = Test::rest(|world| {
        world.stale_issue(1, 8, "github-actions[bot]");
        world.stale_issue(2, 8, "github-actions[bot]");
        world.comment(2, "alice", 1, "ping");
        world.open_issue(3, 74);
    });
    test.run(&["classify", "stale", "--repo", REPO])
        .expect_code(0);
    let lines: Vec<String> = test.requests().iter().map(|r| r.line()).collect();
    assert_eq!(
        lines,
        vec![
            format!("GET /repos/{REPO}/issues"),
            format!("GET {}/events", issue(1)),
            format!("GET {}/events", issue(2)),
            format!("GET {}/comments", issue(2)),
            "GET /user".to_string(),
        ]
    );
}

#[test]
fn exemptions_follow_actions_stale_case_insensitively() {
    Test::each_api(
        |world| {
            world.open_issue(1, 90).labels.push("Pinned".into());
            world.open_issue(2, 90).milestone = Some("v2.0".into());
            world.open_issue(3, 90).assignees.push("Bob".into());
            world.open_pr(4, 90).draft = true;
            world.open_pr(5, 90);
            world.open_issue(6, 90);
        },
        |test, _| {
            test.config(
            "[stale]\nexempt_issue_labels = ['pinned']\nexempt_milestones = 'V2.0'\nexempt_assignees = ['bob']\nexempt_draft_pr = true\ndays_before_pr_stale = -1\n",
        );
            let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
            let recap = outcome.json();
            let dispositions: Vec<&str> = recap["completed"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["disposition"].as_str().unwrap())
                .collect();
            assert_eq!(
                dispositions,
                vec![
                    "exempt: label \"pinned\"",
                    "exempt: milestone \"v2.0\"",
                    "exempt: assigned to bob",
                    "exempt: draft PR",
                    "keep",
                    "mark-stale",
                ]
            );
            assert_eq!(
                recap["completed"][4]["detail"],
                "PRs are never marked stale (days_before_stale = -1)"
            );
        },
    );
}

#[test]
fn closing_uses_the_configured_reason_and_label() {
    Test::each_api(
        |world| {
            world.stale_issue(1, 8, VIEWER);
            world.stale_issue(2, 8, VIEWER).is_pr = true;
        },
        |test, _| {
            test.config("[stale]\nclose_issue_reason = 'completed'\nclose_issue_label = 'closed-stale'\nclose_pr_message = ''\n");
            test.run(&["stale-sweep", "--repo", REPO, "--yes"])
                .expect_code(0);
            test.expect_writes(&[
                &format!("POST {}/comments", issue(1)),
                &format!("POST {}/labels", issue(1)),
                &format!("PATCH {}", issue(1)),
                &format!("PATCH {}", issue(2)),
            ]);
            let requests = test.requests();
            let patch = requests.iter().find(|r| r.method == "PATCH").unwrap();
            assert_eq!(
                patch.body,
                r#"{"state":"closed","state_reason":"completed"}"#
            );
            let pr_patch = requests.iter().rfind(|r| r.method == "PATCH").unwrap();
            assert_eq!(pr_patch.body, r#"{"state":"closed"}"#);
        },
    );
}

/// Issue 20, point 10, a deliberate difference from actions/stale: actions/stale removes the
/// close label from every open, unlocked item it processes (`_removeCloseLabel` in its
/// `issues-processor.ts`, called before any exemption), a label a person put on by hand
/// included. gh-sweep never removes a label it did not decide to write: an open item carrying
/// the close label keeps it, through either read API, and nothing is written for it.
#[test]
fn an_open_item_keeps_a_close_label_a_person_put_on() {
    Test::each_api(
        |world| {
            world.open_issue(1, 2).labels.push("closed-stale".into());
            world.open_issue(2, 2).labels.push("closed-stale".into());
            world.issue(2).is_pr = true;
        },
        |test, _| {
            test.config(
                "[stale]\nclose_issue_label = 'closed-stale'\nclose_pr_label = 'closed-stale'\n",
            );
            let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
            outcome.expect_code(0);
            let recap = outcome.json();
            for entry in recap["completed"].as_array().unwrap() {
                assert_eq!(entry["disposition"], "keep", "{recap}");
            }
            test.expect_no_writes();
        },
    );
}

#[test]
fn removing_a_label_that_is_already_gone_is_success() {
    Test::each_api(
        |world| {
            world.stale_issue(1, 8, "github-actions[bot]");
            world.comment(1, "alice", 1, "still here");
        },
        |test, _| {
            test.fail(
                "DELETE",
                "/labels/Stale",
                crate::support::Fault::Status(404),
                1,
            );
            let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
            outcome.expect_code(0);
            assert_eq!(outcome.json()["completed"][0]["disposition"], "unmark");
            test.expect_writes(&[&format!("DELETE {}/labels/Stale", issue(1))]);
            assert_eq!(
                test.requests().last().unwrap().status,
                404,
                "GitHub said the label was gone"
            );
        },
    );
}

#[test]
fn only_selects_items_and_reads_each_on_its_own() {
    Test::each_api(
        |world| {
            for number in 1..=5 {
                world.open_issue(number, 74);
            }
            world.issue(4).state = "closed".into();
        },
        |test, api| {
            let outcome = test.run(&[
                "classify", "stale", "--repo", REPO, "--only", "#2,#4,#9", "--json",
            ]);
            outcome.expect_code(8);
            let recap = outcome.json();
            assert_eq!(
                items(&recap["completed"]),
                vec!["octo/demo#2", "octo/demo#4"]
            );
            assert_eq!(recap["completed"][1]["disposition"], "skip: not open");
            assert_eq!(items(&recap["failed"]), numbers(9..=9));
            // The reason quotes GitHub's answer, which each API words its own way: REST's 404,
            // GraphQL's NOT_FOUND error (with HTTP 200).
            let not_found = if api == "rest" { "404" } else { "NOT_FOUND" };
            assert!(
                recap["failed"][0]["reason"]
                    .as_str()
                    .unwrap()
                    .contains(not_found),
                "{recap}"
            );
            // REST's own reads: one request per selected item.
            if api == "rest" {
                let paths: Vec<String> = test.requests().iter().map(|r| r.path.clone()).collect();
                assert_eq!(paths, vec![issue(2), issue(4), issue(9)]);
            }
        },
    );
}

#[test]
fn classify_writes_nothing_and_completes_every_item() {
    Test::each_api(
        |world| {
            world.open_issue(1, 74);
            world.stale_issue(2, 8, VIEWER);
        },
        |test, _| {
            let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
            outcome.expect_code(0);
            let recap = outcome.json();
            assert_eq!(items(&recap["completed"]), numbers(1..=2));
            assert_eq!(
                recap["completed"][0]["detail"],
                "idle 74 days >= 60; would write: label +Stale; comment"
            );
            assert!(recap["rerun"].is_null());
            test.expect_no_writes();
        },
    );
}

#[test]
fn an_update_no_comment_or_event_explains_counts_as_activity() {
    // A body edit or a push moves updated_at without a comment or an event.
    Test::each_api(
        |world| {
            world.stale_issue(1, 8, "github-actions[bot]");
            let edited = world.days_ago(1);
            world.issue(1).updated_at = edited;
        },
        |test, _| {
            let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
            let recap = outcome.json();
            assert_eq!(recap["completed"][0]["disposition"], "unmark", "{recap}");
            assert_eq!(
            recap["completed"][0]["detail"],
            "updated, actor unknown (an edit or a push), after it was marked stale; would write: label -Stale"
        );
        },
    );
}

#[test]
fn control_characters_from_github_are_printed_escaped() {
    Test::each_api(
        |world| {
            world.open_issue(1, 74).title = "\u{1b}[2J\u{1b}[31mpwned\nfake: line".into();
            world
                .open_issue(2, 90)
                .labels
                .push("\u{1b}]0;title\u{7}".into());
        },
        |test, _| {
            test.config("[stale]\nexempt_issue_labels = [\"\\u001b]0;title\\u0007\"]\n");
            let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes"]);
            outcome.expect_code(0);
            for text in [&outcome.stdout, &outcome.stderr] {
                assert!(
                    !text.contains('\u{1b}') && !text.contains('\u{7}'),
                    "raw control characters:\n{text}"
                );
            }
            assert!(
                outcome
                    .stderr
                    .contains(r"\u{1b}[2J\u{1b}[31mpwned\nfake: line"),
                "{}",
                outcome.stderr
            );
            assert!(
                outcome
                    .stdout
                    .contains(r#"exempt: label "\u{1b}]0;title\u{7}""#),
                "{}",
                outcome.stdout
            );
            test.expect_writes(&marked(1));
        },
    );
}

#[test]
fn a_server_clock_ahead_of_ours_keeps_items_and_says_why() {
    // GitHub's timestamps three days ahead of the local clock: nothing is idle, and the recap
    // explains it instead of counting negative days.
    Test::each_api(
        |world| {
            world.open_issue(1, -3);
        },
        |test, _| {
            let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
            outcome.expect_code(0);
            let recap = outcome.json();
            assert_eq!(recap["completed"][0]["disposition"], "keep");
            assert!(
                recap["completed"][0]["detail"]
                    .as_str()
                    .unwrap()
                    .ends_with("is in the future; the clocks disagree"),
                "{recap}"
            );
            test.expect_no_writes();
        },
    );
}

const WORKFLOW: &str = r#"name: Close stale issues
on:
  schedule:
    - cron: "30 1 * * *"
jobs:
  stale:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/stale@v9
        with:
          repo-token: ${{ secrets.GITHUB_TOKEN }}
          stale-issue-message: 'This issue is stale because it has been open 30 days with no activity.'
          days-before-stale: 30
          days-before-close: "5"
          exempt-issue-labels: 'pinned,security'
          exempt-draft-pr: true
          operations-per-run: 100
"#;

#[test]
fn a_workflow_of_actions_stale_moves_over() {
    let test = Test::new(|world| {
        world.open_issue(1, 40);
        world.open_issue(2, 40).labels.push("Security".into());
    });
    let workflow = test.dir.path().join(".github/workflows/stale.yml");
    std::fs::create_dir_all(workflow.parent().unwrap()).unwrap();
    std::fs::write(&workflow, WORKFLOW).unwrap();
    let printed = test.run(&[
        "stale-sweep",
        "--from-workflow",
        ".github/workflows/stale.yml",
        "--print-config",
    ]);
    printed.expect_code(0);
    assert!(
        test.requests().is_empty(),
        "printing the config reads nothing"
    );
    let expected =
        "# From the actions/stale step of .github/workflows/stale.yml (its inputs, in snake_case).
# `repo-token` is not carried over: gh-sweep reads GH_TOKEN, GITHUB_TOKEN or `gh auth token`
[stale]
close_issue_message = \"\"
close_pr_message = \"\"
days_before_close = 5
days_before_stale = 30
enable_statistics = true
exempt_draft_pr = true
exempt_issue_labels = [
    \"pinned\",
    \"security\",
]
operations_per_run = 100
stale_issue_message = \"This issue is stale because it has been open 30 days with no activity.\"
stale_pr_message = \"\"
";
    assert_eq!(printed.stdout, expected);
    assert!(
        printed
            .stderr
            .contains("`repo-token` is not carried over: gh-sweep reads GH_TOKEN"),
        "{}",
        printed.stderr
    );
    // Every other input is carried, with actions/stale's default where the workflow left it
    // out: no PR or close message (actions/stale has none), statistics on.
    assert!(
        !printed.stderr.contains("`operations-per-run`"),
        "{}",
        printed.stderr
    );

    let outcome = test.run(&[
        "classify",
        "stale",
        "--repo",
        REPO,
        "--from-workflow",
        ".github/workflows/stale.yml",
        "--json",
    ]);
    outcome.expect_code(0);
    let recap = outcome.json();
    assert_eq!(
        recap["completed"][0]["disposition"], "mark-stale",
        "days_before_stale = 30 from the workflow"
    );
    assert_eq!(
        recap["completed"][1]["disposition"],
        "exempt: label \"security\""
    );

    // What it prints is a config file gh-sweep reads back to the same decisions.
    std::fs::write(test.config_path(), &printed.stdout).unwrap();
    let again = test
        .run(&["classify", "stale", "--repo", REPO, "--json"])
        .json();
    assert_eq!(again["completed"], recap["completed"]);

    std::fs::write(
        &workflow,
        WORKFLOW.replace("days-before-stale: 30", "days-before-stale: soon"),
    )
    .unwrap();
    let bad = test.run(&[
        "classify",
        "stale",
        "--repo",
        REPO,
        "--from-workflow",
        ".github/workflows/stale.yml",
    ]);
    bad.expect_code(2);
    assert!(
        bad.stderr.contains("`days-before-stale: soon`"),
        "{}",
        bad.stderr
    );
}

/// `classify stale --json` carries what it would write in `planned`, as a dry run does: the
/// items are completed (classify writes nothing), and `planned` says what a sweep would send.
#[test]
fn classify_stale_json_carries_its_planned_writes() {
    let test = Test::new(|world| {
        world.open_issue(1, 100);
        world.open_issue(2, 3);
    });
    let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
    outcome.expect_code(0);
    let recap = outcome.json();
    assert_eq!(
        recap["planned"],
        serde_json::json!([{
            "item": "octo/demo#1",
            "disposition": "mark-stale",
            "detail": "idle 100 days >= 60",
            "writes": ["label +Stale", "comment"],
        }]),
        "{recap}"
    );
    assert_eq!(items(&recap["completed"]), ["octo/demo#1", "octo/demo#2"]);
    test.expect_no_writes();
}

/// An item gh-sweep marked itself is judged on the next run by the store's record of the mark
/// (when the label went on, when gh-sweep last wrote there): neither its events nor its
/// comments are read again, since nothing happened on it after gh-sweep's own comment.
#[test]
fn an_item_gh_sweep_marked_is_judged_by_its_record_with_no_read_of_its_history() {
    let test = Test::rest(|world| {
        world.open_issue(2, 74); // idle: marked by the first run
    });
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(0);
    test.expect_writes(&[
        &format!("POST {}/labels", issue(2)),
        &format!("POST {}/comments", issue(2)),
    ]);
    assert!(test.world().world.issue(2).has_label("Stale"));
    let before = test.requests().len();
    let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
    outcome.expect_code(0);
    assert_eq!(
        outcome.json()["completed"][0]["disposition"],
        "keep",
        "{}",
        outcome.stdout
    );
    let history: Vec<String> = test.requests()[before..]
        .iter()
        .map(|r| r.line())
        .filter(|line| line.contains(&issue(2)))
        .collect();
    assert_eq!(history, Vec::<String>::new());
}
