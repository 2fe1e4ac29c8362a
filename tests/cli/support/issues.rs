//! Issues and their parts: "List repository issues", "Get an issue", "Update an issue"
//! (https://docs.github.com/rest/issues/issues), their comments
//! (https://docs.github.com/rest/issues/comments), labels
//! (https://docs.github.com/rest/issues/labels), events
//! (https://docs.github.com/rest/issues/events) and timeline
//! (https://docs.github.com/rest/issues/timeline).

use serde_json::{json, Value};

use super::server::{error, paginate, paginate_with, query_map, reply, At, Reply, UNKNOWN};
use chrono::Utc;

use super::world::{stamp, Comment, Event, WorldState};

pub(super) fn route(at: At<'_>) -> Reply {
    let At {
        world,
        page_size,
        request,
        base,
        method,
        segments,
        now,
        viewer,
    } = at;
    match (method, segments) {
        // A locked conversation refuses new comments from anyone who is not a collaborator:
        // 403 "Unable to create comment because issue is locked." (GitHub's "Locking
        // conversations", https://docs.github.com/articles/locking-conversations/; the answer
        // as recorded in probot/stale#25 and renovatebot/renovate#6215). Labels still apply.
        ("POST", ["repos", owner, name, "issues", number, "comments"])
            if locked_for_viewer(world, owner, name, number) =>
        {
            reply(
                403,
                json!({"message": "Unable to create comment because issue is locked.", "documentation_url": "https://docs.github.com/articles/locking-conversations/"}),
            )
        }
        // A comment body past 65,536 characters is refused: 422 with "Body is too long
        // (maximum is 65536 characters)" in its `errors` (a recorded answer in
        // danger/danger#424).
        ("POST", ["repos", _, _, "issues", _, "comments"])
            if serde_json::from_str::<Value>(&request.body)
                .ok()
                .and_then(|body| body["body"].as_str().map(|text| text.chars().count()))
                .is_some_and(|length| length > 65_536) =>
        {
            reply(
                422,
                json!({
                    "message": "Validation Failed",
                    "errors": [{"resource": "IssueComment", "code": "custom", "field": "body", "message": "Body is too long (maximum is 65536 characters)"}],
                    "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
                }),
            )
        }
        // "List timeline events for an issue": every event, comment, review and commit, oldest
        // first, paginated (https://docs.github.com/rest/issues/timeline).
        ("GET", ["repos", owner, name, "issues", number, "timeline"]) => {
            let repo = format!("{owner}/{name}");
            let Some(index) = number
                .parse()
                .ok()
                .and_then(|number| world.find(&repo, number))
            else {
                return error(404, "Not Found");
            };
            paginate(timeline(&world.issues[index]), request, base, page_size)
        }
        // "List repository issues": issues and PRs, newest first unless `direction=asc`, paginated
        // (https://docs.github.com/rest/issues/issues#list-repository-issues).
        ("GET", ["repos", owner, name, "issues"]) => {
            let repo = format!("{owner}/{name}");
            if !world.repos.contains(&repo) {
                return error(404, "Not Found");
            }
            let query = query_map(&request.query);
            // `since` keeps the items updated at or after it, closed ones too under
            // `state=all`: "Only show results that were last updated after the given time. This
            // is a timestamp in ISO 8601 format: `YYYY-MM-DDTHH:MM:SSZ`" (REST docs, Issues,
            // "List repository issues"); inclusive in the v3 docs' wording ("Only issues updated
            // at or after this time are returned") and in GraphQL's `IssueFilters.since` ("List
            // issues that have been updated at or after the given date", @octokit/graphql-schema).
            // What GitHub answers to a `since` it cannot parse is not documented: unknown here.
            let since = match query.get("since") {
                None => None,
                Some(text) => match chrono::DateTime::parse_from_rfc3339(text) {
                    Ok(since) => Some(since.with_timezone(&Utc)),
                    Err(_) => return error(UNKNOWN, "the fake GitHub does not know this `since`"),
                },
            };
            let mut items: Vec<&super::world::Issue> = world
                .issues
                .iter()
                .filter(|issue| {
                    issue.repo == repo
                        && query
                            .get("state")
                            .is_none_or(|state| state == "all" || *state == issue.state)
                        && since.is_none_or(|since| issue.updated_at >= since)
                })
                .collect();
            items.sort_by_key(|issue| issue.created_at);
            if query.get("direction").map(String::as_str) != Some("asc") {
                items.reverse();
            }
            paginate_with(&items, request, base, page_size, |issue| issue.to_json())
        }
        (_, ["repos", owner, name, "issues", number, rest @ ..]) => {
            let repo = format!("{owner}/{name}");
            let Some(index) = number
                .parse()
                .ok()
                .and_then(|number| world.find(&repo, number))
            else {
                return error(404, "Not Found");
            };
            let issue = &mut world.issues[index];
            match (method, rest) {
                // "Get an issue" (https://docs.github.com/rest/issues/issues#get-an-issue).
                ("GET", []) => reply(200, issue.to_json()),
                // "Update an issue": `state` and `state_reason` close or reopen it, with a `closed` or
                // `reopened` event by the token's user (https://docs.github.com/rest/issues/issues#update-an-issue).
                ("PATCH", []) => {
                    let body: Value = serde_json::from_str(&request.body).unwrap_or(Value::Null);
                    if let Some(state) = body.get("state").and_then(Value::as_str) {
                        issue.state = state.to_string();
                        issue.state_reason = body
                            .get("state_reason")
                            .and_then(Value::as_str)
                            .map(str::to_string);
                        issue.events.push(Event {
                            name: if state == "open" {
                                "reopened".into()
                            } else {
                                state.to_string()
                            },
                            label: None,
                            actor: viewer.clone(),
                            at: now,
                        });
                    }
                    issue.updated_at = now;
                    reply(200, issue.to_json())
                }
                // "List issue events": actor, time and label of each (https://docs.github.com/rest/issues/events).
                ("GET", ["events"]) => {
                    let values = issue
                        .events
                        .iter()
                        .map(|event| {
                            json!({
                                "event": event.name,
                                "actor": super::world::account(&event.actor).rest_json(),
                                "created_at": stamp(event.at),
                                "label": event.label.as_ref().map(|name| json!({"name": name})),
                            })
                        })
                        .collect();
                    paginate(values, request, base, page_size)
                }
                // "List issue comments": `since` keeps those at or after it
                // (https://docs.github.com/rest/issues/comments#list-issue-comments).
                ("GET", ["comments"]) => {
                    let since = query_map(&request.query)
                        .get("since")
                        .and_then(|since| chrono::DateTime::parse_from_rfc3339(since).ok())
                        .map(|since| since.with_timezone(&Utc));
                    let values = issue
                        .comments
                        .iter()
                        .filter(|comment| since.is_none_or(|since| comment.at >= since))
                        .map(|comment| {
                            json!({
                                "id": comment.id,
                                "user": super::world::account(&comment.user).rest_json(),
                                "body": comment.body,
                                "created_at": stamp(comment.at),
                                "updated_at": stamp(comment.at),
                            })
                        })
                        .collect();
                    paginate(values, request, base, page_size)
                }
                // "Create an issue comment": 201 with the new comment
                // (https://docs.github.com/rest/issues/comments#create-an-issue-comment).
                ("POST", ["comments"]) => {
                    let body: Value = serde_json::from_str(&request.body).unwrap_or(Value::Null);
                    let Some(text) = body.get("body").and_then(Value::as_str) else {
                        return error(422, "body is missing");
                    };
                    let text = text.to_string();
                    world.next_id();
                    let id = world.next_id();
                    let issue = &mut world.issues[index];
                    issue.comments.push(Comment {
                        id,
                        user: viewer.clone(),
                        body: text.clone(),
                        at: now,
                    });
                    issue.updated_at = now;
                    reply(
                        201,
                        json!({"id": id, "body": text, "created_at": stamp(now)}),
                    )
                }
                // "Add labels to an issue": adds the ones it lacks, answers every label it now has
                // (https://docs.github.com/rest/issues/labels#add-labels-to-an-issue).
                ("POST", ["labels"]) => {
                    let body: Value = serde_json::from_str(&request.body).unwrap_or(Value::Null);
                    let Some(labels) = body.get("labels").and_then(Value::as_array) else {
                        return error(422, "labels is missing");
                    };
                    for label in labels.iter().filter_map(Value::as_str) {
                        if !issue.has_label(label) {
                            issue.labels.push(label.to_string());
                            issue.events.push(Event {
                                name: "labeled".into(),
                                label: Some(label.to_string()),
                                actor: viewer.clone(),
                                at: now,
                            });
                        }
                    }
                    issue.updated_at = now;
                    reply(
                        200,
                        json!(issue
                            .labels
                            .iter()
                            .map(|name| json!({"name": name}))
                            .collect::<Vec<_>>()),
                    )
                }
                // "Remove a label from an issue": 404 "Label does not exist" when it has none of that name
                // (https://docs.github.com/rest/issues/labels#remove-a-label-from-an-issue).
                ("DELETE", ["labels", label]) => {
                    let Some(position) = issue
                        .labels
                        .iter()
                        .position(|name| name.eq_ignore_ascii_case(label))
                    else {
                        return error(404, "Label does not exist");
                    };
                    let removed = issue.labels.remove(position);
                    issue.events.push(Event {
                        name: "unlabeled".into(),
                        label: Some(removed),
                        actor: viewer.clone(),
                        at: now,
                    });
                    issue.updated_at = now;
                    reply(
                        200,
                        json!(issue
                            .labels
                            .iter()
                            .map(|name| json!({"name": name}))
                            .collect::<Vec<_>>()),
                    )
                }
                _ => error(UNKNOWN, "the fake GitHub does not know this route"),
            }
        }
        _ => Reply::pass(),
    }
}

