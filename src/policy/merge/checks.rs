//! The green rule: the head's check runs (the newest per group and name), its check suites
//! (what their runs do not show: an approval awaited, an orphan queued with no runs), the checks
//! the branch's rules require, and the commit statuses by their combined state.

use chrono::{DateTime, Duration, Utc};

use super::{short, SkippedCountsAs};

/// A check run on the head commit.
#[derive(Clone, Debug)]
pub struct CheckRun {
    pub name: String,
    pub status: String,
    pub conclusion: Option<String>,
    /// When it started (or was created); the newest run of each name counts.
    pub started_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    pub id: u64,
    /// The check suite it belongs to, and that suite's app (its slug), when GitHub says.
    pub suite_id: Option<u64>,
    pub app: Option<String>,
}

/// GitHub Actions' app: one check suite per workflow run, so several on one commit.
pub(crate) const ACTIONS_APP: &str = "github-actions";

/// A check suite on the head: one per app, and for GitHub Actions one per workflow run.
pub struct CheckSuite {
    pub id: u64,
    /// The app's slug and its name as people know it.
    pub app: String,
    pub app_name: String,
    pub status: String,
    pub conclusion: Option<String>,
    /// `latest_check_runs_count`: a suite with none has nothing to show but its own status.
    pub runs: u64,
    pub created_at: Option<DateTime<Utc>>,
}

/// A GitHub Actions workflow run on the head, for its suite's workflow and real status.
pub struct WorkflowRun {
    pub suite_id: u64,
    pub workflow_id: u64,
    pub name: String,
    pub status: String,
}

/// Statuses of a suite or workflow run that is not done: `requested`, `waiting` and `pending`
/// are GitHub Actions' (a run held by a concurrency group, or waiting for approval).
fn unfinished(status: &str) -> bool {
    matches!(
        status,
        "queued" | "in_progress" | "requested" | "waiting" | "pending"
    )
}

fn is_orphan_candidate(suite: &CheckSuite) -> bool {
    suite.runs == 0 && unfinished(&suite.status)
}

/// Whether judging the head needs its workflow runs: to tell GitHub Actions' suites apart by
/// workflow (more than one on the head), or to see whether an old suite with no runs is still
/// waiting for its run. Reading them needs Actions read access, so it is done only then.
pub(crate) fn needs_workflow_runs(
    suites: &[CheckSuite],
    now: DateTime<Utc>,
    orphan: Duration,
) -> bool {
    let actions: Vec<&CheckSuite> = suites
        .iter()
        .filter(|suite| suite.app == ACTIONS_APP)
        .collect();
    actions.len() > 1
        || actions.iter().any(|suite| {
            is_orphan_candidate(suite) && suite.created_at.is_some_and(|at| now - at >= orphan)
        })
}

/// The commit statuses on the head: the combined state GitHub computes over every context,
/// how many contexts there are, and those read (all, unless the combined state is success).
pub struct Statuses {
    pub state: String,
    pub total: u64,
    pub statuses: Vec<CommitStatus>,
}

impl Statuses {
    pub fn none() -> Self {
        Statuses {
            state: "pending".into(),
            total: 0,
            statuses: Vec::new(),
        }
    }
}

/// Why the head's workflow runs could not be read: GitHub's refusal, in its words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct WorkflowRunsUnread(pub String);

/// What the green rule judges: the head's check runs, check suites, workflow runs (when read:
/// `Some(Err)` says why they could not be), commit statuses, and the checks the branch's rules
/// require.
pub(crate) struct Checks {
    pub runs: Vec<CheckRun>,
    pub suites: Vec<CheckSuite>,
    pub workflows: Option<Result<Vec<WorkflowRun>, WorkflowRunsUnread>>,
    pub statuses: Statuses,
    pub required: Vec<String>,
    /// Why the checks the branch requires are not known: the head is then not green.
    pub required_unknown: Option<String>,
    /// The branch whose rules named `required`.
    pub branch: String,
}

