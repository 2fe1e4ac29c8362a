//! The fake GitHub, served on 127.0.0.1:0 by handlers that read and change the world the way
//! GitHub would: Link pagination, 404 for a label that is not there, events on every write.
//! It logs every request and can be told to fail. A route it does not know fails the test.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::Duration;

use chrono::Utc;
use serde_json::{json, Value};

use super::world::{stamp, Comment, Event, WorldState};

#[derive(Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub query: String,
    pub body: String,
    pub status: u16,
    pub authorization: Option<String>,
    /// The conditional-request headers the request carried.
    pub if_none_match: Option<String>,
    pub if_modified_since: Option<String>,
}

/// Every field but the token: a failing test that prints requests must not print it.
impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Request")
            .field("method", &self.method)
            .field("path", &self.path)
            .field("query", &self.query)
            .field("body", &self.body)
            .field("status", &self.status)
            .field(
                "authorization",
                &self.authorization.as_ref().map(|_| "<redacted>"),
            )
            .field("if_none_match", &self.if_none_match)
            .field("if_modified_since", &self.if_modified_since)
            .finish()
    }
}

impl Request {
    pub fn is_write(&self) -> bool {
        self.method != "GET" && !self.is_graphql()
    }

    /// A GraphQL query: a read, though sent by POST.
    pub fn is_graphql(&self) -> bool {
        self.method == "POST" && is_graphql_path(&self.path)
    }

    /// `GET /repos/{owner}/{repo}`: the read that names a repository canonically.
    pub fn is_repository_name_read(&self) -> bool {
        self.method == "GET"
            && self.query.is_empty()
            && matches!(
                self.path
                    .trim_start_matches('/')
                    .split('/')
                    .collect::<Vec<_>>()
                    .as_slice(),
                ["repos", _, _]
            )
    }

