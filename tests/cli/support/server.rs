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

/// GraphQL's `search` matches as REST's does.
pub(super) use super::search::search_matches;
use super::world::WorldState;

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
    /// Matching requests answered normally before the fault applies.
    skip: u32,
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
        self.fail_after(method, path_contains, 0, fault, times);
    }

    /// [`Server::fail`] from the matching request after the first `skip` (answered normally):
    /// `fail_after("POST", "/issues/", 3, Fault::Park(..), 1)` parks the fourth POST.
    pub fn fail_after(
        &self,
        method: &str,
        path_contains: &str,
        skip: u32,
        fault: Fault,
        times: u32,
    ) {
        self.lock().faults.push(FaultRule {
            method: method.to_string(),
            path_contains: path_contains.to_string(),
            fault,
            skip,
            remaining: times,
        });
    }
}

pub(super) struct Incoming {
    pub(super) method: String,
    pub(super) path: String,
    pub(super) query: String,
    pub(super) body: String,
    pub(super) authorization: Option<String>,
    pub(super) if_none_match: Option<String>,
    pub(super) if_modified_since: Option<String>,
    pub(super) accept: Option<String>,
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

pub(super) fn error(status: u16, message: &str) -> Reply {
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
        found.and_then(|rule| {
            if rule.skip > 0 {
                rule.skip -= 1;
                return None;
            }
            rule.remaining -= 1;
            Some(rule.fault.clone())
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
        super::repos::transfer_from_path(&mut guard.world, &request.path, to_repo, *to_number);
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
            let mut answer = super::repos::moved(*status, location);
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
    // One answer a connection, `connection: close`, as GitHub's recorded answers to octokit
    // clients carry it (e.g. zattoo/release-version's recorded `getRef`: `connection: 'close'`
    // beside `server: 'GitHub.com'`); a client that pools connections must open one a request.
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

pub(super) fn query_map(query: &str) -> BTreeMap<String, String> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(key, value)| (key.to_string(), percent_decode(value)))
        .collect()
}

/// Serves one page of `items` with GitHub's Link header.
pub(super) fn paginate(
    items: Vec<Value>,
    request: &Incoming,
    base: &str,
    page_size: usize,
) -> Reply {
    paginate_with(&items, request, base, page_size, Value::clone)
}

/// [`paginate`] over any list, building the JSON of the served page's entries alone (a world
/// of 100,000 issues serves each page without building every issue's JSON: the answer is the
/// same, only cheaper to make).
pub(super) fn paginate_with<T>(
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

/// The status that means "this route is unknown"; `serve` records it and the test fails.
pub(super) const UNKNOWN: u16 = 599;

fn route(shared: &mut Shared, request: &Incoming, base: &str) -> Reply {
    if let Some(answer) = super::repos::redirect(&shared.world, request, base) {
        return answer;
    }
    let by_id = super::repos::repository_by_id(&shared.world, request);
    let request = by_id.as_ref().unwrap_or(request);
    if let Some(answer) = super::repos::route_repository(&shared.world, request) {
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
/// What a resource's routes see of a request.
pub(super) struct At<'a> {
    pub(super) world: &'a mut WorldState,
    pub(super) page_size: usize,
    pub(super) request: &'a Incoming,
    pub(super) base: &'a str,
    pub(super) method: &'a str,
    pub(super) segments: &'a [&'a str],
    /// GitHub's clock, which stamps what a write changes.
    pub(super) now: chrono::DateTime<Utc>,
    /// The token's user, who makes every write.
    pub(super) viewer: String,
}

/// A resource's answer when the route is not one of its own: the next resource is asked.
const PASS: u16 = 598;

impl Reply {
    pub(super) fn pass() -> Reply {
        reply(PASS, Value::Null)
    }
}

/// The REST routes, each resource's in its own file.
fn route_world(world: &mut WorldState, page_size: usize, request: &Incoming, base: &str) -> Reply {
    let segments: Vec<&str> = request.path.trim_start_matches('/').split('/').collect();
    let now = Utc::now() + world.github_clock_offset;
    let viewer = world.viewer.clone();
    let routes: [fn(At<'_>) -> Reply; 8] = [
        super::users::route,
        super::rate_limit::route,
        super::issues::route,
        super::search::route,
        super::pulls::route,
        super::checks::route,
        super::branches::route,
        super::collaborators::route,
    ];
    for route in routes {
        let answer = route(At {
            world: &mut *world,
            page_size,
            request,
            base,
            method: request.method.as_str(),
            segments: &segments,
            now,
            viewer: viewer.clone(),
        });
        if answer.status != PASS {
            return answer;
        }
    }
    error(UNKNOWN, "the fake GitHub does not know this route")
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
