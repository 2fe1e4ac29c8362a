//! GitHub's JSON, turned into the plain facts the policies take. Strict: a missing field or a
//! timestamp that does not parse is an error naming it, which the engine records as that
//! item's failure.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::policy::merge::BranchRules;
use crate::policy::stale::{Activity, ActivityKind, ItemFacts};
use crate::policy::write::marker_in;

pub(crate) use super::parse_error::ParseError;

fn field<'a>(value: &'a Value, name: &str) -> Result<&'a Value, ParseError> {
    match value.get(name) {
        Some(Value::Null) | None => Err(ParseError::missing(name)),
        Some(found) => Ok(found),
    }
}

fn string(value: &Value, name: &str) -> Result<String, ParseError> {
    field(value, name)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| ParseError::not_a(name, "a string"))
}

pub(crate) fn timestamp(value: &Value, name: &str) -> Result<DateTime<Utc>, ParseError> {
    let text = string(value, name)?;
    DateTime::parse_from_rfc3339(&text)
        .map(|time| time.with_timezone(&Utc))
        .map_err(|_| ParseError::Timestamp {
            field: name.to_string(),
            value: text.clone(),
        })
}

/// The number of a list entry, if it has one.
pub(crate) fn number(value: &Value) -> Option<u64> {
    value.get("number")?.as_u64()
}

fn logins(value: &Value, name: &str, key: &str) -> Result<Vec<String>, ParseError> {
    match value.get(name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(entries)) => entries
            .iter()
            .map(|entry| string(entry, key).map_err(|why| why.within(&format!("`{name}`"))))
            .collect(),
        Some(_) => Err(ParseError::not_a(name, "a list")),
    }
}

/// The `labels` of an issue. GitHub's issue schema (OpenAPI `issue.labels`) requires an array
/// whose entries are label objects with a `name` or plain names; `null`, or a `null` or
/// nameless entry, is malformed data and the item's failure. Reading it as "no labels" would
/// fail open past an exempt label.
fn label_names(value: &Value) -> Result<Vec<String>, ParseError> {
    match value.get("labels") {
        Some(Value::Array(entries)) => entries
            .iter()
            .map(|entry| match entry {
                Value::String(name) => Ok(name.clone()),
                Value::Object(_) => string(entry, "name").map_err(|why| why.within("`labels`")),
                _ => Err(ParseError::NotALabel {
                    entry: entry.to_string(),
                }
                .within("`labels`")),
            })
            .collect(),
        None | Some(Value::Null) => Err(ParseError::missing("labels")),
        Some(_) => Err(ParseError::not_a("labels", "a list")),
    }
}

/// An issue or PR from `GET /repos/{o}/{r}/issues`.
pub(crate) fn item_facts(value: &Value) -> Result<ItemFacts, ParseError> {
    let number = number(value).ok_or_else(|| ParseError::missing("number"))?;
    let state = string(value, "state")?;
    let is_pr = value.get("pull_request").is_some_and(|pr| !pr.is_null());
    let draft = match value.get("draft") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(draft)) => *draft,
        Some(_) => return Err(ParseError::not_a("draft", "a boolean")),
    };
    let milestone = match value.get("milestone") {
        None | Some(Value::Null) => None,
        Some(milestone) => {
            Some(string(milestone, "title").map_err(|why| why.within("`milestone`"))?)
        }
    };
    // GitHub always sends `locked`; a recording made before gh-sweep read it may lack it.
    let locked = match value.get("locked") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(locked)) => *locked,
        Some(_) => return Err(ParseError::not_a("locked", "a boolean")),
    };
    // `type`: GitHub's OpenAPI description gives issues a nullable `issue-type` object whose
    // `name` is the type; `comments`: the issue schema's count of its comments.
    let issue_type = match value.get("type") {
        None | Some(Value::Null) => None,
        Some(kind) => Some(string(kind, "name").map_err(|why| why.within("`type`"))?),
    };
    let comments = match value.get("comments") {
        None | Some(Value::Null) => 0,
        Some(count) => count
            .as_u64()
            .ok_or_else(|| ParseError::not_a("comments", "a count"))?,
    };
    Ok(ItemFacts {
        locked,
        issue_type,
        comments,
        number,
        is_pr,
        draft,
        open: state == "open",
        title: string(value, "title")?,
        labels: label_names(value)?,
        milestone,
        assignees: logins(value, "assignees", "login")?,
        created_at: timestamp(value, "created_at")?,
        updated_at: timestamp(value, "updated_at")?,
        // The issues list and "Get an issue" give a PR's issue stamp.
        updated_at_of: crate::policy::stale::StampOf::Issue,
    })
}

