//! Merge eligibility for `poll` (seed 000): the guards in their fixed order (held, in flight,
//! backoff) and the classifier's rules (docs-only, green, approved at the head), each failing
//! closed: a missing, truncated or unreadable fact means "not eligible", with that reason.
//! Pure: facts in, the first unmet condition out, in words.
//!
//! Issue 9 made these rules GitHub's: checks are judged per (app, workflow) and name, with the
//! head's check suites (a suite waiting for approval, or one queued with no runs, which an app
//! may leave forever); commit statuses by their combined state; approvals only from accounts
//! with write access; the branch's rules (required checks, the merge queue, merge methods).

use chrono::{DateTime, Duration, Utc};
use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

/// The `[poll]` table.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct PollRules {
    pub rules: Vec<Rule>,
    pub docs_globs: Vec<String>,
    pub held_labels: Vec<String>,
    pub skipped_counts_as: SkippedCountsAs,
    pub failed_backoff_hours: u32,
    /// A check suite queued with no runs is ignored once it is this old (apps such as Codecov
    /// register a suite and never report), unless its workflow run is still waiting.
    pub orphan_suite_minutes: u32,
}

impl Default for PollRules {
    fn default() -> Self {
        PollRules {
            rules: vec![Rule::DocsOnly, Rule::Green, Rule::ApprovedAtHead],
            docs_globs: ["**/*.md", "**/*.rst", "**/*.txt", "docs/**"]
                .map(String::from)
                .to_vec(),
            held_labels: ["do-not-merge", "do-not-merge/hold"]
                .map(String::from)
                .to_vec(),
            skipped_counts_as: SkippedCountsAs::Excluded,
            failed_backoff_hours: 6,
            orphan_suite_minutes: 60,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    DocsOnly,
    Green,
    ApprovedAtHead,
}

/// How `sweep` merges: `[sweep] merge_method`, sent as GitHub's `merge_method`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeMethod {
    Merge,
    Squash,
    Rebase,
}

impl MergeMethod {
    pub const ALL: [MergeMethod; 3] =
        [MergeMethod::Merge, MergeMethod::Squash, MergeMethod::Rebase];

    /// The word the config and GitHub use for it; the one place it is spelled.
    pub fn word(self) -> &'static str {
        match self {
            MergeMethod::Merge => "merge",
            MergeMethod::Squash => "squash",
            MergeMethod::Rebase => "rebase",
        }
    }

    /// `[sweep] merge_method`'s word as a method; the error names the bad value.
    pub fn from_config(word: &str) -> Result<MergeMethod, String> {
        MergeMethod::ALL
            .into_iter()
            .find(|method| method.word() == word)
            .ok_or_else(|| {
                format!(
                    "invalid [sweep] merge_method = \"{word}\": use \"merge\", \"squash\" or \"rebase\""
                )
            })
    }
}

impl std::fmt::Display for MergeMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

impl Rule {
    /// The rule's name, as `[poll] rules` spells it and the recap shows it.
    pub fn name(self) -> &'static str {
        match self {
            Rule::DocsOnly => "docs-only",
            Rule::Green => "green",
            Rule::ApprovedAtHead => "approved-at-head",
        }
    }
}

/// How a skipped or neutral check run counts.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SkippedCountsAs {
    /// Ignored, but at least one check must have run and passed.
    Excluded,
    Success,
    Failure,
}

impl PollRules {
    pub fn validate(&self) -> Result<(), String> {
        self.globs()?;
        if self.failed_backoff_hours > 24 * 30 {
            return Err(format!(
                "invalid [poll] failed_backoff_hours = {}: use hours from 0 to 720",
                self.failed_backoff_hours
            ));
        }
        if self.orphan_suite_minutes > 7 * 24 * 60 {
            return Err(format!(
                "invalid [poll] orphan_suite_minutes = {}: use minutes from 0 to 10080 (a week)",
                self.orphan_suite_minutes
            ));
        }
        Ok(())
    }

    pub fn orphan_age(&self) -> Duration {
        Duration::minutes(i64::from(self.orphan_suite_minutes))
    }