/// Whether GitHub refuses the token's comment on this item because its conversation is locked.
fn locked_for_viewer(world: &WorldState, owner: &str, name: &str, number: &str) -> bool {
    let repo = format!("{owner}/{name}");
    number
        .parse()
        .ok()
        .and_then(|number| world.find(&repo, number))
        .is_some_and(|index| world.issues[index].locked && !world.viewer_collaborator)
}

/// `GET /repos/{o}/{r}/issues/{n}/timeline`, oldest first, as GitHub's "Issue event types"
/// (https://docs.github.com/rest/using-the-rest-api/issue-event-types) and the OpenAPI
/// description's `timeline-*-event` schemas give them: issue events with `actor` and
/// `created_at`; `commented` with `actor`, `user` and `created_at`; `reviewed` (timeline only)
/// names its author in `user` (no `actor`) and has `submitted_at` (no `created_at`);
/// `committed` carries only git names, emails and dates (no GitHub account at all).
fn timeline(issue: &super::world::Issue) -> Vec<Value> {
    let user = |login: &str| super::world::account(login).rest_json();
    let mut entries: Vec<(chrono::DateTime<Utc>, Value)> = Vec::new();
    for event in &issue.events {
        entries.push((
            event.at,
            json!({
                "event": event.name,
                "actor": super::world::account(&event.actor).rest_json(),
                "created_at": stamp(event.at),
                "label": event.label.as_ref().map(|name| json!({"name": name})),
            }),
        ));
    }
    for comment in &issue.comments {
        entries.push((
            comment.at,
            json!({
                "event": "commented",
                "id": comment.id,
                "actor": super::world::account(&comment.user).rest_json(),
                "user": super::world::account(&comment.user).rest_json(),
                "body": comment.body,
                "created_at": stamp(comment.at),
                "updated_at": stamp(comment.at),
            }),
        ));
    }
    for review in &issue.reviews {
        entries.push((
            review.at,
            json!({
                "event": "reviewed",
                "user": user(&review.user),
                "state": review.state.to_ascii_lowercase(),
                "commit_id": review.commit_id,
                "submitted_at": stamp(review.at),
                "author_association": "NONE",
            }),
        ));
    }
    for (sha, author, at) in &issue.commits {
        let git =
            json!({"name": author, "email": format!("{author}@example.com"), "date": stamp(*at)});
        entries.push((
            *at,
            json!({"event": "committed", "sha": sha, "author": git, "committer": git, "message": "a change"}),
        ));
    }
    entries.sort_by_key(|(at, _)| *at);
    entries.into_iter().map(|(_, value)| value).collect()
}
