//! The world as GitHub's GraphQL schema shows it: one resolver per object type the fake models,
//! each field read from the same `WorldState` the REST routes serve. Enums are GitHub's schema
//! values (`IN_PROGRESS`, `MERGED`); the executor checks every leaf against the schema. A field
//! not modelled here is recorded and fails the test (see `graphql.rs`).

use std::cell::RefCell;

use apollo_compiler::resolvers::{FieldError, ObjectValue, ResolveInfo, ResolvedValue};
use apollo_compiler::response::JsonValue;
use chrono::{Duration, Utc};
use serde_json::{json, Value};

use super::server::search_matches;
use super::world::{account, app_name, stamp, Account, Issue, WorldState};

/// Between a GitHub error `type` and its message in a resolver's error (see `github_error`).
pub const TYPE_SEPARATOR: char = '\u{1f}';

/// One request's view of the world.
pub struct Cx<'a> {
    pub world: &'a WorldState,
    page_size: usize,
    cost: i64,
    nodes: u64,
    unmodelled: RefCell<Vec<String>>,
}

impl<'a> Cx<'a> {
    pub fn new(world: &'a WorldState, page_size: usize, cost: i64, nodes: u64) -> Self {
        Cx {
            world,
            page_size: page_size.clamp(1, 100),
            cost,
            nodes,
            unmodelled: RefCell::new(Vec::new()),
        }
    }

    pub fn unmodelled(&self) -> Vec<String> {
        self.unmodelled.borrow().clone()
    }
}

/// A GitHub error of this `type` with this message.
fn github(kind: &str, message: String) -> FieldError {
    FieldError {
        message: format!("{kind}{TYPE_SEPARATOR}{message}"),
    }
}

