//! Pull requests: "Get a pull request", "List pull requests files", "Merge a pull request"
//! (https://docs.github.com/rest/pulls/pulls) and "List reviews for a pull request"
//! (https://docs.github.com/rest/pulls/reviews).

use serde_json::{json, Value};

use super::server::{error, paginate, reply, At, Reply, UNKNOWN};
use chrono::Utc;

use super::world::{stamp, Event};

pub(super) fn route(at: At<'_>) -> Reply {
    let At {
        world,
        page_size,
        request,
        base,
        method,
        segments,
        viewer,
        ..
    } = at;
    match (method, segments) {
        // "Merge a pull request": 405 "Pull Request is not mergeable", 409 "Head branch was modified.
        // Review and try the merge again." when `sha` is not the head (the OpenAPI description's
        // examples, @octokit/openapi-types `pulls/merge`; https://docs.github.com/rest/pulls/pulls#merge-a-pull-request).
        ("PUT", ["repos", owner, name, "pulls", number, "merge"]) => {
            let repo = format!("{owner}/{name}");
            let Some(index) = number
                .parse()
                .ok()
                .and_then(|number| world.find(&repo, number))
            else {
                return error(404, "Not Found");
            };
            let body: Value = serde_json::from_str(&request.body).unwrap_or(Value::Null);
            let settings = world.settings.get(&repo).cloned().unwrap_or_default();
            let rules = world
                .branch_rules
                .get(&format!("{repo}:{}", world.issues[index].base))
                .cloned()
                .unwrap_or_default();
            let classic_linear = repo == super::world::REPO
                && world
                    .classic
                    .get(&world.issues[index].base)
                    .is_some_and(|rule| rule.linear_history);
            let issue = &mut world.issues[index];
            if issue.state != "open" || issue.merged || issue.mergeable == Some(false) {
                return error(405, "Pull Request is not mergeable");
            }
            // GitHub's own refusals, each with its message. A `blocked` PR is NOT among them:
            // the token is an admin's (or a bypass actor's), and GitHub merges it anyway.
            let method = body
                .get("merge_method")
                .and_then(Value::as_str)
                .unwrap_or("merge");
            let allowed = match method {
                "squash" => settings.allow_squash_merge,
                "rebase" => settings.allow_rebase_merge,
                _ => settings.allow_merge_commit,
            };
            if allowed == Some(false) {
                return error(
                    405,
                    match method {
                        "squash" => "Squash merges are not allowed on this repository.",
                        "rebase" => "Rebase merges are not allowed on this repository.",
                        _ => "Merge commits are not allowed on this repository.",
                    },
                );
            }
            // Linear history refuses a merge commit: GitHub answers a classic rule's with 405
            // "This branch must not contain merge commits." (recorded in
            // runatlantis/atlantis#1176). A ruleset's `required_linear_history` refuses it too;
            // its wording is not recorded, so the fake answers the same.
            let linear = classic_linear
                || rules
                    .iter()
                    .any(|rule| rule["type"] == "required_linear_history");
            if linear && method == "merge" {
                return error(405, "This branch must not contain merge commits.");
            }
            if rules.iter().any(|rule| rule["type"] == "merge_queue") {
                return error(
                    405,
                    "Repository rule violations found\n\nChanges must be made through the merge queue\n\n",
                );
            }
            if body.get("sha").and_then(Value::as_str) != Some(issue.head_sha.as_str()) {
                return error(
                    409,
                    "Head branch was modified. Review and try the merge again.",
                );
            }
            let now = Utc::now();
            issue.merged = true;
            issue.state = "closed".into();
            issue.updated_at = now;
            issue.events.push(Event {
                name: "merged".into(),
                label: None,
                actor: viewer.clone(),
                at: now,
            });
            reply(
                200,
                json!({"sha": format!("merge-of-{}", issue.head_sha), "merged": true, "message": "Pull Request successfully merged"}),
            )
        }
        // "Get a pull request", "List pull requests files" (`previous_filename` on a rename) and "List
        // reviews for a pull request" (https://docs.github.com/rest/pulls/pulls, /rest/pulls/reviews).
        ("GET", ["repos", owner, name, "pulls", number, rest @ ..]) => {
            let repo = format!("{owner}/{name}");
            let Some(index) = number
                .parse()
                .ok()
                .and_then(|number| world.find(&repo, number))
            else {
                return error(404, "Not Found");
            };
            let issue = &mut world.issues[index];
            if !issue.is_pr {
                return error(404, "Not Found");
            }
            match rest {
                // "Get a pull request" starts GitHub's mergeability job when `mergeable` is
                // null: this answer says null, the job's result shows from the next read on
                // (REST docs, "Get a pull request"; see `Issue::uncomputed`).
                [] => {
                    let answer = reply(200, issue.pull_json());
                    if let Some((mergeable, state)) = issue.uncomputed.take() {
                        issue.mergeable = Some(mergeable);
                        issue.mergeable_state = state;
                    }
                    answer
                }
                ["files"] => {
                    let values = issue
                        .files
                        .iter()
                        .map(|(path, previous)| match previous {
                            Some(previous) => json!({"filename": path, "status": "renamed", "previous_filename": previous}),
                            None => json!({"filename": path, "status": "modified"}),
                        })
                        .collect();
                    paginate(values, request, base, page_size)
                }
                ["reviews"] => {
                    let values = issue
                        .reviews
                        .iter()
                        .map(|review| {
                            json!({
                                "user": super::world::account(&review.user).rest_json(),
                                "author_association": review.association,
                                "state": review.state,
                                "commit_id": review.commit_id,
                                "submitted_at": stamp(review.at),
                            })
                        })
                        .collect();
                    paginate(values, request, base, page_size)
                }
                _ => error(UNKNOWN, "the fake GitHub does not know this route"),
            }
        }
        _ => Reply::pass(),
    }
}
