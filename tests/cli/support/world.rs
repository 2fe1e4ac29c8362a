//! A small GitHub in plain Rust: repositories, issues and PRs with labels, events and comments.
//! Its default already looks real (one repository, `octo/demo`), so each test states only what
//! differs. Ages are relative to the world's clock, which is the real clock when it starts.

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

pub const REPO: &str = "octo/demo";
pub const VIEWER: &str = "sweeper";

#[derive(Clone, Debug)]
pub struct Event {
    pub name: String,
    pub label: Option<String>,
    pub actor: String,
    pub actor_type: String,
    pub at: DateTime<Utc>,
}

#[derive(Clone, Debug)]
pub struct Comment {
    pub id: u64,
    pub user: String,
    pub user_type: String,
    pub body: String,
    pub at: DateTime<Utc>,
}

#[derive(Clone, Debug)]
pub struct CheckRun {
    pub id: u64,
    pub name: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub started_at: DateTime<Utc>,
}

#[derive(Clone, Debug)]
pub struct Review {
    pub user: String,
    pub state: String,
    pub commit_id: String,
    pub at: DateTime<Utc>,
}

#[derive(Clone, Debug)]
pub struct Issue {
    pub repo: String,
    pub number: u64,
    pub title: String,
    pub is_pr: bool,
    pub draft: bool,
    pub state: String,
    pub state_reason: Option<String>,
    pub labels: Vec<String>,
    pub assignees: Vec<String>,
    pub milestone: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub events: Vec<Event>,
    pub comments: Vec<Comment>,
    /// Fields to overwrite in the JSON GitHub serves (malformed data).
    pub patch: Option<Value>,
    /// PRs only: the head commit, changed files (path, previous path), the head's check runs
    /// and commit statuses (context, state), and reviews.
    pub head_sha: String,
    pub files: Vec<(String, Option<String>)>,
    pub check_runs: Vec<CheckRun>,
    pub statuses: Vec<(String, String)>,
    pub reviews: Vec<Review>,
    pub merged: bool,
    /// `None`: GitHub is still computing.
    pub mergeable: Option<bool>,
    pub mergeable_state: String,
    /// A locked conversation (`locked`, `active_lock_reason` in GitHub's issue JSON).
    pub locked: bool,
    pub active_lock_reason: Option<String>,
    /// PRs only: commits pushed to the head, as the timeline's `committed` entries show them
    /// (git names and dates, no GitHub actor): (sha, author name, date).
    pub commits: Vec<(String, String, DateTime<Utc>)>,
}

impl Issue {
    pub fn to_json(&self) -> Value {
        let mut value = json!({
            "number": self.number,
            "title": self.title,
            "state": self.state,
            "state_reason": self.state_reason,
            "labels": self.labels.iter().map(|name| json!({"name": name})).collect::<Vec<_>>(),
            "assignees": self.assignees.iter().map(|login| json!({"login": login, "type": "User"})).collect::<Vec<_>>(),
            "milestone": self.milestone.as_ref().map(|title| json!({"title": title})),
            "created_at": stamp(self.created_at),
            "updated_at": stamp(self.updated_at),
            "user": {"login": "author", "type": "User"},
            "body": "Some text.",
            "locked": self.locked,
            "active_lock_reason": self.active_lock_reason,
        });
        if self.is_pr {
            value["pull_request"] =
                json!({"url": format!("https://example/{}/pulls/{}", self.repo, self.number)});
            value["draft"] = json!(self.draft);
        }
        value["html_url"] = json!(self.html_url());
        if let Some(Value::Object(patch)) = &self.patch {
            for (key, field) in patch {
                value[key] = field.clone();
            }
        }
        value
    }

    /// Where a person opens the item: every issue and PR object GitHub serves carries its
    /// `html_url` (`https://github.com/OWNER/REPO/issues/N`, `.../pull/N` for a PR; REST
    /// "Get an issue" and "Get a pull request" response schemas).
    pub fn html_url(&self) -> String {
        let kind = if self.is_pr { "pull" } else { "issues" };
        format!("https://github.com/{}/{kind}/{}", self.repo, self.number)
    }