fn actor(value: &Value, name: &str) -> Result<(String, bool), ParseError> {
    let Some(user) = value.get(name).filter(|user| !user.is_null()) else {
        // A deleted account ("ghost") is nobody's activity.
        return Ok(("ghost".to_string(), true));
    };
    let login = string(user, "login").map_err(|why| why.within(&format!("`{name}`")))?;
    let is_bot =
        user.get("type").and_then(Value::as_str) == Some("Bot") || login.ends_with("[bot]");
    Ok((login, is_bot))
}

/// One entry of `GET .../issues/{n}/events`.
pub struct Event {
    pub name: String,
    pub label: Option<String>,
    pub activity: Activity,
}

pub(crate) fn event(value: &Value) -> Result<Event, ParseError> {
    let name = string(value, "event")?;
    let (login, is_bot) = actor(value, "actor")?;
    let label = value
        .get("label")
        .and_then(|label| label.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let what = match &label {
        Some(label) => format!("{name} \"{label}\""),
        None => name.clone(),
    };
    let kind = if name == "labeled" || name == "unlabeled" {
        ActivityKind::LabelEvent
    } else {
        ActivityKind::Event
    };
    Ok(Event {
        activity: Activity {
            kind,
            at: timestamp(value, "created_at").map_err(|why| why.within("an event"))?,
            login,
            is_bot,
            marker: None,
            notification: crate::policy::stale::is_notification(&name),
            what,
        },
        name,
        label,
    })
}

/// The activity in one entry of `GET .../issues/{n}/timeline` that the issue events and
/// comments do not show: a `reviewed` entry names its author in `user` and its time in
/// `submitted_at` (GitHub's "Issue event types"); a `head_ref_force_pushed` its `actor` and
/// `created_at`. Other entries are `None` (read elsewhere, or, like `committed`, naming only git
/// authors, no GitHub account).
pub(crate) fn timeline_activity(value: &Value) -> Result<Option<Activity>, ParseError> {
    let in_entry = |why: ParseError| why.within("a timeline entry");
    let (who, when, what) = match value.get("event").and_then(Value::as_str) {
        Some("reviewed") => ("user", "submitted_at", "review"),
        Some("head_ref_force_pushed") => ("actor", "created_at", "head_ref_force_pushed"),
        _ => return Ok(None),
    };
    // A pending review has no `submitted_at` yet: nothing happened in public.
    if value.get(when).is_none_or(Value::is_null) {
        return Ok(None);
    }
    let (login, is_bot) = actor(value, who).map_err(in_entry)?;
    Ok(Some(Activity {
        kind: ActivityKind::Event,
        at: timestamp(value, when).map_err(in_entry)?,
        login,
        is_bot,
        marker: None,
        what: what.to_string(),
        notification: false,
    }))
}

/// One entry of `GET .../issues/{n}/comments`.
pub(crate) fn comment(value: &Value) -> Result<Activity, ParseError> {
    let (login, is_bot) = actor(value, "user")?;
    let body = value
        .get("body")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Ok(Activity {
        kind: ActivityKind::Comment,
        at: timestamp(value, "created_at").map_err(|why| why.within("a comment"))?,
        login,
        is_bot,
        marker: marker_in(body),
        what: "comment".to_string(),
        notification: false,
    })
}

/// A pull request from the search API or the single-PR read.
#[derive(Clone, Debug)]
pub struct PullFacts {
    pub title: String,
    pub labels: Vec<String>,
    /// `None` when the payload does not say (the search API may not): confirm with a read.
    pub draft: Option<bool>,
    pub open: bool,
    pub head_sha: Option<String>,
    /// The single-PR read only: merged, and whether GitHub can merge it (`None`: still
    /// computing).
    pub merged: bool,
    pub mergeable: Option<bool>,
    pub mergeable_state: Option<crate::policy::merge::MergeableState>,
    /// The base branch (the single-PR read only).
    pub base_ref: Option<String>,
}

pub(crate) fn pull_facts(value: &Value) -> Result<PullFacts, ParseError> {
    let draft = match value.get("draft") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(draft)) => Some(*draft),
        Some(_) => return Err(ParseError::not_a("draft", "a boolean")),
    };
    let head_sha = match value.get("head") {
        None | Some(Value::Null) => None,
        Some(head) => Some(string(head, "sha").map_err(|why| why.within("`head`"))?),
    };
    Ok(PullFacts {
        merged: value
            .get("merged")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        mergeable: value.get("mergeable").and_then(Value::as_bool),
        mergeable_state: value
            .get("mergeable_state")
            .and_then(Value::as_str)
            .and_then(crate::policy::merge::MergeableState::parse),
        base_ref: value
            .get("base")
            .and_then(|base| base.get("ref"))
            .and_then(Value::as_str)
            .map(str::to_string),
        title: string(value, "title")?,
        labels: label_names(value)?,
        draft,
        open: string(value, "state")? == "open",
        head_sha,
    })
}

