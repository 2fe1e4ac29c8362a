//! Unit tests of the green rule: runs, suites, required checks and statuses.

use super::*;

fn run(name: &str, conclusion: &str, minute: i64) -> CheckRun {
    CheckRun {
        name: name.into(),
        status: "completed".into(),
        conclusion: Some(conclusion.into()),
        started_at: Some(now() + Duration::minutes(minute)),
        completed_at: Some(now() + Duration::minutes(minute + 1)),
        id: minute as u64,
        suite_id: None,
        app: None,
    }
}

fn in_suite(suite: u64, app: &str, run: CheckRun) -> CheckRun {
    CheckRun {
        suite_id: Some(suite),
        app: Some(app.into()),
        ..run
    }
}

fn suite(
    id: u64,
    app: &str,
    status: &str,
    conclusion: Option<&str>,
    runs: u64,
    minutes_ago: i64,
) -> CheckSuite {
    CheckSuite {
        id,
        app: app.into(),
        app_name: app.to_uppercase(),
        status: status.into(),
        conclusion: conclusion.map(str::to_string),
        runs,
        created_at: Some(now() - Duration::minutes(minutes_ago)),
    }
}

fn checks(runs: Vec<CheckRun>) -> Checks {
    Checks {
        runs,
        suites: Vec::new(),
        workflows: None,
        statuses: Statuses::none(),
        required: Vec::new(),
        required_unknown: None,
        branch: "main".into(),
    }
}

fn judge(checks: &Checks, skipped: SkippedCountsAs) -> Result<Vec<String>, String> {
    green(checks, "abc", skipped, now(), Duration::hours(1)).map_err(|why| why.to_string())
}

#[test]
fn green_takes_the_newest_run_of_each_name() {
    let runs = vec![
        run("lint", "failure", 0),
        run("lint", "success", 5),
        run("test", "success", 1),
    ];
    assert_eq!(judge(&checks(runs), SkippedCountsAs::Excluded), Ok(vec![]));
    let runs = vec![run("lint", "success", 0), run("lint", "failure", 5)];
    assert_eq!(
        green(
            &checks(runs),
            "abc123",
            SkippedCountsAs::Excluded,
            now(),
            Duration::hours(1)
        )
        .unwrap_err()
        .to_string(),
        "check `lint` failed on abc123"
    );
}

#[test]
fn a_run_of_one_workflow_never_hides_a_failure_of_another() {
    let mut head = checks(vec![
        in_suite(1, ACTIONS_APP, run("build", "success", 5)),
        in_suite(2, ACTIONS_APP, run("build", "failure", 1)),
    ]);
    head.suites = vec![
        suite(1, ACTIONS_APP, "completed", Some("success"), 1, 10),
        suite(2, ACTIONS_APP, "completed", Some("failure"), 1, 10),
    ];
    assert!(needs_workflow_runs(&head.suites, now(), Duration::hours(1)));
    // Without the workflow runs, each suite is its own group: still not green.
    assert_eq!(
        judge(&head, SkippedCountsAs::Excluded).unwrap_err(),
        "check `build` (check suite 2) failed on abc"
    );
    head.workflows = Some(Ok(vec![
        WorkflowRun {
            suite_id: 1,
            workflow_id: 10,
            name: "CI".into(),
            status: "completed".into(),
        },
        WorkflowRun {
            suite_id: 2,
            workflow_id: 20,
            name: "Release".into(),
            status: "completed".into(),
        },
    ]));
    assert_eq!(
        judge(&head, SkippedCountsAs::Excluded).unwrap_err(),
        "check `build` (workflow `Release`) failed on abc"
    );
    // Two suites of one workflow (a re-run): the newest run counts.
    if let Some(Ok(workflows)) = &mut head.workflows {
        workflows[1].workflow_id = 10;
    }
    assert_eq!(judge(&head, SkippedCountsAs::Excluded), Ok(vec![]));
}