    /// The single-PR read: `GET /repos/{o}/{r}/pulls/{n}`.
    pub fn pull_json(&self) -> Value {
        let mut value = json!({
            "number": self.number,
            "title": self.title,
            "state": self.state,
            "draft": self.draft,
            "labels": self.labels.iter().map(|name| json!({"name": name})).collect::<Vec<_>>(),
            "head": {"sha": self.head_sha, "ref": format!("branch-{}", self.number)},
            "merged": self.merged,
            "mergeable": self.mergeable,
            "mergeable_state": self.mergeable_state,
            "created_at": stamp(self.created_at),
            "updated_at": stamp(self.updated_at),
            "html_url": self.html_url(),
        });
        if let Some(Value::Object(patch)) = &self.patch {
            for (key, field) in patch {
                if value.get(key).is_some() {
                    value[key] = field.clone();
                }
            }
        }
        value
    }

    /// A search result: the issue payload plus the repository URL.
    pub fn search_json(&self) -> Value {
        let mut value = self.to_json();
        value["repository_url"] = json!(format!("https://api.github.com/repos/{}", self.repo));
        value
    }

    /// Moves the head to a new commit whose checks pass again and whose approval is lost.
    pub fn push(&mut self, now: DateTime<Utc>) {
        let round = self.head_sha.matches('+').count() + 1;
        self.head_sha = format!("pr-{}-head{}", self.number, "+".repeat(round));
        for run in &mut self.check_runs {
            run.started_at = now;
        }
        self.updated_at = now;
    }

    /// Approves the current head.
    pub fn approve_at_head(&mut self, user: &str, at: DateTime<Utc>) {
        self.reviews.push(Review {
            user: user.into(),
            state: "APPROVED".into(),
            commit_id: self.head_sha.clone(),
            at,
        });
    }

    pub fn has_label(&self, name: &str) -> bool {
        self.labels
            .iter()
            .any(|label| label.eq_ignore_ascii_case(name))
    }
}