    pub fn globs(&self) -> Result<GlobSet, String> {
        let mut builder = GlobSetBuilder::new();
        for pattern in &self.docs_globs {
            let glob = Glob::new(pattern)
                .map_err(|error| format!("invalid [poll] docs_globs entry `{pattern}`: {error}"))?;
            builder.add(glob);
        }
        builder
            .build()
            .map_err(|error| format!("invalid [poll] docs_globs: {error}"))
    }

    pub fn backoff(&self) -> Duration {
        Duration::hours(i64::from(self.failed_backoff_hours))
    }
}

/// The guard before any database or GitHub call: `(HELD)` in the title or a held label.
pub fn held(title: &str, labels: &[String], rules: &PollRules) -> Option<String> {
    if title.contains("(HELD)") {
        return Some("title has (HELD)".into());
    }
    labels
        .iter()
        .find(|label| {
            rules
                .held_labels
                .iter()
                .any(|held| held.eq_ignore_ascii_case(label))
        })
        .map(|label| format!("label \"{label}\""))
}

/// Where a queue row is in its life (seed 002). Stored as its word, [`QueueStatus::as_str`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueStatus {
    /// Waiting to be claimed.
    Pending,
    /// Leased to one worker until its lease ends.
    Claimed,
    /// Carried out (or folded into a row that was); kept, so the key says "already done".
    Done,
    /// Given up on: it would only fail again.
    Abandoned,
    /// A merge GitHub refused: the row the backoff reads.
    Failed,
}

impl QueueStatus {
    pub const ALL: [QueueStatus; 5] = [
        QueueStatus::Pending,
        QueueStatus::Claimed,
        QueueStatus::Done,
        QueueStatus::Abandoned,
        QueueStatus::Failed,
    ];

    /// The word the queue's `status` column holds, and the recap shows.
    pub fn as_str(self) -> &'static str {
        match self {
            QueueStatus::Pending => "pending",
            QueueStatus::Claimed => "claimed",
            QueueStatus::Done => "done",
            QueueStatus::Abandoned => "abandoned",
            QueueStatus::Failed => "failed",
        }
    }
}

impl std::str::FromStr for QueueStatus {
    type Err = String;

    fn from_str(word: &str) -> Result<Self, Self::Err> {
        QueueStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == word)
            .ok_or_else(|| {
                format!("a queue row's status is `{word}`, which gh-sweep does not know")
            })
    }
}

impl std::fmt::Display for QueueStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A merge already queued for this PR, by the status of its queue row.
pub fn in_flight(status: QueueStatus) -> bool {
    matches!(
        status,
        QueueStatus::Pending | QueueStatus::Claimed | QueueStatus::Done
    )
}

pub fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

/// One changed file: its path and, for a rename, its old path.
pub struct ChangedFile {
    pub path: String,
    pub previous: Option<String>,
}

/// GitHub lists at most 3,000 files of a PR.
pub const FILE_LIST_LIMIT: usize = 3000;

pub fn docs_only(files: &[ChangedFile], globs: &GlobSet) -> Result<(), String> {
    if files.len() >= FILE_LIST_LIMIT {
        return Err(format!(
            "docs-only: unknown, GitHub lists at most {FILE_LIST_LIMIT} files"
        ));
    }
    if files.is_empty() {
        return Err("docs-only: the PR changes no file".into());
    }
    for file in files {
        for path in std::iter::once(&file.path).chain(file.previous.as_ref()) {
            if !globs.is_match(path) {
                return Err(format!("docs-only: {path} is not docs"));
            }
        }
    }
    Ok(())
}

