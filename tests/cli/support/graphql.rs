//! The fake GitHub's GraphQL endpoint (`POST /graphql`; `/api/graphql` on GitHub Enterprise
//! Server, "Forming calls with GraphQL", The GraphQL endpoint), answering from the same world
//! as the REST routes. It does not execute arbitrary GraphQL: it knows gh-sweep's operations by
//! name and builds each answer in the shape of that operation's selection (the documents in
//! `src/github/graphql/`, which a test checks against GitHub's schema). What GitHub does, as
//! this fake does it:
//! - A query's own errors come with HTTP 200: `{"data": …, "errors": [{"type", "path",
//!   "message"}]}`; a field that cannot be resolved is `null` in `data` and its error names its
//!   `path` (`NOT_FOUND`: "Could not resolve to a PullRequest with the number of 5."; GitHub
//!   docs, "Forming calls with GraphQL", and answers recorded in renovatebot/renovate#21861).
//! - Enums are in capitals (`IN_PROGRESS`, `MERGED`, `RENAMED`), GitHub's schema's values.
//! - Every connection is paged by `first`/`after` with `pageInfo { hasNextPage endCursor }`
//!   (`first` is at most 100, "Rate limits and node limits for the GraphQL API", Node limit);
//!   the world's `page_size` caps a page here as it caps REST's.
//! - `rateLimit { cost remaining resetAt limit }`: `cost` by GitHub's formula ("Calculating a
//!   rate limit score": the requests each connection needs, as if every one were full, summed,
//!   divided by 100 and rounded, at least 1), out of a budget of 5,000 points an hour.
//!
//! An operation it does not know answers 599 and fails the test.

use chrono::{Duration, Utc};
use serde_json::{json, Value};

use super::server::{reply, search_matches, Reply, UNKNOWN};
use super::world::{stamp, Issue, WorldState};

/// A cursor is the index the next page starts at.
fn page<T: Clone>(items: &[T], after: Option<&str>, size: usize) -> (Vec<T>, Value) {
    let start = after
        .and_then(|cursor| cursor.strip_prefix("at:"))
        .and_then(|index| index.parse::<usize>().ok())
        .unwrap_or(0)
        .min(items.len());
    let end = (start + size).min(items.len());
    let info = json!({
        "hasNextPage": end < items.len(),
        "endCursor": (end > start).then(|| format!("at:{end}")),
    });
    (items[start..end].to_vec(), info)
}

fn connection(nodes: Vec<Value>, after: Option<&str>, size: usize) -> Value {
    let (nodes, info) = page(&nodes, after, size);
    json!({"pageInfo": info, "nodes": nodes})
}

fn run_nodes(issue: &Issue) -> Vec<Value> {
    let mut nodes: Vec<Value> = issue
        .check_runs
        .iter()
        .map(|run| {
            let app = issue
                .check_suites
                .iter()
                .find(|suite| suite.id == run.suite)
                .map(|suite| json!({"slug": suite.app}));
            json!({
                "__typename": "CheckRun",
                "databaseId": run.id,
                "name": run.name,
                "status": run.status.to_ascii_uppercase(),
                "conclusion": run.conclusion.as_ref().map(|c| c.to_ascii_uppercase()),
                "startedAt": stamp(run.started_at),
                "completedAt": run.conclusion.as_ref().map(|_| stamp(run.started_at)),
                "checkSuite": {"databaseId": run.suite, "app": app},
            })
        })
        .collect();
    nodes.extend(issue.statuses.iter().map(|(context, state)| {
        json!({"__typename": "StatusContext", "context": context, "state": state.to_ascii_uppercase()})
    }));
    nodes
}

/// The suites REST serves (`suites_json`), in GraphQL's shape.
fn suite_nodes(issue: &Issue) -> Vec<Value> {
    issue
        .suites_json()
        .iter()
        .map(|suite| {
            json!({
                "databaseId": suite["id"],
                "status": suite["status"].as_str().map(str::to_ascii_uppercase),
                "conclusion": suite["conclusion"].as_str().map(str::to_ascii_uppercase),
                "createdAt": suite["created_at"],
                "app": {"slug": suite["app"]["slug"], "name": suite["app"]["name"]},
            })
        })
        .collect()
}