pub fn stamp(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

pub struct WorldState {
    pub now: DateTime<Utc>,
    pub issues: Vec<Issue>,
    pub viewer: String,
    /// Repositories that exist; listing any other answers 404.
    pub repos: Vec<String>,
    next_comment: u64,
    /// Whether the token's user is a collaborator (write access): only collaborators may
    /// comment on a locked conversation.
    pub viewer_collaborator: bool,
    /// An app or installation token (`GITHUB_TOKEN`): `GET /user` answers 403.
    pub viewer_app: bool,
    /// How far GitHub's clock is ahead of ours: the stamps it puts on writes and its `Date`.
    pub github_clock_offset: Duration,
    /// How far GitHub's clock moves before each write it applies: successive writes get
    /// successive stamps, as they do at gh-sweep's write pacing.
    pub write_clock_step: Duration,
    /// Issues moved to another repository: (old repo, old number, new repo, new number).
    pub transfers: Vec<(String, u64, String, u64)>,
    /// Repositories renamed: (old full name, new full name).
    pub renames: Vec<(String, String)>,
    /// Whether search answers say `incomplete_results: true` (GitHub's search timed out).
    pub search_incomplete: bool,
}

impl WorldState {
    pub fn new() -> Self {
        WorldState {
            // Whole seconds, as GitHub's timestamps are.
            now: DateTime::from_timestamp(Utc::now().timestamp(), 0).unwrap_or_else(Utc::now),
            issues: Vec::new(),
            viewer: VIEWER.to_string(),
            repos: vec![REPO.to_string()],
            next_comment: 1000,
            viewer_collaborator: true,
            viewer_app: false,
            github_clock_offset: Duration::zero(),
            write_clock_step: Duration::zero(),
            transfers: Vec::new(),
            renames: Vec::new(),
            search_incomplete: false,
        }
    }

    pub fn days_ago(&self, days: i64) -> DateTime<Utc> {
        self.now - Duration::days(days)
    }

    /// Opens an issue idle for `idle_days`. Items are created in number order, 400 days ago.
    pub fn open_issue(&mut self, number: u64, idle_days: i64) -> &mut Issue {
        let updated = self.days_ago(idle_days);
        let created_at = self.now - Duration::days(400) + Duration::minutes(number as i64);
        self.issues.push(Issue {
            repo: REPO.to_string(),
            number,
            title: format!("Issue {number}"),
            is_pr: false,
            draft: false,
            state: "open".into(),
            state_reason: None,
            labels: Vec::new(),
            assignees: Vec::new(),
            milestone: None,
            created_at,
            updated_at: updated,
            events: Vec::new(),
            comments: Vec::new(),
            patch: None,
            head_sha: format!("pr-{number}-head"),
            files: Vec::new(),
            check_runs: Vec::new(),
            statuses: Vec::new(),
            reviews: Vec::new(),
            merged: false,
            mergeable: Some(true),
            mergeable_state: "clean".into(),
            locked: false,
            active_lock_reason: None,
            commits: Vec::new(),
        });
        self.issues.last_mut().unwrap()
    }

    /// A PR as the default world has it: docs-only, every check green, approved at its head.
    pub fn open_pr(&mut self, number: u64, idle_days: i64) -> &mut Issue {
        let checked = self.now - Duration::minutes(30);
        let issue = self.open_issue(number, idle_days);
        issue.is_pr = true;
        issue.title = format!("PR {number}");
        issue.files = vec![("docs/guide.md".into(), None)];
        issue.check_runs = vec![CheckRun {
            id: number * 10,
            name: "ci".into(),
            status: "completed".into(),
            conclusion: Some("success".into()),
            started_at: checked,
        }];
        issue.approve_at_head("reviewer", checked);
        issue
    }

    /// Shorthand for a green docs-only PR approved at its head, updated a day ago.
    pub fn green_pr(&mut self, number: u64) -> &mut Issue {
        self.open_pr(number, 1)
    }

    /// An item labelled stale `label_days` ago by `by` (an actor of type User unless it ends
    /// in `[bot]`), with no activity since.
    pub fn stale_issue(&mut self, number: u64, label_days: i64, by: &str) -> &mut Issue {
        let at = self.days_ago(label_days);
        let issue = self.open_issue(number, label_days);
        issue.labels.push("Stale".into());
        issue.events.push(Event {
            name: "labeled".into(),
            label: Some("Stale".into()),
            actor: by.into(),
            actor_type: if by.ends_with("[bot]") {
                "Bot".into()
            } else {
                "User".into()
            },
            at,
        });
        issue.updated_at = at;
        issue
    }

    pub fn issue(&mut self, number: u64) -> &mut Issue {
        self.issues
            .iter_mut()
            .find(|issue| issue.number == number)
            .unwrap_or_else(|| panic!("the world has no issue #{number}"))
    }

    pub fn find(&self, repo: &str, number: u64) -> Option<usize> {
        self.issues
            .iter()
            .position(|issue| issue.repo == repo && issue.number == number)
    }

    pub fn comment(&mut self, number: u64, user: &str, days_ago: i64, body: &str) {
        let at = self.days_ago(days_ago);
        let id = self.next_id();
        let issue = self.issue(number);
        issue.comments.push(Comment {
            id,
            user: user.into(),
            user_type: if user.ends_with("[bot]") {
                "Bot".into()
            } else {
                "User".into()
            },
            body: body.into(),
            at,
        });
        issue.updated_at = issue.updated_at.max(at);
    }

    pub fn next_id(&mut self) -> u64 {
        self.next_comment += 1;
        self.next_comment
    }

    /// A repository's id: GitHub's never changes with a rename. Deterministic: its place in
    /// `repos`, from 1001.
    pub fn repo_id(&self, repo: &str) -> Option<u64> {
        self.repos
            .iter()
            .position(|name| name.eq_ignore_ascii_case(repo))
            .map(|index| 1001 + index as u64)
    }

    /// The repository with this id.
    pub fn repo_by_id(&self, id: u64) -> Option<String> {
        let index = usize::try_from(id.checked_sub(1001)?).ok()?;
        self.repos.get(index).cloned()
    }

    /// A maintainer transfers `repo#number` to `to_repo`, where it becomes `#to_number`; the
    /// old address answers 301 from then on.
    pub fn transfer_issue(&mut self, repo: &str, number: u64, to_repo: &str, to_number: u64) {
        if !self.repos.iter().any(|name| name == to_repo) {
            self.repos.push(to_repo.to_string());
        }
        let index = self
            .find(repo, number)
            .unwrap_or_else(|| panic!("the world has no {repo}#{number} to transfer"));
        let issue = &mut self.issues[index];
        issue.repo = to_repo.to_string();
        issue.number = to_number;
        self.transfers
            .push((repo.to_string(), number, to_repo.to_string(), to_number));
    }

    /// The owner renames `repo` to `to`: its id, issues and PRs stay; the old name redirects.
    pub fn rename_repo(&mut self, repo: &str, to: &str) {
        for name in &mut self.repos {
            if name == repo {
                *name = to.to_string();
            }
        }
        for issue in &mut self.issues {
            if issue.repo == repo {
                issue.repo = to.to_string();
            }
        }
        self.renames.push((repo.to_string(), to.to_string()));
    }
}

/// The vocabulary of the stale rules of the maintainer's own words, locks, renames and bots.
impl WorldState {
    /// The token is `GITHUB_TOKEN` (an installation token): it acts as `github-actions[bot]`,
    /// `GET /user` refuses it, and it is no collaborator.
    pub fn app_token(&mut self) {
        self.viewer = "github-actions[bot]".into();
        self.viewer_app = true;
        self.viewer_collaborator = false;
    }

    /// Renames a label the way GitHub does: every item carrying it now shows the new name, and
    /// the events keep the name the label had when they happened.
    pub fn rename_label(&mut self, from: &str, to: &str) {
        for issue in &mut self.issues {
            for label in &mut issue.labels {
                if label.eq_ignore_ascii_case(from) {
                    *label = to.to_string();
                }
            }
        }
    }

    /// A comment stamped at an absolute time (after a run's own writes, say).
    pub fn comment_at(&mut self, number: u64, user: &str, at: DateTime<Utc>, body: &str) {
        let id = self.next_id();
        let issue = self.issue(number);
        issue.comments.push(Comment {
            id,
            user: user.into(),
            user_type: if user.ends_with("[bot]") {
                "Bot".into()
            } else {
                "User".into()
            },
            body: body.into(),
            at,
        });
        issue.updated_at = issue.updated_at.max(at);
    }

    /// A review submitted `days_ago`: it moves `updated_at` and makes no issue event.
    pub fn review(&mut self, number: u64, user: &str, state: &str, days_ago: i64) {
        let at = self.days_ago(days_ago);
        let issue = self.issue(number);
        let commit_id = issue.head_sha.clone();
        issue.reviews.push(Review {
            user: user.into(),
            state: state.into(),
            commit_id,
            at,
        });
        issue.updated_at = issue.updated_at.max(at);
    }

    /// A plain push of one commit `days_ago` by a git author: no issue event names anyone.
    pub fn push_commit(&mut self, number: u64, author: &str, days_ago: i64) {
        let at = self.days_ago(days_ago);
        let issue = self.issue(number);
        let sha = format!("pr-{number}-commit-{}", issue.commits.len() + 1);
        issue.commits.push((sha.clone(), author.into(), at));
        issue.head_sha = sha;
        issue.updated_at = issue.updated_at.max(at);
    }

    /// An issue event by `actor` `days_ago` (a force-push, say).
    pub fn event(&mut self, number: u64, name: &str, actor: &str, days_ago: i64) {
        let at = self.days_ago(days_ago);
        let issue = self.issue(number);
        issue.events.push(Event {
            name: name.into(),
            label: None,
            actor: actor.into(),
            actor_type: if actor.ends_with("[bot]") {
                "Bot".into()
            } else {
                "User".into()
            },
            at,
        });
        issue.updated_at = issue.updated_at.max(at);
    }
}
