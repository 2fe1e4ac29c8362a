//! The fake GitHub, served on 127.0.0.1:0 by handlers that read and change the world the way
//! GitHub would: Link pagination, 404 for a label that is not there, events on every write.
//! It logs every request and can be told to fail. A route it does not know fails the test.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::Duration;

use chrono::Utc;
use serde_json::{json, Value};

use super::world::{stamp, Comment, Event, WorldState};

#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub query: String,
    pub body: String,
    pub status: u16,
    pub authorization: Option<String>,
}

impl Request {
    pub fn is_write(&self) -> bool {
        self.method != "GET"
    }

    /// `METHOD /path`, the way tests name a request.
    pub fn line(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

/// What a fault does to a matching request.
#[derive(Clone, Debug)]
pub enum Fault {
    /// Answer with this status and a GitHub-shaped error body.
    Status(u16),
    /// Answer with this status and GitHub's own message for it.
    Refuse(u16, String),
    /// 403 (a secondary limit) or 429 with `retry-after` and an exhausted rate limit.
    RateLimit { status: u16, retry_after: u64 },
    /// Close the connection without answering.
    Drop,
    /// Apply the write, then close the connection without answering.
    ApplyThenDrop,
    /// Answer 200 with this body.
    Body(String),
    /// Wait this long, then answer normally.
    Slow(Duration),
    /// Answer normally, with a `Link: rel="next"` pointing back at the same page.
    LinkLoop,
}

#[derive(Clone, Debug)]
struct FaultRule {
    method: String,
    path_contains: String,
    fault: Fault,
    remaining: u32,
}

pub struct Shared {
    pub world: WorldState,
    pub log: Vec<Request>,
    faults: Vec<FaultRule>,
    pub unknown_routes: Vec<String>,
    pub page_size: usize,
    /// Whether reads carry ETags and honour If-None-Match.
    pub etags: bool,
    /// When set, the core rate limit left: sent as `x-ratelimit-*` headers and spent by every
    /// answer but a 304.
    pub core_limit: Option<i64>,
    /// A round trip's simulated latency (the benchmark's), added before every answer.
    pub latency: Duration,
}

pub struct Server {
    pub shared: Arc<Mutex<Shared>>,
    pub base: String,
}

impl Server {
    pub fn start(world: WorldState) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let base = format!("http://{}", listener.local_addr().unwrap());
        let shared = Arc::new(Mutex::new(Shared {
            world,
            log: Vec::new(),
            faults: Vec::new(),
            unknown_routes: Vec::new(),
            page_size: 100,
            etags: true,
            core_limit: None,
            latency: Duration::ZERO,
        }));
        let for_thread = Arc::clone(&shared);
        let base_for_thread = base.clone();
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let shared = Arc::clone(&for_thread);
                let base = base_for_thread.clone();
                thread::spawn(move || serve(stream, &shared, &base));
            }
        });
        Server { shared, base }
    }

    pub fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn fail(&self, method: &str, path_contains: &str, fault: Fault, times: u32) {
        self.lock().faults.push(FaultRule {
            method: method.to_string(),
            path_contains: path_contains.to_string(),
            fault,
            remaining: times,
        });
    }
}

struct Incoming {
    method: String,
    path: String,
    query: String,
    body: String,
    authorization: Option<String>,
    if_none_match: Option<String>,
}

fn read_request(stream: &TcpStream) -> Option<Incoming> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut length = 0;
    let mut authorization = None;
    let mut if_none_match = None;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let name = name.trim().to_ascii_lowercase();
            if name == "content-length" {
                length = value.trim().parse().unwrap_or(0);
            }
            if name == "authorization" {
                authorization = Some(value.trim().to_string());
            }
            if name == "if-none-match" {
                if_none_match = Some(value.trim().to_string());
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path.to_string(), query.to_string()),
        None => (target, String::new()),
    };
    Some(Incoming {
        method,
        path: percent_decode(&path),
        query,
        body: String::from_utf8_lossy(&body).to_string(),
        authorization,
        if_none_match,
    })
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' && index + 2 < bytes.len() {
            if let Ok(byte) = u8::from_str_radix(&text[index + 1..index + 3], 16) {
                out.push(byte);
                index += 3;
                continue;
            }
        }
        out.push(bytes[index]);
        index += 1;
    }
    String::from_utf8_lossy(&out).to_string()
}

