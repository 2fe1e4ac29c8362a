//! The REST implementation of the reader and writer ports: one request per fact, each path
//! named here once, GitHub's JSON parsed into the policies' types by `model`. The same code
//! serves a live client and a snapshot replay (the client answers from the recording).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::client::{ApiError, Client};
use super::model::{self, Event, ParseError, PullFacts};
use super::reader::{
    malformed, Comment, CommonReader, ListedItem, MergeReader, Repository, SearchHit, SearchPage,
    StaleReader,
};
use crate::item::{ItemRef, RepoRef};
use crate::policy::merge::{
    Access, BranchRules, ChangedFile, CheckRun, CheckSuite, ClassicProtection, MergeSettings,
    Review, Statuses, WorkflowRun,
};
use crate::policy::stale::{Activity, HeadBranch, ItemFacts};

/// Percent-encodes a path segment (label names may hold spaces and slashes).
fn segment(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn issue_path(item: &ItemRef) -> String {
    format!(
        "/repos/{}/{}/issues/{}",
        item.repo.owner, item.repo.name, item.number
    )
}

/// Open issues and PRs, oldest first, 100 per page: each page's entries parsed into what the
/// stale rules need as the page arrives, its JSON dropped (a pool of 100,000 issues never
/// holds 100,000 entries' JSON at once).
fn open_items(client: &Client, repo: &RepoRef) -> Result<Vec<ListedItem>, ApiError> {
    let mut listed = Vec::new();
    client.for_each_page(
        &format!(
            "/repos/{}/{}/issues?state=open&sort=created&direction=asc&per_page=100",
            repo.owner, repo.name
        ),
        None,
        &|_| false,
        &mut |page| {
            listed.extend(page.iter().map(|entry| ListedItem {
                number: model::number(entry),
                facts: model::item_facts(entry).map_err(malformed),
            }))
        },
    )?;
    Ok(listed)
}

fn issue(client: &Client, item: &ItemRef) -> Result<Value, ApiError> {
    client.get(&issue_path(item))
}

fn events(client: &Client, item: &ItemRef) -> Result<Vec<Value>, ApiError> {
    client.get_all(&format!("{}/events?per_page=100", issue_path(item)))
}

/// The timeline: issue events, comments, and what has no issue event (reviews, commits).
fn timeline(client: &Client, item: &ItemRef) -> Result<Vec<Value>, ApiError> {
    client.get_all(&format!("{}/timeline?per_page=100", issue_path(item)))
}

fn comments_since(client: &Client, item: &ItemRef, since: &str) -> Result<Vec<Value>, ApiError> {
    client.get_all(&format!(
        "{}/comments?since={since}&per_page=100",
        issue_path(item)
    ))
}

/// The issues and PRs of every state updated at or after `since` (REST docs, Issues, "List
/// repository issues": `since` filters on the last update, `YYYY-MM-DDTHH:MM:SSZ`; `state=all`
/// takes closed ones too, and PRs are issues there). In created order, oldest first, so a page
/// does not shift when an item is updated while the next is read.
fn changed_since(client: &Client, repo: &RepoRef, since: &str) -> Result<Vec<Value>, ApiError> {
    client.get_all(&format!(
        "/repos/{}/{}/issues?state=all&since={since}&sort=created&direction=asc&per_page=100",
        repo.owner, repo.name
    ))
}

/// The token's own login, or `None` when the token cannot say (an app installation token).
/// Read once per run (the stale rules and the write ceilings both ask): a refusal is kept
/// too, as an answer without a login.
fn viewer(client: &Client) -> Result<Option<String>, ApiError> {
    let login = |user: &Value| {
        user.get("login")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    match client.get_remembered("/user") {
        Ok(user) => Ok(login(&user)),
        Err(ApiError::Auth { status: 403, .. }) | Err(ApiError::Item { .. }) => {
            client.remember("/user", &Value::Object(Default::default()));
            Ok(None)
        }
        Err(error) => Err(error),
    }
}

/// `GET /repos/{owner}/{repo}`, following GitHub's redirect for a renamed repository.
fn repository(client: &Client, repo: &RepoRef) -> Result<Repository, ApiError> {
    let (body, moved) = client.get_following(&format!("/repos/{}/{}", repo.owner, repo.name))?;
    let full_name = body
        .get("full_name")
        .and_then(Value::as_str)
        .and_then(|name| name.parse().ok());
    let id = body.get("id").and_then(Value::as_u64);
    match (full_name, id) {
        (Some(full_name), Some(id)) => {
            let full_name: RepoRef = full_name;
            client.remember(&format!("/repos/{full_name}"), &body);
            Ok(Repository {
                full_name,
                id,
                moved: moved.is_some(),
            })
        }
        _ => Err(ApiError::Item {
            status: None,
            message: format!("GET /repos/{repo} answered without a `full_name` and `id`"),
        }),
    }
}

/// The most repositories one search looks at (REST docs, Search: "The REST API will find up
/// to 4,000 repositories that match your filters").
pub(crate) const SEARCH_REPOSITORY_CAP: u64 = 4000;

/// How many repositories an organisation has, as far as the token may see (`public_repos`
/// and, for its members, `total_private_repos` of `GET /orgs/{org}`).
fn org_repository_count(client: &Client, org: &str) -> Result<u64, ApiError> {
    let value = client.get(&format!("/orgs/{}", segment(org)))?;
    let count = |field: &str| value.get(field).and_then(Value::as_u64).unwrap_or(0);
    Ok(count("public_repos") + count("total_private_repos"))
}

/// GitHub returns at most this many results for one search.
pub(crate) const SEARCH_CAP: u64 = 1000;

/// Runs one issue search. Reads every page, unless the first says the query matches more than
/// GitHub's cap: then only the total is worth anything, and the caller splits the query.
fn search_issues(client: &Client, query: &str) -> Result<SearchPage, ApiError> {
    let over_cap = |first: &Value| {
        first
            .get("total_count")
            .and_then(Value::as_u64)
            .unwrap_or(0)
            > SEARCH_CAP
    };
    let (items, first) = client.get_all_until(
        &format!(
            "/search/issues?q={}&sort=created&order=asc&per_page=100",
            query_encode(query)
        ),
        Some("items"),
        &over_cap,
    )?;
    let incomplete = first.get("incomplete_results").and_then(Value::as_bool) == Some(true);
    let total = first
        .get("total_count")
        .and_then(Value::as_u64)
        .unwrap_or(items.len() as u64);
    Ok(SearchPage {
        items: items.iter().map(search_hit).collect(),
        total,
        incomplete,
    })
}

fn query_encode(query: &str) -> String {
    query.split(' ').map(segment).collect::<Vec<_>>().join("+")
}

fn pull_path(item: &ItemRef) -> String {
    format!(
        "/repos/{}/{}/pulls/{}",
        item.repo.owner, item.repo.name, item.number
    )
}

fn pull(client: &Client, item: &ItemRef) -> Result<Value, ApiError> {
    client.get(&pull_path(item))
}

fn pull_files(client: &Client, item: &ItemRef) -> Result<Vec<Value>, ApiError> {
    client.get_all(&format!("{}/files?per_page=100", pull_path(item)))
}

fn pull_reviews(client: &Client, item: &ItemRef) -> Result<Vec<Value>, ApiError> {
    client.get_all(&format!("{}/reviews?per_page=100", pull_path(item)))
}

fn check_runs(client: &Client, repo: &RepoRef, sha: &str) -> Result<Vec<Value>, ApiError> {
    client
        .get_all_in(
            &format!(
                "/repos/{}/{}/commits/{}/check-runs?per_page=100",
                repo.owner,
                repo.name,
                segment(sha)
            ),
            Some("check_runs"),
        )
        .map(|(runs, _)| runs)
}

/// The combined status of a commit: its first page's object (`state`, `total_count`) and its
/// statuses. The combined `state` covers every context, so when it is `success` (or there is
/// no status at all) the first page is enough; otherwise every page is read, so the context
/// that is not success can be named, however far down the list it is.
fn combined_status(
    client: &Client,
    repo: &RepoRef,
    sha: &str,
) -> Result<(Value, Vec<Value>), ApiError> {
    let enough = |first: &Value| {
        first.get("state").and_then(Value::as_str) == Some("success")
            || first.get("total_count").and_then(Value::as_u64) == Some(0)
    };
    let (statuses, first) = client.get_all_until(
        &format!(
            "/repos/{}/{}/commits/{}/status?per_page=100",
            repo.owner,
            repo.name,
            segment(sha)
        ),
        Some("statuses"),
        &enough,
    )?;
    Ok((first, statuses))
}

/// The check suites of a commit: one per app, and one per GitHub Actions workflow run.
fn check_suites(client: &Client, repo: &RepoRef, sha: &str) -> Result<Vec<Value>, ApiError> {
    client
        .get_all_in(
            &format!(
                "/repos/{}/{}/commits/{}/check-suites?per_page=100",
                repo.owner,
                repo.name,
                segment(sha)
            ),
            Some("check_suites"),
        )
        .map(|(suites, _)| suites)
}

/// GitHub Actions' workflow runs for a head commit (needs Actions read access).
fn workflow_runs(client: &Client, repo: &RepoRef, sha: &str) -> Result<Vec<Value>, ApiError> {
    client
        .get_all_in(
            &format!(
                "/repos/{}/{}/actions/runs?head_sha={}&per_page=100",
                repo.owner,
                repo.name,
                segment(sha)
            ),
            Some("workflow_runs"),
        )
        .map(|(runs, _)| runs)
}

/// A user's permission on a repository (the token needs push access to read it).
fn collaborator_permission(
    client: &Client,
    repo: &RepoRef,
    login: &str,
) -> Result<Value, ApiError> {
    client.get(&format!(
        "/repos/{}/{}/collaborators/{}/permission",
        repo.owner,
        repo.name,
        segment(login)
    ))
}

/// The repository itself (its merge settings, for the merge).
fn repository_settings(client: &Client, repo: &RepoRef) -> Result<Value, ApiError> {
    // The run's canonical-name read already holds it: one `GET /repos/{o}/{r}` per run.
    client.get_remembered(&format!("/repos/{}/{}", repo.owner, repo.name))
}

/// The rules (rulesets) that apply to a branch.
fn branch_rules(client: &Client, repo: &RepoRef, branch: &str) -> Result<Vec<Value>, ApiError> {
    client.get_all(&format!(
        "/repos/{}/{}/rules/branches/{}?per_page=100",
        repo.owner,
        repo.name,
        segment(branch)
    ))
}

/// "Get a branch": its classic protection's summary, readable with read access.
fn branch_summary(client: &Client, repo: &RepoRef, branch: &str) -> Result<Value, ApiError> {
    client.get(&format!(
        "/repos/{}/{}/branches/{}",
        repo.owner,
        repo.name,
        branch_path(branch)
    ))
}

fn parse_all<T>(
    values: Vec<Value>,
    parse: fn(&Value) -> Result<T, ParseError>,
) -> Result<Vec<T>, ApiError> {
    values
        .iter()
        .map(parse)
        .collect::<Result<_, _>>()
        .map_err(malformed)
}

/// A search result: the repository is the last two segments of its `repository_url`.
fn search_hit(entry: &Value) -> SearchHit {
    let repo = entry
        .get("repository_url")
        .and_then(Value::as_str)
        .and_then(|url| {
            let mut parts = url.rsplit('/');
            let name = parts.next()?;
            let owner = parts.next()?;
            format!("{owner}/{name}").parse().ok()
        });
    SearchHit {
        repo,
        number: model::number(entry),
        draft: entry.get("draft").and_then(Value::as_bool),
        facts: model::pull_facts(entry).map_err(malformed),
    }
}

impl CommonReader for Client {
    fn repository(&self, repo: &RepoRef) -> Result<Repository, ApiError> {
        repository(self, repo)
    }

    fn org_repository_count(&self, org: &str) -> Result<u64, ApiError> {
        org_repository_count(self, org)
    }

    fn viewer(&self) -> Result<Option<String>, ApiError> {
        viewer(self)
    }

    fn on_github_clock(&self, local: DateTime<Utc>) -> DateTime<Utc> {
        Client::on_github_clock(self, local)
    }

    fn server_clock(&self) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        Client::server_clock(self)
    }
}

impl StaleReader for Client {
    fn open_items(&self, repo: &RepoRef) -> Result<Vec<ListedItem>, ApiError> {
        open_items(self, repo)
    }

    fn item(&self, item: &ItemRef) -> Result<ItemFacts, ApiError> {
        model::item_facts(&issue(self, item)?).map_err(malformed)
    }

    fn events(&self, item: &ItemRef) -> Result<Vec<Event>, ApiError> {
        parse_all(events(self, item)?, model::event)
    }

    fn comments_since(
        &self,
        item: &ItemRef,
        since: DateTime<Utc>,
    ) -> Result<Vec<Comment>, ApiError> {
        let since = since.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        comments_since(self, item, &since)?
            .iter()
            .map(|value| {
                Ok(Comment {
                    activity: model::comment(value).map_err(malformed)?,
                    body: value
                        .get("body")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                })
            })
            .collect()
    }

    fn timeline(&self, item: &ItemRef) -> Result<Vec<Activity>, ApiError> {
        let mut found = Vec::new();
        for entry in timeline(self, item)? {
            found.extend(model::timeline_activity(&entry).map_err(malformed)?);
        }
        Ok(found)
    }

    fn changed_since(
        &self,
        repo: &RepoRef,
        since: DateTime<Utc>,
    ) -> Result<Vec<(u64, DateTime<Utc>)>, ApiError> {
        let since = since.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        changed_since(self, repo, &since)?
            .iter()
            .map(|entry| {
                let number = model::number(entry).ok_or_else(|| {
                    malformed(format!("an entry of the changes of {repo} has no `number`"))
                })?;
                let updated_at = model::timestamp(entry, "updated_at").map_err(malformed)?;
                Ok((number, updated_at))
            })
            .collect()
    }

    /// The PR's head (`GET /pulls/{n}`: `head.ref`, `head.repo`, null once a fork is deleted,
    /// and `base.repo.default_branch`), then, for a branch of this repository, the branch
    /// itself (`GET /branches/{branch}`, "Get a branch": its `protected`; 404 once deleted).
    fn head_branch(&self, item: &ItemRef) -> Result<Option<HeadBranch>, ApiError> {
        let pull = self.get(&pull_path(item))?;
        let name = pull
            .pointer("/head/ref")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed("the PR has no `head.ref`"))?
            .to_string();
        let own = format!("{}/{}", item.repo.owner, item.repo.name);
        let same_repository = pull
            .pointer("/head/repo/full_name")
            .and_then(Value::as_str)
            .is_some_and(|full| full.eq_ignore_ascii_case(&own));
        let default = pull
            .pointer("/base/repo/default_branch")
            .and_then(Value::as_str)
            == Some(name.as_str());
        if !same_repository || default {
            return Ok(Some(HeadBranch {
                name,
                same_repository,
                default,
                protected: false,
            }));
        }
        let path = format!(
            "/repos/{}/{}/branches/{}",
            item.repo.owner,
            item.repo.name,
            branch_path(&name)
        );
        let branch = match self.get(&path) {
            Ok(branch) => branch,
            Err(ApiError::Item {
                status: Some(404), ..
            }) => return Ok(None),
            Err(error) => return Err(error),
        };
        Ok(Some(HeadBranch {
            name,
            same_repository,
            default,
            protected: branch
                .get("protected")
                .and_then(Value::as_bool)
                .unwrap_or(true),
        }))
    }
}

