//! The JSON model's own tests: GitHub's answers turned into facts, and the errors that name
//! what was missing.

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
    let error = item_facts(&bad).unwrap_err();
    assert_eq!(
        error,
        ParseError::Timestamp {
            field: "updated_at".into(),
            value: "last tuesday".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "the `updated_at` timestamp `last tuesday` does not parse"
    );
    let mut bad = issue();
    bad.as_object_mut().unwrap().remove("title");
    assert_eq!(item_facts(&bad).unwrap_err(), ParseError::missing("title"));
    assert_eq!(
        item_facts(&bad).unwrap_err().to_string(),
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
        item_facts(&locked).unwrap_err().to_string(),
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

#[test]
fn classic_protection_is_read_from_the_branch_summary() {
    // GitHub's "Get a branch" example answer (google/go-github#625 records the same shape).
    let summary = json!({
        "name": "master",
        "protected": true,
        "protection": {
            "enabled": true,
            "required_status_checks": {
                "enforcement_level": "non_admins",
                "contexts": ["ci-test", "linter"],
                "checks": [{"context": "ci-test", "app_id": 15368}],
            },
        },
        "protection_url": "https://api.github.com/repos/octocat/hello-world/branches/master/protection",
    });
    let classic = classic_protection(&summary);
    assert!(classic.protected);
    assert_eq!(classic.required_checks, ["ci-test", "linter"]);
    // An unprotected branch, and required checks that are not enforced.
    let off = json!({"protected": false, "protection": {"enabled": false,
        "required_status_checks": {"enforcement_level": "off", "contexts": [], "checks": []}}});
    assert_eq!(classic_protection(&off), Default::default());
    let unenforced = json!({"protected": true, "protection": {"enabled": true,
        "required_status_checks": {"enforcement_level": "off", "contexts": ["ci"]}}});
    assert!(classic_protection(&unenforced).required_checks.is_empty());
}
