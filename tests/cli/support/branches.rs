//! Branches: "Get a branch" (https://docs.github.com/rest/branches/branches#get-a-branch),
//! "Delete a reference" (https://docs.github.com/rest/git/refs#delete-a-reference) and "Get
//! rules for a branch" (https://docs.github.com/rest/repos/rules#get-rules-for-a-branch).

use serde_json::json;

use super::server::{error, paginate, reply, At, Reply};

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
        // "Get a branch" (`GET /repos/{o}/{r}/branches/{branch}`): the branch with its
        // `protected` flag, 404 "Branch not found" when there is none (GitHub's REST docs and
        // @octokit/openapi-types `repos/get-branch`, `branch-with-protection`). Its `protection`
        // is the classic rule's summary, served to any token with read access (GitHub's docs
        // example: `"protection": {"enabled": true, "required_status_checks":
        // {"enforcement_level": "non_admins", "contexts": ["ci-test", "linter"]}}`; newer answers
        // add `checks: [{context, app_id}]`; an unprotected branch has `"enabled": false` and
        // `"enforcement_level": "off"`; google/go-github#625). The rule's other settings (linear
        // history, reviews) are only in "Get branch protection", which needs admin.
        ("GET", ["repos", owner, name, "branches", branch @ ..]) => {
            let repo = format!("{owner}/{name}");
            let branch = branch.join("/");
            if !world.has_branch_in(&repo, &branch) {
                return error(404, "Branch not found");
            }
            let ours = repo == super::world::REPO;
            let classic = world.classic.get(&branch).filter(|_| ours);
            let protected =
                (ours && world.protected_branches.contains(&branch)) || classic.is_some();
            let required = classic
                .map(|rule| rule.required_checks.clone())
                .unwrap_or_default();
            let protection = json!({
                "enabled": classic.is_some(),
                "required_status_checks": {
                    "enforcement_level": if required.is_empty() { "off" } else { "non_admins" },
                    "contexts": required,
                    "checks": required.iter().map(|context| json!({"context": context, "app_id": null})).collect::<Vec<_>>(),
                },
            });
            reply(
                200,
                json!({"name": branch, "protected": protected, "protection": protection}),
            )
        }
        // "Delete a reference" (`DELETE /repos/{o}/{r}/git/refs/{ref}`, `heads/BRANCH` for a
        // branch): 204 No Content; 422 "Reference does not exist" when it is not there
        // (@octokit/openapi-types `git/delete-ref`). A protected branch is refused (422).
        ("DELETE", ["repos", owner, name, "git", "refs", "heads", branch @ ..])
            if format!("{owner}/{name}") == super::world::REPO =>
        {
            let branch = branch.join("/");
            if !world.has_branch(&branch) {
                return error(422, "Reference does not exist");
            }
            if world.protected_branches.contains(&branch) {
                return error(422, "Cannot delete protected branch");
            }
            world.deleted_branches.push(branch);
            Reply {
                status: 204,
                headers: Vec::new(),
                body: String::new(),
            }
        }
        // "Get rules for a branch": every active rule that applies, whatever level set it; the branch
        // need not exist (https://docs.github.com/rest/repos/rules#get-rules-for-a-branch).
        ("GET", ["repos", owner, name, "rules", "branches", branch @ ..]) => {
            let key = format!("{owner}/{name}:{}", branch.join("/"));
            let rules = world.branch_rules.get(&key).cloned().unwrap_or_default();
            paginate(rules, request, base, page_size)
        }
        _ => Reply::pass(),
    }
}