/// A branch name as a URL path: each `/`-separated part percent-encoded, the slashes kept (the
/// REST API takes `feature/x` as `.../branches/feature/x` and `.../git/refs/heads/feature/x`).
fn branch_path(name: &str) -> String {
    name.split('/').map(segment).collect::<Vec<_>>().join("/")
}

impl MergeReader for Client {
    fn search_pulls(&self, query: &str) -> Result<SearchPage, ApiError> {
        search_issues(self, query)
    }

    fn pull(&self, item: &ItemRef) -> Result<PullFacts, ApiError> {
        model::pull_facts(&pull(self, item)?).map_err(malformed)
    }

    /// Nothing to send: the `pull` read that found GitHub computing was this REST read, which
    /// starts the computation ("Get a pull request").
    fn start_mergeability(&self, _item: &ItemRef) -> Result<(), ApiError> {
        Ok(())
    }

    fn pull_files(&self, item: &ItemRef) -> Result<Vec<ChangedFile>, ApiError> {
        parse_all(pull_files(self, item)?, model::changed_file)
    }

    fn reviews(&self, item: &ItemRef) -> Result<Vec<Review>, ApiError> {
        parse_all(pull_reviews(self, item)?, model::review)
    }

    fn check_runs(&self, repo: &RepoRef, sha: &str) -> Result<Vec<CheckRun>, ApiError> {
        parse_all(check_runs(self, repo, sha)?, model::check_run)
    }

