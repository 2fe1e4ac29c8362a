//! The stale rules' facts from GraphQL answers: an issue's or PR's own fields and its timeline
//! entries, as the REST model gives them (an event's name in REST's words, `labeled` for a
//! `LabeledEvent`; a deleted account is "ghost"; an account typed `Bot` is a bot).

use std::borrow::Cow;
use std::fmt;
use std::rc::Rc;

use chrono::{DateTime, Utc};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::parse::{list_ref, string};
use super::stale_entry::{reduce, Entry, Interner, Timeline, TimelineRead, What};
use crate::github::model::{timestamp, ParseError};
use crate::policy::stale::{ItemFacts, StampOf};
use crate::policy::write::marker_in;

/// Every type of GraphQL's timeline that REST's issue events list also reports ("Issue event
/// types" in the REST docs, the `IssueTimelineItemsItemType` and
/// `PullRequestTimelineItemsItemType` enums of GitHub's schema), with REST's name for it and
/// whether only a PR has it. The stale documents ask every one (a test checks they do), so both
/// read paths see the same events; what REST reports and GraphQL has no type for
/// (`issue_type_added`, …) is read through REST (see `StaleReader::events_in_full`).
pub(crate) const EVENT_NAMES: &[(&str, &str, bool)] = &[
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
pub(crate) fn rest_name(kind: &str) -> Option<&'static str> {
    EVENT_NAMES
        .iter()
        .find(|(graphql, _, _)| *graphql == kind)
        .map(|(_, rest, _)| *rest)
}

fn names(node: &Value, field: &str, key: &str) -> Result<(Vec<String>, bool), ParseError> {
    let found = list_ref(node, field)?;
    let names = found
        .nodes
        .iter()
        .map(|entry| string(entry, key).map_err(|why| why.within(&format!("`{field}`"))))
        .collect::<Result<_, _>>()?;
    Ok((names, found.next.is_some()))
}

/// An issue's or PR's facts, and whether its labels or assignees went past their first page
/// (then REST's read of the item gives them whole).
pub(super) fn item_facts(
    node: &Value,
    timeline: &TimelineField,
) -> Result<(ItemFacts, bool), ParseError> {
    let is_pr = node.get("pullState").is_some();
    let state = string(node, if is_pr { "pullState" } else { "issueState" })?;
    let (labels, more_labels) = names(node, "labels", "name")?;
    // The timeline entries explain `updatedAt`: a null list of them is no explanation.
    timeline.listed()?;
    let (assignees, more_assignees) = names(node, "assignees", "login")?;
    let milestone = match node.get("milestone") {
        None | Some(Value::Null) => None,
        Some(milestone) => {
            Some(string(milestone, "title").map_err(|why| why.within("`milestone`"))?)
        }
    };
    let facts = ItemFacts {
        number: node
            .get("number")
            .and_then(Value::as_u64)
            .ok_or_else(|| ParseError::missing("number"))?,
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

/// A string of an answer, borrowed from its text where it holds no escapes.
pub(super) struct Text<'a>(pub(super) Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Text<'de>;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(text)))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(text.to_string())))
            }
            fn visit_string<E: de::Error>(self, text: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(text)))
            }
        }
        deserializer.deserialize_str(Visit)
    }
}

fn text<'b>(field: &'b Option<Text<'_>>) -> Option<&'b str> {
    field.as_ref().map(|text| text.0.as_ref())
}

/// An entry's `actor` or `author`, as the documents ask it (`TimelineFacts`).
#[derive(Deserialize)]
struct RawActor<'a> {
    #[serde(rename = "__typename", borrow)]
    kind: Option<Text<'a>>,
    #[serde(borrow)]
    login: Option<Text<'a>>,
}

/// A label event's live label.
#[derive(Deserialize)]
struct RawLabel<'a> {
    #[serde(borrow)]
    name: Option<Text<'a>>,
    #[serde(rename = "updatedAt", borrow)]
    updated_at: Option<Text<'a>>,
}

