//! The stale rules' facts from GraphQL answers: an issue's or PR's own fields and its timeline
//! entries, as the REST model gives them (an event's name in REST's words, `labeled` for a
//! `LabeledEvent`; a deleted account is "ghost"; an account typed `Bot` is a bot).

use serde_json::Value;

use super::parse::{list, string};
use crate::github::model::{timestamp, Event};
use crate::policy::stale::{is_notification, Activity, ActivityKind, ItemFacts, StampOf};
use crate::policy::write::marker_in;

/// Every type of GraphQL's timeline that REST's issue events list also reports ("Issue event
/// types" in the REST docs, the `IssueTimelineItemsItemType` and
/// `PullRequestTimelineItemsItemType` enums of GitHub's schema), with REST's name for it and
/// whether only a PR has it. The stale documents ask every one (a test checks they do), so both
/// read paths see the same events; what REST reports and GraphQL has no type for
/// (`issue_type_added`, …) is read through REST (see `StaleReader::events_in_full`).
pub const EVENT_NAMES: &[(&str, &str, bool)] = &[
    ("AddedToProjectEvent", "added_to_project", false),
    ("AssignedEvent", "assigned", false),
    ("ClosedEvent", "closed", false),
    ("CommentDeletedEvent", "comment_deleted", false),
    ("ConnectedEvent", "connected", false),
    (
        "ConvertedNoteToIssueEvent",
        "converted_note_to_issue",
        false,
    ),
    (
        "ConvertedToDiscussionEvent",
        "converted_to_discussion",
        false,
    ),
    ("DemilestonedEvent", "demilestoned", false),
    ("DisconnectedEvent", "disconnected", false),
    ("LabeledEvent", "labeled", false),
    ("LockedEvent", "locked", false),
    ("MarkedAsDuplicateEvent", "marked_as_duplicate", false),
    ("MentionedEvent", "mentioned", false),
    ("MilestonedEvent", "milestoned", false),
    (
        "MovedColumnsInProjectEvent",
        "moved_columns_in_project",
        false,
    ),
    ("ParentIssueAddedEvent", "parent_issue_added", false),
    ("ParentIssueRemovedEvent", "parent_issue_removed", false),
    ("PinnedEvent", "pinned", false),
    ("ReferencedEvent", "referenced", false),
    ("RemovedFromProjectEvent", "removed_from_project", false),
    ("RenamedTitleEvent", "renamed", false),
    ("ReopenedEvent", "reopened", false),
    ("SubscribedEvent", "subscribed", false),
    ("SubIssueAddedEvent", "sub_issue_added", false),
    ("SubIssueRemovedEvent", "sub_issue_removed", false),
    ("TransferredEvent", "transferred", false),
    ("UnassignedEvent", "unassigned", false),
    ("UnlabeledEvent", "unlabeled", false),
    ("UnlockedEvent", "unlocked", false),
    ("UnmarkedAsDuplicateEvent", "unmarked_as_duplicate", false),
    ("UnpinnedEvent", "unpinned", false),
    ("UnsubscribedEvent", "unsubscribed", false),
    ("UserBlockedEvent", "user_blocked", false),
    ("AddedToMergeQueueEvent", "added_to_merge_queue", true),
    (
        "AutomaticBaseChangeFailedEvent",
        "automatic_base_change_failed",
        true,
    ),
    (
        "AutomaticBaseChangeSucceededEvent",
        "automatic_base_change_succeeded",
        true,
    ),
    ("AutoMergeDisabledEvent", "auto_merge_disabled", true),
    ("AutoMergeEnabledEvent", "auto_merge_enabled", true),
    ("AutoRebaseEnabledEvent", "auto_rebase_enabled", true),
    ("AutoSquashEnabledEvent", "auto_squash_enabled", true),
    ("BaseRefChangedEvent", "base_ref_changed", true),
    ("BaseRefDeletedEvent", "base_ref_deleted", true),
    ("BaseRefForcePushedEvent", "base_ref_force_pushed", true),
    ("ConvertToDraftEvent", "convert_to_draft", true),
    ("DeployedEvent", "deployed", true),
    (
        "DeploymentEnvironmentChangedEvent",
        "deployment_environment_changed",
        true,
    ),
    ("HeadRefDeletedEvent", "head_ref_deleted", true),
    ("HeadRefForcePushedEvent", "head_ref_force_pushed", true),
    ("HeadRefRestoredEvent", "head_ref_restored", true),
    ("MergedEvent", "merged", true),
    ("ReadyForReviewEvent", "ready_for_review", true),
    (
        "RemovedFromMergeQueueEvent",
        "removed_from_merge_queue",
        true,
    ),
    ("ReviewDismissedEvent", "review_dismissed", true),
    ("ReviewRequestedEvent", "review_requested", true),
    ("ReviewRequestRemovedEvent", "review_request_removed", true),
];