/// The head commit's checks: `statusCheckRollup` is null when nothing ran on the commit. The
/// schema types it nullable (`Commit.statusCheckRollup: StatusCheckRollup`, in
/// @octokit/graphql-schema), and clients met the null in practice (github/combine-prs,
/// "add null check for commit status rollup").
fn commit_node(issue: &Issue, size: usize) -> Value {
    let contexts = run_nodes(issue);
    let rollup =
        (!contexts.is_empty()).then(|| json!({"contexts": connection(contexts, None, size)}));
    json!({
        "oid": issue.head_sha,
        "statusCheckRollup": rollup,
        "checkSuites": connection(suite_nodes(issue), None, size),
    })
}

fn file_nodes(issue: &Issue) -> Vec<Value> {
    issue
        .files
        .iter()
        .map(|(path, previous)| {
            let change = if previous.is_some() {
                "RENAMED"
            } else {
                "MODIFIED"
            };
            json!({"path": path, "changeType": change})
        })
        .collect()
}

fn review_nodes(issue: &Issue) -> Vec<Value> {
    issue
        .reviews
        .iter()
        .map(|review| {
            json!({
                "author": {"login": review.user},
                "authorAssociation": review.association,
                "state": review.state,
                "commit": {"oid": review.commit_id},
                "submittedAt": stamp(review.at),
            })
        })
        .collect()
}

/// `PullFacts`: a PR as the fragment selects it.
fn pull_node(issue: &Issue, size: usize) -> Value {
    let state = if issue.merged {
        "MERGED"
    } else if issue.state == "open" {
        "OPEN"
    } else {
        "CLOSED"
    };
    let mergeable = match issue.mergeable {
        Some(true) => "MERGEABLE",
        Some(false) => "CONFLICTING",
        None => "UNKNOWN",
    };
    let merge_state = if issue.mergeable_state.is_empty() {
        "UNKNOWN".to_string()
    } else {
        issue.mergeable_state.to_ascii_uppercase()
    };
    let labels: Vec<Value> = issue
        .labels
        .iter()
        .map(|name| json!({"name": name}))
        .collect();
    json!({
        "number": issue.number,
        "title": issue.title,
        "url": issue.html_url(),
        "repository": {"nameWithOwner": issue.repo},
        "state": state,
        "merged": issue.merged,
        "isDraft": issue.draft,
        "locked": issue.locked,
        "headRefOid": issue.head_sha,
        "baseRefName": issue.base,
        "mergeable": mergeable,
        "mergeStateStatus": merge_state,
        "labels": connection(labels, None, size),
        "files": connection(file_nodes(issue), None, size),
        "reviews": connection(review_nodes(issue), None, size),
        "commits": {"nodes": [{"commit": commit_node(issue, size)}]},
    })
}

/// GitHub's score for a query asking `connections` connections, each as if full: the requests
/// needed to fill every connection at its `first`/`last`, summed, divided by 100 and rounded,
/// at least 1 ("Rate limits and node limits for the GraphQL API", docs.github.com,
/// "Calculating a rate limit score before running the call").
fn rate_limit(requests: u64) -> Value {
    let cost = ((requests as f64) / 100.0).round().max(1.0) as u64;
    json!({
        "cost": cost,
        "remaining": 5000 - cost as i64,
        "resetAt": stamp(Utc::now() + Duration::hours(1)),
        "limit": 5000,
    })
}

fn not_found(path: &[&str], what: &str) -> Value {
    json!({"type": "NOT_FOUND", "path": path, "message": format!("Could not resolve to {what}.")})
}

/// The PR `number` of `owner/name`, or the `errors` entry GitHub answers for it.
fn find_pull<'w>(world: &'w WorldState, variables: &Value) -> Result<&'w Issue, Value> {
    let repo = format!(
        "{}/{}",
        variables["owner"].as_str().unwrap_or_default(),
        variables["name"].as_str().unwrap_or_default()
    );
    let Some(name) = world
        .repos
        .iter()
        .find(|name| name.eq_ignore_ascii_case(&repo))
    else {
        return Err(not_found(
            &["repository"],
            &format!("a Repository with the name '{repo}'"),
        ));
    };
    let number = variables["number"].as_u64().unwrap_or(0);
    world
        .find(name, number)
        .map(|index| &world.issues[index])
        .filter(|issue| issue.is_pr)
        .ok_or_else(|| {
            not_found(
                &["repository", "pullRequest"],
                &format!("a PullRequest with the number of {number}"),
            )
        })
}