pub(crate) fn changed_file(value: &Value) -> Result<crate::policy::merge::ChangedFile, ParseError> {
    Ok(crate::policy::merge::ChangedFile {
        path: string(value, "filename").map_err(|why| why.within("a changed file"))?,
        previous: value
            .get("previous_filename")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

fn optional_time(value: &Value, name: &str) -> Result<Option<DateTime<Utc>>, ParseError> {
    match value.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => timestamp(value, name).map(Some),
    }
}

pub(crate) fn check_run(value: &Value) -> Result<crate::policy::merge::CheckRun, ParseError> {
    let in_run = |why: ParseError| why.within("a check run");
    Ok(crate::policy::merge::CheckRun {
        name: string(value, "name").map_err(in_run)?,
        status: string(value, "status").map_err(in_run)?,
        conclusion: value
            .get("conclusion")
            .and_then(Value::as_str)
            .map(str::to_string),
        started_at: optional_time(value, "started_at").map_err(in_run)?,
        completed_at: optional_time(value, "completed_at").map_err(in_run)?,
        id: value.get("id").and_then(Value::as_u64).unwrap_or(0),
        suite_id: value
            .get("check_suite")
            .and_then(|suite| suite.get("id"))
            .and_then(Value::as_u64),
        app: value
            .get("app")
            .and_then(|app| app.get("slug"))
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

/// One entry of `GET /repos/{o}/{r}/commits/{ref}/check-suites`.
pub(crate) fn check_suite(value: &Value) -> Result<crate::policy::merge::CheckSuite, ParseError> {
    let in_suite = |why: ParseError| why.within("a check suite");
    let app = field(value, "app").map_err(in_suite)?;
    let slug = string(app, "slug").map_err(|why| in_suite(why.within("`app`")))?;
    Ok(crate::policy::merge::CheckSuite {
        id: value
            .get("id")
            .and_then(Value::as_u64)
            .ok_or_else(|| in_suite(ParseError::missing("id")))?,
        app_name: app
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or(&slug)
            .to_string(),
        app: slug,
        // GitHub documents a null status; that is a suite not done.
        status: value
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("queued")
            .to_string(),
        conclusion: value
            .get("conclusion")
            .and_then(Value::as_str)
            .map(str::to_string),
        // Unknown: counted as having runs, which fails closed.
        runs: value
            .get("latest_check_runs_count")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX),
        created_at: optional_time(value, "created_at").map_err(in_suite)?,
    })
}

/// One entry of `GET /repos/{o}/{r}/actions/runs`.
pub(crate) fn workflow_run(value: &Value) -> Result<crate::policy::merge::WorkflowRun, ParseError> {
    let in_run = |why: ParseError| why.within("a workflow run");
    let number = |name: &str| {
        value
            .get(name)
            .and_then(Value::as_u64)
            .ok_or_else(|| in_run(ParseError::missing(name)))
    };
    Ok(crate::policy::merge::WorkflowRun {
        suite_id: number("check_suite_id")?,
        workflow_id: number("workflow_id")?,
        name: string(value, "name").map_err(in_run)?,
        status: string(value, "status").map_err(in_run)?,
    })
}

pub(crate) fn commit_status(
    value: &Value,
) -> Result<crate::policy::merge::CommitStatus, ParseError> {
    let in_status = |why: ParseError| why.within("a commit status");
    Ok(crate::policy::merge::CommitStatus {
        context: string(value, "context").map_err(in_status)?,
        state: string(value, "state").map_err(in_status)?,
    })
}

/// The combined status: its first page's object (`state`, `total_count`) and the statuses read.
pub(crate) fn statuses(
    first: &Value,
    statuses: &[Value],
) -> Result<crate::policy::merge::Statuses, ParseError> {
    let in_combined = |why: ParseError| why.within("the combined status");
    Ok(crate::policy::merge::Statuses {
        state: string(first, "state").map_err(in_combined)?,
        total: first
            .get("total_count")
            .and_then(Value::as_u64)
            .unwrap_or(statuses.len() as u64),
        statuses: statuses
            .iter()
            .map(commit_status)
            .collect::<Result<_, _>>()?,
    })
}

/// `GET /repos/{o}/{r}/collaborators/{user}/permission`.
pub(crate) fn access(value: &Value) -> crate::policy::merge::Access {
    crate::policy::merge::Access::from_permission(
        value.get("permission").and_then(Value::as_str),
        value.get("role_name").and_then(Value::as_str),
    )
}

/// The merge settings of `GET /repos/{o}/{r}`.
pub(crate) fn merge_settings(value: &Value) -> crate::policy::merge::MergeSettings {
    let flag = |name: &str| value.get(name).and_then(Value::as_bool);
    crate::policy::merge::MergeSettings {
        merge: flag("allow_merge_commit"),
        squash: flag("allow_squash_merge"),
        rebase: flag("allow_rebase_merge"),
    }
}

/// The rules that apply to a branch (`GET /repos/{o}/{r}/rules/branches/{branch}`), in words.
pub(crate) fn branch_rules(branch: &str, rules: &[Value]) -> BranchRules {
    let mut out = BranchRules {
        branch: branch.to_string(),
        ..Default::default()
    };
    for rule in rules {
        let kind = rule
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        let parameters = rule.get("parameters").cloned().unwrap_or(Value::Null);
        let said: Vec<String> = match kind {
            "pull_request" => pull_request_rule(&parameters, &mut out),
            "required_status_checks" => vec![status_checks_rule(&parameters, &mut out)],
            "merge_queue" => {
                out.merge_queue = true;
                vec!["the merge queue".into()]
            }
            "required_deployments" => vec![deployments_rule(&parameters)],
            "required_signatures" => vec!["signed commits".into()],
            "required_linear_history" => {
                out.linear_history = true;
                vec!["linear history".into()]
            }
            other => vec![other.replace('_', " ")],
        };
        for text in said {
            if !out.described.contains(&text) {
                out.described.push(text);
            }
        }
    }
    out
}

/// Classic protection as "Get a branch" summarises it: `protected`, and the contexts of
/// `protection.required_status_checks` (`contexts`, and `checks[].context` in newer answers),
/// unless its `enforcement_level` is `off` (GitHub's docs example, google/go-github#625).
pub(crate) fn classic_protection(value: &Value) -> crate::policy::merge::ClassicProtection {
    let protected = value.get("protected").and_then(Value::as_bool) == Some(true);
    let checks = value.pointer("/protection/required_status_checks");
    let enforced = checks
        .and_then(|checks| checks.get("enforcement_level"))
        .and_then(Value::as_str)
        != Some("off");
    let mut required: Vec<String> = Vec::new();
    if protected && enforced {
        let contexts = checks
            .and_then(|checks| checks.get("contexts"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str);
        let named = checks
            .and_then(|checks| checks.get("checks"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|check| check.get("context").and_then(Value::as_str));
        for context in contexts.chain(named) {
            if !required.iter().any(|known| known == context) {
                required.push(context.to_string());
            }
        }
    }
    crate::policy::merge::ClassicProtection {
        protected,
        required_checks: required,
    }
}

fn plural(count: u64, what: &str) -> String {
    crate::policy::count(count, what)
}

/// A `pull_request` rule, in words: the reviews it asks for (or just a pull request); the
/// merge methods it allows narrow what earlier rulesets allowed.
fn pull_request_rule(parameters: &Value, out: &mut BranchRules) -> Vec<String> {
    let flag = |name: &str| parameters.get(name).and_then(Value::as_bool) == Some(true);
    let mut said: Vec<String> = Vec::new();
    let count = parameters
        .get("required_approving_review_count")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if count > 0 {
        said.push(plural(count, "approving review"));
    }
    if flag("require_code_owner_review") {
        said.push("a review from code owners".into());
    }
    if flag("require_last_push_approval") {
        said.push("approval of the last push".into());
    }
    if flag("required_review_thread_resolution") {
        said.push("resolved review threads".into());
    }
    if said.is_empty() {
        said.push("a pull request".into());
    }
    if let Some(Value::Array(methods)) = parameters.get("allowed_merge_methods") {
        let methods: Vec<String> = methods
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_ascii_lowercase)
            .collect();
        out.allowed_methods = Some(match out.allowed_methods.take() {
            // Several rulesets: every one must allow the method.
            Some(before) => before
                .into_iter()
                .filter(|method| methods.contains(method))
                .collect(),
            None => methods,
        });
    }
    said
}

/// A `required_status_checks` rule, in words; its checks join the branch's required ones.
fn status_checks_rule(parameters: &Value, out: &mut BranchRules) -> String {
    let contexts: Vec<String> = parameters
        .get("required_status_checks")
        .and_then(Value::as_array)
        .map(|checks| {
            checks
                .iter()
                .filter_map(|check| check.get("context").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let named: Vec<String> = contexts.iter().map(|c| format!("`{c}`")).collect();
    let said = format!("required checks {}", named.join(", "));
    for context in contexts {
        if !out.required_checks.contains(&context) {
            out.required_checks.push(context);
        }
    }
    said
}

/// A `required_deployments` rule, in words.
fn deployments_rule(parameters: &Value) -> String {
    let environments: Vec<&str> = parameters
        .get("required_deployment_environments")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    format!("deployments to {}", environments.join(", "))
}

pub(crate) fn review(value: &Value) -> Result<crate::policy::merge::Review, ParseError> {
    let in_review = |why: ParseError| why.within("a review");
    let (login, bot) = actor(value, "user").map_err(in_review)?;
    // A deleted account ("ghost", no `user`) is no bot.
    let bot = bot && value.get("user").is_some_and(|user| !user.is_null());
    Ok(crate::policy::merge::Review {
        login,
        user_id: value
            .get("user")
            .and_then(|user| user.get("id"))
            .and_then(Value::as_u64),
        // REST's `user.type` is `Bot` for an App's bot, `[bot]` suffix or not (the Copilot
        // agent is `"login": "Copilot", "type": "Bot"`, posit-dev/ark#1001).
        bot,
        association: value
            .get("author_association")
            .and_then(Value::as_str)
            .map(str::to_string),
        state: string(value, "state").map_err(in_review)?,
        commit_id: value
            .get("commit_id")
            .and_then(Value::as_str)
            .map(str::to_string),
        submitted_at: optional_time(value, "submitted_at").map_err(in_review)?,
    })
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