/// When the head went green: the newest `completed_at` of its runs (GitHub's clock, not ours).
pub(crate) fn green_since(runs: &[CheckRun]) -> Option<DateTime<Utc>> {
    runs.iter().filter_map(|run| run.completed_at).max()
}

/// A commit status on the head, as the combined status reports it (newest per context).
pub struct CommitStatus {
    pub context: String,
    pub state: String,
}

/// The grouping of a check run: its app, and the workflow (or, when the workflow is not known
/// and the app has several suites on the head, the suite). Two workflows may both have a job
/// `build`: a run of one never hides a run of the other.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Group {
    app: Option<String>,
    workflow: Option<u64>,
    suite: Option<u64>,
}

fn workflow_of(checks: &Checks, suite: Option<u64>) -> Option<&WorkflowRun> {
    let suite = suite?;
    checks
        .workflows
        .as_ref()?
        .as_ref()
        .ok()?
        .iter()
        .find(|run| run.suite_id == suite)
}

fn group_of(checks: &Checks, run: &CheckRun) -> Group {
    let suite = run
        .suite_id
        .and_then(|id| checks.suites.iter().find(|suite| suite.id == id));
    let app = run
        .app
        .clone()
        .or_else(|| suite.map(|suite| suite.app.clone()));
    if let Some(workflow) = workflow_of(checks, run.suite_id) {
        return Group {
            app,
            workflow: Some(workflow.workflow_id),
            suite: None,
        };
    }
    let several = app.as_ref().is_some_and(|app| {
        checks
            .suites
            .iter()
            .filter(|suite| &suite.app == app)
            .count()
            > 1
    });
    Group {
        app,
        workflow: None,
        suite: if several { run.suite_id } else { None },
    }
}

/// How a suite is named in a reason: its workflow, or its app.
fn suite_label(checks: &Checks, suite: &CheckSuite) -> String {
    match workflow_of(checks, Some(suite.id)) {
        Some(workflow) => format!("workflow `{}`", workflow.name),
        None if suite.app == ACTIONS_APP => format!("GitHub Actions' check suite {}", suite.id),
        None => format!("{}'s check suite", suite.app_name),
    }
}

fn age(duration: Duration) -> String {
    let minutes = duration.num_minutes();
    if minutes >= 120 {
        format!("{} h", minutes / 60)
    } else {
        format!("{minutes} min")
    }
}

/// Whether the head is green; `Ok` carries what was ignored, for the reason in words. The
/// steps in their order: the newest run of each name per group, then the suites (what their
/// runs do not show), the checks the branch's rules require, and the commit statuses.
pub(crate) fn green(
    checks: &Checks,
    head_sha: &str,
    skipped: SkippedCountsAs,
    now: DateTime<Utc>,
    orphan: Duration,
) -> Result<Vec<String>, NotGreen> {
    judge_green(checks, head_sha, skipped, now, orphan)
}

/// Why the head is not green, in words (the first step that failed says it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct NotGreen(pub String);

fn judge_green(
    checks: &Checks,
    head_sha: &str,
    skipped: SkippedCountsAs,
    now: DateTime<Utc>,
    orphan: Duration,
) -> Result<Vec<String>, NotGreen> {
    let head = short(head_sha);
    let newest = newest_runs(checks);
    let passed = judge_runs(checks, &newest, skipped, head)?;
    let ignored = judge_suites(checks, head, now, orphan)?;
    required_present(checks, &newest, head)?;
    judge_statuses(&checks.statuses, head)?;
    if passed == 0 && checks.statuses.total == 0 {
        return Err(NotGreen(format!("no check has passed on {head}")));
    }
    Ok(ignored)
}

/// The newest run (by start, then id) of each name in each group, sorted by name and group.
fn newest_runs(checks: &Checks) -> Vec<(Group, &CheckRun)> {
    let mut newest: Vec<(Group, &CheckRun)> = Vec::new();
    for run in &checks.runs {
        let group = group_of(checks, run);
        match newest
            .iter_mut()
            .find(|(kept_group, kept)| *kept_group == group && kept.name == run.name)
        {
            Some((_, kept)) => {
                if (run.started_at, run.id) > (kept.started_at, kept.id) {
                    *kept = run;
                }
            }
            None => newest.push((group, run)),
        }
    }
    newest.sort_by(|a, b| (&a.1.name, &a.0).cmp(&(&b.1.name, &b.0)));
    newest
}