struct Reply {
    status: u16,
    body: String,
    headers: Vec<(String, String)>,
}

fn reply(status: u16, body: Value) -> Reply {
    Reply {
        status,
        body: body.to_string(),
        headers: Vec::new(),
    }
}

fn error(status: u16, message: &str) -> Reply {
    reply(
        status,
        json!({"message": message, "documentation_url": "https://docs.github.com/rest"}),
    )
}

fn serve(mut stream: TcpStream, shared: &Arc<Mutex<Shared>>, base: &str) {
    let Some(request) = read_request(&stream) else {
        return;
    };
    let fault = {
        let mut guard = shared.lock().unwrap_or_else(|p| p.into_inner());
        let found = guard.faults.iter_mut().find(|rule| {
            rule.remaining > 0
                && rule.method == request.method
                && format!("{}?{}", request.path, request.query).contains(&rule.path_contains)
        });
        found.map(|rule| {
            rule.remaining -= 1;
            rule.fault.clone()
        })
    };
    if let Some(Fault::Slow(delay)) = &fault {
        thread::sleep(*delay);
    }
    let latency = shared.lock().map(|guard| guard.latency).unwrap_or_default();
    if !latency.is_zero() {
        thread::sleep(latency);
    }
    let mut guard = shared.lock().unwrap_or_else(|p| p.into_inner());
    let answer = match &fault {
        Some(Fault::Status(status)) => Some(error(*status, "injected failure")),
        Some(Fault::Refuse(status, message)) => Some(error(*status, message)),
        Some(Fault::RateLimit {
            status,
            retry_after,
        }) => {
            let mut answer = error(*status, "You have exceeded a secondary rate limit.");
            answer
                .headers
                .push(("retry-after".into(), retry_after.to_string()));
            answer
                .headers
                .push(("x-ratelimit-remaining".into(), "0".into()));
            Some(answer)
        }
        Some(Fault::Body(body)) => Some(Reply {
            status: 200,
            body: body.clone(),
            headers: Vec::new(),
        }),
        Some(Fault::Drop) => None,
        Some(Fault::LinkLoop) => {
            let mut answer = route(&mut guard, &request, base);
            answer.headers.retain(|(name, _)| name != "link");
            let query = if request.query.is_empty() {
                String::new()
            } else {
                format!("?{}", request.query)
            };
            answer.headers.push((
                "link".into(),
                format!("<{base}{}{query}>; rel=\"next\"", request.path),
            ));
            Some(answer)
        }
        Some(Fault::ApplyThenDrop) | Some(Fault::Slow(_)) | None => {
            let mut answer = route(&mut guard, &request, base);
            // GitHub's conditional requests: an ETag on every successful read, and 304 with
            // no body when the client already holds that version.
            if request.method == "GET" && answer.status == 200 && guard.etags {
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                std::hash::Hash::hash(&answer.body, &mut hasher);
                std::hash::Hash::hash(&answer.headers, &mut hasher);
                let etag = format!("W/\"{:016x}\"", std::hash::Hasher::finish(&hasher));
                if request.if_none_match.as_deref() == Some(etag.as_str()) {
                    answer = Reply {
                        status: 304,
                        body: String::new(),
                        headers: Vec::new(),
                    };
                }
                answer.headers.push(("etag".into(), etag));
            }
            Some(answer)
        }
    };
    let mut answer = answer;
    if let (Some(left), Some(answer)) = (guard.core_limit.as_mut(), answer.as_mut()) {
        if !request.path.starts_with("/search/") {
            if answer.status != 304 {
                *left = (*left - 1).max(0);
            }
            let reset = (Utc::now() + chrono::Duration::hours(1)).timestamp();
            answer
                .headers
                .push(("x-ratelimit-remaining".into(), left.to_string()));
            answer
                .headers
                .push(("x-ratelimit-reset".into(), reset.to_string()));
            answer
                .headers
                .push(("x-ratelimit-resource".into(), "core".into()));
        }
    }
    let dropped = matches!(fault, Some(Fault::Drop) | Some(Fault::ApplyThenDrop));
    guard.log.push(Request {
        method: request.method.clone(),
        path: request.path.clone(),
        query: request.query.clone(),
        body: request.body.clone(),
        status: if dropped {
            0
        } else {
            answer.as_ref().map_or(0, |answer| answer.status)
        },
        authorization: request.authorization.clone(),
    });
    drop(guard);
    let Some(answer) = answer.filter(|_| !dropped) else {
        let _ = stream.shutdown(std::net::Shutdown::Both);
        return;
    };
    let reason = match answer.status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        304 => "Not Modified",
        404 => "Not Found",
        _ => "Status",
    };
    let mut head = format!(
        "HTTP/1.1 {} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\ndate: {}\r\n",
        answer.status,
        answer.body.len(),
        Utc::now().to_rfc2822()
    );
    for (name, value) in &answer.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(answer.body.as_bytes());
    let _ = stream.flush();
}