    fn check_suites(&self, repo: &RepoRef, sha: &str) -> Result<Vec<CheckSuite>, ApiError> {
        parse_all(check_suites(self, repo, sha)?, model::check_suite)
    }

    fn statuses(&self, repo: &RepoRef, sha: &str) -> Result<Statuses, ApiError> {
        let (first, statuses) = combined_status(self, repo, sha)?;
        model::statuses(&first, &statuses).map_err(malformed)
    }

    fn workflow_runs(&self, repo: &RepoRef, sha: &str) -> Result<Vec<WorkflowRun>, ApiError> {
        parse_all(workflow_runs(self, repo, sha)?, model::workflow_run)
    }

    fn access(&self, repo: &RepoRef, login: &str) -> Result<Access, ApiError> {
        Ok(model::access(&collaborator_permission(self, repo, login)?))
    }

    fn merge_settings(&self, repo: &RepoRef) -> Result<MergeSettings, ApiError> {
        Ok(model::merge_settings(&repository_settings(self, repo)?))
    }

    fn branch_rules(&self, repo: &RepoRef, branch: &str) -> Result<BranchRules, ApiError> {
        Ok(model::branch_rules(
            branch,
            &branch_rules(self, repo, branch)?,
        ))
    }

    fn classic_protection(
        &self,
        repo: &RepoRef,
        branch: &str,
    ) -> Result<ClassicProtection, ApiError> {
        Ok(model::classic_protection(&branch_summary(
            self, repo, branch,
        )?))
    }
}

#[path = "rest_write.rs"]
mod write;

pub(crate) use write::refused_as_locked;

#[cfg(test)]
#[path = "rest_tests.rs"]
mod tests;