/// The REST name of a GraphQL event type.
pub fn rest_name(kind: &str) -> Option<&'static str> {
    EVENT_NAMES
        .iter()
        .find(|(graphql, _, _)| *graphql == kind)
        .map(|(_, rest, _)| *rest)
}

fn names(node: &Value, field: &str, key: &str) -> Result<(Vec<String>, bool), String> {
    let found = list(node, field)?;
    let names = found
        .nodes
        .iter()
        .map(|entry| string(entry, key).map_err(|why| format!("in `{field}`: {why}")))
        .collect::<Result<_, _>>()?;
    Ok((names, found.next.is_some()))
}

/// An issue's or PR's facts, and whether its labels or assignees went past their first page
/// (then REST's read of the item gives them whole).
pub fn item_facts(node: &Value) -> Result<(ItemFacts, bool), String> {
    let is_pr = node.get("pullState").is_some();
    let state = string(node, if is_pr { "pullState" } else { "issueState" })?;
    let (labels, more_labels) = names(node, "labels", "name")?;
    // The timeline entries explain `updatedAt`: a null list of them is no explanation.
    list(node, "timelineItems")?;
    let (assignees, more_assignees) = names(node, "assignees", "login")?;
    let milestone = match node.get("milestone") {
        None | Some(Value::Null) => None,
        Some(milestone) => {
            Some(string(milestone, "title").map_err(|why| format!("in `milestone`: {why}"))?)
        }
    };
    let facts = ItemFacts {
        number: node
            .get("number")
            .and_then(Value::as_u64)
            .ok_or("the `number` field is missing")?,
        is_pr,
        draft: node
            .get("isDraft")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        open: state == "OPEN",
        title: string(node, "title")?,
        labels,
        milestone,
        assignees,
        created_at: timestamp(node, "createdAt")?,
        updated_at: timestamp(node, "updatedAt")?,
        // `PullRequest.updatedAt` is the pull request's own stamp, not its issue's.
        updated_at_of: if is_pr {
            StampOf::PullRequest
        } else {
            StampOf::Issue
        },
        locked: node.get("locked").and_then(Value::as_bool).unwrap_or(false),
        // GitHub's published GraphQL schema (@octokit/graphql-schema 15.26.1) has no issue
        // type: a sweep that filters by it reads through REST (`settings::resolve`).
        issue_type: None,
        comments: node
            .pointer("/comments/totalCount")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    };
    Ok((facts, more_labels || more_assignees))
}

/// Who did it: the login, and whether it is a bot. A deleted account is "ghost", nobody.
fn actor(node: &Value, field: &str) -> Result<(String, bool), String> {
    let Some(actor) = node.get(field).filter(|actor| !actor.is_null()) else {
        return Ok(("ghost".to_string(), true));
    };
    let login = string(actor, "login").map_err(|why| format!("in `{field}`: {why}"))?;
    let is_bot =
        actor.get("__typename").and_then(Value::as_str) == Some("Bot") || login.ends_with("[bot]");
    Ok((login, is_bot))
}

fn kind(node: &Value) -> &str {
    node.get("__typename").and_then(Value::as_str).unwrap_or("")
}

/// Whether the timeline entries may not name their events as REST's events list does: an
/// entry is `null` (GitHub could not resolve it, as a label event of a deleted label), or a
/// label event's label was changed (`updatedAt`) after the event (renamed since: whether GraphQL
/// shows its name then or now is not documented).
pub fn names_in_doubt(nodes: &[Value]) -> bool {
    nodes.iter().any(|node| {
        if node.is_null() {
            return true;
        }
        let Some(label) = node.get("label").filter(|label| !label.is_null()) else {
            return false;
        };
        let changed = label.get("updatedAt").and_then(Value::as_str);
        let happened = node.get("createdAt").and_then(Value::as_str);
        match (changed, happened) {
            (Some(changed), Some(happened)) => {
                match (
                    chrono::DateTime::parse_from_rfc3339(changed),
                    chrono::DateTime::parse_from_rfc3339(happened),
                ) {
                    (Ok(changed), Ok(happened)) => changed > happened,
                    _ => true,
                }
            }
            // A label whose last change GitHub does not say is in doubt too.
            _ => true,
        }
    })
}