#[derive(Clone)]
enum Kind<'a> {
    Query,
    Repository(&'a str),
    /// An `Issue` or a `PullRequest`.
    Item(&'a Issue),
    /// `PullRequestCommit`: the PR's head, the one `commits(last: 1)` gives.
    PullCommit(&'a Issue),
    /// A `Commit` of a PR: its head (with the head's checks) or an older one (a review's).
    Commit(&'a Issue, String),
    Rollup(&'a Issue),
    CheckRun(&'a Issue, usize),
    StatusContext(&'a Issue, usize),
    /// A check suite as REST serves it (`Issue::suites_json`), so both paths show one suite.
    Suite(Value),
    App(String),
    File(&'a Issue, usize),
    Review(&'a Issue, usize),
    Comment(&'a Issue, usize),
    Event(&'a Issue, usize, &'static str),
    Actor(Account),
    Label(String),
    /// The label an event names, with when it was last changed (renamed), if ever.
    EventLabel(String, Option<chrono::DateTime<Utc>>),
    Milestone(&'a str),
    Connection(Page<'a>),
    PageInfo(Page<'a>),
    RateLimit,
}

#[derive(Clone)]
struct Page<'a> {
    /// The connection's own type, as the field's definition names it.
    typename: String,
    nodes: Vec<Kind<'a>>,
    total: usize,
    has_next: bool,
    has_previous: bool,
    start: Option<String>,
    end: Option<String>,
}

pub struct Obj<'a> {
    cx: &'a Cx<'a>,
    kind: Kind<'a>,
}

impl<'a> Obj<'a> {
    pub fn query(cx: &'a Cx<'a>) -> Self {
        Obj {
            cx,
            kind: Kind::Query,
        }
    }

    fn at<'b>(&'b self, kind: Kind<'a>) -> ResolvedValue<'b> {
        ResolvedValue::object(Obj { cx: self.cx, kind })
    }
}

fn leaf<'x>(value: Value) -> ResolvedValue<'x> {
    ResolvedValue::Leaf(serde_json::from_value::<JsonValue>(value).unwrap_or(JsonValue::Null))
}

fn text(info: &ResolveInfo<'_>, name: &str) -> Option<String> {
    info.arguments()
        .get(name)
        .and_then(|value| value.as_str())
        .map(str::to_string)
}

fn int(info: &ResolveInfo<'_>, name: &str) -> Option<i64> {
    info.arguments().get(name).and_then(|value| value.as_i64())
}

fn strings(info: &ResolveInfo<'_>, name: &str) -> Option<Vec<String>> {
    info.arguments().get(name).and_then(|value| {
        value.as_array().map(|list| {
            list.iter()
                .filter_map(|item| item.as_str().map(str::to_string))
                .collect()
        })
    })
}

/// A cursor names the index of one entry; `after`/`before` exclude it, as Relay's cursor
/// connections do (GitHub's are opaque strings; a client only passes them back).
fn cursor(value: Option<String>) -> Option<usize> {
    value?.strip_prefix("cursor:")?.parse().ok()
}

/// A page of `all` by the connection arguments (`first`/`after`, `last`/`before`). The
/// world's `page_size` caps a page as it caps REST's, so small worlds page too.
fn page<'a>(cx: &Cx<'_>, info: &ResolveInfo<'_>, all: Vec<Kind<'a>>) -> Page<'a> {
    let total = all.len();
    let from = cursor(text(info, "after")).map_or(0, |index| (index + 1).min(total));
    let to = cursor(text(info, "before")).map_or(total, |index| index.min(total));
    let to = to.max(from);
    let (start, end) = match (int(info, "first"), int(info, "last")) {
        (Some(first), _) => (from, (from + (first as usize).min(cx.page_size)).min(to)),
        (None, Some(last)) => (
            to.saturating_sub((last as usize).min(cx.page_size))
                .max(from),
            to,
        ),
        // Only `totalCount` was asked (the executor refused any other selection).
        (None, None) => (from, to),
    };
    let nodes = all[start..end].to_vec();
    let mut page = Page {
        typename: info.field_definition().ty.inner_named_type().to_string(),
        has_next: end < to || to < total,
        has_previous: start > from || from > 0,
        start: (end > start).then(|| format!("cursor:{start}")),
        end: (end > start).then(|| format!("cursor:{}", end - 1)),
        nodes,
        total,
    };
    // `WorldState::graphql_cursor_stuck`: a page asked after (before) a cursor says there is
    // more, from that same cursor.
    if cx.world.graphql_cursor_stuck {
        if let Some(after) = text(info, "after") {
            page.has_next = true;
            page.end = Some(after);
        }
        if let Some(before) = text(info, "before") {
            page.has_previous = true;
            page.start = Some(before);
        }
    }
    page
}

fn state_of(issue: &Issue) -> &'static str {
    if issue.merged {
        "MERGED"
    } else if issue.state == "open" {
        "OPEN"
    } else {
        "CLOSED"
    }
}

/// GraphQL's timeline type of an issue event the world keeps by its REST name: the name in
/// camel case with `Event` (`pinned` is `PinnedEvent`; `renamed` is GitHub's
/// `RenamedTitleEvent`), when GitHub's schema has that type in the item's timeline union
/// (`IssueTimelineItems`, `PullRequestTimelineItems`). An event GraphQL has no type for
/// (`issue_type_added`, …) is not in a GraphQL timeline at all.
fn event_type(name: &str, is_pr: bool) -> Option<&'static str> {
    let typename = if name == "renamed" {
        "RenamedTitleEvent".to_string()
    } else {
        let camel: String = name
            .split(['_', '-'])
            .map(|word| {
                let mut chars = word.chars();
                chars.next().map_or(String::new(), |first| {
                    first.to_ascii_uppercase().to_string() + chars.as_str()
                })
            })
            .collect();
        format!("{camel}Event")
    };
    let schema = super::schema::schema();
    let union = if is_pr {
        "PullRequestTimelineItems"
    } else {
        "IssueTimelineItems"
    };
    let member = match schema.types.get(union) {
        Some(apollo_compiler::schema::ExtendedType::Union(union)) => union
            .members
            .iter()
            .any(|member| member.name == typename.as_str()),
        _ => false,
    };
    if !member {
        return None;
    }
    // The schema's own name, which lives as long as the schema.
    schema
        .types
        .get_key_value(typename.as_str())
        .map(|(name, _)| name.as_str())
}

/// `PULL_REQUEST_REVIEW` from `PullRequestReview`: the `itemTypes` enum spells each type's
/// name in capitals with underscores (`IssueTimelineItemsItemType`).
fn item_type(typename: &str) -> String {
    let mut out = String::new();
    for (index, c) in typename.chars().enumerate() {
        if c.is_ascii_uppercase() && index > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// An item's timeline, oldest first: its events, comments and (a PR's) reviews.
fn timeline<'a>(issue: &'a Issue) -> Vec<(chrono::DateTime<Utc>, Kind<'a>)> {
    let mut entries = Vec::new();
    for (index, event) in issue.events.iter().enumerate() {
        if let Some(kind) = event_type(&event.name, issue.is_pr) {
            entries.push((event.at, Kind::Event(issue, index, kind)));
        }
    }
    for (index, comment) in issue.comments.iter().enumerate() {
        entries.push((comment.at, Kind::Comment(issue, index)));
    }
    if issue.is_pr {
        for (index, review) in issue.reviews.iter().enumerate() {
            entries.push((review.at, Kind::Review(issue, index)));
        }
    }
    entries.sort_by_key(|(at, _)| *at);
    entries
}

impl Kind<'_> {
    fn typename(&self) -> &str {
        match self {
            Kind::Query => "Query",
            Kind::Repository(_) => "Repository",
            Kind::Item(issue) => {
                if issue.is_pr {
                    "PullRequest"
                } else {
                    "Issue"
                }
            }
            Kind::PullCommit(_) => "PullRequestCommit",
            Kind::Commit(..) => "Commit",
            Kind::Rollup(_) => "StatusCheckRollup",
            Kind::CheckRun(..) => "CheckRun",
            Kind::StatusContext(..) => "StatusContext",
            Kind::Suite(_) => "CheckSuite",
            Kind::App(_) => "App",
            Kind::File(..) => "PullRequestChangedFile",
            Kind::Review(..) => "PullRequestReview",
            Kind::Comment(..) => "IssueComment",
            Kind::Event(_, _, kind) => kind,
            Kind::Actor(account) => {
                if account.bot {
                    "Bot"
                } else {
                    "User"
                }
            }
            Kind::Label(_) | Kind::EventLabel(..) => "Label",
            Kind::Milestone(_) => "Milestone",
            Kind::Connection(page) => &page.typename,
            Kind::PageInfo(_) => "PageInfo",
            Kind::RateLimit => "RateLimit",
        }
    }
}

impl<'a> ObjectValue for Obj<'a> {
    fn type_name(&self) -> &str {
        self.kind.typename()
    }

    fn resolve_field<'b>(
        &'b self,
        info: &'b ResolveInfo<'b>,
    ) -> Result<ResolvedValue<'b>, FieldError> {
        let field = info.field_name();
        let resolved = match &self.kind {
            Kind::Query => self.query_field(field, info)?,
            Kind::Repository(name) => self.repository_field(name, field, info)?,
            Kind::Item(issue) => self.item_field(issue, field, info)?,
            Kind::PullCommit(issue) => match field {
                "commit" => Some(self.at(Kind::Commit(issue, issue.head_sha.clone()))),
                _ => None,
            },
            Kind::Commit(issue, oid) => self.commit_field(issue, oid, field, info),
            Kind::Rollup(issue) => match field {
                "contexts" => {
                    let mut all: Vec<Kind> = (0..issue.check_runs.len())
                        .map(|index| Kind::CheckRun(issue, index))
                        .collect();
                    all.extend((0..issue.statuses.len()).map(|i| Kind::StatusContext(issue, i)));
                    Some(self.at(Kind::Connection(page(self.cx, info, all))))
                }
                _ => None,
            },
            Kind::CheckRun(issue, index) => self.run_field(issue, *index, field),
            Kind::StatusContext(issue, index) => {
                let (context, state) = &issue.statuses[*index];
                match field {
                    "context" => Some(leaf(json!(context))),
                    "state" => Some(leaf(json!(state.to_ascii_uppercase()))),
                    _ => None,
                }
            }
            Kind::Suite(suite) => match field {
                "databaseId" => Some(leaf(suite["id"].clone())),
                "status" => Some(leaf(json!(suite["status"]
                    .as_str()
                    .map(str::to_ascii_uppercase)))),
                "conclusion" => Some(leaf(json!(suite["conclusion"]
                    .as_str()
                    .map(str::to_ascii_uppercase)))),
                "createdAt" => Some(leaf(suite["created_at"].clone())),
                "app" => Some(
                    self.at(Kind::App(
                        suite["app"]["slug"]
                            .as_str()
                            .unwrap_or_default()
                            .to_string(),
                    )),
                ),
                _ => None,
            },
            Kind::App(slug) => match field {
                "slug" => Some(leaf(json!(slug))),
                "name" => Some(leaf(json!(app_name(slug)))),
                _ => None,
            },
            Kind::File(issue, index) => {
                let (path, previous) = &issue.files[*index];
                match field {
                    "path" => Some(leaf(json!(path))),
                    "changeType" => Some(leaf(json!(if previous.is_some() {
                        "RENAMED"
                    } else {
                        "MODIFIED"
                    }))),
                    _ => None,
                }
            }
            Kind::Review(issue, index) => {
                let review = &issue.reviews[*index];
                match field {
                    "author" => Some(self.at(Kind::Actor(account(&review.user)))),
                    "authorAssociation" => Some(leaf(json!(review.association))),
                    "state" => Some(leaf(json!(review.state))),
                    "commit" => Some(self.at(Kind::Commit(issue, review.commit_id.clone()))),
                    "submittedAt" | "createdAt" => Some(leaf(json!(stamp(review.at)))),
                    _ => None,
                }
            }
            Kind::Comment(issue, index) => {
                let comment = &issue.comments[*index];
                match field {
                    "author" => Some(self.at(Kind::Actor(account(&comment.user)))),
                    "createdAt" => Some(leaf(json!(stamp(comment.at)))),
                    "body" => Some(leaf(json!(comment.body))),
                    "databaseId" => Some(leaf(json!(comment.id))),
                    _ => None,
                }
            }
            Kind::Event(issue, index, _) => {
                let event = &issue.events[*index];
                match field {
                    "actor" => Some(self.at(Kind::Actor(account(&event.actor)))),
                    "createdAt" => Some(leaf(json!(stamp(event.at)))),
                    // `LabeledEvent.label: Label!`: a live label. A deleted one cannot be
                    // resolved, so the non-null field fails and the event's node is `null` with
                    // an error under it (the GraphQL spec's "Handling Field Errors"); GitHub's
                    // wording for it is not recorded. Whether a renamed label shows its name
                    // then or now is not documented either: `graphql_live_label_names` picks.
                    "label" => match &event.label {
                        None => None,
                        Some(name) => match self.cx.world.label_now(name) {
                            None => {
                                return Err(github(
                                    "NOT_FOUND",
                                    format!(
                                        "Could not resolve to a Label with the name of '{name}'."
                                    ),
                                ))
                            }
                            Some((now, changed)) => {
                                let shown = if self.cx.world.graphql_live_label_names {
                                    now
                                } else {
                                    name.clone()
                                };
                                Some(self.at(Kind::EventLabel(shown, changed)))
                            }
                        },
                    },
                    _ => None,
                }
            }
            Kind::Actor(account) => match field {
                // GraphQL's `Bot.login` is the App's slug, without REST's `[bot]`
                // (Esposter/Esposter#1059).
                "login" => Some(leaf(json!(account.graphql_login()))),
                // `databaseId` is REST's `user.id`.
                "databaseId" => Some(leaf(json!(account.id))),
                _ => None,
            },
            Kind::Label(name) => match field {
                "name" => Some(leaf(json!(name))),
                _ => None,
            },
            // `Label.updatedAt`: when the label was last edited; a label never renamed here
            // was made with the repository, long before any event.
            Kind::EventLabel(name, changed) => match field {
                "name" => Some(leaf(json!(name))),
                "updatedAt" => Some(leaf(json!(stamp(
                    changed.unwrap_or(self.cx.world.now - Duration::days(3650))
                )))),
                _ => None,
            },
            Kind::Milestone(title) => match field {
                "title" => Some(leaf(json!(title))),
                _ => None,
            },
            Kind::Connection(page) => match field {
                "nodes" => {
                    let cx = self.cx;
                    let nodes = page.nodes.clone();
                    Some(ResolvedValue::list(
                        nodes
                            .into_iter()
                            .map(move |kind| ResolvedValue::object(Obj { cx, kind })),
                    ))
                }
                "pageInfo" => Some(self.at(Kind::PageInfo(page.clone()))),
                "totalCount" => Some(leaf(json!(page.total))),
                // A search's matches, of which at most 1,000 are served.
                "issueCount" if page.typename == "SearchResultItemConnection" => {
                    Some(leaf(json!(page.total)))
                }
                _ => None,
            },
            Kind::PageInfo(page) => match field {
                "hasNextPage" => Some(leaf(json!(page.has_next))),
                "hasPreviousPage" => Some(leaf(json!(page.has_previous))),
                "startCursor" => Some(leaf(json!(page.start))),
                "endCursor" => Some(leaf(json!(page.end))),
                _ => None,
            },
            Kind::RateLimit => match field {
                "cost" => Some(leaf(json!(self.cx.cost))),
                "remaining" => Some(leaf(json!(self.cx.world.graphql_points))),
                "limit" => Some(leaf(json!(5000))),
                "used" => Some(leaf(json!(5000 - self.cx.world.graphql_points))),
                "nodeCount" => Some(leaf(json!(self.cx.nodes))),
                "resetAt" => Some(leaf(json!(stamp(Utc::now() + Duration::hours(1))))),
                _ => None,
            },
        };
        resolved.ok_or_else(|| {
            let name = format!("{}.{field}", self.kind.typename());
            self.cx.unmodelled.borrow_mut().push(name.clone());
            FieldError {
                message: format!("the fake GitHub does not model {name}"),
            }
        })
    }
}

impl<'a> Obj<'a> {
    fn query_field<'b>(
        &'b self,
        field: &str,
        info: &ResolveInfo<'_>,
    ) -> Result<Option<ResolvedValue<'b>>, FieldError> {
        let world = self.cx.world;
        Ok(match field {
            // `WorldState::graphql_repository_null`: `null`, and no error.
            "repository" if world.graphql_repository_null => Some(ResolvedValue::null()),
            "repository" => {
                let wanted = format!(
                    "{}/{}",
                    text(info, "owner").unwrap_or_default(),
                    text(info, "name").unwrap_or_default()
                );
                // `followRenames` (default true): an old name resolves to the repository.
                let renamed = world
                    .renames
                    .iter()
                    .rev()
                    .find(|(old, _)| old.eq_ignore_ascii_case(&wanted))
                    .map(|(_, new)| new.as_str());
                let name = world.repos.iter().find(|name| {
                    name.eq_ignore_ascii_case(&wanted)
                        || renamed.is_some_and(|new| name.eq_ignore_ascii_case(new))
                });
                match name {
                    Some(name) => Some(self.at(Kind::Repository(name))),
                    None => {
                        return Err(github(
                            "NOT_FOUND",
                            format!("Could not resolve to a Repository with the name '{wanted}'."),
                        ))
                    }
                }
            }
            "search" => {
                let query = text(info, "query").unwrap_or_default();
                let matches = search_matches(world, &query).map_err(|refusal| {
                    // REST answers 422 with the reason in `errors[].message`; GraphQL has the
                    // same reason as the field's error.
                    let body: Value = serde_json::from_str(&refusal.body).unwrap_or_default();
                    let reason = body["errors"][0]["message"]
                        .as_str()
                        .unwrap_or("Validation Failed")
                        .to_string();
                    github("INVALID", reason)
                })?;
                // The search serves at most 1,000 results ("Search", REST and GraphQL alike).
                let count = matches.len();
                let all: Vec<Kind> = matches.into_iter().take(1000).map(Kind::Item).collect();
                let mut found = page(self.cx, info, all);
                found.total = count;
                Some(self.at(Kind::Connection(found)))
            }
            "rateLimit" => Some(self.at(Kind::RateLimit)),
            _ => None,
        })
    }

    fn repository_field<'b>(
        &'b self,
        name: &'a str,
        field: &str,
        info: &ResolveInfo<'_>,
    ) -> Result<Option<ResolvedValue<'b>>, FieldError> {
        let world = self.cx.world;
        let number = int(info, "number");
        Ok(match field {
            "nameWithOwner" => Some(leaf(json!(name))),
            "issueOrPullRequest" | "pullRequest" | "issue" => {
                let number = number.unwrap_or_default();
                let found = u64::try_from(number)
                    .ok()
                    .and_then(|number| world.find(name, number))
                    .map(|index| &world.issues[index])
                    .filter(|issue| match field {
                        "pullRequest" => issue.is_pr,
                        "issue" => !issue.is_pr,
                        _ => true,
                    });
                match found {
                    Some(issue) => Some(self.at(Kind::Item(issue))),
                    None => {
                        let what = match field {
                            "pullRequest" => "a PullRequest",
                            "issue" => "an Issue",
                            _ => "an Issue or PullRequest",
                        };
                        return Err(github(
                            "NOT_FOUND",
                            format!("Could not resolve to {what} with the number of {number}."),
                        ));
                    }
                }
            }
            "issues" | "pullRequests" => {
                let is_pr = field == "pullRequests";
                let states = strings(info, "states");
                let mut all: Vec<&Issue> = world
                    .issues
                    .iter()
                    .filter(|issue| issue.repo == name && issue.is_pr == is_pr)
                    .filter(|issue| {
                        states
                            .as_ref()
                            .is_none_or(|states| states.iter().any(|s| s == state_of(issue)))
                    })
                    .collect();
                let order = info.arguments().get("orderBy");
                let by = order
                    .and_then(|order| order.get("field"))
                    .and_then(|field| field.as_str())
                    .unwrap_or("CREATED_AT");
                match by {
                    "CREATED_AT" => all.sort_by_key(|issue| issue.created_at),
                    // `IssueOrderField.UPDATED_AT`, "Order issues by update time": a pull
                    // request by its own `updatedAt` (the field below), which pushes, comments,
                    // reviews, labels, edits and closing move and a check completing does not
                    // (`Issue::complete_checks`). `poll`'s repeat tick lists by it.
                    "UPDATED_AT" => all.sort_by_key(|issue| {
                        if issue.is_pr {
                            issue.pull_updated_at.unwrap_or(issue.updated_at)
                        } else {
                            issue.updated_at
                        }
                    }),
                    "COMMENTS" => all.sort_by_key(|issue| issue.comments.len()),
                    _ => return Ok(None),
                }
                let descending = order
                    .and_then(|order| order.get("direction"))
                    .and_then(|direction| direction.as_str())
                    == Some("DESC");
                if descending {
                    all.reverse();
                }
                let all = all.into_iter().map(Kind::Item).collect();
                Some(self.at(Kind::Connection(page(self.cx, info, all))))
            }
            // `object(oid:)` is null for an object GitHub does not have.
            "object" => {
                let oid = text(info, "oid").unwrap_or_default();
                world
                    .issues
                    .iter()
                    .find(|issue| issue.repo == name && issue.is_pr && issue.head_sha == oid)
                    .map(|issue| self.at(Kind::Commit(issue, oid.clone())))
                    .or(Some(ResolvedValue::null()))
            }
            _ => None,
        })
    }

    fn item_field<'b>(
        &'b self,
        issue: &'a Issue,
        field: &str,
        info: &ResolveInfo<'_>,
    ) -> Result<Option<ResolvedValue<'b>>, FieldError> {
        let world = self.cx.world;
        // A field the token may not read is null, and its error's path names it under its
        // node: `{"type": "FORBIDDEN", "path": [..., "associatedPullRequests"], "message":
        // "Resource not accessible by integration"}` (fpicalausa/remove-stale-branches#49).
        if world
            .graphql_forbidden
            .iter()
            .any(|(number, name)| *number == issue.number && name == field)
        {
            return Err(github(
                "FORBIDDEN",
                "Resource not accessible by integration".into(),
            ));
        }
        // `WorldState::graphql_null_lists`: a nullable connection answered `null`, no error.
        if world
            .graphql_null_lists
            .iter()
            .any(|(number, name)| *number == issue.number && name == field)
        {
            return Ok(Some(ResolvedValue::null()));
        }
        let pr = issue.is_pr;
        Ok(match field {
            "number" => Some(leaf(json!(issue.number))),
            "title" => Some(leaf(json!(issue.title))),
            "url" => Some(leaf(json!(issue.html_url()))),
            "state" => Some(leaf(json!(state_of(issue)))),
            "locked" => Some(leaf(json!(issue.locked))),
            "createdAt" => Some(leaf(json!(stamp(issue.created_at)))),
            // A pull request's own stamp, which GitHub keeps apart from its issue's.
            "updatedAt" => Some(leaf(json!(stamp(if pr {
                issue.pull_updated_at.unwrap_or(issue.updated_at)
            } else {
                issue.updated_at
            })))),
            "milestone" => Some(
                issue
                    .milestone
                    .as_deref()
                    .map_or(ResolvedValue::null(), |title| {
                        self.at(Kind::Milestone(title))
                    }),
            ),
            "repository" => world
                .repos
                .iter()
                .find(|name| **name == issue.repo)
                .map(|name| self.at(Kind::Repository(name))),
            "comments" => {
                let all = (0..issue.comments.len())
                    .map(|index| Kind::Comment(issue, index))
                    .collect();
                Some(self.at(Kind::Connection(page(self.cx, info, all))))
            }
            "labels" => {
                let all = issue
                    .labels
                    .iter()
                    .map(|name| Kind::Label(name.clone()))
                    .collect();
                Some(self.at(Kind::Connection(page(self.cx, info, all))))
            }
            "assignees" => {
                let all = issue
                    .assignees
                    .iter()
                    .map(|login| Kind::Actor(account(login)))
                    .collect();
                Some(self.at(Kind::Connection(page(self.cx, info, all))))
            }
            "timelineItems" => {
                let wanted = strings(info, "itemTypes");
                let all = timeline(issue)
                    .into_iter()
                    .map(|(_, kind)| kind)
                    .filter(|kind| {
                        wanted
                            .as_ref()
                            .is_none_or(|wanted| wanted.contains(&item_type(kind.typename())))
                    })
                    .collect();
                Some(self.at(Kind::Connection(page(self.cx, info, all))))
            }
            "isDraft" if pr => Some(leaf(json!(issue.draft))),
            "merged" if pr => Some(leaf(json!(issue.merged))),
            "headRefOid" if pr => Some(leaf(json!(issue.head_sha))),
            "baseRefName" if pr => Some(leaf(json!(issue.base))),
            "mergeable" if pr => Some(leaf(json!(match issue.mergeable {
                Some(true) => "MERGEABLE",
                Some(false) => "CONFLICTING",
                None => "UNKNOWN",
            }))),
            "mergeStateStatus" if pr => Some(leaf(json!(if issue.mergeable_state.is_empty() {
                "UNKNOWN".to_string()
            } else {
                issue.mergeable_state.to_ascii_uppercase()
            }))),
            "files" if pr => {
                let all = (0..issue.files.len())
                    .map(|index| Kind::File(issue, index))
                    .collect();
                Some(self.at(Kind::Connection(page(self.cx, info, all))))
            }
            "reviews" if pr => {
                let all = (0..issue.reviews.len())
                    .map(|index| Kind::Review(issue, index))
                    .collect();
                Some(self.at(Kind::Connection(page(self.cx, info, all))))
            }
            // The PR's commits; the world keeps its head (`commits(last: 1)`) as one.
            "commits" if pr => Some(self.at(Kind::Connection(page(
                self.cx,
                info,
                vec![Kind::PullCommit(issue)],
            )))),
            _ => None,
        })
    }

    fn commit_field<'b>(
        &'b self,
        issue: &'a Issue,
        oid: &str,
        field: &str,
        info: &ResolveInfo<'_>,
    ) -> Option<ResolvedValue<'b>> {
        let head = oid == issue.head_sha;
        match field {
            "oid" => Some(leaf(json!(oid))),
            // `Commit.statusCheckRollup: StatusCheckRollup` is null when nothing ran on the
            // commit (github/combine-prs, "add null check for commit status rollup").
            "statusCheckRollup" => Some(
                if head && !(issue.check_runs.is_empty() && issue.statuses.is_empty()) {
                    self.at(Kind::Rollup(issue))
                } else {
                    ResolvedValue::null()
                },
            ),
            "checkSuites" => {
                let all = if head {
                    issue.suites_json().into_iter().map(Kind::Suite).collect()
                } else {
                    Vec::new()
                };
                Some(self.at(Kind::Connection(page(self.cx, info, all))))
            }
            _ => None,
        }
    }

    fn run_field<'b>(
        &'b self,
        issue: &'a Issue,
        index: usize,
        field: &str,
    ) -> Option<ResolvedValue<'b>> {
        let run = &issue.check_runs[index];
        match field {
            "databaseId" => Some(leaf(json!(run.id))),
            "name" => Some(leaf(json!(run.name))),
            "status" => Some(leaf(json!(run.status.to_ascii_uppercase()))),
            "conclusion" => Some(leaf(json!(run
                .conclusion
                .as_ref()
                .map(|c| c.to_ascii_uppercase())))),
            "startedAt" => Some(leaf(json!(stamp(run.started_at)))),
            "completedAt" => Some(leaf(json!(run
                .conclusion
                .as_ref()
                .map(|_| stamp(run.started_at))))),
            "checkSuite" => issue
                .suites_json()
                .into_iter()
                .find(|suite| suite["id"] == json!(run.suite))
                .map(|suite| self.at(Kind::Suite(suite))),
            _ => None,
        }
    }
}
