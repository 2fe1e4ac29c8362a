//! "Search issues and pull requests" (`GET /search/issues`,
//! https://docs.github.com/rest/search/search#search-issues-and-pull-requests); GraphQL's
//! `search` shares its matching.

use serde_json::{json, Value};

use super::server::{error, paginate, query_map, reply, At, Reply};
use chrono::Utc;

use super::server::Incoming;
use super::world::WorldState;

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
        // "Search issues and pull requests": at most 1,000 results, `total_count` and
        // `incomplete_results` around them (https://docs.github.com/rest/search/search).
        ("GET", ["search", "issues"]) => search(world, request, base, page_size),
        _ => Reply::pass(),
    }
}

/// GitHub's search over the world's issues and PRs (REST's and GraphQL's share it): `is:pr`, `is:open`, `draft:false`,
/// `archived:false`, `repo:`, `org:` and `created:A..B`, oldest first, at most 1,000 results.
pub(super) fn search_matches<'w>(
    world: &'w WorldState,
    q: &str,
) -> Result<Vec<&'w super::world::Issue>, Reply> {
    // An `org:` qualifier naming an owner GitHub does not know (or the token cannot see) is
    // refused with 422 Validation Failed, GitHub's reason in `errors[].message` (answers
    // recorded in changesets/action#252 and asottile/gh-perf-review#11, the latter for an
    // `org:` query).
    for term in q.split_whitespace() {
        if let Some(org) = term.strip_prefix("org:") {
            let known = world.repos.iter().any(|repo| {
                repo.split_once('/')
                    .is_some_and(|(owner, _)| owner.eq_ignore_ascii_case(org))
            });
            if !known {
                return Err(reply(
                    422,
                    json!({
                        "message": "Validation Failed",
                        "errors": [{
                            "message": "The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.",
                            "resource": "Search",
                            "field": "q",
                            "code": "invalid"
                        }],
                        "documentation_url": "https://docs.github.com/v3/search/"
                    }),
                ));
            }
        }
    }
    let mut matches: Vec<&super::world::Issue> = world.issues.iter().collect();
    for term in q.split_whitespace() {
        let (key, value) = term.split_once(':').unwrap_or((term, ""));
        matches.retain(|issue| match (key, value) {
            ("is", "pr") => issue.is_pr,
            // The index lags: it may still show a state the item no longer has.
            ("is", "open") => {
                issue
                    .search_stale
                    .as_ref()
                    .and_then(|stale| stale.get("state"))
                    .and_then(Value::as_str)
                    .unwrap_or(&issue.state)
                    == "open"
            }
            ("draft", "false") => !issue.draft,
            ("archived", "false") => true,
            // GraphQL's search has no sort argument: its query asks oldest first this way.
            ("sort", "created-asc") => true,
            // Qualifiers match names as GitHub does, whatever their case.
            ("repo", repo) => issue.repo.eq_ignore_ascii_case(repo),
            ("org", org) => issue
                .repo
                .to_ascii_lowercase()
                .starts_with(&format!("{}/", org.to_ascii_lowercase())),
            ("created", range) => {
                let (from, to) = range.split_once("..").unwrap_or((range, range));
                let parse = |t: &str| {
                    chrono::DateTime::parse_from_rfc3339(t)
                        .map(|t| t.with_timezone(&Utc))
                        .ok()
                };
                match (parse(from), parse(to)) {
                    (Some(from), Some(to)) => issue.created_at >= from && issue.created_at <= to,
                    _ => false,
                }
            }
            _ => panic!("the fake search does not know the qualifier `{term}`"),
        });
    }
    matches.sort_by_key(|issue| issue.created_at);
    Ok(matches)
}

fn search(world: &WorldState, request: &Incoming, base: &str, page_size: usize) -> Reply {
    let query = query_map(&request.query);
    let q = query
        .get("q")
        .cloned()
        .unwrap_or_default()
        .replace('+', " ");
    let matches = match search_matches(world, &q) {
        Ok(matches) => matches,
        Err(refusal) => return refusal,
    };
    let total = matches.len();
    let values: Vec<Value> = matches
        .iter()
        .take(1000)
        .map(|issue| issue.search_json())
        .collect();
    let page: usize = query.get("page").and_then(|v| v.parse().ok()).unwrap_or(1);
    if page > 10 {
        return error(422, "Only the first 1000 search results are available");
    }
    let mut answer = paginate(values, request, base, page_size);
    let items: Value = serde_json::from_str(&answer.body).unwrap_or(Value::Null);
    // "Timeouts and incomplete results" (REST docs, Search): a query past its time limit
    // answers the matches found so far with `incomplete_results: true`; "reaching a timeout
    // does not necessarily mean that search results are incomplete".
    answer.body = json!({"total_count": total, "incomplete_results": world.search_incomplete, "items": items}).to_string();
    answer
}