/// One timeline entry as GitHub answers the `TimelineFacts` fragment, its strings borrowed
/// from the answer: it lives only until it is reduced. A field GitHub leaves out or answers
/// `null` is `None`; one of another JSON type than GitHub's schema gives it fails the answer.
#[derive(Deserialize)]
struct RawEntry<'a> {
    #[serde(rename = "__typename", borrow)]
    kind: Option<Text<'a>>,
    #[serde(borrow)]
    author: Option<RawActor<'a>>,
    #[serde(borrow)]
    actor: Option<RawActor<'a>>,
    #[serde(rename = "createdAt", borrow)]
    created_at: Option<Text<'a>>,
    #[serde(rename = "submittedAt", borrow)]
    submitted_at: Option<Text<'a>>,
    #[serde(borrow)]
    body: Option<Text<'a>>,
    #[serde(borrow)]
    label: Option<RawLabel<'a>>,
}

#[derive(Deserialize)]
struct RawPageInfo<'a> {
    #[serde(rename = "hasPreviousPage")]
    more: Option<bool>,
    #[serde(rename = "startCursor", borrow)]
    start: Option<Text<'a>>,
}

#[derive(Deserialize)]
struct RawTimeline<'a> {
    #[serde(rename = "pageInfo", borrow)]
    page_info: Option<RawPageInfo<'a>>,
    #[serde(borrow)]
    nodes: Option<Vec<Option<RawEntry<'a>>>>,
}

/// An item's `timelineItems` as its node has it: reduced as it is parsed, so a page keeps a few
/// entries an item, never the page's text or a tree of it.
#[derive(Debug)]
pub(super) enum TimelineField {
    /// Absent or `null`: a list nobody knows.
    Missing,
    /// A connection without its `nodes`.
    NoNodes,
    Listed(Timeline),
}

impl<'de> Deserialize<'de> for TimelineField {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(
            match Option::<RawTimeline<'de>>::deserialize(deserializer)? {
                None => TimelineField::Missing,
                Some(RawTimeline { nodes: None, .. }) => TimelineField::NoNodes,
                // Logins and labels are interned for the item here, and again for the reader
                // when it keeps the item ([`Timeline::intern`]).
                Some(raw) => TimelineField::Listed(timeline_of(raw, &mut Interner::default())),
            },
        )
    }
}

impl TimelineField {
    /// The node's `timelineItems` (an item node of a Value answer).
    pub(super) fn of(node: &Value) -> Result<TimelineField, ParseError> {
        match node.get("timelineItems") {
            None => Ok(TimelineField::Missing),
            Some(field) => TimelineField::deserialize(field)
                .map_err(|_| ParseError::not_a("timelineItems", "a timeline connection")),
        }
    }

    /// The entries explain `updatedAt`: a list GitHub answered `null` is no explanation.
    fn listed(&self) -> Result<(), ParseError> {
        match self {
            TimelineField::Missing => Err(ParseError::NullList {
                field: "timelineItems".to_string(),
            }),
            TimelineField::NoNodes => Err(ParseError::NullNodes {
                field: "timelineItems".to_string(),
            }),
            TimelineField::Listed(_) => Ok(()),
        }
    }

    /// The timeline, reduced (an empty one where the node had none).
    pub(super) fn into_timeline(self) -> Timeline {
        match self {
            TimelineField::Listed(timeline) => timeline,
            _ => Timeline::default(),
        }
    }
}

/// Who did it: the login, and whether it is a bot. A deleted account is "ghost", nobody.
fn actor(
    actor: Option<&RawActor>,
    field: &str,
    names: &mut Interner,
) -> Result<(Rc<str>, bool), ParseError> {
    let Some(actor) = actor else {
        return Ok((names.get("ghost"), true));
    };
    let login = text(&actor.login)
        .ok_or_else(|| ParseError::missing("login").within(&format!("`{field}`")))?;
    let is_bot = text(&actor.kind) == Some("Bot") || login.ends_with("[bot]");
    Ok((names.get(login), is_bot))
}

/// A time GitHub must have given, as the REST model reads one.
fn time(value: Option<&str>, field: &str) -> Result<DateTime<Utc>, ParseError> {
    let text = value.ok_or_else(|| ParseError::missing(field))?;
    DateTime::parse_from_rfc3339(text)
        .map(|time| time.with_timezone(&Utc))
        .map_err(|_| ParseError::Timestamp {
            field: field.to_string(),
            value: text.to_string(),
        })
}

