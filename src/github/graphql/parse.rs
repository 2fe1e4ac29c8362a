//! GitHub's GraphQL answers, turned into the same plain facts the REST model gives: enums in
//! GitHub's REST spelling (`IN_PROGRESS` is `in_progress`), a suite's and a run's ids as REST
//! numbers them (`databaseId`). Strict like the REST model: a missing field is an error naming it.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::github::model::{ParseError, PullFacts};
use crate::policy::merge::{ChangedFile, CheckRun, CheckSuite, CommitStatus, Review, Statuses};

/// One page of a nested connection: its nodes, and the cursor after them when there are more.
#[derive(Clone, Debug, Default)]
pub(super) struct Connection {
    pub nodes: Vec<Value>,
    pub next: Option<String>,
}

/// [`Connection`], borrowed from the answer: a page of 100 items and their timelines is not
/// copied to be read.
#[derive(Clone, Debug, Default)]
pub(super) struct ConnectionRef<'a> {
    pub nodes: &'a [Value],
    pub next: Option<String>,
}

/// A connection field of `value` (`files`, `reviews`), borrowed from the answer: absent or
/// null is an empty one.
pub(super) fn connection_ref<'a>(value: &'a Value, name: &str) -> ConnectionRef<'a> {
    let Some(found) = value.get(name).filter(|found| !found.is_null()) else {
        return ConnectionRef::default();
    };
    let nodes = found
        .get("nodes")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let info = found.get("pageInfo");
    let more = info
        .and_then(|info| info.get("hasNextPage"))
        .and_then(Value::as_bool)
        == Some(true);
    let next = info
        .and_then(|info| info.get("endCursor"))
        .and_then(Value::as_str)
        .filter(|_| more)
        .map(str::to_string);
    ConnectionRef { nodes, next }
}

/// A connection field GitHub must have answered: `null` (or no `nodes`) is a list nobody knows,
/// never an empty one. GitHub has answered a list `null` where it gave `[]` before
/// (ovotech/go-sync#195); with an error, the error is the item's failure first.
pub(super) fn list(value: &Value, name: &str) -> Result<Connection, ParseError> {
    list_ref(value, name).map(|found| Connection {
        nodes: found.nodes.to_vec(),
        next: found.next,
    })
}

/// [`list`], borrowed from the answer.
pub(super) fn list_ref<'a>(value: &'a Value, name: &str) -> Result<ConnectionRef<'a>, ParseError> {
    match value.get(name) {
        Some(found) if found.get("nodes").is_some_and(Value::is_array) => {
            Ok(connection_ref(value, name))
        }
        Some(found) if !found.is_null() => Err(ParseError::NullNodes {
            field: name.to_string(),
        }),
        _ => Err(ParseError::NullList {
            field: name.to_string(),
        }),
    }
}

/// Guards a paging loop: the cursor a page ends at must not be one already asked after (or
/// before); GitHub answering `hasNextPage` with the same cursor would page for ever. Like the
/// REST path's guard of a `Link` that points back, it ends the list with an error.
pub(super) fn advance(
    seen: &mut std::collections::HashSet<String>,
    what: &str,
    next: Option<&String>,
) -> Result<(), crate::github::client::ApiError> {
    match next {
        Some(cursor) if !seen.insert(cursor.clone()) => {
            Err(crate::github::client::ApiError::Harness {
                message: format!(
                    "pagination loops: {what} answered hasNextPage again from the cursor it was asked with ({cursor})"
                ),
            })
        }
        _ => Ok(()),
    }
}

fn field<'a>(value: &'a Value, name: &str) -> Result<&'a Value, ParseError> {
    match value.get(name) {
        None | Some(Value::Null) => Err(ParseError::missing(name)),
        Some(found) => Ok(found),
    }
}

pub(super) fn string(value: &Value, name: &str) -> Result<String, ParseError> {
    field(value, name)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| ParseError::not_a(name, "a string"))
}

fn boolean(value: &Value, name: &str) -> Result<bool, ParseError> {
    field(value, name)?
        .as_bool()
        .ok_or_else(|| ParseError::not_a(name, "a boolean"))
}

fn optional_time(value: &Value, name: &str) -> Result<Option<DateTime<Utc>>, ParseError> {
    match value.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => crate::github::model::timestamp(value, name).map(Some),
    }
}

/// An enum value in REST's spelling: `IN_PROGRESS` is `in_progress`.
fn word(value: &Value, name: &str) -> Option<String> {
    value
        .get(name)
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase)
}

