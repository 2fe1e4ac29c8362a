//! Merge eligibility for `poll` (seed 000): the guards in their fixed order (held, in flight,
//! backoff) and the classifier's rules (docs-only, green, approved at the head), each failing
//! closed: a missing, truncated or unreadable fact means "not eligible", with that reason.
//! Pure: facts in, the first unmet condition out, in words.

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
        }
    }
}

pub const POLL_KEYS: &[&str] = &[
    "rules",
    "docs_globs",
    "held_labels",
    "skipped_counts_as",
    "failed_backoff_hours",
];

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    DocsOnly,
    Green,
    ApprovedAtHead,
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
        Ok(())
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

/// A merge already queued for this PR, by the status of its queue row.
pub fn in_flight(status: &str) -> bool {
    matches!(status, "pending" | "claimed" | "done")
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
}

/// When the head went green: the newest `completed_at` of its runs (GitHub's clock, not ours).
pub fn green_since(runs: &[CheckRun]) -> Option<DateTime<Utc>> {
    runs.iter().filter_map(|run| run.completed_at).max()
}

/// The time of the newest approval of the head (seed 001's `review-approved`).
pub fn approved_since(reviews: &[Review], head_sha: &str) -> Option<DateTime<Utc>> {
    reviews
        .iter()
        .filter(|review| {
            review.state == "APPROVED" && review.commit_id.as_deref() == Some(head_sha)
        })
        .filter_map(|review| review.submitted_at)
        .max()
}

/// A commit status on the head, as the combined status reports it (newest per context).
pub struct Status {
    pub context: String,
    pub state: String,
}

