//! Issue 9, "Merges: only what GitHub itself calls mergeable": one test per rule (1, 2, 3, 4, 5
//! and 7), each against a fake GitHub that behaves as GitHub does for it — a `blocked` PR's merge
//! succeeds for an admin's token, anyone may review a public repository, two workflows may both
//! have a `build` job, apps leave check suites queued forever, commit statuses paginate, and
//! `PUT /merge` answers 405 for several different reasons. Each scenario runs through both read
//! APIs (issue 13), and gives the same verdicts and writes through each.

use chrono::{Duration, Utc};
use serde_json::{json, Value};

use crate::support::world::{CheckRun, CheckSuite, RepoSettings, ACTIONS};
use crate::support::{attempts, later, merge, sweep, sweep_at};
use crate::support::{Fault, Test, REPO};

fn classify(test: &Test) -> Value {
    let outcome = test.run(&["classify", "merge", "--repo", REPO, "--json"]);
    outcome.expect_code(0);
    outcome.json()
}

/// Each completed item as (item, disposition, detail).
fn completed(recap: &Value) -> Vec<(String, String, String)> {
    recap["completed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["item"].as_str().unwrap().to_string(),
                c["disposition"].as_str().unwrap().to_string(),
                c["detail"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn outcome_of(recap: &Value, number: u64) -> (String, String) {
    let item = format!("{REPO}#{number}");
    completed(recap)
        .into_iter()
        .find(|(name, _, _)| *name == item)
        .map(|(_, disposition, detail)| (disposition, detail))
        .unwrap_or_else(|| panic!("{item} is not among the completed: {recap}"))
}

fn queue_keys(test: &Test) -> Vec<String> {
    let connection = rusqlite::Connection::open(test.db_path()).unwrap();
    let mut statement = connection
        .prepare("SELECT key FROM queue ORDER BY key")
        .unwrap();
    let rows = statement.query_map([], |row| row.get(0)).unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

/// How many times the run read a path.
fn reads_of(test: &Test, path: &str) -> usize {
    test.all_requests()
        .iter()
        .filter(|r| r.method == "GET" && r.path == path)
        .count()
}

fn pull_request_rule(approvals: u64) -> Value {
    json!({
        "type": "pull_request",
        "ruleset_source_type": "Repository",
        "ruleset_source": REPO,
        "ruleset_id": 7,
        "parameters": {
            "required_approving_review_count": approvals,
            "require_code_owner_review": true,
            "dismiss_stale_reviews_on_push": false,
            "require_last_push_approval": false,
            "required_review_thread_resolution": true,
            "allowed_merge_methods": ["merge", "squash", "rebase"],
        },
    })
}

/// Rule 1: `blocked` means branch protection or a ruleset is unmet, and an admin's token gets
/// the merge anyway: gh-sweep's own guard must refuse it. Every state but `clean`/`has_hooks` is
/// a deferral with its reason; `unknown` spends no attempt.
#[test]
fn rule_1_a_blocked_pr_is_never_merged_though_github_would_merge_it() {
    Test::each_api(
        |world| {
            for number in 1..=7 {
                world.green_pr(number);
            }
            world.main_rules().push(pull_request_rule(2));
            world.main_rules().push(json!({
                "type": "required_status_checks",
                "parameters": {"strict_required_status_checks_policy": false,
                               "required_status_checks": [{"context": "ci", "integration_id": 15368}]},
            }));
            // #6 targets a branch with no ruleset gh-sweep can read.
            world.issue(6).base = "legacy".into();
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            {
                let mut shared = test.world();
                let world = &mut shared.world;
                world.issue(1).mergeable_state = "blocked".into();
                // Still computing: GitHub says `unknown` (and `mergeable` may already be set).
                world.issue(2).mergeable_state = "unknown".into();
                world.issue(3).mergeable_state = "unstable".into();
                world.issue(4).mergeable_state = "draft".into();
                world.issue(5).mergeable_state = "has_hooks".into();
                world.issue(6).mergeable_state = "blocked".into();
                world.issue(7).mergeable_state = "dirty".into();
            }
            let recap = sweep(&test, &[]);
            let (disposition, detail) = outcome_of(&recap, 1);
            assert_eq!(disposition, "defer", "{detail}");
            assert!(
                detail.starts_with(
                    "blocked by branch protection or a ruleset (mergeable_state blocked)"
                ),
                "{detail}"
            );
            assert!(
                detail.contains("2 approving reviews")
                    && detail.contains("code owners")
                    && detail.contains("resolved review threads")
                    && detail.contains("required checks `ci`"),
                "the rules gh-sweep could read are named: {detail}"
            );
            assert_eq!(
                outcome_of(&recap, 2).0,
                "defer (no attempt spent)",
                "GitHub computing: {recap}"
            );
            assert!(outcome_of(&recap, 2).1.contains("still computing"));
            assert_eq!(outcome_of(&recap, 3).0, "defer");
            assert!(
                outcome_of(&recap, 3).1.contains("mergeable_state unstable"),
                "{recap}"
            );
            assert_eq!(outcome_of(&recap, 4).0, "defer");
            assert!(outcome_of(&recap, 4).1.contains("draft"), "{recap}");
            assert_eq!(outcome_of(&recap, 5).0, "merge", "has_hooks merges");
            let (disposition, detail) = outcome_of(&recap, 6);
            assert_eq!(disposition, "defer");
            assert!(
                detail.contains("mergeable_state blocked")
                    && detail.contains("no ruleset on legacy"),
                "{detail}"
            );
            assert!(
                outcome_of(&recap, 7).1.contains("mergeable_state dirty"),
                "{recap}"
            );
            assert_eq!(attempts(&test, 1), 1);
            assert_eq!(attempts(&test, 2), 0, "unknown spends no attempt");
            // Only #5 was merged; the fake would have merged #1 and #6 as well.
            test.expect_writes(&[merge(5)]);
            assert!(!test.world().world.issue(1).merged);
        },
    );
}

/// Rule 2: only reviews from accounts with write access count, read from the collaborator
/// permission endpoint once per reviewer and run, never from `author_association`. A
/// stranger's review neither approves nor blocks; DISMISSED withdraws a verdict.
#[test]
fn rule_2_only_reviewers_with_write_access_count() {
    Test::each_api(
        |world| {
            let now = world.now;
            world.roles.insert("mallory".into(), "read".into());
            world.roles.insert("troll".into(), "none".into());
            world.roles.insert("maud".into(), "maintain".into());
            world.roles.insert("trish".into(), "triage".into());
            // #1: approved only by a MEMBER with read access.
            let pr = world.green_pr(1);
            pr.reviews.clear();
            pr.review("mallory", "APPROVED", now).association = "MEMBER".into();
            pr.review("trish", "APPROVED", now).association = "COLLABORATOR".into();
            // #2: a maintainer approved; a stranger asked for changes afterwards.
            let pr = world.green_pr(2);
            pr.review("troll", "CHANGES_REQUESTED", now).association = "NONE".into();
            // #3: a private org member with maintain, who a GITHUB_TOKEN sees as a CONTRIBUTOR.
            let pr = world.green_pr(3);
            pr.reviews.clear();
            pr.review("maud", "APPROVED", now).association = "CONTRIBUTOR".into();
            // #4: the only approval was dismissed.
            let pr = world.green_pr(4);
            pr.reviews[0].state = "DISMISSED".into();
            // #5: a writer's request for changes still blocks.
            let pr = world.green_pr(5);
            pr.review("bob", "CHANGES_REQUESTED", now);
            // #6: bob approved, then asked for changes, and that request was dismissed: GitHub
            // turns the review itself into DISMISSED. The approval it replaced does not come back.
            let pr = world.green_pr(6);
            pr.reviews.clear();
            pr.review("bob", "APPROVED", now - Duration::minutes(20));
            pr.review("bob", "DISMISSED", now - Duration::minutes(10));
        },
        |test, _| {
            let recap = classify(&test);
            let (disposition, detail) = outcome_of(&recap, 1);
            assert_eq!(disposition, "ineligible: approved-at-head");
            assert!(
                detail.starts_with("no approval from an account with write access")
                    && detail.contains("mallory (read)")
                    && detail.contains("trish (triage)"),
                "{detail}"
            );
            assert_eq!(outcome_of(&recap, 2).0, "enqueue-merge", "{recap}");
            assert_eq!(outcome_of(&recap, 3).0, "enqueue-merge", "{recap}");
            assert_eq!(
                outcome_of(&recap, 4),
                (
                    "ineligible: approved-at-head".to_string(),
                    "no approval".to_string()
                )
            );
            assert_eq!(outcome_of(&recap, 5).1, "bob requested changes");
            assert_eq!(outcome_of(&recap, 6).1, "no approval", "{recap}");
            // Once per reviewer and run: "reviewer" reviewed #2..#5 and was read once.
            let path = |login: &str| format!("/repos/{REPO}/collaborators/{login}/permission");
            assert_eq!(reads_of(&test, &path("reviewer")), 1);
            assert_eq!(reads_of(&test, &path("troll")), 1);

            // poll then sweep: the sweep's guard counts the same way.
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            let recap = sweep(&test, &[]);
            let merged: Vec<String> = completed(&recap)
                .into_iter()
                .filter(|(_, disposition, _)| disposition == "merge")
                .map(|(item, _, _)| item)
                .collect();
            assert_eq!(merged, vec![format!("{REPO}#2"), format!("{REPO}#3")]);
            test.expect_writes(&[merge(2), merge(3)]);
        },
    );
}

/// Issue 20, points 1 and 2: a bot is matched by its account id, never by its login text, and
/// one rule holds for its review on both paths. GitHub's GraphQL `Bot.login` is the App's slug
/// (`coderabbitai`) where REST says `coderabbitai[bot]` (Esposter/Esposter#1059;
/// slapperwan/gh4a#1002), and the Copilot agent has no `[bot]` at all (posit-dev/ark#1001). The
/// permission endpoint says nothing useful of a bot (`none` for an App's bot,
/// anomalyco/opencode#43532; 404 for Copilot, anthropics/claude-code-action#1018), so it is never
/// asked: a bot's CHANGES_REQUESTED at the head blocks the merge (fail closed), a bot's approval
/// never counts as a writer's.
#[test]
fn rule_2_a_bots_review_is_judged_by_its_kind_on_both_paths() {
    Test::each_api(
        |world| {
            let now = world.now;
            // #1: a writer approved; a security bot asked for changes at the head.
            let pr = world.green_pr(1);
            pr.review("coderabbitai[bot]", "CHANGES_REQUESTED", now)
                .association = "NONE".into();
            // #2: only bots approved.
            let pr = world.green_pr(2);
            pr.reviews.clear();
            pr.review("renovate[bot]", "APPROVED", now).association = "NONE".into();
            pr.review("Copilot", "APPROVED", now).association = "NONE".into();
            // #3: a writer approved; Copilot asked for changes on an older commit, since pushed
            // over: it does not block the new head.
            let pr = world.green_pr(3);
            pr.review("Copilot", "CHANGES_REQUESTED", now - Duration::minutes(30))
                .commit_id = "pr-3-older".into();
            // #4: a writer approved; a bot asked for changes, then approved: its newest verdict.
            let pr = world.green_pr(4);
            pr.review(
                "coderabbitai[bot]",
                "CHANGES_REQUESTED",
                now - Duration::minutes(5),
            );
            pr.review("coderabbitai[bot]", "APPROVED", now);
        },
        |test, _| {
            let recap = classify(&test);
            assert_eq!(
                outcome_of(&recap, 1),
                (
                    "ineligible: approved-at-head".to_string(),
                    "coderabbitai (bot) requested changes".to_string()
                ),
                "{recap}"
            );
            let (disposition, detail) = outcome_of(&recap, 2);
            assert_eq!(disposition, "ineligible: approved-at-head", "{recap}");
            assert!(
                detail.contains("renovate (bot)") && detail.contains("Copilot (bot)"),
                "{detail}"
            );
            assert_eq!(outcome_of(&recap, 3).0, "enqueue-merge", "{recap}");
            assert_eq!(outcome_of(&recap, 4).0, "enqueue-merge", "{recap}");
            // No bot's permission is asked, under either login.
            let asked: Vec<String> = test
                .requests()
                .iter()
                .filter(|r| r.path.ends_with("/permission"))
                .map(|r| r.path.clone())
                .collect();
            assert_eq!(
                asked,
                vec![format!("/repos/{REPO}/collaborators/reviewer/permission")],
                "{asked:?}"
            );

            test.run(&["poll", "--repo", REPO]).expect_code(0);
            let recap = sweep(&test, &[]);
            let merged: Vec<String> = completed(&recap)
                .into_iter()
                .filter(|(_, disposition, _)| disposition == "merge")
                .map(|(item, _, _)| item)
                .collect();
            assert_eq!(merged, vec![format!("{REPO}#3"), format!("{REPO}#4")]);
            test.expect_writes(&[merge(3), merge(4)]);
        },
    );
}

/// Rule 2, continued: a token that may not read permissions (403) cannot count a review. That
/// is a deferral with its reason, never a stop of the run.
#[test]
fn rule_2_an_unreadable_permission_defers_and_never_stops_the_run() {
    Test::each_api(
        |world| {
            world.green_pr(1);
            world.green_pr(2);
        },
        |test, _| {
            test.world().world.permissions_forbidden = true;
            let recap = classify(&test);
            assert!(recap["stopped"].is_null(), "{recap}");
            let (disposition, detail) = outcome_of(&recap, 1);
            assert_eq!(disposition, "ineligible: approved-at-head");
            assert!(
                detail.contains("reviewer")
                    && detail.contains("cannot be counted")
                    && detail.contains("403"),
                "{detail}"
            );
            // poll could read them; by the sweep, the token can no longer.
            test.world().world.permissions_forbidden = false;
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            test.world().world.permissions_forbidden = true;
            let recap = sweep(&test, &[]);
            assert!(recap["stopped"].is_null(), "{recap}");
            assert_eq!(outcome_of(&recap, 1).0, "defer");
            assert_eq!(outcome_of(&recap, 2).0, "defer");
            assert!(outcome_of(&recap, 2).1.contains("cannot be counted"));
            test.expect_no_writes();
        },
    );
}

fn actions_suite(id: u64, workflow: (u64, &str), minutes_ago: i64) -> CheckSuite {
    CheckSuite {
        id,
        app: ACTIONS.into(),
        created_at: Utc::now() - Duration::minutes(minutes_ago),
        status: None,
        conclusion: None,
        workflow: Some((workflow.0, workflow.1.into())),
        run_status: None,
    }
}

fn job(id: u64, name: &str, conclusion: &str, minutes_ago: i64, suite: u64) -> CheckRun {
    CheckRun {
        id,
        name: name.into(),
        status: "completed".into(),
        conclusion: Some(conclusion.into()),
        started_at: Utc::now() - Duration::minutes(minutes_ago),
        suite,
    }
}

/// Rule 3: checks are judged per (app, workflow) and name, and the head's check suites count:
/// `action_required` or a suite with runs still going is not green; a suite queued with no runs
/// is ignored once older than `orphan_suite_minutes` (60), unless its workflow run is waiting.
#[test]
fn rule_3_checks_are_judged_per_workflow_and_check_suite() {
    Test::each_api(
        |world| {
            // #1: `build` failed in the Release workflow and passed, later, in CI.
            let pr = world.green_pr(1);
            pr.check_suites.push(actions_suite(901, (2, "CI"), 40));
            pr.check_suites.push(actions_suite(902, (3, "Release"), 40));
            pr.check_runs.push(job(9011, "build", "success", 10, 901));
            pr.check_runs.push(job(9021, "build", "failure", 20, 902));
            // #2: a fork's workflow waits for a maintainer's approval: no runs at all.
            world
                .green_pr(2)
                .suite(903, ACTIONS, 30, "completed", Some("action_required"))
                .workflow = Some((4, "Tests".into()));
            // #3: Codecov registered a suite two hours ago and never reported.
            world.green_pr(3).suite(904, "codecov", 120, "queued", None);
            // #4: the same, ten minutes ago: it may still report.
            world.green_pr(4).suite(905, "codecov", 10, "queued", None);
            // #5: an old queued Actions suite whose run waits behind a concurrency group.
            let pr = world.green_pr(5);
            let suite = pr.suite(906, ACTIONS, 120, "queued", None);
            suite.workflow = Some((5, "Deploy".into()));
            suite.run_status = Some("waiting".into());
            // #6: an old queued Actions suite whose workflow run is gone: orphaned.
            world
                .green_pr(6)
                .suite(907, ACTIONS, 120, "queued", None)
                .workflow = None;
            // #7: its base branch's ruleset requires `e2e`, which never ran.
            world.green_pr(7).base = "release".into();
            world.branch_rules.insert(
                format!("{REPO}:release"),
                vec![json!({
                    "type": "required_status_checks",
                    "parameters": {"strict_required_status_checks_policy": false,
                                   "required_status_checks": [{"context": "e2e"}, {"context": "ci"}]},
                })],
            );
        },
        |test, _| {
            let recap = classify(&test);
            assert_eq!(
                outcome_of(&recap, 1),
                (
                    "ineligible: green".to_string(),
                    "check `build` (workflow `Release`) failed on pr-1-head".to_string()
                )
            );
            let (disposition, detail) = outcome_of(&recap, 2);
            assert_eq!(disposition, "ineligible: green");
            assert!(
                detail.contains("`Tests`")
                    && detail.contains("approval")
                    && detail.contains("action_required"),
                "{detail}"
            );
            let (disposition, detail) = outcome_of(&recap, 3);
            assert_eq!(disposition, "enqueue-merge");
            assert!(
                detail.contains("ignored")
                    && detail.contains("Codecov")
                    && detail.contains("no runs"),
                "classify merge says what it ignored: {detail}"
            );
            let (disposition, detail) = outcome_of(&recap, 4);
            assert_eq!(disposition, "ineligible: green");
            assert!(
                detail.contains("Codecov") && detail.contains("queued"),
                "{detail}"
            );
            let (disposition, detail) = outcome_of(&recap, 5);
            assert_eq!(disposition, "ineligible: green");
            assert!(
                detail.contains("`Deploy`") && detail.contains("waiting"),
                "{detail}"
            );
            let (disposition, detail) = outcome_of(&recap, 6);
            assert_eq!(disposition, "enqueue-merge", "{detail}");
            assert!(detail.contains("ignored"), "{detail}");
            assert_eq!(
                outcome_of(&recap, 7),
                (
                    "ineligible: green".to_string(),
                    "required check `e2e` (a rule of release) has not run on pr-7-head".to_string()
                )
            );
            // Workflow runs are read only where a suite needs them: a head with more than one Actions
            // suite (#1, #2, #5, #6; #5 and #6 also have an old queued one). Branch rules: once a branch.
            let runs = test
                .requests()
                .iter()
                .filter(|r| r.path == format!("/repos/{REPO}/actions/runs"))
                .count();
            assert_eq!(runs, 4);
            assert_eq!(
                reads_of(&test, &format!("/repos/{REPO}/rules/branches/main")),
                1
            );

            // The age is configurable.
            test.config("[poll]\norphan_suite_minutes = 5\n");
            assert_eq!(outcome_of(&classify(&test), 4).0, "enqueue-merge");

            // Reading workflow runs needs Actions read access: a 403 defers the PR, never stops.
            test.world().world.actions_forbidden = true;
            let recap = classify(&test);
            assert!(recap["stopped"].is_null(), "{recap}");
            let (disposition, detail) = outcome_of(&recap, 5);
            assert_eq!(disposition, "ineligible: green");
            assert!(detail.contains("403"), "{detail}");
            assert_eq!(outcome_of(&recap, 4).0, "enqueue-merge");
        },
    );
}

/// Rule 4: the combined status is paginated. Its `state` covers every context, so a failure
/// past the first 100 is seen, and a `total_count` of 0 is no statuses, not pending.
#[test]
fn rule_4_a_failed_status_past_the_first_page_is_seen() {
    Test::each_api(
        |world| {
            let pr = world.green_pr(1);
            for n in 0..150 {
                let state = if n == 140 { "failure" } else { "success" };
                pr.statuses.push((format!("ctx-{n:03}"), state.into()));
            }
            let pr = world.green_pr(2);
            for n in 0..150 {
                pr.statuses.push((format!("ctx-{n:03}"), "success".into()));
            }
            // #3 has check runs and no commit status at all.
            world.green_pr(3);
        },
        |test, api| {
            let recap = classify(&test);
            assert_eq!(
                outcome_of(&recap, 1),
                (
                    "ineligible: green".to_string(),
                    "status `ctx-140` is failure on pr-1-head".to_string()
                )
            );
            assert_eq!(outcome_of(&recap, 2).0, "enqueue-merge");
            assert_eq!(
                outcome_of(&recap, 3).0,
                "enqueue-merge",
                "total_count 0 is not pending"
            );
            // REST's own reads: a combined `success` covers every context, so #2's second page
            // is not needed. (GraphQL's rollup contexts are followed page by page.)
            if api == "rest" {
                let status_reads = |sha: &str| {
                    test.requests()
                        .iter()
                        .filter(|r| r.path == format!("/repos/{REPO}/commits/{sha}/status"))
                        .count()
                };
                assert_eq!(status_reads("pr-1-head"), 2);
                assert_eq!(status_reads("pr-2-head"), 1);
            }
        },
    );
}

/// Rule 5: a 405 is not one thing. The allowed merge methods are read once per run and a
/// disallowed `merge_method` is refused before any attempt; a branch that requires the merge
/// queue is reported as such and not retried; other 405s say what GitHub said.
#[test]
fn rule_5_merge_methods_and_the_merge_queue_are_known_before_any_attempt() {
    Test::each_api(
        |world| {
            for number in 1..=3 {
                world.green_pr(number);
            }
            world.settings.insert(
                REPO.into(),
                RepoSettings {
                    allow_merge_commit: Some(false),
                    allow_squash_merge: Some(true),
                    allow_rebase_merge: Some(true),
                },
            );
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            // Each run reads the repository once (its canonical name and merge settings): count the
            // sweep's.
            test.clear_log();
            let recap = sweep(&test, &[]);
            for number in 1..=3 {
                let (disposition, detail) = outcome_of(&recap, number);
                assert_eq!(disposition, "defer (no attempt spent)");
                assert_eq!(
                detail,
                "merge_method \"merge\" is not allowed on octo/demo (it allows squash, rebase): set [sweep] merge_method"
            );
                assert_eq!(attempts(&test, number), 0);
            }
            assert_eq!(
                reads_of(&test, &format!("/repos/{REPO}")),
                1,
                "read once per run"
            );
            test.expect_no_writes();

            // A ruleset may allow fewer methods than the repository does.
            test.world().world.main_rules().push(json!({
            "type": "pull_request",
            "parameters": {"required_approving_review_count": 0, "allowed_merge_methods": ["rebase"]},
        }));
            test.config("[sweep]\nmerge_method = 'squash'\n");
            let recap = sweep_at(&test, &later(10));
            assert!(
                outcome_of(&recap, 1).1.contains("it allows rebase"),
                "{recap}"
            );
            test.config("[sweep]\nmerge_method = 'rebase'\n");
            let recap = sweep_at(&test, &later(20));
            assert_eq!(outcome_of(&recap, 1).0, "merge", "{recap}");
            test.expect_writes(&[merge(1), merge(2), merge(3)]);
        },
    );
}

#[test]
fn rule_5_a_branch_that_requires_the_merge_queue_is_reported_and_never_retried() {
    Test::each_api(
        |world| {
            world.green_pr(1);
            world.green_pr(2);
            world
                .main_rules()
                .push(json!({"type": "merge_queue", "parameters": {"merge_method": "SQUASH"}}));
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            let recap = sweep(&test, &[]);
            let (disposition, detail) = outcome_of(&recap, 1);
            assert_eq!(disposition, "skip: merge queue");
            assert!(detail.contains("requires the merge queue"), "{detail}");
            test.expect_no_writes();
            // Not retried: the next sweeps, hours later, read nothing about it.
            test.clear_log();
            for hours in [1, 3, 8] {
                let recap = sweep_at(&test, &later(hours * 60));
                assert!(recap["completed"].as_array().unwrap().is_empty(), "{recap}");
            }
            assert!(test.requests().is_empty(), "{:?}", test.requests());
        },
    );
}

#[test]
fn rule_5_each_405_is_told_apart() {
    Test::each_api(
        |world| {
            for number in 1..=3 {
                world.green_pr(number);
            }
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            // The rules say nothing (a ruleset the token cannot read), and GitHub refuses.
            test.fail(
            "PUT",
            "/pulls/1/merge",
            Fault::Refuse(
                405,
                "Repository rule violations found\n\nChanges must be made through the merge queue\n\n"
                    .into(),
            ),
            1,
        );
            test.fail(
                "PUT",
                "/pulls/2/merge",
                Fault::Refuse(
                    405,
                    "At least 2 approving reviews are required by reviewers with write access."
                        .into(),
                ),
                1,
            );
            test.fail(
                "PUT",
                "/pulls/3/merge",
                Fault::Refuse(
                    405,
                    "Base branch was modified. Review and try the merge again.".into(),
                ),
                1,
            );
            let outcome = test.run(&["sweep", "--repo", REPO, "--yes", "--json"]);
            outcome.expect_code(8);
            let recap = outcome.json();
            assert!(recap["stopped"].is_null(), "the run goes on: {recap}");
            let reason = |number: u64| {
                recap["failed"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|f| f["item"] == format!("{REPO}#{number}"))
                    .map(|f| f["reason"].as_str().unwrap().to_string())
                    .unwrap()
            };
            assert!(
                reason(1).contains("requires the merge queue"),
                "{}",
                reason(1)
            );
            assert!(
                reason(2).contains("2 approving reviews") && reason(2).contains("write access"),
                "{}",
                reason(2)
            );
            assert!(
                reason(3).contains("base branch was modified"),
                "{}",
                reason(3)
            );
            assert_eq!(attempts(&test, 1), 12, "the merge queue: never retried");
            assert_eq!(attempts(&test, 2), 1);
            assert_eq!(attempts(&test, 3), 1);
            test.expect_writes(&[merge(1), merge(2), merge(3)]);
            // #2 and #3 are tried again after the backoff; #1 is not.
            test.clear_log();
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            let recap = sweep_at(&test, &later(24 * 60));
            let tried: Vec<String> = completed(&recap)
                .into_iter()
                .map(|(item, _, _)| item)
                .collect();
            assert!(!tried.contains(&format!("{REPO}#1")), "{recap}");
            assert!(tried.contains(&format!("{REPO}#2")), "{recap}");
            assert!(tried.contains(&format!("{REPO}#3")), "{recap}");
            test.expect_writes(&[merge(2), merge(3)]);
        },
    );
}

/// Rule 7: the search index lags. `poll` trusts its own fresh read of the PR, not the hit.
#[test]
fn rule_7_poll_trusts_its_own_read_not_the_lagging_search_index() {
    Test::each_api(
        |world| {
            let pr = world.green_pr(7);
            pr.merged = true;
            pr.state = "closed".into();
            pr.search_stale = Some(json!({"state": "open"}));
            let pr = world.green_pr(8);
            pr.state = "closed".into();
            pr.search_stale = Some(json!({"state": "open"}));
            world.green_pr(9);
        },
        |test, _| {
            let recap = test.run(&["poll", "--repo", REPO, "--json"]).json();
            assert_eq!(
                outcome_of(&recap, 7),
                (
                    "skip: already merged".to_string(),
                    "merged on GitHub (the search index still shows it open)".to_string()
                )
            );
            assert_eq!(
                outcome_of(&recap, 8),
                (
                    "skip: not open".to_string(),
                    "the PR is closed (the search index still shows it open)".to_string()
                )
            );
            assert_eq!(outcome_of(&recap, 9).0, "enqueue-merge");
            assert_eq!(queue_keys(&test), vec![format!("merge:{REPO}#9@pr-9-head")]);
            test.expect_no_writes();
        },
    );
}

/// Issue 20, point 6: classic branch protection's required checks are known to a token with
/// read access. "Get a branch" summarises them (`protection.required_status_checks`,
/// google/go-github#625; the docs' example answer), read once per branch and run beside the
/// rulesets; a required context that has not reported keeps the head from green. Only the rest
/// of the classic rule needs admin, and the recap says exactly that.
#[test]
fn issue20_6_classic_protection_required_checks_are_read_from_the_branch_summary() {
    Test::each_api(
        |world| {
            world.protect("main").required_checks = vec!["ci".into(), "lint".into()];
            // #1 has only `ci`; `lint` never reported.
            world.green_pr(1);
            let pr = world.green_pr(2);
            let mut lint = pr.check_runs[0].clone();
            lint.id += 1;
            lint.name = "lint".into();
            pr.check_runs.push(lint);
            // #3 targets `release`, whose summary GitHub will not give (below).
            world.green_pr(3).base = "release".into();
        },
        |test, _| {
            // A summary that cannot be read fails the head closed: its required checks are not
            // known. (Only the summary's path: `/rules/branches/release` does not match.) Once
            // for each run below: classify, poll, sweep.
            test.fail("GET", "/demo/branches/release", Fault::Status(404), 3);
            let recap = classify(&test);
            assert_eq!(
                outcome_of(&recap, 3),
                (
                    "ineligible: green".to_string(),
                    "the checks release requires are not known (GitHub answered 404 for the branch release), so pr-3-head is not taken as green".to_string()
                )
            );
            assert_eq!(
                outcome_of(&recap, 1),
                (
                    "ineligible: green".to_string(),
                    "required check `lint` (a rule of main) has not run on pr-1-head".to_string()
                )
            );
            assert_eq!(outcome_of(&recap, 2).0, "enqueue-merge", "{recap}");
            assert_eq!(
                reads_of(&test, &format!("/repos/{REPO}/branches/main")),
                1,
                "the branch summary: once per branch and run"
            );

            // A blocked PR's reason names what the summary said, and no longer claims classic
            // protection is unreadable.
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            test.world().world.issue(2).mergeable_state = "blocked".into();
            let recap = sweep(&test, &[]);
            let (disposition, detail) = outcome_of(&recap, 2);
            assert_eq!(disposition, "defer", "{detail}");
            assert!(
                detail.contains("classic protection: required checks `ci`, `lint`")
                    && detail.contains(
                        "classic protection details need admin; its required checks are read from the branch summary"
                    )
                    && !detail.contains("readable only by admins"),
                "{detail}"
            );
            let (disposition, detail) = outcome_of(&recap, 3);
            assert_eq!(disposition, "defer", "{detail}");
            assert!(detail.contains("are not known"), "{detail}");
            test.expect_no_writes();
        },
    );
}

/// Rules that cannot be read are said, never taken as "no rules". "Get rules for a branch"
/// lists only 200 in GitHub's docs; a server without the rulesets endpoints answers 404 (the
/// reader's own reading of it: "no rulesets on this server?"): a blocked PR's reason then says
/// the rules could not be read, naming the branch, not that it has none. A token refused "Get a
/// branch" (403, with GitHub's message for a fine-grained token that lacks the permission) leaves
/// the checks that branch requires unknown, and its PRs fail green closed.
#[test]
fn unreadable_rules_are_said_and_a_refused_branch_summary_fails_closed() {
    let test = Test::new(|world| {
        world.green_pr(1);
        world.green_pr(2).base = "release".into();
    });
    test.fail("GET", "/rules/branches/main", Fault::Status(404), 10);
    test.fail(
        "GET",
        "/demo/branches/release",
        Fault::Refuse(
            403,
            "Resource not accessible by personal access token".into(),
        ),
        10,
    );
    let recap = classify(&test);
    let (disposition, detail) = outcome_of(&recap, 2);
    assert_eq!(disposition, "ineligible: green", "{detail}");
    assert!(
        detail.starts_with("the checks release requires are not known (reading the branch release was refused (403)"),
        "{detail}"
    );
    test.run(&["poll", "--repo", REPO]).expect_code(0);
    test.world().world.issue(1).mergeable_state = "blocked".into();
    let recap = sweep(&test, &[]);
    let (disposition, detail) = outcome_of(&recap, 1);
    assert_eq!(disposition, "defer", "{detail}");
    assert!(
        detail.contains(
            "the rules of main could not be read: GitHub answered 404 (no rulesets on this server?)"
        ),
        "{detail}"
    );
    test.expect_no_writes();
}

/// The bodies of the merges sent, in order.
fn merge_bodies(test: &Test) -> Vec<String> {
    test.requests()
        .iter()
        .filter(|r| r.method == "PUT")
        .map(|r| r.body.clone())
        .collect()
}

fn linear_history_rule() -> Value {
    // `GET /rules/branches/{branch}` lists a ruleset's rule as its `type` with its source
    // (REST docs, "Get rules for a branch"); `required_linear_history` has no parameters.
    json!({
        "type": "required_linear_history",
        "ruleset_source_type": "Repository",
        "ruleset_source": REPO,
        "ruleset_id": 9,
    })
}

/// Issue 20, point 7: a ruleset's `required_linear_history` (readable through `rules/branches`)
/// rules out a merge commit before any attempt: squash, else rebase, as the repository allows
/// (`allow_squash_merge`, `allow_rebase_merge` of `GET /repos/{o}/{r}`). With neither, nothing
/// can merge it: the trigger ends at once instead of after 12 attempts.
#[test]
fn issue20_7_a_ruleset_requiring_linear_history_rules_out_merge_commits() {
    Test::each_api(
        |world| {
            world.green_pr(1);
            world.main_rules().push(linear_history_rule());
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            let recap = sweep(&test, &[]);
            let (disposition, detail) = outcome_of(&recap, 1);
            assert_eq!(disposition, "merge", "{detail}");
            assert!(
                detail.contains("squash") && detail.contains("linear history"),
                "{detail}"
            );
            assert_eq!(
                merge_bodies(&test),
                vec![r#"{"merge_method":"squash","sha":"pr-1-head"}"#]
            );
            test.expect_writes(&[merge(1)]);

            // The repository allows no squash merge: rebase.
            test.clear_log();
            {
                let mut shared = test.world();
                let world = &mut shared.world;
                world.settings.insert(
                    REPO.into(),
                    RepoSettings {
                        allow_merge_commit: Some(true),
                        allow_squash_merge: Some(false),
                        allow_rebase_merge: Some(true),
                    },
                );
                // Opened after the last tick: GitHub stamps it now.
                let now = world.now;
                world.green_pr(2).updated_at = now;
            }
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            let recap = sweep(&test, &[]);
            assert_eq!(outcome_of(&recap, 2).0, "merge", "{recap}");
            assert_eq!(
                merge_bodies(&test),
                vec![r#"{"merge_method":"rebase","sha":"pr-2-head"}"#]
            );
            test.expect_writes(&[merge(2)]);

            // Merge commits only: no method is left, said once, never tried.
            test.clear_log();
            {
                let mut shared = test.world();
                let world = &mut shared.world;
                world.settings.insert(
                    REPO.into(),
                    RepoSettings {
                        allow_merge_commit: Some(true),
                        allow_squash_merge: Some(false),
                        allow_rebase_merge: Some(false),
                    },
                );
                // Opened after the last tick: GitHub stamps it now.
                let now = world.now;
                world.green_pr(3).updated_at = now;
            }
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            let recap = sweep(&test, &[]);
            let (disposition, detail) = outcome_of(&recap, 3);
            assert_eq!(disposition, "skip: no merge method", "{detail}");
            assert!(
                detail.contains("linear history") && detail.contains("merge commits only"),
                "{detail}"
            );
            assert_eq!(attempts(&test, 3), 12, "the trigger ends at once");
            assert!(merge_bodies(&test).is_empty());
            for hours in [1, 3, 8] {
                let recap = sweep_at(&test, &later(hours * 60));
                assert!(recap["completed"].as_array().unwrap().is_empty(), "{recap}");
            }
            test.expect_no_writes();
        },
    );
}

/// Issue 20, point 7: classic protection's "Require linear history" is visible to a non-admin
/// only as GitHub's 405 "This branch must not contain merge commits." (recorded in
/// runatlantis/atlantis#1176). That refusal wrote nothing: it costs one attempt, and the PR's
/// next attempt uses a method the repository allows other than `merge`. When none is left, the
/// refusal is final. Counted: PUTs, attempts.
#[test]
fn issue20_7_a_classic_linear_history_refusal_moves_the_next_attempt_to_another_method() {
    Test::each_api(
        |world| {
            world.green_pr(1);
            world.green_pr(2);
            world.protect("main").linear_history = true;
            world.settings.insert(
                REPO.into(),
                RepoSettings {
                    allow_merge_commit: Some(true),
                    allow_squash_merge: Some(false),
                    allow_rebase_merge: Some(true),
                },
            );
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            let outcome = test.run(&["sweep", "--repo", REPO, "--yes", "--json"]);
            outcome.expect_code(8);
            let recap = outcome.json();
            for number in [1, 2] {
                let failed = recap["failed"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|f| f["item"] == format!("{REPO}#{number}"))
                    .unwrap_or_else(|| panic!("#{number} failed: {recap}"));
                let reason = failed["reason"].as_str().unwrap();
                assert!(
                    reason.contains("must not contain merge commits")
                        && reason.contains("the next attempt uses rebase"),
                    "{reason}"
                );
                assert_eq!(attempts(&test, number), 1);
            }
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            let recap = sweep_at(&test, &later(10));
            assert_eq!(outcome_of(&recap, 1).0, "merge", "{recap}");
            assert_eq!(outcome_of(&recap, 2).0, "merge", "{recap}");
            assert_eq!(
                merge_bodies(&test),
                vec![
                    r#"{"merge_method":"merge","sha":"pr-1-head"}"#,
                    r#"{"merge_method":"merge","sha":"pr-2-head"}"#,
                    r#"{"merge_method":"rebase","sha":"pr-1-head"}"#,
                    r#"{"merge_method":"rebase","sha":"pr-2-head"}"#,
                ],
                "two PUTs each, not 12"
            );
            test.expect_writes(&[merge(1), merge(2), merge(1), merge(2)]);

            // Merge commits only: the refusal is final.
            test.clear_log();
            {
                let mut shared = test.world();
                let world = &mut shared.world;
                world.settings.insert(
                    REPO.into(),
                    RepoSettings {
                        allow_merge_commit: Some(true),
                        allow_squash_merge: Some(false),
                        allow_rebase_merge: Some(false),
                    },
                );
                // Opened after the last tick: GitHub stamps it now.
                let now = world.now;
                world.green_pr(3).updated_at = now;
            }
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            let outcome = test.run(&["sweep", "--repo", REPO, "--yes", "--json"]);
            outcome.expect_code(8);
            let recap = outcome.json();
            let reason = recap["failed"][0]["reason"].as_str().unwrap().to_string();
            assert!(
                reason.contains("must not contain merge commits")
                    && reason.contains("no other merge method"),
                "{reason}"
            );
            assert_eq!(attempts(&test, 3), 12, "final: the budget is spent");
            for hours in [1, 3, 8] {
                sweep_at(&test, &later(hours * 60));
            }
            assert_eq!(merge_bodies(&test).len(), 1, "never tried again");
            test.expect_writes(&[merge(3)]);
        },
    );
}

/// Issue 20, point 5: `mergeable: UNKNOWN` ends. A REST "Get a pull request" starts GitHub's
/// mergeability computation (REST docs, "Get a pull request": null means "GitHub has started a
/// background job ... resubmit the request"); whether a GraphQL read does is unverified, and the
/// fake says it does not. So a sweep that finds GitHub computing makes that one REST read (on
/// the REST path, its own read of the PR is it), spends no attempt, and reads it again on the
/// next sweep. Counted: reads of the PR, attempts, merges.
#[test]
fn issue20_5_computing_mergeability_is_started_by_one_rest_read_and_read_again() {
    Test::each_api(
        |world| {
            world.green_pr(1);
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            // The base branch moved: GitHub must compute again whether #1 can merge.
            test.world().world.issue(1).uncompute();
            test.clear_log();
            let recap = sweep(&test, &[]);
            let (disposition, detail) = outcome_of(&recap, 1);
            assert_eq!(disposition, "defer (no attempt spent)", "{detail}");
            assert!(
                detail.contains("still computing") && detail.contains("1 of 3 sweeps"),
                "{detail}"
            );
            assert_eq!(
                reads_of(&test, &format!("/repos/{REPO}/pulls/1")),
                1,
                "one REST read of the PR starts GitHub's computation, on either path"
            );
            assert_eq!(attempts(&test, 1), 0);
            test.expect_no_writes();

            test.clear_log();
            let recap = sweep(&test, &[]);
            assert_eq!(outcome_of(&recap, 1).0, "merge", "{recap}");
            test.expect_writes(&[merge(1)]);
        },
    );
}

/// Issue 20, point 5: a computation that never ends is not an endless free deferral. The first
/// three sweeps that find it spend no attempt; from the fourth on each is charged to the sweep
/// budget and the recap says so, so the budget ends it after 12.
#[test]
fn issue20_5_a_computation_that_never_ends_is_charged_after_three_sweeps() {
    Test::each_api(
        |world| {
            world.green_pr(1);
        },
        |test, _| {
            test.run(&["poll", "--repo", REPO]).expect_code(0);
            {
                // Null, and no job that will ever set it.
                let mut shared = test.world();
                let pr = shared.world.issue(1);
                pr.mergeable = None;
                pr.mergeable_state = "unknown".into();
            }
            for sweep_number in 1..=3 {
                let recap = sweep(&test, &[]);
                let (disposition, detail) = outcome_of(&recap, 1);
                assert_eq!(disposition, "defer (no attempt spent)", "{detail}");
                assert!(
                    detail.contains(&format!("{sweep_number} of 3 sweeps")),
                    "{detail}"
                );
                assert_eq!(attempts(&test, 1), 0);
            }
            let mut minutes = 0;
            for attempt in 1..=12 {
                minutes += 3 * 60;
                let recap = sweep_at(&test, &later(minutes));
                let (disposition, detail) = outcome_of(&recap, 1);
                assert_eq!(disposition, "defer", "{detail}");
                assert!(
                    detail.contains("still computing")
                        && detail.contains("after 3 sweeps")
                        && detail.contains(&format!("charged: attempt {attempt} of 12")),
                    "{detail}"
                );
                assert_eq!(attempts(&test, 1), attempt);
            }
            let recap = sweep_at(&test, &later(minutes + 3 * 60));
            assert!(
                recap["completed"].as_array().unwrap().is_empty(),
                "the budget ended it: {recap}"
            );
            test.expect_no_writes();
        },
    );
}