/// The names of a PR's labels, as far as its first page of them goes.
pub(super) fn label_names(node: &Value) -> Result<Vec<String>, ParseError> {
    list(node, "labels")?
        .nodes
        .iter()
        .map(|label| string(label, "name").map_err(|why| why.within("`labels`")))
        .collect()
}

/// A PR's own facts, as the single-PR REST read gives them: `state` is `OPEN`, `CLOSED` or
/// `MERGED`; `mergeable` is `MERGEABLE`, `CONFLICTING` or `UNKNOWN` (still computing, REST's
/// `null`); `mergeStateStatus` is REST's `mergeable_state` in capitals.
pub(super) fn pull_facts(node: &Value) -> Result<PullFacts, ParseError> {
    let state = string(node, "state")?;
    let mergeable = match string(node, "mergeable")?.as_str() {
        "MERGEABLE" => Some(true),
        "CONFLICTING" => Some(false),
        _ => None,
    };
    Ok(PullFacts {
        title: string(node, "title")?,
        labels: label_names(node)?,
        draft: Some(boolean(node, "isDraft")?),
        open: state == "OPEN",
        head_sha: Some(string(node, "headRefOid")?),
        merged: boolean(node, "merged")?,
        mergeable,
        mergeable_state: node
            .get("mergeStateStatus")
            .and_then(Value::as_str)
            .and_then(crate::policy::merge::MergeableState::parse),
        base_ref: Some(string(node, "baseRefName")?),
    })
}

/// A changed file, and whether GitHub calls it `RENAMED` (its previous path is not in GraphQL:
/// `PullRequestChangedFile` has `path` and `changeType` only).
pub(super) fn changed_file(node: &Value) -> Result<(ChangedFile, bool), ParseError> {
    let path = string(node, "path").map_err(|why| why.within("a changed file"))?;
    let renamed = node.get("changeType").and_then(Value::as_str) == Some("RENAMED");
    Ok((
        ChangedFile {
            path,
            previous: None,
        },
        renamed,
    ))
}

pub(super) fn review(node: &Value) -> Result<Review, ParseError> {
    let in_review = |why: ParseError| why.within("a review");
    // A deleted account ("ghost") has no author. A `Bot`'s `login` is its App's slug, without
    // REST's `[bot]` (Esposter/Esposter#1059): reviewers are matched by `databaseId`, REST's
    // `user.id`, and a bot is known by its `__typename`.
    let author = node.get("author").filter(|author| !author.is_null());
    let login = match author {
        Some(author) => string(author, "login").map_err(in_review)?,
        None => "ghost".to_string(),
    };
    Ok(Review {
        login,
        user_id: author
            .and_then(|author| author.get("databaseId"))
            .and_then(Value::as_u64),
        bot: author
            .and_then(|author| author.get("__typename"))
            .and_then(Value::as_str)
            == Some("Bot"),
        association: node
            .get("authorAssociation")
            .and_then(Value::as_str)
            .map(str::to_string),
        state: string(node, "state").map_err(in_review)?,
        commit_id: node
            .get("commit")
            .and_then(|commit| commit.get("oid"))
            .and_then(Value::as_str)
            .map(str::to_string),
        submitted_at: optional_time(node, "submittedAt").map_err(in_review)?,
    })
}

/// One context of a commit's status check rollup: a check run or a commit status.
pub(super) enum RollupContext {
    Run(CheckRun),
    Status(CommitStatus),
}