/// The head commit `oid` of `owner/name`, when a PR of the world has it.
fn find_commit<'w>(world: &'w WorldState, variables: &Value) -> Option<&'w Issue> {
    let repo = format!(
        "{}/{}",
        variables["owner"].as_str().unwrap_or_default(),
        variables["name"].as_str().unwrap_or_default()
    );
    let oid = variables["oid"].as_str().unwrap_or_default();
    world.issues.iter().find(|issue| {
        issue.repo.eq_ignore_ascii_case(&repo) && issue.is_pr && issue.head_sha == oid
    })
}

/// `last`/`before` paging, newest last: the page ending before the cursor.
fn page_back(items: &[Value], before: Option<&str>, size: usize) -> Value {
    let end = before
        .and_then(|cursor| cursor.strip_prefix("at:"))
        .and_then(|index| index.parse::<usize>().ok())
        .unwrap_or(items.len())
        .min(items.len());
    let start = end.saturating_sub(size);
    json!({
        "pageInfo": {"hasPreviousPage": start > 0, "startCursor": (end > start).then(|| format!("at:{start}"))},
        "nodes": items[start..end].to_vec(),
    })
}

/// GraphQL's name for an issue event the world keeps by its REST name, for the kinds the
/// stale queries ask (`itemTypes`); a PR's own kinds only on a PR.
fn event_type(name: &str, is_pr: bool) -> Option<&'static str> {
    let (kind, pr_only) = match name {
        "labeled" => ("LabeledEvent", false),
        "unlabeled" => ("UnlabeledEvent", false),
        "assigned" => ("AssignedEvent", false),
        "unassigned" => ("UnassignedEvent", false),
        "milestoned" => ("MilestonedEvent", false),
        "demilestoned" => ("DemilestonedEvent", false),
        "renamed" => ("RenamedTitleEvent", false),
        "reopened" => ("ReopenedEvent", false),
        "locked" => ("LockedEvent", false),
        "unlocked" => ("UnlockedEvent", false),
        "head_ref_force_pushed" => ("HeadRefForcePushedEvent", true),
        "head_ref_restored" => ("HeadRefRestoredEvent", true),
        "ready_for_review" => ("ReadyForReviewEvent", true),
        "convert_to_draft" => ("ConvertToDraftEvent", true),
        "review_requested" => ("ReviewRequestedEvent", true),
        _ => return None,
    };
    (!pr_only || is_pr).then_some(kind)
}

fn actor(login: &str, kind: &str) -> Value {
    json!({"__typename": if kind == "Bot" { "Bot" } else { "User" }, "login": login})
}

/// An item's timeline entries of the kinds asked, oldest first: its events, comments and
/// (a PR's) reviews. A `PullRequestReview` names its `author` and `submittedAt`.
fn timeline_nodes(issue: &Issue) -> Vec<Value> {
    let mut entries: Vec<(chrono::DateTime<Utc>, Value)> = Vec::new();
    for event in &issue.events {
        if let Some(kind) = event_type(&event.name, issue.is_pr) {
            entries.push((
                event.at,
                json!({
                    "__typename": kind,
                    "actor": actor(&event.actor, &event.actor_type),
                    "createdAt": stamp(event.at),
                    "label": event.label.as_ref().map(|name| json!({"name": name})),
                }),
            ));
        }
    }
    for comment in &issue.comments {
        entries.push((
            comment.at,
            json!({
                "__typename": "IssueComment",
                "author": actor(&comment.user, &comment.user_type),
                "createdAt": stamp(comment.at),
                "body": comment.body,
            }),
        ));
    }
    if issue.is_pr {
        for review in &issue.reviews {
            let kind = if review.user.ends_with("[bot]") {
                "Bot"
            } else {
                "User"
            };
            entries.push((
                review.at,
                json!({
                    "__typename": "PullRequestReview",
                    "author": actor(&review.user, kind),
                    "submittedAt": stamp(review.at),
                }),
            ));
        }
    }
    entries.sort_by_key(|(at, _)| *at);
    entries.into_iter().map(|(_, value)| value).collect()
}

