//! What ran on a commit: check runs and suites (https://docs.github.com/rest/checks/runs,
//! https://docs.github.com/rest/checks/suites), the combined status
//! (https://docs.github.com/rest/commits/statuses#get-the-combined-status-for-a-specific-reference)
//! and GitHub Actions' workflow runs (https://docs.github.com/rest/actions/workflow-runs).

use serde_json::{json, Value};

use super::server::{error, paginate, query_map, reply, At, Reply, UNKNOWN};
use super::world::stamp;

pub(super) fn route(at: At<'_>) -> Reply {
    let At {
        world,
        page_size,
        request,
        base,
        method,
        segments,
        ..
    } = at;
    match (method, segments) {
        // "List check runs for a Git reference", "List check suites for a Git reference"
        // (https://docs.github.com/rest/checks/runs, /rest/checks/suites) and "Get the combined status
        // for a specific reference" (https://docs.github.com/rest/commits/statuses): a commit nothing
        // ran on has no runs and suites, and a `pending` combined state.
        ("GET", ["repos", owner, name, "commits", sha, what]) => {
            let repo = format!("{owner}/{name}");
            let Some(issue) = world
                .issues
                .iter()
                .find(|issue| issue.repo == repo && issue.is_pr && issue.head_sha == *sha)
            else {
                // A commit nobody ran anything on.
                return match *what {
                    "check-runs" => reply(200, json!({"total_count": 0, "check_runs": []})),
                    "check-suites" => reply(200, json!({"total_count": 0, "check_suites": []})),
                    "status" => reply(
                        200,
                        json!({"state": "pending", "sha": sha, "total_count": 0, "statuses": []}),
                    ),
                    _ => error(UNKNOWN, "the fake GitHub does not know this route"),
                };
            };
            match *what {
                "check-runs" => {
                    let runs: Vec<Value> = issue
                        .check_runs
                        .iter()
                        .map(|run| {
                            json!({
                                "id": run.id,
                                "name": run.name,
                                "head_sha": issue.head_sha,
                                "status": run.status,
                                "conclusion": run.conclusion,
                                "started_at": stamp(run.started_at),
                                "completed_at": run.conclusion.as_ref().map(|_| stamp(run.started_at)),
                                "check_suite": {"id": run.suite},
                                "app": issue
                                    .check_suites
                                    .iter()
                                    .find(|suite| suite.id == run.suite)
                                    .map(|suite| json!({"id": super::world::app_id(&suite.app), "slug": suite.app})),
                            })
                        })
                        .collect();
                    let mut answer = paginate(runs.clone(), request, base, page_size);
                    let page: Value = serde_json::from_str(&answer.body).unwrap_or(Value::Null);
                    answer.body =
                        json!({"total_count": runs.len(), "check_runs": page}).to_string();
                    answer
                }
                "check-suites" => {
                    let suites = issue.suites_json();
                    let mut answer = paginate(suites.clone(), request, base, page_size);
                    let page: Value = serde_json::from_str(&answer.body).unwrap_or(Value::Null);
                    answer.body =
                        json!({"total_count": suites.len(), "check_suites": page}).to_string();
                    answer
                }
                "status" => {
                    // The combined status: its `state` covers every context (failure if any
                    // failed or errored, pending if any is pending, and pending when there is
                    // none at all); the contexts themselves are paginated, 100 at most a page.
                    let statuses: Vec<Value> = issue
                        .statuses
                        .iter()
                        .map(|(context, state)| json!({"context": context, "state": state}))
                        .collect();
                    let states = || issue.statuses.iter().map(|(_, state)| state.as_str());
                    let state = if states().any(|state| state == "failure" || state == "error") {
                        "failure"
                    } else if issue.statuses.is_empty() || states().any(|state| state == "pending")
                    {
                        "pending"
                    } else {
                        "success"
                    };
                    let mut answer = paginate(statuses.clone(), request, base, page_size);
                    let page: Value = serde_json::from_str(&answer.body).unwrap_or(Value::Null);
                    answer.body = json!({
                        "state": state,
                        "sha": issue.head_sha,
                        "total_count": statuses.len(),
                        "statuses": page,
                    })
                    .to_string();
                    answer
                }
                _ => error(UNKNOWN, "the fake GitHub does not know this route"),
            }
        }
        // "List workflow runs for a repository", by `head_sha`
        // (https://docs.github.com/rest/actions/workflow-runs#list-workflow-runs-for-a-repository).
        ("GET", ["repos", owner, name, "actions", "runs"]) => {
            let repo = format!("{owner}/{name}");
            if world.actions_forbidden {
                return error(403, "Resource not accessible by integration");
            }
            let query = query_map(&request.query);
            let head = query.get("head_sha").cloned().unwrap_or_default();
            let runs: Vec<Value> = world
                .issues
                .iter()
                .filter(|issue| issue.repo == repo && issue.is_pr && issue.head_sha == head)
                .flat_map(|issue| issue.workflow_runs_json())
                .collect();
            let mut answer = paginate(runs.clone(), request, base, page_size);
            let page: Value = serde_json::from_str(&answer.body).unwrap_or(Value::Null);
            answer.body = json!({"total_count": runs.len(), "workflow_runs": page}).to_string();
            answer
        }
        _ => Reply::pass(),
    }
}