pub(super) fn context(node: &Value) -> Result<RollupContext, ParseError> {
    match node.get("__typename").and_then(Value::as_str) {
        Some("CheckRun") => {
            let in_run = |why: ParseError| why.within("a check run");
            let suite = node.get("checkSuite");
            Ok(RollupContext::Run(CheckRun {
                name: string(node, "name").map_err(in_run)?,
                status: word(node, "status").ok_or_else(|| {
                    in_run(ParseError::NoValue {
                        field: "status".into(),
                    })
                })?,
                conclusion: word(node, "conclusion"),
                started_at: optional_time(node, "startedAt").map_err(in_run)?,
                completed_at: optional_time(node, "completedAt").map_err(in_run)?,
                id: node.get("databaseId").and_then(Value::as_u64).unwrap_or(0),
                suite_id: suite
                    .and_then(|suite| suite.get("databaseId"))
                    .and_then(Value::as_u64),
                app: suite
                    .and_then(|suite| suite.get("app"))
                    .and_then(|app| app.get("slug"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
            }))
        }
        Some("StatusContext") => {
            let in_status = |why: ParseError| why.within("a commit status");
            Ok(RollupContext::Status(CommitStatus {
                context: string(node, "context").map_err(in_status)?,
                state: word(node, "state").ok_or_else(|| {
                    in_status(ParseError::NoValue {
                        field: "state".into(),
                    })
                })?,
            }))
        }
        other => Err(ParseError::UnknownContext {
            typename: other.map(str::to_string),
        }),
    }
}

/// The combined status of a commit's statuses, by REST's rule ("Get the combined status for a
/// specific reference"): `failure` if any is `error` or `failure`, `pending` if there is none
/// or any is pending (GraphQL's `EXPECTED`: a required status not reported yet), else `success`.
pub(super) fn statuses(statuses: Vec<CommitStatus>) -> Statuses {
    let any = |wanted: &[&str]| statuses.iter().any(|s| wanted.contains(&s.state.as_str()));
    let state = if any(&["error", "failure"]) {
        "failure"
    } else if statuses.is_empty() || any(&["pending", "expected"]) {
        "pending"
    } else {
        "success"
    };
    Statuses {
        state: state.to_string(),
        total: statuses.len() as u64,
        statuses,
    }
}

/// A check suite, with how many (latest) runs the head's rollup shows of it.
pub(super) fn check_suite(node: &Value, runs: u64) -> Result<CheckSuite, ParseError> {
    let in_suite = |why: ParseError| why.within("a check suite");
    let app = field(node, "app").map_err(in_suite)?;
    let slug = string(app, "slug").map_err(|why| in_suite(why.within("`app`")))?;
    Ok(CheckSuite {
        id: node
            .get("databaseId")
            .and_then(Value::as_u64)
            .ok_or_else(|| in_suite(ParseError::missing("databaseId")))?,
        app_name: app
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or(&slug)
            .to_string(),
        app: slug,
        status: word(node, "status").unwrap_or_else(|| "queued".to_string()),
        conclusion: word(node, "conclusion"),
        runs,
        created_at: optional_time(node, "createdAt").map_err(in_suite)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn enums_are_read_in_rests_spelling() {
        let node = json!({"__typename": "CheckRun", "databaseId": 7, "name": "ci", "status": "IN_PROGRESS", "conclusion": null, "startedAt": "2026-01-01T00:00:00Z", "checkSuite": {"databaseId": 70, "app": {"slug": "github-actions"}}});
        let RollupContext::Run(run) = context(&node).unwrap() else {
            panic!("not a run")
        };
        assert_eq!(
            (run.status.as_str(), run.id, run.suite_id),
            ("in_progress", 7, Some(70))
        );
        assert_eq!(run.app.as_deref(), Some("github-actions"));
        let pull = json!({"title": "t", "state": "MERGED", "isDraft": false, "headRefOid": "abc", "merged": true, "mergeable": "UNKNOWN", "mergeStateStatus": "HAS_HOOKS", "baseRefName": "main", "labels": {"nodes": [{"name": "x"}]}});
        let facts = pull_facts(&pull).unwrap();
        assert!(!facts.open && facts.merged);
        assert_eq!(facts.mergeable, None);
        assert_eq!(
            facts.mergeable_state,
            Some(crate::policy::merge::MergeableState::HasHooks)
        );
    }

    #[test]
    fn the_combined_state_follows_rests_rule() {
        let status = |state: &str| CommitStatus {
            context: "c".into(),
            state: state.into(),
        };
        assert_eq!(statuses(vec![]).state, "pending");
        assert_eq!(
            statuses(vec![status("success"), status("expected")]).state,
            "pending"
        );
        assert_eq!(
            statuses(vec![status("pending"), status("error")]).state,
            "failure"
        );
        assert_eq!(statuses(vec![status("success")]).state, "success");
    }

    #[test]
    fn a_connection_says_where_its_next_page_starts() {
        let value = json!({"files": {"pageInfo": {"hasNextPage": true, "endCursor": "c1"}, "nodes": [{"path": "a"}]}});
        let files = connection_ref(&value, "files");
        assert_eq!((files.nodes.len(), files.next.as_deref()), (1, Some("c1")));
        let done =
            json!({"files": {"pageInfo": {"hasNextPage": false, "endCursor": "c1"}, "nodes": []}});
        assert_eq!(connection_ref(&done, "files").next, None);
        assert!(connection_ref(&json!({"files": null}), "files")
            .nodes
            .is_empty());
    }
}