/// `IssueFacts` or `PullItemFacts`: an item as the stale fragments select it.
fn item_node(issue: &Issue, size: usize) -> Value {
    let labels: Vec<Value> = issue
        .labels
        .iter()
        .map(|name| json!({"name": name}))
        .collect();
    let assignees: Vec<Value> = issue
        .assignees
        .iter()
        .map(|login| json!({"login": login}))
        .collect();
    let mut node = json!({
        "number": issue.number,
        "title": issue.title,
        "url": issue.html_url(),
        "locked": issue.locked,
        "createdAt": stamp(issue.created_at),
        "updatedAt": stamp(issue.updated_at),
        "milestone": issue.milestone.as_ref().map(|title| json!({"title": title})),
        // `comments` is an IssueCommentConnection; its `totalCount: Int!` counts them all.
        "comments": {"totalCount": issue.comments.len()},
        "labels": connection(labels, None, size),
        "assignees": connection(assignees, None, size),
        "timelineItems": page_back(&timeline_nodes(issue), None, size),
    });
    if issue.is_pr {
        node["pullState"] = json!(if issue.merged {
            "MERGED"
        } else if issue.state == "open" {
            "OPEN"
        } else {
            "CLOSED"
        });
        node["isDraft"] = json!(issue.draft);
    } else {
        node["issueState"] = json!(if issue.state == "open" {
            "OPEN"
        } else {
            "CLOSED"
        });
    }
    node
}

/// `OpenItemsPage`: a repository's open issues and open PRs, two lists paged apart, each
/// oldest first (`orderBy: {field: CREATED_AT, direction: ASC}`).
fn open_items(world: &WorldState, variables: &Value, size: usize) -> (Value, Vec<Value>) {
    let repo = format!(
        "{}/{}",
        variables["owner"].as_str().unwrap_or_default(),
        variables["name"].as_str().unwrap_or_default()
    );
    let Some(name) = world
        .repos
        .iter()
        .find(|name| name.eq_ignore_ascii_case(&repo))
    else {
        let error = not_found(
            &["repository"],
            &format!("a Repository with the name '{repo}'"),
        );
        return (
            json!({"repository": null, "rateLimit": rate_limit(1)}),
            vec![error],
        );
    };
    let first = (variables["first"].as_u64().unwrap_or(0) as usize).min(size);
    let mut repository = serde_json::Map::new();
    for (list, flag, cursor, is_pr) in [
        ("issues", "issues", "issuesAfter", false),
        ("pullRequests", "pulls", "pullsAfter", true),
    ] {
        if variables[flag] != json!(true) {
            continue;
        }
        let mut open: Vec<&Issue> = world
            .issues
            .iter()
            .filter(|issue| issue.repo == *name && issue.is_pr == is_pr && issue.state == "open")
            .collect();
        open.sort_by_key(|issue| issue.created_at);
        // Only the page's nodes are built (the same answer, cheaper for a big world).
        let (page_items, info) = page(&open, variables[cursor].as_str(), first);
        let nodes: Vec<Value> = page_items
            .iter()
            .map(|issue| item_node(issue, size))
            .collect();
        repository.insert(list.into(), json!({"pageInfo": info, "nodes": nodes}));
    }
    // Per item: its labels, assignees and timeline; plus the two lists.
    let requests = 2 + 2 * first as u64 * 3;
    (
        json!({"repository": repository, "rateLimit": rate_limit(requests)}),
        Vec::new(),
    )
}