#[test]
fn suites_that_show_what_runs_do_not() {
    let mut head = checks(vec![in_suite(1, ACTIONS_APP, run("ci", "success", 0))]);
    head.suites = vec![
        suite(1, ACTIONS_APP, "completed", Some("success"), 1, 10),
        suite(2, "codecov", "queued", None, 0, 30),
    ];
    assert!(judge(&head, SkippedCountsAs::Excluded)
        .unwrap_err()
        .contains("CODECOV's check suite is queued with no runs yet"));
    head.suites[1].created_at = Some(now() - Duration::hours(3));
    assert_eq!(
        judge(&head, SkippedCountsAs::Excluded),
        Ok(vec![
            "ignored CODECOV's check suite, queued with no runs for 3 h".into()
        ])
    );
    // A suite that has runs and is not done is not green, whatever its runs say.
    head.suites[1].runs = 2;
    assert!(judge(&head, SkippedCountsAs::Excluded).is_err());
    // A fork's workflow waiting for approval has no runs at all.
    head.suites[1] = suite(2, ACTIONS_APP, "completed", Some("action_required"), 0, 300);
    assert!(judge(&head, SkippedCountsAs::Excluded)
        .unwrap_err()
        .contains("waits for a maintainer's approval"));
    // An old queued Actions suite is ignored only once its run is known not to wait.
    head.suites[1] = suite(2, ACTIONS_APP, "queued", None, 0, 300);
    assert!(needs_workflow_runs(&head.suites, now(), Duration::hours(1)));
    assert!(
        judge(&head, SkippedCountsAs::Excluded).is_err(),
        "not read: not ignored"
    );
    head.workflows = Some(Err(WorkflowRunsUnread("403".into())));
    assert!(judge(&head, SkippedCountsAs::Excluded)
        .unwrap_err()
        .contains("403"));
    let waiting = WorkflowRun {
        suite_id: 2,
        workflow_id: 3,
        name: "Deploy".into(),
        status: "waiting".into(),
    };
    head.workflows = Some(Ok(vec![waiting]));
    assert!(judge(&head, SkippedCountsAs::Excluded)
        .unwrap_err()
        .starts_with("workflow `Deploy` is waiting on abc"));
    head.workflows = Some(Ok(vec![]));
    assert_eq!(
        judge(&head, SkippedCountsAs::Excluded).map(|notes| notes.len()),
        Ok(1)
    );
}

#[test]
fn unknown_required_checks_fail_closed() {
    let mut head = checks(vec![run("ci", "success", 0)]);
    head.required_unknown = Some("GitHub answered 404 for the branch main".into());
    assert_eq!(
        judge(&head, SkippedCountsAs::Excluded).unwrap_err(),
        "the checks main requires are not known (GitHub answered 404 for the branch main), so abc is not taken as green"
    );
}

#[test]
fn required_checks_must_be_present() {
    let mut head = checks(vec![run("ci", "success", 0)]);
    head.required = vec!["ci".into(), "e2e".into()];
    assert_eq!(
        judge(&head, SkippedCountsAs::Excluded).unwrap_err(),
        "required check `e2e` (a rule of main) has not run on abc"
    );
    head.statuses = Statuses {
        state: "success".into(),
        total: 1,
        statuses: vec![CommitStatus {
            context: "e2e".into(),
            state: "success".into(),
        }],
    };
    assert_eq!(judge(&head, SkippedCountsAs::Excluded), Ok(vec![]));
}

#[test]
fn the_combined_status_covers_every_context() {
    let mut head = checks(vec![run("t", "success", 0)]);
    head.statuses = Statuses {
        state: "failure".into(),
        total: 300,
        statuses: Vec::new(),
    };
    assert_eq!(
        judge(&head, SkippedCountsAs::Excluded).unwrap_err(),
        "the combined commit status is failure on abc"
    );
    // total_count 0: no statuses, though GitHub says `pending`.
    let head = Checks {
        statuses: Statuses::none(),
        ..checks(vec![run("t", "success", 0)])
    };
    assert_eq!(judge(&head, SkippedCountsAs::Excluded), Ok(vec![]));
}

#[test]
fn green_fails_closed() {
    assert_eq!(
        judge(&checks(vec![]), SkippedCountsAs::Excluded).unwrap_err(),
        "no check has passed on abc"
    );
    let pending = CheckRun {
        status: "in_progress".into(),
        conclusion: None,
        ..run("test", "success", 0)
    };
    assert_eq!(
        judge(&checks(vec![pending]), SkippedCountsAs::Excluded).unwrap_err(),
        "check `test` is in progress on abc"
    );
    let skipped_only = || checks(vec![run("deploy", "skipped", 0)]);
    assert!(judge(&skipped_only(), SkippedCountsAs::Excluded).is_err());
    assert!(judge(&skipped_only(), SkippedCountsAs::Success).is_ok());
    let mixed = checks(vec![run("deploy", "skipped", 0), run("test", "success", 1)]);
    assert!(judge(&mixed, SkippedCountsAs::Failure).is_err());
    let mut legacy = checks(vec![run("t", "success", 0)]);
    legacy.statuses = Statuses {
        state: "pending".into(),
        total: 1,
        statuses: vec![CommitStatus {
            context: "ci/legacy".into(),
            state: "pending".into(),
        }],
    };
    assert_eq!(
        judge(&legacy, SkippedCountsAs::Excluded).unwrap_err(),
        "status `ci/legacy` is pending on abc"
    );
}

#[test]
fn green_since_is_the_newest_completion() {
    let pending = CheckRun {
        status: "in_progress".into(),
        completed_at: None,
        ..run("e2e", "success", 9)
    };
    let runs = vec![
        run("lint", "success", 5),
        pending,
        run("test", "success", 1),
    ];
    assert_eq!(green_since(&runs), Some(now() + Duration::minutes(6)));
    assert_eq!(green_since(&runs[1..2]), None);
}