pub fn green(
    runs: &[CheckRun],
    statuses: &[Status],
    head_sha: &str,
    skipped: SkippedCountsAs,
) -> Result<(), String> {
    let head = short(head_sha);
    let mut newest: Vec<&CheckRun> = Vec::new();
    for run in runs {
        match newest.iter_mut().find(|kept| kept.name == run.name) {
            Some(kept) => {
                if (run.started_at, run.id) > (kept.started_at, kept.id) {
                    *kept = run;
                }
            }
            None => newest.push(run),
        }
    }
    newest.sort_by(|a, b| a.name.cmp(&b.name));
    let mut passed = 0;
    for run in &newest {
        if run.status != "completed" {
            return Err(format!(
                "check `{}` is {} on {head}",
                run.name,
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
                        "check `{}` was {} on {head}",
                        run.name,
                        run.conclusion.as_deref().unwrap_or_default()
                    ))
                }
            },
            Some(other) => {
                return Err(format!(
                    "check `{}` {} on {head}",
                    run.name,
                    describe(other)
                ))
            }
            None => return Err(format!("check `{}` has no conclusion on {head}", run.name)),
        }
    }
    for status in statuses {
        if status.state != "success" {
            return Err(format!(
                "status `{}` is {} on {head}",
                status.context, status.state
            ));
        }
    }
    if passed == 0 && statuses.is_empty() {
        return Err(format!("no check has passed on {head}"));
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

/// A review, as the reviews list gives it.
pub struct Review {
    pub login: String,
    pub state: String,
    pub commit_id: Option<String>,
    pub submitted_at: Option<DateTime<Utc>>,
}

/// The newest verdict of each reviewer; at least one approval of the head and no changes
/// requested. Comments do not change a reviewer's verdict; a dismissal withdraws it.
pub fn approved_at_head(reviews: &[Review], head_sha: &str) -> Result<(), String> {
    let mut verdicts: Vec<&Review> = Vec::new();
    for review in reviews.iter().filter(|review| {
        matches!(
            review.state.as_str(),
            "APPROVED" | "CHANGES_REQUESTED" | "DISMISSED"
        )
    }) {
        match verdicts
            .iter_mut()
            .find(|kept| kept.login.eq_ignore_ascii_case(&review.login))
        {
            Some(kept) => {
                if review.submitted_at >= kept.submitted_at {
                    *kept = review;
                }
            }
            None => verdicts.push(review),
        }
    }
    if let Some(blocking) = verdicts
        .iter()
        .find(|review| review.state == "CHANGES_REQUESTED")
    {
        return Err(format!("{} requested changes", blocking.login));
    }
    let approvals: Vec<&&Review> = verdicts
        .iter()
        .filter(|review| review.state == "APPROVED")
        .collect();
    if approvals
        .iter()
        .any(|review| review.commit_id.as_deref() == Some(head_sha))
    {
        return Ok(());
    }
    if approvals.is_empty() {
        Err("no approval".into())
    } else {
        Err(format!(
            "approval is on an older commit, not {}",
            short(head_sha)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

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
        }
    }

    fn review(login: &str, state: &str, commit: &str, minute: i64) -> Review {
        Review {
            login: login.into(),
            state: state.into(),
            commit_id: Some(commit.into()),
            submitted_at: Some(now() + Duration::minutes(minute)),
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
        assert!(!in_flight("failed"));
        for status in ["pending", "claimed", "done"] {
            assert!(in_flight(status));
        }
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
        let runs = [
            run("lint", "failure", 0),
            run("lint", "success", 5),
            run("test", "success", 1),
        ];
        assert_eq!(green(&runs, &[], "abc", SkippedCountsAs::Excluded), Ok(()));
        let runs = [run("lint", "success", 0), run("lint", "failure", 5)];
        assert_eq!(
            green(&runs, &[], "abc123", SkippedCountsAs::Excluded).unwrap_err(),
            "check `lint` failed on abc123"
        );
    }

    #[test]
    fn green_fails_closed() {
        assert_eq!(
            green(&[], &[], "abc", SkippedCountsAs::Excluded).unwrap_err(),
            "no check has passed on abc"
        );
        let pending = CheckRun {
            status: "in_progress".into(),
            conclusion: None,
            ..run("test", "success", 0)
        };
        assert_eq!(
            green(&[pending], &[], "abc", SkippedCountsAs::Excluded).unwrap_err(),
            "check `test` is in progress on abc"
        );
        let skipped_only = [run("deploy", "skipped", 0)];
        assert!(green(&skipped_only, &[], "abc", SkippedCountsAs::Excluded).is_err());
        assert!(green(&skipped_only, &[], "abc", SkippedCountsAs::Success).is_ok());
        let mixed = [run("deploy", "skipped", 0), run("test", "success", 1)];
        assert!(green(&mixed, &[], "abc", SkippedCountsAs::Failure).is_err());
        let statuses = [Status {
            context: "ci/legacy".into(),
            state: "pending".into(),
        }];
        assert_eq!(
            green(
                &[run("t", "success", 0)],
                &statuses,
                "abc",
                SkippedCountsAs::Excluded
            )
            .unwrap_err(),
            "status `ci/legacy` is pending on abc"
        );
    }

    #[test]
    fn approval_must_be_on_the_head_and_unopposed() {
        assert_eq!(
            approved_at_head(&[review("ann", "APPROVED", "head", 0)], "head"),
            Ok(())
        );
        assert_eq!(
            approved_at_head(&[review("ann", "APPROVED", "old", 0)], "head").unwrap_err(),
            "approval is on an older commit, not head"
        );
        let reviews = [
            review("ann", "APPROVED", "head", 0),
            review("bob", "CHANGES_REQUESTED", "old", 1),
        ];
        assert_eq!(
            approved_at_head(&reviews, "head").unwrap_err(),
            "bob requested changes"
        );
        // bob's newer approval replaces his request; a later comment changes nothing.
        let reviews = [
            review("bob", "CHANGES_REQUESTED", "old", 0),
            review("bob", "APPROVED", "head", 1),
            review("bob", "COMMENTED", "head", 2),
        ];
        assert_eq!(approved_at_head(&reviews, "head"), Ok(()));
        assert_eq!(approved_at_head(&[], "head").unwrap_err(), "no approval");
    }
}