    /// `METHOD /path`, the way tests name a request.
    pub fn line(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

/// GraphQL's endpoint: `/graphql` beside api.github.com's REST API, `/api/graphql` on GitHub
/// Enterprise Server.
fn is_graphql_path(path: &str) -> bool {
    path == "/graphql" || path == "/api/graphql"
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
    /// Answer normally, but send the body in 20 pieces with this pause before each: a server
    /// (or a proxy) that trickles its answer.
    Trickle(Duration),
    /// Answer normally, with a `Link: rel="next"` to the same path on another server (this
    /// base URL): a Link that leaves the API host.
    LinkTo(String),
    /// A secondary rate limit as GitHub often sends it: 403 or 429, no `retry-after`, and the
    /// primary limit far from spent.
    SecondaryLimit(u16),
    /// Answer this 3xx status with `Location` set to this URL.
    Redirect { status: u16, location: String },
    /// A maintainer transfers the issue of the request's path to this repository and number
    /// just before the request arrives (between gh-sweep's read and its write).
    Transfer { to_repo: String, to_number: u64 },
    /// Hold the request, unanswered, until the test lets it go, then answer normally: a
    /// request GitHub is still working on, at a point the test chooses (to kill the process
    /// or start another run while it waits).
    Park(Parking),
}

/// Where [`Fault::Park`] holds a request. GitHub works on a REST request for up to 10 seconds
/// before it cuts it off ("Troubleshooting the REST API", Timeouts: docs.github.com/en/rest/
/// using-the-rest-api/troubleshooting-the-rest-api): a parked request stands for one inside that
/// window, stretched for as long as the test needs to act while it is pending. One the test
/// never releases is let go after 20 s (below the client's default 30 s timeout), so no server
/// thread hangs.
#[derive(Clone, Debug, Default)]
pub struct Parking(Arc<(Mutex<ParkingState>, Condvar)>);

#[derive(Debug, Default)]
struct ParkingState {
    parked: u32,
    released: bool,
}

impl Parking {
    /// Waits until a request is parked here (panics after 30 s: the run never got there).
    #[track_caller]
    pub fn wait_parked(&self) {
        let (state, signal) = &*self.0;
        let guard = state.lock().unwrap_or_else(|p| p.into_inner());
        let (guard, timeout) = signal
            .wait_timeout_while(guard, Duration::from_secs(30), |state| state.parked == 0)
            .unwrap_or_else(|p| p.into_inner());
        assert!(
            !timeout.timed_out() || guard.parked > 0,
            "no request was parked within 30 s"
        );
    }

    /// Lets every parked request (and any later one) go on.
    pub fn release(&self) {
        let (state, signal) = &*self.0;
        state.lock().unwrap_or_else(|p| p.into_inner()).released = true;
        signal.notify_all();
    }

    fn hold(&self) {
        let (state, signal) = &*self.0;
        let mut guard = state.lock().unwrap_or_else(|p| p.into_inner());
        guard.parked += 1;
        signal.notify_all();
        let _ = signal
            .wait_timeout_while(guard, Duration::from_secs(20), |state| !state.released)
            .unwrap_or_else(|p| p.into_inner());
    }
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
    /// Run once when the first write arrives, before it is answered: something that happens
    /// to gh-sweep's machine while it waits for GitHub (its disk fills, its database breaks).
    pub on_first_write: Option<Box<dyn FnOnce() + Send>>,
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
            on_first_write: None,
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
    if_modified_since: Option<String>,
    accept: Option<String>,
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
    let mut if_modified_since = None;
    let mut accept = None;
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
            if name == "if-modified-since" {
                if_modified_since = Some(value.trim().to_string());
            }
            if name == "accept" {
                accept = Some(value.trim().to_string());
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path.to_string(), query.to_string()),
        None => (target, String::new()),
    };
    // GitHub Enterprise Server serves the REST API under /api/v3 (REST docs, "About the REST
    // API": `http(s)://HOSTNAME/api/v3`); the fake answers there too.
    let path = path
        .strip_prefix("/api/v3")
        .filter(|rest| rest.starts_with('/'))
        .map(str::to_string)
        .unwrap_or(path);
    Some(Incoming {
        method,
        path: percent_decode(&path),
        query,
        body: String::from_utf8_lossy(&body).to_string(),
        authorization,
        if_none_match,
        if_modified_since,
        accept,
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

pub(super) struct Reply {
    pub(super) status: u16,
    pub(super) body: String,
    pub(super) headers: Vec<(String, String)>,
}

pub(super) fn reply(status: u16, body: Value) -> Reply {
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
    if request.method != "GET" && !is_graphql_path(&request.path) {
        let hook = shared
            .lock()
            .map(|mut guard| guard.on_first_write.take())
            .unwrap_or_default();
        if let Some(hook) = hook {
            hook();
        }
    }
    if let Some(Fault::Park(parking)) = &fault {
        parking.hold();
    }
    let latency = shared.lock().map(|guard| guard.latency).unwrap_or_default();
    if !latency.is_zero() {
        thread::sleep(latency);
    }
    let mut guard = shared.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(Fault::Transfer { to_repo, to_number }) = &fault {
        transfer_from_path(&mut guard.world, &request.path, to_repo, *to_number);
    }
    // "Rate limits for the REST API", "Exceeding the primary rate limit": once the core limit
    // is spent, GitHub answers 403 (or 429) with `x-ratelimit-remaining: 0` and does nothing
    // (recorded with a 403: "API rate limit exceeded for user ID …", ghuser-io/db#2),
    // until `x-ratelimit-reset`. `GET /rate_limit` is free of it; search and GraphQL have
    // budgets of their own.
    let spent = guard.core_limit == Some(0)
        && fault.is_none()
        && request.path != "/rate_limit"
        && !request.path.starts_with("/search/")
        && !is_graphql_path(&request.path);
    let fault = if spent {
        Some(Fault::Refuse(
            403,
            "API rate limit exceeded for user ID 1.".into(),
        ))
    } else {
        fault
    };
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
        Some(Fault::LinkTo(other)) => {
            let mut answer = route(&mut guard, &request, base);
            answer.headers.retain(|(name, _)| name != "link");
            answer.headers.push((
                "link".into(),
                format!(
                    "<{other}{}?{}&page=2>; rel=\"next\"",
                    request.path, request.query
                ),
            ));
            Some(answer)
        }
        // "Rate limits for the REST API", "About secondary rate limits": exceeding one answers
        // "a 403 or 429 response and an error message that indicates that you exceeded a
        // secondary rate limit"; `retry-after` is sent only sometimes, and the primary
        // `x-ratelimit-remaining` need not be 0 (recorded headers in KnpLabs/php-github-api#1072).
        Some(Fault::SecondaryLimit(status)) => {
            let mut answer = error(
                *status,
                "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
            );
            if guard.core_limit.is_none() {
                let reset = (Utc::now() + chrono::Duration::hours(1)).timestamp();
                answer
                    .headers
                    .push(("x-ratelimit-remaining".into(), "4990".into()));
                answer
                    .headers
                    .push(("x-ratelimit-reset".into(), reset.to_string()));
            }
            Some(answer)
        }
        Some(Fault::Redirect { status, location }) => {
            let mut answer = moved(*status, location);
            answer.headers.push(("location".into(), location.clone()));
            Some(answer)
        }
        Some(Fault::ApplyThenDrop)
        | Some(Fault::Slow(_))
        | Some(Fault::Trickle(_))
        | Some(Fault::Transfer { .. })
        | Some(Fault::Park(_))
        | None => {
            let mut answer = route(&mut guard, &request, base);
            // GitHub's conditional requests: an ETag on every successful read, and 304 with
            // no body when the client already holds that version.
            // - The ETag is per token: GitHub support, quoted in eclipse-csi/otterdog#201:
            //   "It's currently expected for ETags to be auth token specific".
            // - It covers the body, not the Link header: a new last page leaves the earlier
            //   pages' ETags alone (app-sre/github-mirror#113).
            // - Single resources also carry `Last-Modified`; list pages often do not
            //   (otterdog#201). If-None-Match, when sent, decides alone (RFC 9110 13.1.3).
            if request.method == "GET" && answer.status == 200 && guard.etags {
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                std::hash::Hash::hash(&answer.body, &mut hasher);
                std::hash::Hash::hash(&request.authorization, &mut hasher);
                let etag = format!("W/\"{:016x}\"", std::hash::Hasher::finish(&hasher));
                let last_modified = last_modified_of(&answer.body);
                let not_modified = match (&request.if_none_match, &request.if_modified_since) {
                    (Some(tag), _) => *tag == etag,
                    (None, Some(since)) => {
                        let since = chrono::DateTime::parse_from_rfc2822(since).ok();
                        match (since, last_modified) {
                            (Some(since), Some(modified)) => modified <= since,
                            _ => false,
                        }
                    }
                    (None, None) => false,
                };
                if not_modified {
                    answer = Reply {
                        status: 304,
                        body: String::new(),
                        headers: Vec::new(),
                    };
                }
                answer.headers.push(("etag".into(), etag));
                if let Some(modified) = last_modified {
                    answer
                        .headers
                        .push(("last-modified".into(), http_date(modified)));
                }
            }
            Some(answer)
        }
    };
    let mut answer = answer;
    if let (Some(left), Some(answer)) = (guard.core_limit.as_mut(), answer.as_mut()) {
        // Search and GraphQL have budgets of their own.
        if !request.path.starts_with("/search/") && !is_graphql_path(&request.path) {
            if answer.status != 304 && request.path != "/rate_limit" {
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
    // GitHub's `Date` header is GitHub's clock.
    let clock_offset = guard.world.github_clock_offset;
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
        if_none_match: request.if_none_match.clone(),
        if_modified_since: request.if_modified_since.clone(),
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
        (Utc::now() + clock_offset).to_rfc2822()
    );
    for (name, value) in &answer.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    if let Some(Fault::Trickle(pause)) = &fault {
        let body = answer.body.as_bytes();
        let piece = body.len().div_ceil(20).max(1);
        for chunk in body.chunks(piece) {
            let _ = stream.flush();
            thread::sleep(*pause);
            if stream.write_all(chunk).is_err() {
                return;
            }
        }
    } else {
        let _ = stream.write_all(answer.body.as_bytes());
    }
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
    paginate_with(&items, request, base, page_size, Value::clone)
}

/// [`paginate`] over any list, building the JSON of the served page's entries alone (a world
/// of 100,000 issues serves each page without building every issue's JSON: the answer is the
/// same, only cheaper to make).
fn paginate_with<T>(
    items: &[T],
    request: &Incoming,
    base: &str,
    page_size: usize,
    json_of: impl Fn(&T) -> Value,
) -> Reply {
    let query = query_map(&request.query);
    let per_page: usize = query
        .get("per_page")
        .and_then(|v| v.parse().ok())
        .unwrap_or(30)
        .min(page_size);
    let page: usize = query.get("page").and_then(|v| v.parse().ok()).unwrap_or(1);
    let pages = items.len().div_ceil(per_page).max(1);
    let slice: Vec<Value> = items
        .iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .map(json_of)
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

/// The status that means "this route is unknown"; `serve` records it and the test fails.
pub(super) const UNKNOWN: u16 = 599;

fn route(shared: &mut Shared, request: &Incoming, base: &str) -> Reply {
    if let Some(answer) = redirect(&shared.world, request, base) {
        return answer;
    }
    let by_id = repository_by_id(&shared.world, request);
    let request = by_id.as_ref().unwrap_or(request);
    if let Some(answer) = route_repository(&shared.world, request) {
        return answer;
    }
    if request.method == "POST" && is_graphql_path(&request.path) {
        let accept = request.accept.as_deref().unwrap_or_default();
        let answer =
            super::graphql::answer(&mut shared.world, shared.page_size, &request.body, accept);
        if answer.status == UNKNOWN {
            shared
                .unknown_routes
                .push(format!("POST {} {}", request.path, request.body));
        }
        return answer;
    }
    if request.method != "GET" {
        shared.world.github_clock_offset += shared.world.write_clock_step;
    }
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
    let now = Utc::now() + world.github_clock_offset;
    let viewer = world.viewer.clone();
    match (method, segments.as_slice()) {
        // An app or installation token, `GITHUB_TOKEN` included, has no user: GitHub answers
        // 403 "Resource not accessible by integration" ("Get the authenticated user",
        // https://docs.github.com/rest/users/users#get-the-authenticated-user; as recorded in
        // e.g. actions/create-github-app-token#258 and mislav/hub#2149).
        ("GET", ["user"]) if world.viewer_app => reply(
            403,
            json!({"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user", "status": "403"}),
        ),
        ("GET", ["user"]) => reply(200, json!({"login": viewer, "type": "User"})),
        // "Get rate limit status for the authenticated user": free of rate limit; like every
        // answer it carries GitHub's `Date` (https://docs.github.com/rest/rate-limit/rate-limit).
        ("GET", ["rate_limit"]) => {
            let core = json!({"limit": 5000, "remaining": 5000, "reset": (now + chrono::Duration::hours(1)).timestamp(), "used": 0});
            reply(200, json!({"resources": {"core": core}, "rate": core}))
        }
        // A locked conversation refuses new comments from anyone who is not a collaborator:
        // 403 "Unable to create comment because issue is locked." (GitHub's "Locking
        // conversations", https://docs.github.com/articles/locking-conversations/; the answer
        // as recorded in probot/stale#25 and renovatebot/renovate#6215). Labels still apply.
        ("POST", ["repos", owner, name, "issues", number, "comments"])
            if locked_for_viewer(world, owner, name, number) =>
        {
            reply(
                403,
                json!({"message": "Unable to create comment because issue is locked.", "documentation_url": "https://docs.github.com/articles/locking-conversations/"}),
            )
        }
        // A comment body past 65,536 characters is refused: 422 with "Body is too long
        // (maximum is 65536 characters)" in its `errors` (a recorded answer in
        // danger/danger#424).
        ("POST", ["repos", _, _, "issues", _, "comments"])
            if serde_json::from_str::<Value>(&request.body)
                .ok()
                .and_then(|body| body["body"].as_str().map(|text| text.chars().count()))
                .is_some_and(|length| length > 65_536) =>
        {
            reply(
                422,
                json!({
                    "message": "Validation Failed",
                    "errors": [{"resource": "IssueComment", "code": "custom", "field": "body", "message": "Body is too long (maximum is 65536 characters)"}],
                    "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
                }),
            )
        }
        ("GET", ["repos", owner, name, "issues", number, "timeline"]) => {
            let repo = format!("{owner}/{name}");
            let Some(index) = number
                .parse()
                .ok()
                .and_then(|number| world.find(&repo, number))
            else {
                return error(404, "Not Found");
            };
            paginate(timeline(&world.issues[index]), request, base, page_size)
        }
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
            // An App's bot is no collaborator: the endpoint answers `none` for it
            // (anomalyco/opencode#43532), and 404 for the Copilot agent, whose login has no
            // `[bot]` (anthropics/claude-code-action#1018).
            let bot = super::world::account(user);
            if bot.bot && !user.ends_with("[bot]") {
                return error(404, "Not Found");
            }
            let role = world
                .roles
                .get(*user)
                .filter(|_| !bot.bot)
                .cloned()
                .or_else(|| bot.bot.then(|| "none".to_string()))
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
                json!({"permission": permission, "role_name": role, "user": super::world::account(user).rest_json()}),
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
            // `since` keeps the items updated at or after it, closed ones too under
            // `state=all`: "Only show results that were last updated after the given time. This
            // is a timestamp in ISO 8601 format: `YYYY-MM-DDTHH:MM:SSZ`" (REST docs, Issues,
            // "List repository issues"); inclusive in the v3 docs' wording ("Only issues updated
            // at or after this time are returned") and in GraphQL's `IssueFilters.since` ("List
            // issues that have been updated at or after the given date", @octokit/graphql-schema).
            // What GitHub answers to a `since` it cannot parse is not documented: unknown here.
            let since = match query.get("since") {
                None => None,
                Some(text) => match chrono::DateTime::parse_from_rfc3339(text) {
                    Ok(since) => Some(since.with_timezone(&Utc)),
                    Err(_) => return error(UNKNOWN, "the fake GitHub does not know this `since`"),
                },
            };
            let mut items: Vec<&super::world::Issue> = world
                .issues
                .iter()
                .filter(|issue| {
                    issue.repo == repo
                        && query
                            .get("state")
                            .is_none_or(|state| state == "all" || *state == issue.state)
                        && since.is_none_or(|since| issue.updated_at >= since)
                })
                .collect();
            items.sort_by_key(|issue| issue.created_at);
            if query.get("direction").map(String::as_str) != Some("asc") {
                items.reverse();
            }
            paginate_with(&items, request, base, page_size, |issue| issue.to_json())
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
                                "actor": super::world::account(&event.actor).rest_json(),
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
                                "user": super::world::account(&comment.user).rest_json(),
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

/// Whether GitHub refuses the token's comment on this item because its conversation is locked.
fn locked_for_viewer(world: &WorldState, owner: &str, name: &str, number: &str) -> bool {
    let repo = format!("{owner}/{name}");
    number
        .parse()
        .ok()
        .and_then(|number| world.find(&repo, number))
        .is_some_and(|index| world.issues[index].locked && !world.viewer_collaborator)
}

/// `GET /repos/{o}/{r}/issues/{n}/timeline`, oldest first, as GitHub's "Issue event types"
/// (https://docs.github.com/rest/using-the-rest-api/issue-event-types) and the OpenAPI
/// description's `timeline-*-event` schemas give them: issue events with `actor` and
/// `created_at`; `commented` with `actor`, `user` and `created_at`; `reviewed` (timeline only)
/// names its author in `user` (no `actor`) and has `submitted_at` (no `created_at`);
/// `committed` carries only git names, emails and dates (no GitHub account at all).
fn timeline(issue: &super::world::Issue) -> Vec<Value> {
    let user = |login: &str| super::world::account(login).rest_json();
    let mut entries: Vec<(chrono::DateTime<Utc>, Value)> = Vec::new();
    for event in &issue.events {
        entries.push((
            event.at,
            json!({
                "event": event.name,
                "actor": super::world::account(&event.actor).rest_json(),
                "created_at": stamp(event.at),
                "label": event.label.as_ref().map(|name| json!({"name": name})),
            }),
        ));
    }
    for comment in &issue.comments {
        entries.push((
            comment.at,
            json!({
                "event": "commented",
                "id": comment.id,
                "actor": super::world::account(&comment.user).rest_json(),
                "user": super::world::account(&comment.user).rest_json(),
                "body": comment.body,
                "created_at": stamp(comment.at),
                "updated_at": stamp(comment.at),
            }),
        ));
    }
    for review in &issue.reviews {
        entries.push((
            review.at,
            json!({
                "event": "reviewed",
                "user": user(&review.user),
                "state": review.state.to_ascii_lowercase(),
                "commit_id": review.commit_id,
                "submitted_at": stamp(review.at),
                "author_association": "NONE",
            }),
        ));
    }
    for (sha, author, at) in &issue.commits {
        let git =
            json!({"name": author, "email": format!("{author}@example.com"), "date": stamp(*at)});
        entries.push((
            *at,
            json!({"event": "committed", "sha": sha, "author": git, "committer": git, "message": "a change"}),
        ));
    }
    entries.sort_by_key(|(at, _)| *at);
    entries.into_iter().map(|(_, value)| value).collect()
}

/// The body GitHub sends with a redirect (recorded answers in gidgethub/gidgethub#214 and
/// 18F/charlie#85: `{"message": "Moved Permanently", "url": LOCATION, ...}`).
fn moved(status: u16, location: &str) -> Reply {
    reply(
        status,
        json!({
            "message": "Moved Permanently",
            "url": location,
            "documentation_url": "https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects",
        }),
    )
}

fn transfer_from_path(world: &mut WorldState, path: &str, to_repo: &str, to_number: u64) {
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
fn redirect(world: &WorldState, request: &Incoming, base: &str) -> Option<Reply> {
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
fn repository_by_id(world: &WorldState, request: &Incoming) -> Option<Incoming> {
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
fn route_repository(world: &WorldState, request: &Incoming) -> Option<Reply> {
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

/// A single resource's `Last-Modified`: its `updated_at`. Lists carry none.
fn last_modified_of(body: &str) -> Option<chrono::DateTime<chrono::FixedOffset>> {
    let value: Value = serde_json::from_str(body).ok()?;
    let updated = value.as_object()?.get("updated_at")?.as_str()?;
    chrono::DateTime::parse_from_rfc3339(updated).ok()
}

/// An HTTP date, as GitHub writes `Last-Modified`: `Tue, 01 Dec 2026 10:00:00 GMT`.
fn http_date(time: chrono::DateTime<chrono::FixedOffset>) -> String {
    time.with_timezone(&Utc)
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string()
}