#[test]
fn workflow_runs_are_read_only_when_needed() {
    let needs = |suites: &[CheckSuite]| needs_workflow_runs(suites, now(), Duration::hours(1));
    // One Actions suite, done, or queued with runs, or queued but young: no need.
    assert!(!needs(&[suite(
        1,
        ACTIONS_APP,
        "completed",
        Some("success"),
        1,
        300
    )]));
    assert!(!needs(&[suite(
        1,
        ACTIONS_APP,
        "completed",
        Some("success"),
        0,
        300
    )]));
    assert!(!needs(&[suite(1, ACTIONS_APP, "queued", None, 1, 300)]));
    assert!(!needs(&[suite(1, ACTIONS_APP, "queued", None, 0, 30)]));
    // An old orphan of another app is ignored without them.
    assert!(!needs(&[suite(1, "codecov", "queued", None, 0, 300)]));
    assert!(needs(&[suite(1, ACTIONS_APP, "queued", None, 0, 300)]));
}

#[test]
fn a_name_is_qualified_only_when_two_groups_share_it() {
    let mut head = checks(vec![in_suite(1, "circleci", run("lint", "failure", 0))]);
    head.suites = vec![suite(1, "circleci", "completed", Some("failure"), 1, 10)];
    assert_eq!(
        judge(&head, SkippedCountsAs::Excluded).unwrap_err(),
        "check `lint` failed on abc"
    );
    // Two apps, one suite each, both with a `build`: named by app. A run that does not say its
    // app has its suite's.
    let unnamed = |suite_id: u64, run: CheckRun| CheckRun {
        suite_id: Some(suite_id),
        ..run
    };
    let mut head = checks(vec![
        unnamed(1, run("build", "success", 0)),
        unnamed(2, run("build", "failure", 1)),
    ]);
    head.suites = vec![
        suite(1, "circleci", "completed", Some("success"), 1, 10),
        suite(2, "travis", "completed", Some("failure"), 1, 10),
    ];
    assert_eq!(
        judge(&head, SkippedCountsAs::Excluded).unwrap_err(),
        "check `build` (app `travis`) failed on abc"
    );
}

#[test]
fn each_conclusion_is_told_in_words() {
    for (conclusion, words) in [
        ("cancelled", "was cancelled"),
        ("timed_out", "timed out"),
        ("action_required", "needs action"),
        ("stale", "ended stale"),
    ] {
        assert_eq!(
            judge(
                &checks(vec![run("ci", conclusion, 0)]),
                SkippedCountsAs::Excluded
            )
            .unwrap_err(),
            format!("check `ci` {words} on abc")
        );
    }
    assert_eq!(
        judge(
            &checks(vec![run("ci", "neutral", 0), run("t", "success", 1)]),
            SkippedCountsAs::Failure
        )
        .unwrap_err(),
        "check `ci` was neutral on abc"
    );
}

#[test]
fn a_completed_suite_is_judged_by_its_runs_unless_it_has_none() {
    let passing = || checks(vec![in_suite(1, ACTIONS_APP, run("ci", "success", 0))]);
    let mut head = passing();
    head.suites = vec![
        suite(1, ACTIONS_APP, "completed", Some("success"), 1, 10),
        suite(2, "codecov", "completed", Some("failure"), 0, 10),
    ];
    assert_eq!(
        judge(&head, SkippedCountsAs::Excluded).unwrap_err(),
        "CODECOV's check suite ended failure with no check runs on abc"
    );
    // A suite with runs is judged by them; one that passed with none shows nothing.
    head.suites[1] = suite(2, "codecov", "completed", Some("failure"), 1, 10);
    assert_eq!(judge(&head, SkippedCountsAs::Excluded), Ok(vec![]));
    head.suites[1] = suite(2, "codecov", "completed", Some("success"), 0, 10);
    assert_eq!(judge(&head, SkippedCountsAs::Excluded), Ok(vec![]));
    // A fork's Actions suite is named as GitHub Actions' own.
    head.suites[1] = suite(2, ACTIONS_APP, "completed", Some("action_required"), 0, 300);
    assert_eq!(
        judge(&head, SkippedCountsAs::Excluded).unwrap_err(),
        "GitHub Actions' check suite 2 waits for a maintainer's approval to run on abc (its check suite concluded action_required)"
    );
    // A status gh-sweep does not know is not taken for an orphan's: it fails closed.
    head.suites[1] = suite(2, "codecov", "expected", None, 0, 300);
    assert_eq!(
        judge(&head, SkippedCountsAs::Excluded).unwrap_err(),
        "CODECOV's check suite is expected on abc"
    );
}