/// `Item` and `ItemTimeline`: one issue or PR by number.
fn one_item(
    world: &WorldState,
    variables: &Value,
    size: usize,
    timeline_only: bool,
) -> (Value, Vec<Value>) {
    let repo = format!(
        "{}/{}",
        variables["owner"].as_str().unwrap_or_default(),
        variables["name"].as_str().unwrap_or_default()
    );
    let Some(name) = world
        .repos
        .iter()
        .find(|name| name.eq_ignore_ascii_case(&repo))
    else {
        let error = not_found(
            &["repository"],
            &format!("a Repository with the name '{repo}'"),
        );
        return (
            json!({"repository": null, "rateLimit": rate_limit(1)}),
            vec![error],
        );
    };
    let number = variables["number"].as_u64().unwrap_or(0);
    let Some(index) = world.find(name, number) else {
        let error = not_found(
            &["repository", "issueOrPullRequest"],
            &format!("an Issue or PullRequest with the number of {number}"),
        );
        return (
            json!({"repository": {"issueOrPullRequest": null}, "rateLimit": rate_limit(1)}),
            vec![error],
        );
    };
    let issue = &world.issues[index];
    let node = if timeline_only {
        json!({"timelineItems": page_back(&timeline_nodes(issue), variables["before"].as_str(), size)})
    } else {
        item_node(issue, size)
    };
    (
        json!({"repository": {"issueOrPullRequest": node}, "rateLimit": rate_limit(3)}),
        Vec::new(),
    )
}

/// `PullsPage`: a page of the search, each PR as `PullFacts` selects it.
fn pulls_page(
    world: &WorldState,
    variables: &Value,
    size: usize,
) -> Result<(Value, Vec<Value>), Reply> {
    let after = variables["after"].as_str();
    let query = variables["query"].as_str().unwrap_or_default();
    let matches = search_matches(world, query)?;
    let first = (variables["first"].as_u64().unwrap_or(0) as usize).min(size);
    let nodes: Vec<Value> = matches
        .iter()
        .take(1000)
        .map(|issue| pull_node(issue, size))
        .collect();
    let (mut nodes, info) = page(&nodes, after, first);
    // A field the token may not read is null, and its error's path names it under its
    // node: `{"type": "FORBIDDEN", "path": ["repository", "refs", "edges", 3, "node",
    // "associatedPullRequests"], "message": "Resource not accessible by integration"}`
    // (an answer recorded in fpicalausa/remove-stale-branches#49).
    let mut errors = Vec::new();
    for (index, node) in nodes.iter_mut().enumerate() {
        for (number, field) in &world.graphql_forbidden {
            if node["number"] == json!(number) {
                node[field.as_str()] = Value::Null;
                errors.push(json!({
                    "type": "FORBIDDEN",
                    "path": ["search", "nodes", index, field],
                    "message": "Resource not accessible by integration",
                }));
            }
        }
    }
    // Per PR: its labels, files, reviews and commits, and its commit's contexts and
    // suites; plus the search itself.
    let requests = 1 + first as u64 * 6;
    Ok((
        json!({
            "search": {"issueCount": matches.len(), "pageInfo": info, "nodes": nodes},
            "rateLimit": rate_limit(requests),
        }),
        errors,
    ))
}

/// Answers one GraphQL request: HTTP 200 with `data` and, when any, `errors`. A query the
/// points left cannot pay for is refused whole: `{"errors": [{"type": "RATE_LIMITED",
/// "message": "API rate limit exceeded for …"}]}` with no `data` (an answer recorded in
/// renovatebot/renovate#21861; "Rate limits and node limits for the GraphQL API").
pub(super) fn answer(world: &mut WorldState, page_size: usize, body: &str, accept: &str) -> Reply {
    if let Some(refusal) = preview_refusal(body, accept) {
        return refusal;
    }
    let reply = answer_query(world, page_size, body);
    let Ok(mut answer) = serde_json::from_str::<Value>(&reply.body) else {
        return reply;
    };
    let Some(cost) = answer
        .pointer("/data/rateLimit/cost")
        .and_then(Value::as_i64)
    else {
        return reply;
    };
    if cost > world.graphql_points {
        let limited = json!({"errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded for user ID 1."}]});
        return super::server::reply(200, limited);
    }
    world.graphql_points -= cost;
    answer["data"]["rateLimit"]["remaining"] = json!(world.graphql_points);
    super::server::reply(200, answer)
}

