//! GitHub's JSON, turned into the plain facts the policies take. Strict: a missing field or a
//! timestamp that does not parse is an error naming it, which the engine records as that
//! item's failure.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::policy::stale::{Activity, ActivityKind, ItemFacts};
use crate::policy::write::marker_in;

fn field<'a>(value: &'a Value, name: &str) -> Result<&'a Value, String> {
    match value.get(name) {
        Some(Value::Null) | None => Err(format!("the `{name}` field is missing")),
        Some(found) => Ok(found),
    }
}

fn string(value: &Value, name: &str) -> Result<String, String> {
    field(value, name)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("the `{name}` field is not a string"))
}

pub fn timestamp(value: &Value, name: &str) -> Result<DateTime<Utc>, String> {
    let text = string(value, name)?;
    DateTime::parse_from_rfc3339(&text)
        .map(|time| time.with_timezone(&Utc))
        .map_err(|_| format!("the `{name}` timestamp `{text}` does not parse"))
}

/// The number of a list entry, if it has one.
pub fn number(value: &Value) -> Option<u64> {
    value.get("number")?.as_u64()
}

fn logins(value: &Value, name: &str, key: &str) -> Result<Vec<String>, String> {
    match value.get(name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(entries)) => entries
            .iter()
            .map(|entry| string(entry, key).map_err(|why| format!("in `{name}`: {why}")))
            .collect(),
        Some(_) => Err(format!("the `{name}` field is not a list")),
    }
}

/// The `labels` of an issue. GitHub's issue schema (OpenAPI `issue.labels`) requires an array
/// whose entries are label objects with a `name` or plain names; `null`, or a `null` or
/// nameless entry, is malformed data and the item's failure. Reading it as "no labels" would
/// fail open past an exempt label.
fn label_names(value: &Value) -> Result<Vec<String>, String> {
    match value.get("labels") {
        Some(Value::Array(entries)) => entries
            .iter()
            .map(|entry| match entry {
                Value::String(name) => Ok(name.clone()),
                Value::Object(_) => {
                    string(entry, "name").map_err(|why| format!("in `labels`: {why}"))
                }
                _ => Err(format!("in `labels`: an entry is {entry}, not a label")),
            })
            .collect(),
        None | Some(Value::Null) => Err("the `labels` field is missing".into()),
        Some(_) => Err("the `labels` field is not a list".into()),
    }
}

/// An issue or PR from `GET /repos/{o}/{r}/issues`.
pub fn item_facts(value: &Value) -> Result<ItemFacts, String> {
    let number = number(value).ok_or("the `number` field is missing")?;
    let state = string(value, "state")?;
    let is_pr = value.get("pull_request").is_some_and(|pr| !pr.is_null());
    let draft = match value.get("draft") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(draft)) => *draft,
        Some(_) => return Err("the `draft` field is not a boolean".into()),
    };
    let milestone = match value.get("milestone") {
        None | Some(Value::Null) => None,
        Some(milestone) => {
            Some(string(milestone, "title").map_err(|why| format!("in `milestone`: {why}"))?)
        }
    };
    // GitHub always sends `locked`; a recording made before gh-sweep read it may lack it.
    let locked = match value.get("locked") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(locked)) => *locked,
        Some(_) => return Err("the `locked` field is not a boolean".into()),
    };
    Ok(ItemFacts {
        locked,
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
    })
}

fn actor(value: &Value, name: &str) -> Result<(String, bool), String> {
    let Some(user) = value.get(name).filter(|user| !user.is_null()) else {
        // A deleted account ("ghost") is nobody's activity.
        return Ok(("ghost".to_string(), true));
    };
    let login = string(user, "login").map_err(|why| format!("in `{name}`: {why}"))?;
    let is_bot =
        user.get("type").and_then(Value::as_str) == Some("Bot") || login.ends_with("[bot]");
    Ok((login, is_bot))
}

/// Issue events that are someone doing something to the item. Notifications such as
/// `mentioned` or `subscribed` are not.
const ACTIVITY_EVENTS: &[&str] = &[
    "assigned",
    "unassigned",
    "labeled",
    "unlabeled",
    "milestoned",
    "demilestoned",
    "renamed",
    "reopened",
    "head_ref_force_pushed",
    "head_ref_restored",
    "ready_for_review",
    "convert_to_draft",
    "review_requested",
    "locked",
    "unlocked",
];

/// One entry of `GET .../issues/{n}/events`.
pub struct Event {
    pub name: String,
    pub label: Option<String>,
    pub activity: Activity,
}

pub fn event(value: &Value) -> Result<Event, String> {
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
            at: timestamp(value, "created_at").map_err(|why| format!("in an event: {why}"))?,
            login,
            is_bot,
            marker: None,
            notification: !ACTIVITY_EVENTS.contains(&name.as_str()),
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
pub fn timeline_activity(value: &Value) -> Result<Option<Activity>, String> {
    let in_entry = |why: String| format!("in a timeline entry: {why}");
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
pub fn comment(value: &Value) -> Result<Activity, String> {
    let (login, is_bot) = actor(value, "user")?;
    let body = value
        .get("body")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Ok(Activity {
        kind: ActivityKind::Comment,
        at: timestamp(value, "created_at").map_err(|why| format!("in a comment: {why}"))?,
        login,
        is_bot,
        marker: marker_in(body),
        what: "comment".to_string(),
        notification: false,
    })
}

/// A pull request from the search API or the single-PR read.
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
    pub mergeable_state: Option<String>,
}

pub fn pull_facts(value: &Value) -> Result<PullFacts, String> {
    let draft = match value.get("draft") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(draft)) => Some(*draft),
        Some(_) => return Err("the `draft` field is not a boolean".into()),
    };
    let head_sha = match value.get("head") {
        None | Some(Value::Null) => None,
        Some(head) => Some(string(head, "sha").map_err(|why| format!("in `head`: {why}"))?),
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
            .map(str::to_string),
        title: string(value, "title")?,
        labels: label_names(value)?,
        draft,
        open: string(value, "state")? == "open",
        head_sha,
    })
}