/// A check run on the head commit.
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
pub const ACTIONS_APP: &str = "github-actions";

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
pub fn needs_workflow_runs(suites: &[CheckSuite], now: DateTime<Utc>, orphan: Duration) -> bool {
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
    pub statuses: Vec<Status>,
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

/// What the green rule judges: the head's check runs, check suites, workflow runs (when read:
/// `Some(Err)` says why they could not be), commit statuses, and the checks the branch's rules
/// require.
pub struct Checks {
    pub runs: Vec<CheckRun>,
    pub suites: Vec<CheckSuite>,
    pub workflows: Option<Result<Vec<WorkflowRun>, String>>,
    pub statuses: Statuses,
    pub required: Vec<String>,
    /// The branch whose rules named `required`.
    pub branch: String,
}

/// When the head went green: the newest `completed_at` of its runs (GitHub's clock, not ours).
pub fn green_since(runs: &[CheckRun]) -> Option<DateTime<Utc>> {
    runs.iter().filter_map(|run| run.completed_at).max()
}

/// The time of the newest counted approval of the head (seed 001's `review-approved`).
pub fn approved_since(
    reviews: &[Review],
    head_sha: &str,
    access: &dyn Fn(&str) -> Access,
) -> Option<DateTime<Utc>> {
    verdicts(reviews)
        .into_iter()
        .filter(|review| {
            review.state == "APPROVED"
                && review.commit_id.as_deref() == Some(head_sha)
                && access(&review.login) == Access::Write
        })
        .filter_map(|review| review.submitted_at)
        .max()
}

/// A commit status on the head, as the combined status reports it (newest per context).
pub struct Status {
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

/// Whether the head is green; `Ok` carries what was ignored, for the reason in words.
pub fn green(
    checks: &Checks,
    head_sha: &str,
    skipped: SkippedCountsAs,
    now: DateTime<Utc>,
    orphan: Duration,
) -> Result<Vec<String>, String> {
    let head = short(head_sha);
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
    // A name kept in more than one group is named with its workflow (or suite).
    let label = |group: &Group, run: &CheckRun| {
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
    };
    let mut passed = 0;
    for (group, run) in &newest {
        let name = label(group, run);
        if run.status != "completed" {
            return Err(format!(
                "{name} is {} on {head}",
                run.status.replace('_', " ")
            ));
        }
        match run.conclusion.as_deref() {
            Some("success") => passed += 1,
            Some("skipped") | Some("neutral") => match skipped {
                SkippedCountsAs::Excluded => {}
                SkippedCountsAs::Success => passed += 1,
                SkippedCountsAs::Failure => {
                    return Err(format!(
                        "{name} was {} on {head}",
                        run.conclusion.as_deref().unwrap_or_default()
                    ))
                }
            },
            Some(other) => return Err(format!("{name} {} on {head}", describe(other))),
            None => return Err(format!("{name} has no conclusion on {head}")),
        }
    }
    // The suites: what their runs do not show.
    let mut ignored = Vec::new();
    let mut suites: Vec<&CheckSuite> = checks.suites.iter().collect();
    suites.sort_by_key(|suite| suite.id);
    for suite in suites {
        let name = suite_label(checks, suite);
        let conclusion = suite.conclusion.as_deref().unwrap_or_default();
        if suite.status == "completed" {
            if conclusion == "action_required" {
                return Err(format!(
                    "{name} waits for a maintainer's approval to run on {head} (its check suite concluded action_required)"
                ));
            }
            if suite.runs == 0
                && matches!(
                    conclusion,
                    "failure" | "cancelled" | "timed_out" | "startup_failure"
                )
            {
                return Err(format!(
                    "{name} ended {conclusion} with no check runs on {head}"
                ));
            }
            continue;
        }
        let status = suite.status.replace('_', " ");
        if suite.runs > 0 || !unfinished(&suite.status) {
            return Err(format!("{name} is {status} on {head}"));
        }
        let waited = suite.created_at.map(|at| now - at);
        match waited {
            Some(waited) if waited >= orphan => {}
            _ => {
                return Err(format!(
                    "{name} is {status} with no runs yet on {head} (ignored once {} old)",
                    age(orphan)
                ))
            }
        }
        if suite.app == ACTIONS_APP {
            match &checks.workflows {
                None => {
                    return Err(format!(
                        "{name} is {status} with no runs on {head}, and its workflow run was not read"
                    ))
                }
                Some(Err(why)) => {
                    return Err(format!(
                        "{name} is {status} with no runs on {head}, and whether its workflow run still waits cannot be read: {why}"
                    ))
                }
                Some(Ok(_)) => {
                    if let Some(run) = workflow_of(checks, Some(suite.id))
                        .filter(|run| unfinished(&run.status))
                    {
                        return Err(format!(
                            "workflow `{}` is {} on {head}: its run has no jobs yet (a concurrency group, or an approval, holds it)",
                            run.name,
                            run.status.replace('_', " ")
                        ));
                    }
                }
            }
        }
        ignored.push(format!(
            "ignored {name}, {status} with no runs for {}",
            age(waited.unwrap_or(orphan))
        ));
    }
    // The checks the branch's rules require: each present on the head (its result is judged
    // above, with the rest).
    for required in &checks.required {
        let present = newest.iter().any(|(_, run)| &run.name == required)
            || checks
                .statuses
                .statuses
                .iter()
                .any(|status| &status.context == required);
        if !present {
            return Err(format!(
                "required check `{required}` (a rule of {}) has not run on {head}",
                checks.branch
            ));
        }
    }
    // Commit statuses: the combined state covers every context, past any page.
    let statuses = &checks.statuses;
    if statuses.total > 0 {
        for status in &statuses.statuses {
            if status.state != "success" {
                return Err(format!(
                    "status `{}` is {} on {head}",
                    status.context, status.state
                ));
            }
        }
        if statuses.state != "success" {
            return Err(format!(
                "the combined commit status is {} on {head}",
                statuses.state
            ));
        }
    }
    if passed == 0 && statuses.total == 0 {
        return Err(format!("no check has passed on {head}"));
    }
    Ok(ignored)
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

/// A review, as the reviews list gives it.
pub struct Review {
    pub login: String,
    pub state: String,
    pub commit_id: Option<String>,
    pub submitted_at: Option<DateTime<Utc>>,
    /// GitHub's `author_association`: shown, never trusted (MEMBER and COLLABORATOR include
    /// read-only accounts; a `GITHUB_TOKEN` sees private org members as CONTRIBUTOR).
    pub association: Option<String>,
}

/// A reviewer's access to the repository, from the collaborator permission endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// Write, maintain or admin: the review counts.
    Write,
    /// Less than write (the role GitHub names): a stranger's review neither approves nor blocks.
    Without(String),
    /// The permission could not be read (why): the review cannot be counted either way.
    Unknown(String),
}

impl Access {
    /// From `GET /repos/{o}/{r}/collaborators/{user}/permission`: `permission` is the base role
    /// (maintain reads as write), `role_name` the role itself.
    pub fn from_permission(permission: Option<&str>, role: Option<&str>) -> Access {
        let writes = |name: &str| matches!(name, "admin" | "maintain" | "write");
        if permission.is_some_and(writes) || role.is_some_and(writes) {
            return Access::Write;
        }
        Access::Without(
            role.or(permission)
                .filter(|name| !name.is_empty())
                .unwrap_or("none")
                .to_string(),
        )
    }
}

/// The newest verdict of each reviewer: comments do not change it, a dismissal withdraws it.
pub fn verdicts(reviews: &[Review]) -> Vec<&Review> {
    let mut newest: Vec<&Review> = Vec::new();
    for review in reviews.iter().filter(|review| {
        matches!(
            review.state.as_str(),
            "APPROVED" | "CHANGES_REQUESTED" | "DISMISSED"
        )
    }) {
        match newest
            .iter_mut()
            .find(|kept| kept.login.eq_ignore_ascii_case(&review.login))
        {
            Some(kept) => {
                if review.submitted_at >= kept.submitted_at {
                    *kept = review;
                }
            }
            None => newest.push(review),
        }
    }
    newest.retain(|review| review.state != "DISMISSED");
    newest
}

/// The reviewers whose access decides: those with a standing verdict.
pub fn reviewers(reviews: &[Review]) -> Vec<String> {
    verdicts(reviews)
        .into_iter()
        .map(|review| review.login.clone())
        .collect()
}

/// The approval rule's verdict. What the guard does with it follows its kind (changes
/// requested end a sweep, seed 001), never its words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApprovalVerdict {
    Approved,
    /// Not approved at the head (yet), with the reason in words.
    NotApproved(String),
    /// A reviewer with write access requested changes.
    ChangesRequested {
        reviewer: String,
    },
}

impl ApprovalVerdict {
    /// Why the PR is not approved, in words; `None` when it is.
    pub fn reason(&self) -> Option<String> {
        match self {
            ApprovalVerdict::Approved => None,
            ApprovalVerdict::NotApproved(why) => Some(why.clone()),
            ApprovalVerdict::ChangesRequested { reviewer } => {
                Some(format!("{reviewer} requested changes"))
            }
        }
    }

    /// The verdict as the other rules give theirs: passed, or the reason in words.
    pub fn into_result(self) -> Result<(), String> {
        self.reason().map_or(Ok(()), Err)
    }
}

/// At least one approval of the head and no changes requested, counting only reviewers with
/// write access. A reviewer whose access could not be read cannot be counted either way: that
/// is a reason not to merge yet, never a guess.
pub fn approved_at_head(
    reviews: &[Review],
    head_sha: &str,
    access: &dyn Fn(&str) -> Access,
) -> ApprovalVerdict {
    let mut counted: Vec<&Review> = Vec::new();
    let mut strangers: Vec<(&Review, String)> = Vec::new();
    let mut unknown: Vec<(&Review, String)> = Vec::new();
    for review in verdicts(reviews) {
        match access(&review.login) {
            Access::Write => counted.push(review),
            Access::Without(role) => strangers.push((review, role)),
            Access::Unknown(why) => unknown.push((review, why)),
        }
    }
    if let Some(blocking) = counted
        .iter()
        .find(|review| review.state == "CHANGES_REQUESTED")
    {
        return ApprovalVerdict::ChangesRequested {
            reviewer: blocking.login.clone(),
        };
    }
    if let Some((review, why)) = unknown.first() {
        let verdict = if review.state == "APPROVED" {
            "approval"
        } else {
            "request for changes"
        };
        return ApprovalVerdict::NotApproved(format!(
            "{}'s {verdict} cannot be counted: {why}",
            review.login
        ));
    }
    let approvals: Vec<&&Review> = counted
        .iter()
        .filter(|review| review.state == "APPROVED")
        .collect();
    if approvals
        .iter()
        .any(|review| review.commit_id.as_deref() == Some(head_sha))
    {
        return ApprovalVerdict::Approved;
    }
    if !approvals.is_empty() {
        return ApprovalVerdict::NotApproved(format!(
            "approval is on an older commit, not {}",
            short(head_sha)
        ));
    }
    let uncounted: Vec<String> = strangers
        .iter()
        .filter(|(review, _)| review.state == "APPROVED")
        .map(|(review, role)| format!("{} ({role})", review.login))
        .collect();
    if uncounted.is_empty() {
        ApprovalVerdict::NotApproved("no approval".into())
    } else {
        ApprovalVerdict::NotApproved(format!(
            "no approval from an account with write access (not counted: {})",
            uncounted.join(", ")
        ))
    }
}

/// What the rules of a branch say, as `GET /repos/{o}/{r}/rules/branches/{branch}` gives
/// them (rulesets; classic branch protection is readable only by admins).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BranchRules {
    pub branch: String,
    /// Why they could not be read, when they could not.
    pub unreadable: Option<String>,
    pub required_checks: Vec<String>,
    pub merge_queue: bool,
    /// The merge methods the rules allow; `None`: they do not restrict them.
    pub allowed_methods: Option<Vec<String>>,
    /// Each rule, in words.
    pub described: Vec<String>,
}