fn query_map(query: &str) -> BTreeMap<String, String> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(key, value)| (key.to_string(), percent_decode(value)))
        .collect()
}

/// Serves one page of `items` with GitHub's Link header.
fn paginate(items: Vec<Value>, request: &Incoming, base: &str, page_size: usize) -> Reply {
    let query = query_map(&request.query);
    let per_page: usize = query
        .get("per_page")
        .and_then(|v| v.parse().ok())
        .unwrap_or(30)
        .min(page_size);
    let page: usize = query.get("page").and_then(|v| v.parse().ok()).unwrap_or(1);
    let pages = items.len().div_ceil(per_page).max(1);
    let slice: Vec<Value> = items
        .into_iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .collect();
    let mut answer = reply(200, Value::Array(slice));
    let link_to = |page: usize| {
        let mut query = query_map(&request.query);
        query.insert("page".into(), page.to_string());
        let query: Vec<String> = query.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{base}{}?{}", request.path, query.join("&"))
    };
    let mut links = Vec::new();
    if page < pages {
        links.push(format!("<{}>; rel=\"next\"", link_to(page + 1)));
        links.push(format!("<{}>; rel=\"last\"", link_to(pages)));
    }
    if page > 1 {
        links.push(format!("<{}>; rel=\"prev\"", link_to(page - 1)));
    }
    if !links.is_empty() {
        answer.headers.push(("link".into(), links.join(", ")));
    }
    answer
}

/// GitHub's search over the world's issues and PRs: `is:pr`, `is:open`, `draft:false`,
/// `archived:false`, `repo:`, `org:` and `created:A..B`, oldest first, at most 1,000 results.
fn search(world: &WorldState, request: &Incoming, base: &str, page_size: usize) -> Reply {
    let query = query_map(&request.query);
    let q = query
        .get("q")
        .cloned()
        .unwrap_or_default()
        .replace('+', " ");
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
            ("repo", repo) => issue.repo == repo,
            ("org", org) => issue.repo.starts_with(&format!("{org}/")),
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
    answer.body =
        json!({"total_count": total, "incomplete_results": false, "items": items}).to_string();
    answer
}

/// The status that means "this route is unknown"; `serve` records it and the test fails.
const UNKNOWN: u16 = 599;

fn route(shared: &mut Shared, request: &Incoming, base: &str) -> Reply {
    let answer = route_world(&mut shared.world, shared.page_size, request, base);
    if answer.status == UNKNOWN {
        shared.unknown_routes.push(format!(
            "{} {}?{}",
            request.method, request.path, request.query
        ));
    }
    answer
}