/// The issue events among timeline entries, oldest first.
pub fn events(nodes: &[Value]) -> Result<Vec<Event>, String> {
    let mut found = Vec::new();
    for node in nodes {
        let Some(name) = rest_name(kind(node)) else {
            continue;
        };
        let (login, is_bot) = actor(node, "actor")?;
        let label = node
            .pointer("/label/name")
            .and_then(Value::as_str)
            .map(str::to_string);
        let what = match &label {
            Some(label) => format!("{name} \"{label}\""),
            None => name.to_string(),
        };
        let labelled = name == "labeled" || name == "unlabeled";
        found.push(Event {
            activity: Activity {
                kind: if labelled {
                    ActivityKind::LabelEvent
                } else {
                    ActivityKind::Event
                },
                at: timestamp(node, "createdAt").map_err(|why| format!("in an event: {why}"))?,
                login,
                is_bot,
                marker: None,
                notification: is_notification(name),
                what,
            },
            name: name.to_string(),
            label,
        });
    }
    Ok(found)
}

/// The comments among timeline entries: activity and body.
pub fn comments(nodes: &[Value]) -> Result<Vec<(Activity, String)>, String> {
    let mut found = Vec::new();
    for node in nodes.iter().filter(|node| kind(node) == "IssueComment") {
        let (login, is_bot) = actor(node, "author")?;
        let body = node.get("body").and_then(Value::as_str).unwrap_or_default();
        found.push((
            Activity {
                kind: ActivityKind::Comment,
                at: timestamp(node, "createdAt").map_err(|why| format!("in a comment: {why}"))?,
                login,
                is_bot,
                marker: marker_in(body),
                what: "comment".to_string(),
                notification: false,
            },
            body.to_string(),
        ));
    }
    Ok(found)
}

/// What a PR's timeline shows that its events and comments do not: submitted reviews and
/// force pushes, as REST's timeline gives them.
pub fn timeline_activity(nodes: &[Value]) -> Result<Vec<Activity>, String> {
    let mut found = Vec::new();
    for node in nodes {
        let (who, when, what) = match kind(node) {
            "PullRequestReview" => ("author", "submittedAt", "review"),
            "HeadRefForcePushedEvent" => ("actor", "createdAt", "head_ref_force_pushed"),
            _ => continue,
        };
        // A pending review has no `submittedAt` yet: nothing happened in public.
        if node.get(when).is_none_or(Value::is_null) {
            continue;
        }
        let (login, is_bot) = actor(node, who)?;
        found.push(Activity {
            kind: ActivityKind::Event,
            at: timestamp(node, when).map_err(|why| format!("in a timeline entry: {why}"))?,
            login,
            is_bot,
            marker: None,
            what: what.to_string(),
            notification: false,
        });
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn timeline_entries_read_as_rests_events_comments_and_reviews() {
        let nodes = vec![
            json!({"__typename": "LabeledEvent", "actor": {"__typename": "Bot", "login": "stale"}, "createdAt": "2026-01-01T00:00:00Z", "label": {"name": "Stale"}}),
            json!({"__typename": "IssueComment", "author": null, "createdAt": "2026-01-02T00:00:00Z", "body": "hi"}),
            json!({"__typename": "PullRequestReview", "author": {"__typename": "User", "login": "ann"}, "submittedAt": null}),
        ];
        let events = events(&nodes).unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(
            (events[0].name.as_str(), events[0].label.as_deref()),
            ("labeled", Some("Stale"))
        );
        assert!(events[0].activity.is_bot);
        let comments = comments(&nodes).unwrap();
        assert_eq!(comments[0].0.login, "ghost");
        assert!(
            timeline_activity(&nodes).unwrap().is_empty(),
            "a pending review is nothing"
        );
    }

    #[test]
    fn an_issue_and_a_pr_are_told_apart_by_their_state_alias() {
        let issue = json!({"number": 1, "title": "t", "issueState": "OPEN", "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z", "labels": {"nodes": [], "pageInfo": {"hasNextPage": false}}, "assignees": {"nodes": []}, "timelineItems": {"nodes": []}});
        let (facts, more) = item_facts(&issue).unwrap();
        assert!(facts.open && !facts.is_pr && !more);
        let mut pull = issue.clone();
        pull.as_object_mut().unwrap().remove("issueState");
        pull["pullState"] = json!("MERGED");
        pull["isDraft"] = json!(true);
        let (facts, _) = item_facts(&pull).unwrap();
        assert!(facts.is_pr && facts.draft && !facts.open);
    }
}