/// Whether a timeline entry may not name its event as REST's events list does: it is `null`
/// (GitHub could not resolve it, as a label event of a deleted label), or a label event's
/// label was changed (`updatedAt`) after the event (renamed since: whether GraphQL shows its
/// name then or now is not documented).
fn in_doubt(node: Option<&RawEntry>) -> bool {
    let Some(node) = node else {
        return true;
    };
    let Some(label) = &node.label else {
        return false;
    };
    match (text(&label.updated_at), text(&node.created_at)) {
        (Some(changed), Some(happened)) => {
            match (
                DateTime::parse_from_rfc3339(changed),
                DateTime::parse_from_rfc3339(happened),
            ) {
                (Ok(changed), Ok(happened)) => changed > happened,
                _ => true,
            }
        }
        // A label whose last change GitHub does not say is in doubt too.
        _ => true,
    }
}

/// A failed entry: the reads it fails, and why.
type FailedEntry = (&'static [TimelineRead], String);

/// One timeline entry as the rules see it: an issue event (REST's name for it), a comment
/// (its body kept when it carries gh-sweep's marker), a submitted review (a pending one has no
/// `submittedAt` yet: nothing happened in public) or, for any other entry, `None`.
fn entry(node: &RawEntry, names: &mut Interner) -> Result<Option<Entry>, FailedEntry> {
    type Shape<'n> = (
        What,
        (Option<&'n RawActor<'n>>, &'static str),
        (Option<&'n str>, &'static str),
        &'static [TimelineRead],
        &'static str,
    );
    let author = (node.author.as_ref(), "author");
    let actor_of = (node.actor.as_ref(), "actor");
    let created = (text(&node.created_at), "createdAt");
    let (what, who, when, reads, context): Shape = match text(&node.kind).unwrap_or("") {
        "IssueComment" => (
            What::Comment,
            author,
            created,
            &[TimelineRead::Comments],
            "a comment",
        ),
        "PullRequestReview" => {
            if node.submitted_at.is_none() {
                return Ok(None);
            }
            (
                What::Review,
                author,
                (text(&node.submitted_at), "submittedAt"),
                &[TimelineRead::Timeline],
                "a timeline entry",
            )
        }
        typename => match rest_name(typename) {
            Some(name @ "head_ref_force_pushed") => (
                What::Event(name),
                actor_of,
                created,
                &[TimelineRead::Events, TimelineRead::Timeline],
                "an event",
            ),
            Some(name) => (
                What::Event(name),
                actor_of,
                created,
                &[TimelineRead::Events],
                "an event",
            ),
            None => return Ok(None),
        },
    };
    let fail = |why: ParseError| (reads, why.to_string());
    let (login, is_bot) = actor(who.0, who.1, names).map_err(fail)?;
    let at = time(when.0, when.1).map_err(|why| fail(why.within(context)))?;
    let body = match what {
        What::Comment => text(&node.body)
            .filter(|body| marker_in(body).is_some())
            .map(Box::from),
        _ => None,
    };
    let label = match what {
        What::Event(_) => node
            .label
            .as_ref()
            .and_then(|label| text(&label.name))
            .map(|name| names.get(name)),
        _ => None,
    };
    Ok(Some(Entry {
        at,
        what,
        login,
        is_bot,
        label,
        body,
    }))
}

/// What an item's node carries of its timeline (`timelineItems`, its newest entries going
/// back, as `last:` pages them), reduced to the entries the stale rules can tell apart.
fn timeline_of(connection: RawTimeline, names: &mut Interner) -> Timeline {
    let info = connection.page_info.as_ref();
    let more = info.and_then(|info| info.more) == Some(true);
    let mut found = Timeline::default();
    let mut entries = Vec::new();
    let mut oldest: Option<DateTime<Utc>> = None;
    for node in connection.nodes.iter().flatten() {
        found.doubt |= in_doubt(node.as_ref());
        let Some(node) = node else {
            continue;
        };
        match entry(node, names) {
            Ok(Some(entry)) => {
                oldest = Some(oldest.map_or(entry.at, |oldest| oldest.min(entry.at)));
                entries.push(entry);
            }
            Ok(None) => {}
            Err((reads, why)) => {
                for read in reads {
                    found.errors[*read as usize].get_or_insert_with(|| why.clone());
                }
            }
        }
    }
    // The entries left out are no newer than the oldest here: every later one is here.
    found.after = more.then(|| oldest.unwrap_or(DateTime::<Utc>::MAX_UTC));
    found.before = info
        .and_then(|info| text(&info.start))
        .filter(|_| more)
        .map(str::to_string);
    found.entries = reduce(entries);
    found
}

/// [`timeline_of`] a node of a Value answer, its names the reader's.
pub(super) fn timeline(node: &Value, names: &mut Interner) -> Result<Timeline, ParseError> {
    let mut timeline = TimelineField::of(node)?.into_timeline();
    timeline.intern(names);
    Ok(timeline)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn timeline_entries_read_as_rests_events_comments_and_reviews() {
        let node = json!({"timelineItems": {"nodes": [
            {"__typename": "LabeledEvent", "actor": {"__typename": "Bot", "login": "stale"}, "createdAt": "2026-01-01T00:00:00Z", "label": {"name": "Stale", "updatedAt": "2025-01-01T00:00:00Z"}},
            {"__typename": "IssueComment", "author": null, "createdAt": "2026-01-02T00:00:00Z", "body": "hi"},
            {"__typename": "PullRequestReview", "author": {"__typename": "User", "login": "ann"}, "submittedAt": null},
        ], "pageInfo": {"hasPreviousPage": false, "startCursor": "a"}}});
        let timeline = timeline(&node, &mut Interner::default()).unwrap();
        assert!(!timeline.doubt && timeline.after.is_none() && timeline.before.is_none());
        let events = timeline.events();
        assert_eq!(events.len(), 1);
        assert_eq!(
            (events[0].name.as_str(), events[0].label.as_deref()),
            ("labeled", Some("Stale"))
        );
        assert!(events[0].activity.is_bot);
        let comments = timeline.comments();
        assert_eq!(comments[0].activity.login, "ghost");
        assert!(
            timeline.timeline().is_empty(),
            "a pending review is nothing"
        );
    }

    #[test]
    fn a_page_with_older_entries_is_whole_after_its_oldest_and_a_bad_entry_fails_its_read() {
        let node = json!({"timelineItems": {"nodes": [
            {"__typename": "IssueComment", "author": {"login": "ann"}, "createdAt": "2026-01-03T00:00:00Z", "body": "x"},
            {"__typename": "IssueComment", "author": {}, "createdAt": "2026-01-04T00:00:00Z", "body": "x"},
            {"__typename": "LabeledEvent", "actor": null, "createdAt": "2026-01-05T00:00:00Z", "label": {"name": "Stale"}},
        ], "pageInfo": {"hasPreviousPage": true, "startCursor": "c"}}});
        let timeline = timeline(&node, &mut Interner::default()).unwrap();
        assert_eq!(
            timeline.after,
            Some("2026-01-03T00:00:00Z".parse().unwrap())
        );
        assert_eq!(timeline.before.as_deref(), Some("c"));
        assert!(
            timeline.doubt,
            "a label whose last change GitHub does not say"
        );
        assert!(timeline.error(TimelineRead::Comments).is_some());
        assert!(timeline.error(TimelineRead::Events).is_none());
    }

    #[test]
    fn an_issue_and_a_pr_are_told_apart_by_their_state_alias() {
        let issue = json!({"number": 1, "title": "t", "issueState": "OPEN", "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z", "labels": {"nodes": [], "pageInfo": {"hasNextPage": false}}, "assignees": {"nodes": []}, "timelineItems": {"nodes": []}});
        let (facts, more) = item_facts(&issue, &TimelineField::of(&issue).unwrap()).unwrap();
        assert!(facts.open && !facts.is_pr && !more);
        let mut pull = issue.clone();
        pull.as_object_mut().unwrap().remove("issueState");
        pull["pullState"] = json!("MERGED");
        pull["isDraft"] = json!(true);
        let (facts, _) = item_facts(&pull, &TimelineField::of(&pull).unwrap()).unwrap();
        assert!(facts.is_pr && facts.draft && !facts.open);
    }
}