fn route_world(world: &mut WorldState, page_size: usize, request: &Incoming, base: &str) -> Reply {
    let segments: Vec<&str> = request.path.trim_start_matches('/').split('/').collect();
    let method = request.method.as_str();
    let now = Utc::now();
    let viewer = world.viewer.clone();
    match (method, segments.as_slice()) {
        ("GET", ["user"]) => reply(200, json!({"login": viewer, "type": "User"})),
        ("GET", ["search", "issues"]) => search(world, request, base, page_size),
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
                actor_type: "User".into(),
                at: now,
            });
            reply(
                200,
                json!({"sha": format!("merge-of-{}", issue.head_sha), "merged": true, "message": "Pull Request successfully merged"}),
            )
        }
        ("GET", ["repos", owner, name, "pulls", number, rest @ ..]) => {
            let repo = format!("{owner}/{name}");
            let Some(index) = number
                .parse()
                .ok()
                .and_then(|number| world.find(&repo, number))
            else {
                return error(404, "Not Found");
            };
            let issue = &world.issues[index];
            if !issue.is_pr {
                return error(404, "Not Found");
            }
            match rest {
                [] => reply(200, issue.pull_json()),
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
                                "user": {"login": review.user, "type": "User"},
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
        ("GET", ["repos", owner, name]) => {
            let repo = format!("{owner}/{name}");
            if !world.repos.contains(&repo) {
                return error(404, "Not Found");
            }
            let settings = world.settings.get(&repo).cloned().unwrap_or_default();
            let mut value = json!({
                "id": 4242,
                "name": name,
                "full_name": repo,
                "owner": {"login": owner},
                "private": false,
                "default_branch": "main",
            });
            for (key, allowed) in [
                ("allow_merge_commit", settings.allow_merge_commit),
                ("allow_squash_merge", settings.allow_squash_merge),
                ("allow_rebase_merge", settings.allow_rebase_merge),
            ] {
                if let Some(allowed) = allowed {
                    value[key] = json!(allowed);
                }
            }
            reply(200, value)
        }
        ("GET", ["repos", owner, name, "rules", "branches", branch @ ..]) => {
            let key = format!("{owner}/{name}:{}", branch.join("/"));
            let rules = world.branch_rules.get(&key).cloned().unwrap_or_default();
            paginate(rules, request, base, page_size)
        }
        ("GET", ["repos", owner, name, "collaborators", user, "permission"]) => {
            let repo = format!("{owner}/{name}");
            if !world.repos.contains(&repo) {
                return error(404, "Not Found");
            }
            if world.permissions_forbidden {
                return error(
                    403,
                    "Must have push access to view collaborator permission.",
                );
            }
            let role = world
                .roles
                .get(*user)
                .cloned()
                .unwrap_or_else(|| "read".into());
            // `permission` is the base role: maintain reads as write, triage as read.
            let permission = match role.as_str() {
                "admin" => "admin",
                "maintain" | "write" => "write",
                "none" => "none",
                _ => "read",
            };
            reply(
                200,
                json!({"permission": permission, "role_name": role, "user": {"login": user, "type": "User"}}),
            )
        }
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
        ("GET", ["repos", owner, name, "issues"]) => {
            let repo = format!("{owner}/{name}");
            if !world.repos.contains(&repo) {
                return error(404, "Not Found");
            }
            let query = query_map(&request.query);
            let mut items: Vec<&super::world::Issue> = world
                .issues
                .iter()
                .filter(|issue| {
                    issue.repo == repo
                        && query
                            .get("state")
                            .is_none_or(|state| state == "all" || *state == issue.state)
                })
                .collect();
            items.sort_by_key(|issue| issue.created_at);
            if query.get("direction").map(String::as_str) != Some("asc") {
                items.reverse();
            }
            let values = items.iter().map(|issue| issue.to_json()).collect();
            paginate(values, request, base, page_size)
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
                ("GET", []) => reply(200, issue.to_json()),
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
                            actor_type: "User".into(),
                            at: now,
                        });
                    }
                    issue.updated_at = now;
                    reply(200, issue.to_json())
                }
                ("GET", ["events"]) => {
                    let values = issue
                        .events
                        .iter()
                        .map(|event| {
                            json!({
                                "event": event.name,
                                "actor": {"login": event.actor, "type": event.actor_type},
                                "created_at": stamp(event.at),
                                "label": event.label.as_ref().map(|name| json!({"name": name})),
                            })
                        })
                        .collect();
                    paginate(values, request, base, page_size)
                }
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
                                "user": {"login": comment.user, "type": comment.user_type},
                                "body": comment.body,
                                "created_at": stamp(comment.at),
                                "updated_at": stamp(comment.at),
                            })
                        })
                        .collect();
                    paginate(values, request, base, page_size)
                }
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
                        user_type: "User".into(),
                        body: text.clone(),
                        at: now,
                    });
                    issue.updated_at = now;
                    reply(
                        201,
                        json!({"id": id, "body": text, "created_at": stamp(now)}),
                    )
                }
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
                                actor_type: "User".into(),
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
                        actor_type: "User".into(),
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
        _ => error(UNKNOWN, "the fake GitHub does not know this route"),
    }
}