/// How a run is named in a reason: a name kept in more than one group is named with its
/// workflow (or suite, or app).
fn run_label(
    checks: &Checks,
    newest: &[(Group, &CheckRun)],
    group: &Group,
    run: &CheckRun,
) -> String {
    let shared = newest
        .iter()
        .filter(|(_, other)| other.name == run.name)
        .count()
        > 1;
    if !shared {
        return format!("check `{}`", run.name);
    }
    match workflow_of(checks, run.suite_id) {
        Some(workflow) => format!("check `{}` (workflow `{}`)", run.name, workflow.name),
        None => match (&group.app, group.suite) {
            (_, Some(suite)) => format!("check `{}` (check suite {suite})", run.name),
            (Some(app), None) => format!("check `{}` (app `{app}`)", run.name),
            (None, None) => format!("check `{}`", run.name),
        },
    }
}

/// Each newest run must be completed and pass (a skipped or neutral one counts as `skipped`
/// says); `Ok` carries how many passed.
fn judge_runs(
    checks: &Checks,
    newest: &[(Group, &CheckRun)],
    skipped: SkippedCountsAs,
    head: &str,
) -> Result<usize, NotGreen> {
    let mut passed = 0;
    for (group, run) in newest {
        let name = run_label(checks, newest, group, run);
        if run.status != "completed" {
            return Err(NotGreen(format!(
                "{name} is {} on {head}",
                run.status.replace('_', " ")
            )));
        }
        match run.conclusion.as_deref() {
            Some("success") => passed += 1,
            Some("skipped") | Some("neutral") => match skipped {
                SkippedCountsAs::Excluded => {}
                SkippedCountsAs::Success => passed += 1,
                SkippedCountsAs::Failure => {
                    return Err(NotGreen(format!(
                        "{name} was {} on {head}",
                        run.conclusion.as_deref().unwrap_or_default()
                    )))
                }
            },
            Some(other) => return Err(NotGreen(format!("{name} {} on {head}", describe(other)))),
            None => return Err(NotGreen(format!("{name} has no conclusion on {head}"))),
        }
    }
    Ok(passed)
}

/// The suites, in the order of their ids: what their runs do not show. `Ok` carries the
/// orphans ignored, in words.
fn judge_suites(
    checks: &Checks,
    head: &str,
    now: DateTime<Utc>,
    orphan: Duration,
) -> Result<Vec<String>, NotGreen> {
    let mut ignored = Vec::new();
    let mut suites: Vec<&CheckSuite> = checks.suites.iter().collect();
    suites.sort_by_key(|suite| suite.id);
    for suite in suites {
        let name = suite_label(checks, suite);
        if suite.status == "completed" {
            judge_completed_suite(suite, &name, head)?;
        } else {
            ignored.push(judge_unfinished_suite(
                checks, suite, &name, head, now, orphan,
            )?);
        }
    }
    Ok(ignored)
}

/// A completed suite fails the head when it waits for a maintainer's approval (a fork's
/// workflow), or when it failed without any run to show it.
fn judge_completed_suite(suite: &CheckSuite, name: &str, head: &str) -> Result<(), NotGreen> {
    let conclusion = suite.conclusion.as_deref().unwrap_or_default();
    if conclusion == "action_required" {
        return Err(NotGreen(format!(
            "{name} waits for a maintainer's approval to run on {head} (its check suite concluded action_required)"
        )));
    }
    if suite.runs == 0
        && matches!(
            conclusion,
            "failure" | "cancelled" | "timed_out" | "startup_failure"
        )
    {
        return Err(NotGreen(format!(
            "{name} ended {conclusion} with no check runs on {head}"
        )));
    }
    Ok(())
}

