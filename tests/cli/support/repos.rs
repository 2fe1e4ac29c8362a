//! Repositories and what moved: "Get a repository"
//! (https://docs.github.com/rest/repos/repos#get-a-repository), its `/repositories/{id}` form,
//! and the redirects of renamed repositories and transferred issues.

use serde_json::{json, Value};

use super::server::{error, reply, Incoming, Reply};
use super::world::WorldState;

/// The body GitHub sends with a redirect (recorded answers in gidgethub/gidgethub#214 and
/// 18F/charlie#85: `{"message": "Moved Permanently", "url": LOCATION, ...}`).
pub(super) fn moved(status: u16, location: &str) -> Reply {
    reply(
        status,
        json!({
            "message": "Moved Permanently",
            "url": location,
            "documentation_url": "https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects",
        }),
    )
}

pub(super) fn transfer_from_path(
    world: &mut WorldState,
    path: &str,
    to_repo: &str,
    to_number: u64,
) {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    if let ["repos", owner, name, "issues", number, ..] = segments.as_slice() {
        if let Ok(number) = number.parse() {
            world.transfer_issue(&format!("{owner}/{name}"), number, to_repo, to_number);
        }
    }
}

/// GitHub's redirects for items and repositories that moved, for every method:
/// - A transferred issue: "Get an issue" answers `301 Moved Permanently` "if the issue was
///   transferred to another repository" (REST docs, Issues, "Get an issue"); its comments,
///   labels and state live at the new address, so writes to the old one are redirected too.
/// - A renamed repository: its old name answers 301 for GET and 307 for other methods, with
///   `Location` at `/repositories/{id}` (GitHub developer blog, "Preview repository
///   redirects", 2015-04-17, and "Automatic redirects for renamed repositories", 2015-07-21;
///   recorded: `Location: https://api.github.com/repositories/12247303`, gidgethub#214; a
///   POST on an old name answered 307, 18F/charlie#85 and google/go-github#184).
pub(super) fn redirect(world: &WorldState, request: &Incoming, base: &str) -> Option<Reply> {
    let segments: Vec<&str> = request.path.trim_start_matches('/').split('/').collect();
    let ["repos", owner, name, rest @ ..] = segments.as_slice() else {
        return None;
    };
    let repo = format!("{owner}/{name}");
    let query = if request.query.is_empty() {
        String::new()
    } else {
        format!("?{}", request.query)
    };
    let transfer = match rest {
        ["issues", number, tail @ ..] => world
            .transfers
            .iter()
            .find(|(from, old, _, _)| {
                from.eq_ignore_ascii_case(&repo) && number.parse() == Ok(*old)
            })
            .map(|(_, _, to, new)| (to, *new, tail)),
        _ => None,
    };
    if let Some((to, new, tail)) = transfer {
        let id = world.repo_id(to)?;
        let tail: String = tail.iter().map(|part| format!("/{part}")).collect();
        let location = format!("{base}/repositories/{id}/issues/{new}{tail}{query}");
        let mut answer = moved(301, &location);
        answer.headers.push(("location".into(), location));
        return Some(answer);
    }
    let exists = world
        .repos
        .iter()
        .any(|name| name.eq_ignore_ascii_case(&repo));
    let renamed = world
        .renames
        .iter()
        .rev()
        .find(|(old, _)| old.eq_ignore_ascii_case(&repo))
        .filter(|_| !exists)?;
    let id = world.repo_id(&renamed.1)?;
    let tail: String = rest.iter().map(|part| format!("/{part}")).collect();
    let location = format!("{base}/repositories/{id}{tail}{query}");
    let status = if request.method == "GET" { 301 } else { 307 };
    let mut answer = moved(status, &location);
    answer.headers.push(("location".into(), location));
    Some(answer)
}

/// `/repositories/{id}/...` is the same resource as `/repos/{owner}/{name}/...` (where
/// GitHub's redirects point).
pub(super) fn repository_by_id(world: &WorldState, request: &Incoming) -> Option<Incoming> {
    let segments: Vec<&str> = request.path.trim_start_matches('/').split('/').collect();
    let ["repositories", id, rest @ ..] = segments.as_slice() else {
        return None;
    };
    let name = world.repo_by_id(id.parse().ok()?)?;
    let tail: String = rest.iter().map(|part| format!("/{part}")).collect();
    Some(Incoming {
        method: request.method.clone(),
        path: format!("/repos/{name}{tail}"),
        query: request.query.clone(),
        body: request.body.clone(),
        authorization: request.authorization.clone(),
        if_none_match: request.if_none_match.clone(),
        if_modified_since: request.if_modified_since.clone(),
        accept: request.accept.clone(),
    })
}

/// `GET /repos/{owner}/{repo}`: GitHub matches the name case-insensitively and answers with
/// its canonical `full_name` and its `id` (REST docs, Repositories, "Get a repository").
pub(super) fn route_repository(world: &WorldState, request: &Incoming) -> Option<Reply> {
    let segments: Vec<&str> = request.path.trim_start_matches('/').split('/').collect();
    if let ("GET", ["repos", owner, name, "issues", number, "labels"]) =
        (request.method.as_str(), segments.as_slice())
    {
        // "List labels for an issue" (REST docs, Labels).
        let issue = number
            .parse()
            .ok()
            .and_then(|number| world.find(&format!("{owner}/{name}"), number))?;
        let labels: Vec<Value> = world.issues[issue]
            .labels
            .iter()
            .map(|name| json!({"name": name}))
            .collect();
        return Some(reply(200, Value::Array(labels)));
    }
    if let ("GET", ["orgs", org]) = (request.method.as_str(), segments.as_slice()) {
        // "Get an organization" (REST docs, Organizations): its `public_repos` count;
        // `total_private_repos` is shown to its members only.
        let owned = world
            .repos
            .iter()
            .filter(|repo| {
                repo.split_once('/')
                    .is_some_and(|(owner, _)| owner.eq_ignore_ascii_case(org))
            })
            .count();
        if owned == 0 {
            return Some(error(404, "Not Found"));
        }
        return Some(reply(
            200,
            json!({"login": org, "id": 1, "public_repos": owned, "html_url": format!("https://github.com/{org}")}),
        ));
    }
    let ("GET", ["repos", owner, name]) = (request.method.as_str(), segments.as_slice()) else {
        return None;
    };
    let asked = format!("{owner}/{name}");
    let Some(full_name) = world
        .repos
        .iter()
        .find(|repo| repo.eq_ignore_ascii_case(&asked))
    else {
        return Some(error(404, "Not Found"));
    };
    let (login, short) = full_name.split_once('/').unwrap_or((full_name, ""));
    let mut value = json!({
        "id": world.repo_id(full_name),
        "name": short,
        "full_name": full_name,
        "owner": {"login": login, "type": "Organization"},
        "private": false,
        "html_url": format!("https://github.com/{full_name}"),
        "default_branch": "main",
    });
    // "Get a repository" (REST docs, Repositories): `allow_merge_commit`,
    // `allow_squash_merge` and `allow_rebase_merge` say which merge methods the repository
    // allows; a repository set up with none of them named allows every method here.
    let settings = world.settings.get(full_name).cloned().unwrap_or_default();
    for (key, allowed) in [
        ("allow_merge_commit", settings.allow_merge_commit),
        ("allow_squash_merge", settings.allow_squash_merge),
        ("allow_rebase_merge", settings.allow_rebase_merge),
    ] {
        if let Some(allowed) = allowed {
            value[key] = json!(allowed);
        }
    }
    Some(reply(200, value))
}