pub fn changed_file(value: &Value) -> Result<crate::policy::merge::ChangedFile, String> {
    Ok(crate::policy::merge::ChangedFile {
        path: string(value, "filename").map_err(|why| format!("in a changed file: {why}"))?,
        previous: value
            .get("previous_filename")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

fn optional_time(value: &Value, name: &str) -> Result<Option<DateTime<Utc>>, String> {
    match value.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => timestamp(value, name).map(Some),
    }
}

pub fn check_run(value: &Value) -> Result<crate::policy::merge::CheckRun, String> {
    let in_run = |why: String| format!("in a check run: {why}");
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
    })
}

pub fn commit_status(value: &Value) -> Result<crate::policy::merge::Status, String> {
    let in_status = |why: String| format!("in a commit status: {why}");
    Ok(crate::policy::merge::Status {
        context: string(value, "context").map_err(in_status)?,
        state: string(value, "state").map_err(in_status)?,
    })
}

pub fn review(value: &Value) -> Result<crate::policy::merge::Review, String> {
    let in_review = |why: String| format!("in a review: {why}");
    let (login, _) = actor(value, "user").map_err(in_review)?;
    Ok(crate::policy::merge::Review {
        login,
        state: string(value, "state").map_err(in_review)?,
        commit_id: value
            .get("commit_id")
            .and_then(Value::as_str)
            .map(str::to_string),
        submitted_at: optional_time(value, "submitted_at").map_err(in_review)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn issue() -> Value {
        json!({
            "number": 7, "title": "Docs typo", "state": "open",
            "labels": [{"name": "Stale"}], "assignees": [{"login": "bob"}],
            "milestone": {"title": "v2"},
            "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-02-01T00:00:00Z",
            "pull_request": {"url": "x"}, "draft": true
        })
    }

    #[test]
    fn reads_an_issue() {
        let facts = item_facts(&issue()).unwrap();
        assert_eq!(facts.number, 7);
        assert!(facts.is_pr && facts.draft && facts.open);
        assert_eq!(facts.labels, vec!["Stale"]);
        assert_eq!(facts.milestone.as_deref(), Some("v2"));
    }

    #[test]
    fn names_the_bad_field() {
        let mut bad = issue();
        bad["updated_at"] = json!("last tuesday");
        assert_eq!(
            item_facts(&bad).unwrap_err(),
            "the `updated_at` timestamp `last tuesday` does not parse"
        );
        let mut bad = issue();
        bad.as_object_mut().unwrap().remove("title");
        assert_eq!(
            item_facts(&bad).unwrap_err(),
            "the `title` field is missing"
        );
    }

    #[test]
    fn offsets_and_daylight_saving_are_read_as_utc() {
        // 01:30 on the night Europe moves its clocks, written with the local offset.
        let value = json!({"at": "2026-03-29T03:30:00+02:00"});
        assert_eq!(
            timestamp(&value, "at").unwrap().to_rfc3339(),
            "2026-03-29T01:30:00+00:00"
        );
        let value = json!({"at": "2026-03-29 03:30"});
        assert!(
            timestamp(&value, "at").is_err(),
            "not RFC 3339: an item failure, never a guess"
        );
    }

    #[test]
    fn reads_the_lock() {
        assert!(!item_facts(&issue()).unwrap().locked);
        let mut locked = issue();
        locked["locked"] = json!(true);
        locked["active_lock_reason"] = json!("too heated");
        assert!(item_facts(&locked).unwrap().locked);
        locked["locked"] = json!("yes");
        assert_eq!(
            item_facts(&locked).unwrap_err(),
            "the `locked` field is not a boolean"
        );
    }

    #[test]
    fn a_review_in_the_timeline_is_its_authors() {
        let value = json!({"event": "reviewed", "user": {"login": "copilot[bot]", "type": "Bot"}, "state": "commented", "submitted_at": "2026-01-02T00:00:00Z"});
        let review = timeline_activity(&value).unwrap().unwrap();
        assert!(review.is_bot);
        assert_eq!(review.what, "review");
        let commit = json!({"event": "committed", "author": {"name": "A", "email": "a@x", "date": "2026-01-02T00:00:00Z"}});
        assert_eq!(timeline_activity(&commit).unwrap(), None);
        let bad = json!({"event": "reviewed", "user": {"login": "alice"}, "submitted_at": "soon"});
        assert!(timeline_activity(&bad).is_err());
    }

    #[test]
    fn bots_are_recognised_by_type_or_login() {
        let value = json!({"user": {"login": "renovate[bot]", "type": "User"}, "body": "x", "created_at": "2026-01-01T00:00:00Z"});
        assert!(comment(&value).unwrap().is_bot);
        let value = json!({"user": {"login": "ci", "type": "Bot"}, "body": "x", "created_at": "2026-01-01T00:00:00Z"});
        assert!(comment(&value).unwrap().is_bot);
    }
}