/// `PullRequest.mergeStateStatus` (and `canBeRebased`) are schema-preview members: GitHub's
/// schema has them only for a request whose `Accept` names the preview's media type,
/// `application/vnd.github.merge-info-preview+json` ("Schema previews", Merge info preview).
/// Without it the field does not exist, and GitHub refuses the whole query at validation, with
/// HTTP 200, no `data`, and an `undefinedField` error whose `path` is the query document's,
/// as a recorded answer of GitHub Enterprise Server to a field its schema lacks shows
/// (refined-github/refined-github#6946: `path` from `query` down to the field, `extensions`
/// with `code`, `typeName` and `fieldName`, message "Field '…' doesn't exist on type '…'").
fn preview_refusal(body: &str, accept: &str) -> Option<Reply> {
    let request: Value = serde_json::from_str(body).ok()?;
    let query = request["query"].as_str()?;
    if !query.contains("mergeStateStatus") || accept.contains("merge-info-preview") {
        return None;
    }
    let operation = request["operationName"].as_str().unwrap_or("query");
    let refusal = json!({"errors": [{
        "path": [format!("query {operation}"), "mergeStateStatus"],
        "extensions": {"code": "undefinedField", "typeName": "PullRequest", "fieldName": "mergeStateStatus"},
        "locations": [{"line": 1, "column": 1}],
        "message": "Field 'mergeStateStatus' doesn't exist on type 'PullRequest'",
    }]});
    Some(super::server::reply(200, refusal))
}

fn answer_query(world: &WorldState, page_size: usize, body: &str) -> Reply {
    let request: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let variables = &request["variables"];
    let after = variables["after"].as_str();
    let size = page_size.min(100);
    let operation = request["operationName"].as_str().unwrap_or_default();
    let (data, errors): (Value, Vec<Value>) = match operation {
        "PullsPage" => match pulls_page(world, variables, size) {
            Ok(answer) => answer,
            Err(refusal) => return refusal,
        },
        "Pull" => match find_pull(world, variables) {
            Ok(issue) => (
                json!({"repository": {"pullRequest": pull_node(issue, size)}, "rateLimit": rate_limit(7)}),
                Vec::new(),
            ),
            Err(error) => (
                json!({"repository": null, "rateLimit": rate_limit(1)}),
                vec![error],
            ),
        },
        "PullFiles" | "PullReviews" => match find_pull(world, variables) {
            Ok(issue) => {
                let (field, nodes) = if operation == "PullFiles" {
                    ("files", file_nodes(issue))
                } else {
                    ("reviews", review_nodes(issue))
                };
                let mut pull = serde_json::Map::new();
                pull.insert(field.into(), connection(nodes, after, size));
                (
                    json!({"repository": {"pullRequest": pull}, "rateLimit": rate_limit(1)}),
                    Vec::new(),
                )
            }
            Err(error) => (
                json!({"repository": null, "rateLimit": rate_limit(1)}),
                vec![error],
            ),
        },
        // `object(oid:)` is null for a commit GitHub does not have.
        "CommitContexts" | "CommitSuites" => {
            let object = find_commit(world, variables).map(|issue| {
                if operation == "CommitContexts" {
                    let contexts = run_nodes(issue);
                    let rollup = (!contexts.is_empty())
                        .then(|| json!({"contexts": connection(contexts, after, size)}));
                    json!({"statusCheckRollup": rollup})
                } else {
                    json!({"checkSuites": connection(suite_nodes(issue), after, size)})
                }
            });
            (
                json!({"repository": {"object": object}, "rateLimit": rate_limit(1)}),
                Vec::new(),
            )
        }
        "OpenItemsPage" => open_items(world, variables, size),
        "Item" => one_item(world, variables, size, false),
        "ItemTimeline" => one_item(world, variables, size, true),
        _ => {
            return reply(
                UNKNOWN,
                json!({"message": format!("the fake GitHub does not know the operation {operation:?}")}),
            )
        }
    };
    let mut body = json!({"data": data});
    if !errors.is_empty() {
        body["errors"] = Value::Array(errors);
    }
    reply(200, body)
}