impl BranchRules {
    /// For a `blocked` PR: the rules gh-sweep could read, or why none.
    pub fn explain(&self) -> String {
        if let Some(why) = &self.unreadable {
            return format!("the rules of {} could not be read: {why}", self.branch);
        }
        if self.described.is_empty() {
            return format!(
                "gh-sweep can read no ruleset on {} (classic branch protection is readable only by admins)",
                self.branch
            );
        }
        format!(
            "the rules on {} gh-sweep can read: {}",
            self.branch,
            self.described.join(", ")
        )
    }
}

/// A repository's merge settings (`allow_*` of `GET /repos/{o}/{r}`); `None` where GitHub does
/// not say (it leaves them out for tokens that may not see the settings).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeSettings {
    pub merge: Option<bool>,
    pub squash: Option<bool>,
    pub rebase: Option<bool>,
}

/// Whether `method` may be used: the repository's settings intersected with the rules'.
pub fn method_allowed(
    method: MergeMethod,
    repo: &str,
    settings: &MergeSettings,
    rules: &BranchRules,
) -> Result<(), String> {
    let allowed: Vec<&str> = [
        (MergeMethod::Merge, settings.merge),
        (MergeMethod::Squash, settings.squash),
        (MergeMethod::Rebase, settings.rebase),
    ]
    .into_iter()
    .filter(|(_, allowed)| *allowed != Some(false))
    .map(|(method, _)| method.word())
    .filter(|name| {
        rules.allowed_methods.as_ref().is_none_or(|methods| {
            methods
                .iter()
                .any(|method| method.eq_ignore_ascii_case(name))
        })
    })
    .collect();
    if allowed.contains(&method.word()) {
        return Ok(());
    }
    let list = if allowed.is_empty() {
        "no merge method".to_string()
    } else {
        allowed.join(", ")
    };
    Err(format!(
        "merge_method \"{method}\" is not allowed on {repo} (it allows {list}): set [sweep] merge_method"
    ))
}