/// A suite that is not done keeps the head from green, unless it is an orphan: queued with no
/// runs for at least `orphan`, and (for GitHub Actions) with a workflow run known not to wait.
/// `Ok` carries the note that it was ignored.
fn judge_unfinished_suite(
    checks: &Checks,
    suite: &CheckSuite,
    name: &str,
    head: &str,
    now: DateTime<Utc>,
    orphan: Duration,
) -> Result<String, NotGreen> {
    let status = suite.status.replace('_', " ");
    if suite.runs > 0 || !unfinished(&suite.status) {
        return Err(NotGreen(format!("{name} is {status} on {head}")));
    }
    let waited = suite.created_at.map(|at| now - at);
    match waited {
        Some(waited) if waited >= orphan => {}
        _ => {
            return Err(NotGreen(format!(
                "{name} is {status} with no runs yet on {head} (ignored once {} old)",
                age(orphan)
            )))
        }
    }
    if suite.app == ACTIONS_APP {
        workflow_run_done(checks, suite, name, &status, head)?;
    }
    Ok(format!(
        "ignored {name}, {status} with no runs for {}",
        age(waited.unwrap_or(orphan))
    ))
}

/// An Actions suite with no runs is ignored only when its workflow run was read and does not
/// wait (a concurrency group or an approval can hold a run with no jobs for long).
fn workflow_run_done(
    checks: &Checks,
    suite: &CheckSuite,
    name: &str,
    status: &str,
    head: &str,
) -> Result<(), NotGreen> {
    match &checks.workflows {
        None => Err(NotGreen(format!(
            "{name} is {status} with no runs on {head}, and its workflow run was not read"
        ))),
        Some(Err(why)) => Err(NotGreen(format!(
            "{name} is {status} with no runs on {head}, and whether its workflow run still waits cannot be read: {why}"
        ))),
        Some(Ok(_)) => {
            let waiting =
                workflow_of(checks, Some(suite.id)).filter(|run| unfinished(&run.status));
            match waiting {
                Some(run) => Err(NotGreen(format!(
                    "workflow `{}` is {} on {head}: its run has no jobs yet (a concurrency group, or an approval, holds it)",
                    run.name,
                    run.status.replace('_', " ")
                ))),
                None => Ok(()),
            }
        }
    }
}

/// The checks the branch's rules require: each present on the head, as a check run or a
/// commit status (its result is judged with the rest).
fn required_present(
    checks: &Checks,
    newest: &[(Group, &CheckRun)],
    head: &str,
) -> Result<(), NotGreen> {
    if let Some(why) = &checks.required_unknown {
        return Err(NotGreen(format!(
            "the checks {} requires are not known ({why}), so {head} is not taken as green",
            checks.branch
        )));
    }
    for required in &checks.required {
        let present = newest.iter().any(|(_, run)| &run.name == required)
            || checks
                .statuses
                .statuses
                .iter()
                .any(|status| &status.context == required);
        if !present {
            return Err(NotGreen(format!(
                "required check `{required}` (a rule of {}) has not run on {head}",
                checks.branch
            )));
        }
    }
    Ok(())
}

/// Commit statuses: each read must be success, and the combined state covers every context,
/// past any page. No status at all (GitHub then says `pending`) is not a failure.
fn judge_statuses(statuses: &Statuses, head: &str) -> Result<(), NotGreen> {
    if statuses.total == 0 {
        return Ok(());
    }
    for status in &statuses.statuses {
        if status.state != "success" {
            return Err(NotGreen(format!(
                "status `{}` is {} on {head}",
                status.context, status.state
            )));
        }
    }
    if statuses.state != "success" {
        return Err(NotGreen(format!(
            "the combined commit status is {} on {head}",
            statuses.state
        )));
    }
    Ok(())
}

fn describe(conclusion: &str) -> String {
    match conclusion {
        "failure" => "failed".into(),
        "cancelled" => "was cancelled".into(),
        "timed_out" => "timed out".into(),
        "action_required" => "needs action".into(),
        other => format!("ended {other}"),
    }
}