/// What a 405 from `PUT /merge` means, from GitHub's message: a reason in words, and whether
/// trying again can help.
pub fn refusal(message: &str) -> (String, bool) {
    let lower = message.to_ascii_lowercase();
    if lower.contains("merge queue") {
        return (
            "the base branch requires the merge queue: gh-sweep does not retry it (its budget is spent); merge it through the queue on GitHub".into(),
            false,
        );
    }
    if lower.contains("merges are not allowed") || lower.contains("merge commits are not allowed") {
        return (
            "the repository does not allow this merge method: set [sweep] merge_method (not retried)".into(),
            false,
        );
    }
    if lower.contains("approving review") {
        return (
            "GitHub requires more approving reviews from accounts with write access; tried again after the backoff".into(),
            true,
        );
    }
    if lower.contains("base branch was modified") {
        return (
            "the base branch was modified while merging; tried again after the backoff".into(),
            true,
        );
    }
    (
        "GitHub would not merge it; tried again after the backoff".into(),
        true,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_merge_method_is_read_from_its_config_word_and_written_back_as_it() {
        for method in MergeMethod::ALL {
            assert_eq!(MergeMethod::from_config(method.word()), Ok(method));
            assert_eq!(method.to_string(), method.word());
        }
        let words: Vec<&str> = MergeMethod::ALL.iter().map(|m| m.word()).collect();
        assert_eq!(words, ["merge", "squash", "rebase"]);
        assert_eq!(
            MergeMethod::from_config("Squash"),
            Err(
                r#"invalid [sweep] merge_method = "Squash": use "merge", "squash" or "rebase""#
                    .into()
            )
        );
    }

    #[test]
    fn a_rule_is_named_as_the_config_spells_it() {
        for rule in [Rule::DocsOnly, Rule::Green, Rule::ApprovedAtHead] {
            let spelled = serde_json::to_value(rule).unwrap();
            assert_eq!(spelled, rule.name(), "{rule:?}");
        }
    }

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 10, 12, 12, 0, 0).unwrap()
    }

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
            branch: "main".into(),
        }
    }

    fn judge(checks: &Checks, skipped: SkippedCountsAs) -> Result<Vec<String>, String> {
        green(checks, "abc", skipped, now(), Duration::hours(1))
    }

    fn writers(login: &str) -> Access {
        match login {
            "mallory" => Access::Without("read".into()),
            "unknown" => Access::Unknown("reading unknown's permission was refused (403)".into()),
            _ => Access::Write,
        }
    }

    fn review(login: &str, state: &str, commit: &str, minute: i64) -> Review {
        Review {
            login: login.into(),
            state: state.into(),
            commit_id: Some(commit.into()),
            submitted_at: Some(now() + Duration::minutes(minute)),
            association: Some("MEMBER".into()),
        }
    }

    fn file(path: &str) -> ChangedFile {
        ChangedFile {
            path: path.into(),
            previous: None,
        }
    }

    #[test]
    fn held_by_title_or_label() {
        let rules = PollRules::default();
        assert_eq!(
            held("Runbook (HELD)", &[], &rules).as_deref(),
            Some("title has (HELD)")
        );
        assert!(held("Runbook", &["Do-Not-Merge".into()], &rules).is_some());
        assert_eq!(held("Runbook", &["docs".into()], &rules), None);
    }

    #[test]
    fn failed_is_not_in_flight_but_backs_off() {
        // Seed 000's bug: 'failed' missing from the in-flight statuses let every tick re-enqueue.
        let flying: Vec<QueueStatus> = QueueStatus::ALL
            .into_iter()
            .filter(|status| in_flight(*status))
            .collect();
        assert_eq!(
            flying,
            vec![
                QueueStatus::Pending,
                QueueStatus::Claimed,
                QueueStatus::Done
            ]
        );
    }

    #[test]
    fn a_queue_status_reads_back_from_its_stored_word() {
        let words: Vec<&str> = QueueStatus::ALL
            .iter()
            .map(|status| status.as_str())
            .collect();
        assert_eq!(words, ["pending", "claimed", "done", "abandoned", "failed"]);
        for status in QueueStatus::ALL {
            assert_eq!(status.as_str().parse::<QueueStatus>(), Ok(status));
            assert_eq!(status.to_string(), status.as_str());
        }
        assert_eq!(
            "Pending".parse::<QueueStatus>(),
            Err("a queue row's status is `Pending`, which gh-sweep does not know".to_string())
        );
    }

    #[test]
    fn docs_only_checks_both_paths_of_a_rename() {
        let globs = PollRules::default().globs().unwrap();
        assert_eq!(
            docs_only(&[file("docs/runbook.md"), file("README.md")], &globs),
            Ok(())
        );
        assert_eq!(
            docs_only(&[file("src/main.rs")], &globs).unwrap_err(),
            "docs-only: src/main.rs is not docs"
        );
        let renamed = ChangedFile {
            path: "docs/old.rs".into(),
            previous: Some("src/old.rs".into()),
        };
        assert_eq!(
            docs_only(&[renamed], &globs).unwrap_err(),
            "docs-only: src/old.rs is not docs"
        );
        let many: Vec<ChangedFile> = (0..3000).map(|n| file(&format!("docs/{n}.md"))).collect();
        assert!(docs_only(&many, &globs).unwrap_err().contains("unknown"));
        assert!(docs_only(&[], &globs).is_err());
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
            .unwrap_err(),
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
        head.workflows = Some(Err("403".into()));
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
            statuses: vec![Status {
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
            statuses: vec![Status {
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
    fn approval_must_be_on_the_head_and_unopposed() {
        let approved = |reviews: &[Review]| approved_at_head(reviews, "head", &writers);
        let not = |why: &str| ApprovalVerdict::NotApproved(why.into());
        assert_eq!(
            approved(&[review("ann", "APPROVED", "head", 0)]),
            ApprovalVerdict::Approved
        );
        assert_eq!(
            approved(&[review("ann", "APPROVED", "old", 0)]),
            not("approval is on an older commit, not head")
        );
        let reviews = [
            review("ann", "APPROVED", "head", 0),
            review("bob", "CHANGES_REQUESTED", "old", 1),
        ];
        let blocked = approved(&reviews);
        assert_eq!(
            blocked,
            ApprovalVerdict::ChangesRequested {
                reviewer: "bob".into()
            }
        );
        assert_eq!(blocked.reason(), Some("bob requested changes".to_string()));
        // bob's newer approval replaces his request; a later comment changes nothing.
        let reviews = [
            review("bob", "CHANGES_REQUESTED", "old", 0),
            review("bob", "APPROVED", "head", 1),
            review("bob", "COMMENTED", "head", 2),
        ];
        assert_eq!(approved(&reviews), ApprovalVerdict::Approved);
        assert_eq!(approved(&reviews).reason(), None);
        assert_eq!(approved(&[]), not("no approval"));
        assert_eq!(approved(&[]).reason(), Some("no approval".to_string()));
        // A dismissal withdraws the verdict.
        let reviews = [
            review("ann", "APPROVED", "head", 0),
            review("ann", "DISMISSED", "head", 1),
        ];
        assert_eq!(approved(&reviews), not("no approval"));
    }

    #[test]
    fn only_reviewers_with_write_access_count() {
        let approved = |reviews: &[Review]| approved_at_head(reviews, "head", &writers);
        // A MEMBER with read access neither approves...
        assert_eq!(
            approved(&[review("mallory", "APPROVED", "head", 0)]),
            ApprovalVerdict::NotApproved(
                "no approval from an account with write access (not counted: mallory (read))"
                    .into()
            )
        );
        // ...nor blocks.
        let reviews = [
            review("ann", "APPROVED", "head", 0),
            review("mallory", "CHANGES_REQUESTED", "head", 1),
        ];
        assert_eq!(approved(&reviews), ApprovalVerdict::Approved);
        // An unreadable permission is a reason, never a guess.
        let reviews = [
            review("ann", "APPROVED", "head", 0),
            review("unknown", "APPROVED", "head", 1),
        ];
        assert_eq!(
            approved(&reviews),
            ApprovalVerdict::NotApproved(
                "unknown's approval cannot be counted: reading unknown's permission was refused (403)"
                    .into()
            )
        );
        assert_eq!(reviewers(&reviews), vec!["ann", "unknown"]);
        assert_eq!(
            approved_since(
                &[review("mallory", "APPROVED", "head", 0)],
                "head",
                &writers
            ),
            None
        );
        assert_eq!(
            Access::from_permission(Some("write"), Some("maintain")),
            Access::Write
        );
        assert_eq!(
            Access::from_permission(Some("read"), Some("triage")),
            Access::Without("triage".into())
        );
    }

    #[test]
    fn merge_methods_are_the_repository_s_and_the_rules() {
        let settings = MergeSettings {
            merge: Some(false),
            squash: Some(true),
            rebase: None,
        };
        let rules = BranchRules::default();
        assert_eq!(
            method_allowed(MergeMethod::Merge, "o/r", &settings, &rules).unwrap_err(),
            "merge_method \"merge\" is not allowed on o/r (it allows squash, rebase): set [sweep] merge_method"
        );
        assert_eq!(
            method_allowed(MergeMethod::Rebase, "o/r", &settings, &rules),
            Ok(()),
            "unknown is not refused"
        );
        let rules = BranchRules {
            allowed_methods: Some(vec!["SQUASH".into()]),
            ..BranchRules::default()
        };
        assert_eq!(
            method_allowed(MergeMethod::Squash, "o/r", &settings, &rules),
            Ok(())
        );
        assert!(method_allowed(MergeMethod::Rebase, "o/r", &settings, &rules).is_err());
    }

    #[test]
    fn each_405_is_told_apart() {
        assert!(
            !refusal(
                "Repository rule violations found\n\nChanges must be made through the merge queue"
            )
            .1
        );
        assert!(!refusal("Merge commits are not allowed on this repository.").1);
        assert!(!refusal("Squash merges are not allowed on this repository.").1);
        assert!(
            refusal("At least 1 approving review is required by reviewers with write access.").1
        );
        assert!(refusal("Base branch was modified. Review and try the merge again.").1);
        assert!(refusal("Pull Request is not mergeable").1);
    }
}
