//! The one REST client every request goes through: headers, auth, Link pagination, the failure
//! taxonomy (item vs harness vs auth), bounded read retries, and snapshot record/replay. Writes
//! are sent exactly once, whatever happens. It decides nothing about items.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::thread;
use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::blocking::{Client as Http, Response};
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, USER_AGENT};
use reqwest::{Method, StatusCode};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use super::snapshot::{Recorded, Snapshot};

/// How reads are retried on harness failures.
#[derive(Clone, Debug)]
pub struct RetryPolicy {
    pub retries: u32,
    pub backoff: Duration,
    /// The longest the client waits for a rate limit to reset before giving up as an outage.
    pub max_wait: Duration,
}

/// A failed request, classified.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiError {
    /// The item's own data made the read impossible: 404, 410, 422, a malformed body.
    #[error("{message}")]
    Item {
        status: Option<u16>,
        message: String,
    },
    /// 401, or 403 without rate-limit signs.
    #[error("{message}")]
    Auth { status: u16, message: String },
    /// Not the item's fault, and retries ran out: rate limit, 5xx, timeout, connection.
    #[error("{message}")]
    Harness { message: String },
}

/// What a GraphQL read answered: GitHub's JSON, or that GitHub cut the query off at its time
/// limit (the status, 502 or 504) when the caller asked to hear of it rather than retry.
pub enum Posted {
    Answer(Value),
    CutOff(u16),
}

/// A failed write. Never retried.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct WriteError {
    pub status: Option<u16>,
    pub message: String,
    /// True when GitHub may have applied the write (timeout, 5xx, dropped connection).
    pub outcome_unknown: bool,
}

impl WriteError {
    /// GitHub answered the write with a redirect (a transferred issue, a renamed repository).
    /// The redirect was not followed, so nothing was written anywhere: the item's own failure.
    pub fn moved(&self) -> bool {
        !self.outcome_unknown
            && self
                .status
                .is_some_and(|status| (300..400).contains(&status))
    }
}

/// One page of a read.
pub struct Page {
    pub body: Value,
    pub next: Option<String>,
    /// A fresh answer with validators, to keep for the next run's conditional request.
    fresh: Option<Cached>,
    /// Set when GitHub redirected the read elsewhere on the API host: the first redirect's
    /// status and the URL that answered.
    moved: Option<(u16, String)>,
}

/// What a write answered: GitHub's clock when it answered.
pub struct Written {
    pub server_date: Option<DateTime<Utc>>,
}

enum Mode {
    Live {
        http: Http,
        token: SecretString,
        record: Option<RefCell<Snapshot>>,
    },
    Replay(Snapshot),
}

pub struct Client {
    base: String,
    mode: Mode,
    retry: RetryPolicy,
    verbose: bool,
    requests: Cell<u64>,
    not_modified: Cell<u64>,
    cache: Option<Box<dyn ResponseCache>>,
    /// What GitHub last said of each rate-limit resource: (remaining, reset as a Unix time).
    limits: RefCell<std::collections::BTreeMap<String, (i64, i64)>>,
    /// Search has its own limit (30 a minute): its requests are spaced this far apart.
    search_interval: Duration,
    last_search: Cell<Option<std::time::Instant>>,
    /// The whole request's time limit, body included (reqwest's blocking reader bounds each
    /// read, not the sum: a trickling answer once took 88 s under a 5 s timeout).
    timeout: Duration,
    /// How far GitHub's clock is ahead of ours, from the `Date` of its latest answer.
    github_offset: Cell<Option<chrono::Duration>>,
    /// Answers read once per run and kept for the run (a repository's own read serves both
    /// its canonical name and its merge settings), by lower-cased path.
    remembered: RefCell<std::collections::BTreeMap<String, Value>>,
    /// A fingerprint of the token (a hash, never the token), kept with each cached validator:
    /// GitHub's ETags are per token.
    fingerprint: String,
    /// Each issue's and PR's `html_url` seen in an answer, by `owner/repo#N` in lower case.
    links: RefCell<std::collections::BTreeMap<String, String>>,
}

/// The cache port lives below both the client and the store; the client uses it from here.
pub use crate::http_cache::{Cached, ResponseCache};

pub struct LiveOptions {
    pub search_interval: Duration,
    pub base: String,
    pub token: SecretString,
    pub timeout: Duration,
    pub retry: RetryPolicy,
    pub verbose: bool,
    pub record: bool,
}

const API_VERSION: &str = "2022-11-28";

/// The largest answer a read accepts.
const MAX_BODY: u64 = 32 << 20;

/// The least a client waits after a secondary rate limit that names no wait. GitHub, "Rate
/// limits for the REST API": without `retry-after`, and with `x-ratelimit-remaining` not 0,
/// "wait for at least one minute before retrying".
const SECONDARY_LIMIT_WAIT: Duration = Duration::from_secs(60);

/// Redirects one read follows on the API host before giving up.
const MAX_REDIRECTS: u32 = 3;

/// Why a single attempt failed, before retries decide.
enum Attempt {
    Done(Page),
    Final(ApiError),
    Retry {
        message: String,
        wait: Option<Duration>,
    },
    /// A secondary rate limit that names no wait: retried after [`secondary_wait`].
    Throttled {
        message: String,
    },
}

/// How long to wait before retry `attempt` (0 for the first) after a secondary rate limit
/// without `retry-after`: at least a minute, "an exponentially increasing amount of time"
/// while it goes on (GitHub, "Rate limits for the REST API").
fn secondary_wait(attempt: u32) -> Duration {
    SECONDARY_LIMIT_WAIT.saturating_mul(2u32.saturating_pow(attempt))
}

impl Client {
    pub fn live(options: LiveOptions) -> anyhow::Result<Self> {
        let mut headers = HeaderMap::new();
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/vnd.github+json"),
        );
        headers.insert(
            "X-GitHub-Api-Version",
            HeaderValue::from_static(API_VERSION),
        );
        headers.insert(
            USER_AGENT,
            HeaderValue::from_static(concat!("gh-sweep/", env!("CARGO_PKG_VERSION"))),
        );
        let http = Http::builder()
            .default_headers(headers)
            .timeout(options.timeout)
            .connect_timeout(options.timeout.min(Duration::from_secs(10)))
            // Redirects are handled by hand: never followed on a write (a 301'd POST would be
            // replayed as a GET and "succeed"), followed on a read only on the API host.
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        let fingerprint = token_fingerprint(&options.token);
        Ok(Client {
            fingerprint,
            links: RefCell::new(Default::default()),
            base: options.base.trim_end_matches('/').to_string(),
            mode: Mode::Live {
                http,
                token: options.token,
                record: options
                    .record
                    .then(|| RefCell::new(Snapshot::new(crate::clock::wall()))),
            },
            retry: options.retry,
            verbose: options.verbose,
            requests: Cell::new(0),
            not_modified: Cell::new(0),
            cache: None,
            limits: RefCell::new(Default::default()),
            search_interval: options.search_interval,
            last_search: Cell::new(None),
            timeout: options.timeout,
            github_offset: Cell::new(None),
            remembered: RefCell::new(Default::default()),
        })
    }

    pub fn replay(snapshot: Snapshot) -> Self {
        Client {
            base: String::new(),
            mode: Mode::Replay(snapshot),
            retry: RetryPolicy {
                retries: 0,
                backoff: Duration::ZERO,
                max_wait: Duration::ZERO,
            },
            verbose: false,
            requests: Cell::new(0),
            not_modified: Cell::new(0),
            cache: None,
            limits: RefCell::new(Default::default()),
            search_interval: Duration::ZERO,
            last_search: Cell::new(None),
            timeout: Duration::ZERO,
            github_offset: Cell::new(None),
            remembered: RefCell::new(Default::default()),
            fingerprint: String::new(),
            links: RefCell::new(Default::default()),
        }
    }

    /// What is left of a rate-limit resource (`core`, `search`) and when it resets, as GitHub
    /// last said.
    pub fn remaining(&self, resource: &str) -> Option<(i64, DateTime<Utc>)> {
        let (remaining, reset) = *self.limits.borrow().get(resource)?;
        Some((remaining, DateTime::from_timestamp(reset, 0)?))
    }

    /// Keeps an answer for the rest of the run under `path` (matched whatever its case).
    pub fn remember(&self, path: &str, body: &Value) {
        self.remembered
            .borrow_mut()
            .insert(path.to_ascii_lowercase(), body.clone());
    }

    /// An answer kept by [`Client::remember`], or a fresh read (then kept).
    pub fn get_remembered(&self, path: &str) -> Result<Value, ApiError> {
        if let Some(body) = self.remembered.borrow().get(&path.to_ascii_lowercase()) {
            return Ok(body.clone());
        }
        let body = self.get(path)?;
        self.remember(path, &body);
        Ok(body)
    }

    /// A time on our clock, put on GitHub's: shifted by how far GitHub's `Date` said its clock
    /// was from ours, or unchanged before any answer and in a replay. `Date` has whole
    /// seconds and arrives after a round trip, so a difference within the clock slack (15 s)
    /// is noise, not skew, and is not applied.
    pub fn on_github_clock(&self, local: DateTime<Utc>) -> DateTime<Utc> {
        match self.github_offset.get() {
            Some(offset) if offset.abs() > chrono::Duration::seconds(15) => local + offset,
            _ => local,
        }
    }

    fn note_limits(&self, headers: &HeaderMap) {
        if let Some(github) = headers
            .get(reqwest::header::DATE)
            .and_then(|value| value.to_str().ok())
            .and_then(|text| DateTime::parse_from_rfc2822(text).ok())
        {
            self.github_offset
                .set(Some(github.with_timezone(&Utc) - crate::clock::wall()));
        }
        let number = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<i64>().ok();
        if let (Some(remaining), Some(reset)) =
            (number("x-ratelimit-remaining"), number("x-ratelimit-reset"))
        {
            let resource = headers
                .get("x-ratelimit-resource")
                .and_then(|value| value.to_str().ok())
                .unwrap_or("core")
                .to_string();
            self.limits
                .borrow_mut()
                .insert(resource, (remaining, reset));
        }
    }

    /// Refuses a request the rate limit cannot pay for, instead of failing half way; spaces
    /// search requests.
    fn before_request(&self, url: &str) -> Result<(), ApiError> {
        let search = self.key(url).starts_with("/search/");
        let resource = if search {
            "search"
        } else if url == self.graphql_url() {
            "graphql"
        } else {
            "core"
        };
        if let Some((remaining, reset)) = self.remaining(resource) {
            if remaining <= 0 && reset > crate::clock::wall() {
                return Err(ApiError::Harness {
                    message: format!(
                        "GitHub's {resource} rate limit is spent until {} (x-ratelimit-reset); stopping before asking again",
                        reset.to_rfc3339()
                    ),
                });
            }
        }
        if search {
            if let Some(last) = self.last_search.get() {
                let due = last + self.search_interval;
                let now = std::time::Instant::now();
                if due > now {
                    thread::sleep(due - now);
                }
            }
            self.last_search.set(Some(std::time::Instant::now()));
        }
        Ok(())
    }

    /// Makes every read conditional on what `cache` kept from earlier runs.
    pub fn set_cache(&mut self, cache: Box<dyn ResponseCache>) {
        self.cache = Some(cache);
    }

    /// Requests GitHub answered 304 Not Modified (free of rate limit).
    pub fn not_modified(&self) -> u64 {
        self.not_modified.get()
    }

    /// Requests sent over the network so far.
    pub fn requests(&self) -> u64 {
        self.requests.get()
    }

    /// The recorded snapshot, when recording.
    pub fn take_recording(&self) -> Option<Snapshot> {
        match &self.mode {
            Mode::Live {
                record: Some(record),
                ..
            } => Some(record.borrow().clone()),
            _ => None,
        }
    }

    fn url(&self, path: &str) -> String {
        if path.starts_with("http://") || path.starts_with("https://") {
            path.to_string()
        } else {
            format!("{}{}", self.base, path)
        }
    }

    /// The key a response is stored under in a snapshot: the URL without the base.
    fn key(&self, url: &str) -> String {
        url.strip_prefix(&self.base).unwrap_or(url).to_string()
    }

    /// Reads every page of a list, following `Link: rel="next"` verbatim.
    pub fn get_all(&self, path: &str) -> Result<Vec<Value>, ApiError> {
        self.get_all_in(path, None).map(|(items, _)| items)
    }

    /// Reads every page of a list wrapped in an object (`{"total_count": .., field: [..]}`, as
    /// search and check runs answer), with the first page's object minus the list.
    pub fn get_all_in(
        &self,
        path: &str,
        field: Option<&str>,
    ) -> Result<(Vec<Value>, Value), ApiError> {
        self.get_all_until(path, field, &|_| false)
    }

    /// [`Client::get_all_in`], stopping after the first page when `enough` says so of it.
    pub fn get_all_until(
        &self,
        path: &str,
        field: Option<&str>,
        enough: &dyn Fn(&Value) -> bool,
    ) -> Result<(Vec<Value>, Value), ApiError> {
        let mut items = Vec::new();
        let mut first: Option<Value> = None;
        let mut seen = HashSet::new();
        let mut next = Some(path.to_string());
        while let Some(url) = next.map(|next| self.url(&next)) {
            if !seen.insert(url.clone()) {
                return Err(ApiError::Harness {
                    message: format!("pagination loops: the Link header points back to {url}"),
                });
            }
            let page = self.get_page(&url)?;
            if let Some((status, to)) = &page.moved {
                return Err(self.moved_error(&url, *status, to, None));
            }
            self.note_links(&page.body);
            let mut body = page.body;
            let list = match field {
                Some(field) => body.get_mut(field).map(Value::take).unwrap_or(Value::Null),
                None => std::mem::take(&mut body),
            };
            match list {
                Value::Array(values) => items.extend(values),
                other => {
                    let what = field.map_or(String::new(), |field| format!("`{field}` "));
                    return Err(ApiError::Item {
                        status: None,
                        message: format!(
                            "expected a list {what}from {}, got {}",
                            self.key(&url),
                            kind_of(&other)
                        ),
                    });
                }
            }
            let stop = first.is_none() && enough(&body);
            first.get_or_insert(body);
            next = if stop { None } else { page.next };
        }
        Ok((items, first.unwrap_or(Value::Null)))
    }

    /// Reads one resource. A read GitHub redirected to another resource is not the one asked
    /// for (a transferred issue): an item failure naming where it went.
    pub fn get(&self, path: &str) -> Result<Value, ApiError> {
        let page = self.get_page(path)?;
        if let Some((status, to)) = &page.moved {
            return Err(self.moved_error(path, *status, to, Some(&page.body)));
        }
        self.note_links(&page.body);
        Ok(page.body)
    }

    /// Keeps the `html_url` of every issue or PR in an answer (the answer itself, a list's
    /// entries, a search's `items`), for the recap's links.
    fn note_links(&self, body: &Value) {
        let mut links = self.links.borrow_mut();
        let mut keep = |value: &Value| {
            let url = value.get("html_url").and_then(Value::as_str);
            if let (Some(url), Some(_)) = (url, value.get("number")) {
                if let Some(name) = name_of_body(value) {
                    links.insert(name.to_ascii_lowercase(), url.to_string());
                }
            }
        };
        match body {
            Value::Array(entries) => entries.iter().for_each(&mut keep),
            Value::Object(fields) => {
                keep(body);
                for entries in fields.values().filter_map(Value::as_array) {
                    entries.iter().for_each(&mut keep);
                }
            }
            _ => {}
        }
    }

    /// The `html_url` GitHub gave for `item` (`owner/repo#N`), when an answer carried it.
    pub fn html_url(&self, item: &str) -> Option<String> {
        self.links.borrow().get(&item.to_ascii_lowercase()).cloned()
    }

    /// Reads one resource, following GitHub's redirects on the API host, and says where the
    /// answer came from when it was redirected (a renamed repository).
    pub fn get_following(&self, path: &str) -> Result<(Value, Option<String>), ApiError> {
        let page = self.get_page(path)?;
        Ok((page.body, page.moved.map(|(_, to)| self.key(&to))))
    }

    /// The scheme, host and port of a URL: where the token may go.
    fn origin(url: &str) -> Option<(String, String, Option<u16>)> {
        let url = reqwest::Url::parse(url).ok()?;
        Some((
            url.scheme().to_string(),
            url.host_str()?.to_ascii_lowercase(),
            url.port_or_known_default(),
        ))
    }

    /// Whether `url` is on the API base's host, the only place the token is sent.
    fn on_api_host(&self, url: &str) -> bool {
        match (Self::origin(url), Self::origin(&self.base)) {
            (Some(url), Some(base)) => url == base,
            _ => false,
        }
    }

    fn off_host_error(&self, url: &str, what: &str) -> ApiError {
        let host = reqwest::Url::parse(url)
            .ok()
            .and_then(|url| url.host_str().map(str::to_string))
            .unwrap_or_else(|| url.to_string());
        let api = reqwest::Url::parse(&self.base)
            .ok()
            .and_then(|url| url.host_str().map(str::to_string))
            .unwrap_or_default();
        ApiError::Item {
            status: None,
            message: format!(
                "{what} points to another host ({host}) than the API's ({api}); not requested, so the token stays with {api}"
            ),
        }
    }

    /// The item failure for a read GitHub redirected to another resource.
    fn moved_error(&self, path: &str, status: u16, to: &str, body: Option<&Value>) -> ApiError {
        let name = body
            .and_then(name_of_body)
            .unwrap_or_else(|| self.name_location(to));
        ApiError::Item {
            status: Some(status),
            message: format!(
                "GET {} answered {status}: moved to {name}; not the item asked for",
                self.key(&self.url(path))
            ),
        }
    }

    /// Names what a redirect points at, as `owner/repo#N` or `owner/repo` where it can, asking
    /// GitHub once (on the API host) when the address holds only a repository id.
    fn name_location(&self, url: &str) -> String {
        let key = self.key(url);
        let path = key.split('?').next().unwrap_or_default();
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        match segments.as_slice() {
            ["repos", owner, name, "issues" | "pulls", number, ..] => {
                format!("{owner}/{name}#{number}")
            }
            ["repos", owner, name, ..] => format!("{owner}/{name}"),
            ["repositories", id, "issues" | "pulls", number, ..] => self
                .peek(&format!("/repositories/{id}/issues/{number}"))
                .as_ref()
                .and_then(name_of_body)
                .unwrap_or(key),
            ["repositories", id, ..] => self
                .peek(&format!("/repositories/{id}"))
                .as_ref()
                .and_then(name_of_body)
                .unwrap_or(key),
            _ => key,
        }
    }

    /// One plain GET on the API host, no retries, no cache, no redirects: for naming things.
    fn peek(&self, path: &str) -> Option<Value> {
        let Mode::Live { http, token, .. } = &self.mode else {
            return None;
        };
        let url = self.url(path);
        if !self.on_api_host(&url) {
            return None;
        }
        self.requests.set(self.requests.get() + 1);
        let response = http
            .get(&url)
            .header(AUTHORIZATION, bearer(token))
            .send()
            .ok()?;
        self.log("GET", &url, Some(response.status()));
        self.note_limits(response.headers());
        if !response.status().is_success() {
            return None;
        }
        response.json().ok()
    }

    /// Where a read's redirect points, when the client may follow it there.
    fn redirect_target(
        &self,
        from: &str,
        key: &str,
        response: &Response,
    ) -> Result<String, ApiError> {
        let status = response.status().as_u16();
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|value| value.to_str().ok())
            .ok_or_else(|| ApiError::Item {
                status: Some(status),
                message: format!("GET {key} answered {status} without a Location"),
            })?;
        let next = reqwest::Url::parse(from)
            .and_then(|from| from.join(location))
            .map_err(|_| ApiError::Item {
                status: Some(status),
                message: format!("GET {key} answered {status} with a Location that is no URL"),
            })?
            .to_string();
        if !self.on_api_host(&next) {
            return Err(self.off_host_error(
                &next,
                &format!("GET {key} answered {status}, whose Location"),
            ));
        }
        Ok(next)
    }

    fn get_page(&self, path: &str) -> Result<Page, ApiError> {
        let url = self.url(path);
        let key = self.key(&url);
        let (http, token, record) = match &self.mode {
            Mode::Replay(snapshot) => return replay(snapshot, &key),
            Mode::Live {
                http,
                token,
                record,
            } => (http, token, record),
        };
        if !self.on_api_host(&url) {
            return Err(self.off_host_error(&url, &format!("the next page's URL {url}")));
        }
        // A cached page that held per_page items and no next page may have one now, under
        // the same ETag (the Link header is not part of it): ask it in full.
        let mut cached = self
            .cache
            .as_ref()
            .and_then(|cache| cache.lookup(&url))
            .filter(|cached| cached.next.is_some() || !full_page(&cached.body, &url));
        let mut attempt = 0;
        // Where the read is asked now: the URL, or where GitHub redirected it on the API host.
        let mut target = url.clone();
        let mut first_redirect: Option<u16> = None;
        let mut hops = 0;
        loop {
            self.before_request(&target)?;
            self.requests.set(self.requests.get() + 1);
            let mut request = http.get(&target).header(AUTHORIZATION, bearer(token));
            if let Some(cached) = &cached {
                // An ETag is valid only for the token it was given to; under another token
                // it can only miss, so the date alone asks "changed since?".
                let same_token = cached.token.as_deref() == Some(self.fingerprint.as_str());
                if let Some(etag) = cached.etag.as_ref().filter(|_| same_token) {
                    request = request.header(reqwest::header::IF_NONE_MATCH, etag);
                }
                if let Some(modified) = &cached.last_modified {
                    request = request.header(reqwest::header::IF_MODIFIED_SINCE, modified);
                }
            }
            let deadline = std::time::Instant::now() + self.timeout;
            let result = request.send();
            if let Ok(response) = &result {
                self.note_limits(response.headers());
            }
            let outcome = match result {
                Ok(response)
                    if response.status() == StatusCode::NOT_MODIFIED && cached.is_some() =>
                {
                    self.log("GET", &url, Some(StatusCode::NOT_MODIFIED));
                    self.not_modified.set(self.not_modified.get() + 1);
                    let cached = cached
                        .clone()
                        .unwrap_or_else(|| unreachable!("checked above"));
                    self.renew_validators(&url, &cached, response.headers());
                    match serde_json::from_str(&cached.body) {
                        Ok(body) => {
                            if let Some(record) = record {
                                let next = cached.next.as_deref().map(|next| self.key(next));
                                record.borrow_mut().insert(
                                    &key,
                                    Recorded {
                                        status: 200,
                                        body: serde_json::from_str(&cached.body)
                                            .unwrap_or(Value::Null),
                                        next,
                                    },
                                );
                            }
                            Attempt::Done(Page {
                                body,
                                next: cached.next.clone(),
                                fresh: None,
                                moved: None,
                            })
                        }
                        Err(_) => Attempt::Retry {
                            message: format!("the cached answer for GET {key} is damaged"),
                            wait: None,
                        },
                    }
                }
                Ok(response)
                    if response.status().is_redirection()
                        && response.status() != StatusCode::NOT_MODIFIED =>
                {
                    self.log("GET", &target, Some(response.status()));
                    match self.redirect_target(&target, &key, &response) {
                        Ok(_) if hops >= MAX_REDIRECTS => Attempt::Final(ApiError::Item {
                            status: Some(response.status().as_u16()),
                            message: format!(
                                "GET {key} redirected more than {MAX_REDIRECTS} times"
                            ),
                        }),
                        Ok(next) => {
                            hops += 1;
                            first_redirect.get_or_insert(response.status().as_u16());
                            target = next;
                            // The validators were for the old address.
                            cached = None;
                            continue;
                        }
                        Err(error) => Attempt::Final(error),
                    }
                }
                Ok(response) => {
                    let status = response.status();
                    self.log("GET", &target, Some(status));
                    let body = Deadline {
                        inner: response,
                        deadline,
                    };
                    read_attempt(
                        body,
                        status,
                        &target,
                        &self.base,
                        record.as_ref(),
                        &key,
                        "GET",
                    )
                }
                Err(error) => {
                    self.log("GET", &url, None);
                    Attempt::Retry {
                        message: describe_transport(&error, &url),
                        wait: None,
                    }
                }
            };
            let (message, wait) = match outcome {
                Attempt::Done(mut page) => {
                    let moved = first_redirect
                        .filter(|_| !self.key(&target).eq_ignore_ascii_case(&key))
                        .map(|status| (status, target.clone()));
                    if moved.is_some() {
                        page.moved = moved;
                    } else if let (Some(cache), Some(fresh)) = (&self.cache, &page.fresh) {
                        let fresh = Cached {
                            token: Some(self.fingerprint.clone()),
                            ..fresh.clone()
                        };
                        cache.keep(&url, &fresh);
                    }
                    return Ok(page);
                }
                Attempt::Final(error) => return Err(error),
                Attempt::Retry { message, wait } => (message, wait),
                Attempt::Throttled { message } => (message, Some(secondary_wait(attempt))),
            };
            thread::sleep(self.retry_wait(attempt, message, wait)?);
            attempt += 1;
        }
    }

    /// How long to wait before retrying a read that failed on its try `attempt` (0 for the
    /// first), or the harness failure when the retries are spent or GitHub asks for a longer
    /// wait than the run may make.
    pub(super) fn retry_wait(
        &self,
        attempt: u32,
        message: String,
        wait: Option<Duration>,
    ) -> Result<Duration, ApiError> {
        if attempt >= self.retry.retries {
            let tries = attempt + 1;
            return Err(ApiError::Harness {
                message: format!("{message} (gave up after {tries} tries)"),
            });
        }
        if let Some(asked) = wait.filter(|asked| *asked > self.retry.max_wait) {
            return Err(ApiError::Harness {
                message: format!(
                    "{message}; GitHub asks to wait {}s, more than the {}s this run may wait (max_retry_wait_seconds)",
                    asked.as_secs(),
                    self.retry.max_wait.as_secs()
                ),
            });
        }
        let backoff = self.retry.backoff * 2u32.saturating_pow(attempt);
        Ok(wait.unwrap_or_default().max(backoff))
    }

    /// After a 304 to a request under another token than the cached validators', keeps the
    /// ETag GitHub gave this token, so its next read asks by ETag again.
    fn renew_validators(&self, url: &str, cached: &Cached, headers: &HeaderMap) {
        if cached.token.as_deref() == Some(self.fingerprint.as_str()) {
            return;
        }
        let Some(cache) = &self.cache else { return };
        let etag = headers
            .get(reqwest::header::ETAG)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string);
        if etag.is_some() {
            cache.keep(
                url,
                &Cached {
                    etag,
                    token: Some(self.fingerprint.clone()),
                    ..cached.clone()
                },
            );
        }
    }

    /// Where GitHub's GraphQL API is: `{api}/graphql` beside api.github.com's REST API, and
    /// `http(s)://HOSTNAME/api/graphql` on GitHub Enterprise Server, whose REST API is under
    /// `/api/v3` (GitHub docs, "Forming calls with GraphQL", The GraphQL endpoint).
    pub fn graphql_url(&self) -> String {
        match self.base.strip_suffix("/api/v3") {
            Some(host) => format!("{host}/api/graphql"),
            None => format!("{}/graphql", self.base),
        }
    }

    /// Sends one GraphQL read (`body` holds the query and its variables) and answers GitHub's
    /// JSON, `data` and `errors` both: GitHub answers a query's own errors with HTTP 200, and
    /// the caller classifies them. A read like any other: retried on a harness failure, paced
    /// by the rate limit, recorded in a snapshot under `POST /graphql {key}` and replayed from it.
    /// `accept` is the media type asked for (a preview's, for preview fields). With
    /// `cut_off_is_final`, a 502 or 504 (GitHub cuts off a query that runs past its 10 seconds,
    /// "Rate limits and node limits for the GraphQL API", Timeouts) is not retried but answered
    /// as [`Posted::CutOff`], for the caller to ask a smaller page.
    pub fn post_graphql(
        &self,
        key: &str,
        body: &Value,
        accept: &str,
        cut_off_is_final: bool,
    ) -> Result<Posted, ApiError> {
        let key = format!("/graphql {key}");
        let (http, token, record) = match &self.mode {
            Mode::Replay(snapshot) => {
                return match snapshot.get_posted(&key) {
                    Some(recorded) => Ok(Posted::Answer(recorded.body.clone())),
                    None => Err(ApiError::Harness {
                        message: format!("the snapshot holds no answer for POST {key}"),
                    }),
                }
            }
            Mode::Live {
                http,
                token,
                record,
            } => (http, token, record),
        };
        let url = self.graphql_url();
        let mut attempt = 0;
        loop {
            self.before_request(&url)?;
            self.requests.set(self.requests.get() + 1);
            let deadline = std::time::Instant::now() + self.timeout;
            let result = http
                .post(&url)
                .header(AUTHORIZATION, bearer(token))
                .header(ACCEPT, accept)
                .json(body)
                .send();
            let outcome = match result {
                Ok(response)
                    if cut_off_is_final && matches!(response.status().as_u16(), 502 | 504) =>
                {
                    self.log("POST", &url, Some(response.status()));
                    self.note_limits(response.headers());
                    return Ok(Posted::CutOff(response.status().as_u16()));
                }
                Ok(response) => {
                    let status = response.status();
                    self.log("POST", &url, Some(status));
                    self.note_limits(response.headers());
                    let body = Deadline {
                        inner: response,
                        deadline,
                    };
                    read_attempt(body, status, &url, &self.base, None, &key, "POST")
                }
                Err(error) => {
                    self.log("POST", &url, None);
                    Attempt::Retry {
                        message: describe_transport(&error, &url),
                        wait: None,
                    }
                }
            };
            let (message, wait) = match outcome {
                Attempt::Done(page) => {
                    if let Some(record) = record {
                        record.borrow_mut().insert_posted(
                            &key,
                            Recorded {
                                status: 200,
                                body: page.body.clone(),
                                next: None,
                            },
                        );
                    }
                    return Ok(Posted::Answer(page.body));
                }
                Attempt::Final(error) => return Err(error),
                Attempt::Retry { message, wait } => (message, wait),
                Attempt::Throttled { message } => (message, Some(secondary_wait(attempt))),
            };
            thread::sleep(self.retry_wait(attempt, message, wait)?);
            attempt += 1;
        }
    }

    /// Keeps what a GraphQL answer's `rateLimit` said of the `graphql` resource.
    pub fn note_graphql_limit(&self, remaining: i64, reset: DateTime<Utc>) {
        self.limits
            .borrow_mut()
            .insert("graphql".to_string(), (remaining, reset.timestamp()));
    }

    /// Sends one write, once. The caller journals the intent before and the outcome after.
    pub fn write(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Written, WriteError> {
        let url = self.url(path);
        let (http, token) = match &self.mode {
            Mode::Replay(_) => {
                return Err(WriteError {
                    status: None,
                    message: "a snapshot run never writes".into(),
                    outcome_unknown: false,
                })
            }
            Mode::Live { http, token, .. } => (http, token),
        };
        self.requests.set(self.requests.get() + 1);
        let mut request = http
            .request(method.clone(), &url)
            .header(AUTHORIZATION, bearer(token));
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = match request.send() {
            Ok(response) => response,
            Err(error) => {
                self.log(method.as_str(), &url, None);
                return Err(WriteError {
                    status: None,
                    message: format!(
                        "{}; the write may or may not have been applied",
                        describe_transport(&error, &url)
                    ),
                    outcome_unknown: true,
                });
            }
        };
        let status = response.status();
        self.log(method.as_str(), &url, Some(status));
        self.note_limits(response.headers());
        self.note_limits(response.headers());
        if status.is_redirection() {
            return Err(self.moved_write(&method, &url, &response));
        }
        let server_date = response
            .headers()
            .get(reqwest::header::DATE)
            .and_then(|value| value.to_str().ok())
            .and_then(|text| DateTime::parse_from_rfc2822(text).ok())
            .map(|date| date.with_timezone(&Utc));
        let text = match response.text() {
            Ok(text) => text,
            Err(error) => {
                return Err(WriteError {
                    status: Some(status.as_u16()),
                    message: format!(
                        "{method} {} answered {status} but the body was lost: {error}",
                        self.key(&url)
                    ),
                    outcome_unknown: true,
                })
            }
        };
        if status.is_success() {
            return Ok(Written { server_date });
        }
        Err(WriteError {
            status: Some(status.as_u16()),
            message: format!(
                "{method} {} answered {status}{}",
                self.key(&url),
                github_message(&text)
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default()
            ),
            outcome_unknown: status.is_server_error(),
        })
    }

    /// A write GitHub answered with a redirect: not followed, so not written anywhere.
    fn moved_write(&self, method: &Method, url: &str, response: &Response) -> WriteError {
        let status = response.status();
        let target = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|location| reqwest::Url::parse(url).ok()?.join(location).ok())
            .map(|target| target.to_string());
        let name = match &target {
            Some(target) if self.on_api_host(target) => self.name_location(target),
            Some(target) => target.clone(),
            None => "an address GitHub did not give".to_string(),
        };
        WriteError {
            status: Some(status.as_u16()),
            message: format!(
                "{method} {} answered {status}: moved to {name}; not sent there",
                self.key(url)
            ),
            outcome_unknown: false,
        }
    }

    fn log(&self, method: &str, url: &str, status: Option<StatusCode>) {
        if self.verbose {
            let status = status.map_or("no answer".to_string(), |status| {
                status.as_u16().to_string()
            });
            eprintln!("  {method} {} -> {status}", self.key(url));
        }
    }
}

/// A fingerprint of a token for the HTTP cache: the first 16 hex digits of a SHA-256 of it.
/// It tells two tokens apart; it cannot give the token back.
pub fn token_fingerprint(token: &SecretString) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, token.expose_secret().as_bytes());
    digest.as_ref()[..8]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Whether a cached answer is a list page that held as many items as its URL's `per_page`
/// (GitHub's default is 30): a full page.
fn full_page(body: &str, url: &str) -> bool {
    let per_page = reqwest::Url::parse(url)
        .ok()
        .and_then(|url| {
            url.query_pairs()
                .find(|(key, _)| key == "per_page")
                .and_then(|(_, value)| value.parse::<usize>().ok())
        })
        .unwrap_or(30);
    let listed = match serde_json::from_str::<Value>(body) {
        Ok(Value::Array(items)) => items.len(),
        // Wrapped lists (search `items`, `check_runs`, `statuses`): the longest list in it.
        Ok(Value::Object(fields)) => fields
            .values()
            .filter_map(Value::as_array)
            .map(Vec::len)
            .max()
            .unwrap_or(0),
        _ => 0,
    };
    listed >= per_page
}

fn bearer(token: &SecretString) -> HeaderValue {
    let mut value = HeaderValue::from_str(&format!("Bearer {}", token.expose_secret()))
        .unwrap_or_else(|_| HeaderValue::from_static("Bearer invalid"));
    value.set_sensitive(true);
    value
}

/// `owner/repo#N` from an issue or PR body's `html_url`, or `owner/repo` from a repository's
/// `full_name`.
fn name_of_body(body: &Value) -> Option<String> {
    if let Some(html) = body.get("html_url").and_then(Value::as_str) {
        let url = reqwest::Url::parse(html).ok()?;
        let segments: Vec<&str> = url.path_segments()?.collect();
        if let [owner, name, "issues" | "pull", number] = segments.as_slice() {
            return Some(format!("{owner}/{name}#{number}"));
        }
    }
    body.get("full_name")
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn describe_transport(error: &reqwest::Error, url: &str) -> String {
    let what = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else {
        "connection failed"
    };
    // reqwest's own text names the URL, never a header, so the token cannot appear in it.
    let mut source = std::error::Error::source(error);
    let mut cause = String::new();
    while let Some(inner) = source {
        cause = inner.to_string();
        source = inner.source();
    }
    if cause.is_empty() {
        format!("GET {url} {what}")
    } else {
        format!("request to {url} {what}: {cause}")
    }
}

/// GitHub's `message`, with the reasons of a 422's `errors[].message` after it (REST docs,
/// "Client errors": a validation failure says what was wrong in `errors`).
fn github_message(text: &str) -> Option<String> {
    let body = serde_json::from_str::<Value>(text).ok()?;
    let message = body.get("message")?.as_str()?.to_string();
    let reasons: Vec<&str> = body
        .get("errors")
        .and_then(Value::as_array)
        .map(|errors| {
            errors
                .iter()
                .filter_map(|error| error.get("message").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    if reasons.is_empty() {
        Some(message)
    } else {
        Some(format!("{message}: {}", reasons.join("; ")))
    }
}

fn next_link(headers: &HeaderMap) -> Option<String> {
    let link = headers.get(reqwest::header::LINK)?.to_str().ok()?;
    link.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        let is_next = params
            .split(';')
            .any(|param| param.trim().replace(' ', "") == "rel=\"next\"");
        let url = url.trim().strip_prefix('<')?.strip_suffix('>')?;
        is_next.then(|| url.to_string())
    })
}

/// Seconds GitHub asks us to wait, from `retry-after` or `x-ratelimit-reset`.
fn rate_limit_wait(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .and_then(|text| text.trim().parse::<i64>().ok())
    };
    if let Some(seconds) = number("retry-after") {
        return Some(Duration::from_secs(seconds.max(0) as u64));
    }
    if number("x-ratelimit-remaining") == Some(0) {
        let reset = number("x-ratelimit-reset")?;
        let wait = reset - crate::clock::wall().timestamp();
        return Some(Duration::from_secs(wait.max(0) as u64));
    }
    None
}

/// A response body read against the request's deadline: past it, the next read fails as a
/// timeout however steadily the bytes trickle in.
struct Deadline {
    inner: Response,
    deadline: std::time::Instant,
}

impl std::io::Read for Deadline {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if std::time::Instant::now() > self.deadline {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the answer took longer than timeout_seconds",
            ));
        }
        self.inner.read(buf)
    }
}

fn read_attempt(
    response: Deadline,
    status: StatusCode,
    url: &str,
    base: &str,
    record: Option<&RefCell<Snapshot>>,
    key: &str,
    method: &str,
) -> Attempt {
    let headers = response.inner.headers().clone();
    let next = next_link(&headers);
    // A page of 100 items is well under a megabyte; anything past the cap is not an answer
    // to read into memory, whatever the server says.
    let mut bytes = Vec::new();
    if let Err(error) =
        std::io::Read::read_to_end(&mut std::io::Read::take(response, MAX_BODY + 1), &mut bytes)
    {
        return Attempt::Retry {
            message: format!("{method} {url} answered {status} but the body was cut off: {error}"),
            wait: None,
        };
    }
    if bytes.len() as u64 > MAX_BODY {
        return Attempt::Final(ApiError::Item {
            status: Some(status.as_u16()),
            message: format!(
                "{method} {key} answered more than {} MiB; not read",
                MAX_BODY >> 20
            ),
        });
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let github_says = github_message(&text)
        .map(|m| format!(": {m}"))
        .unwrap_or_default();
    if status.is_success() {
        let body: Value = match serde_json::from_str(&text) {
            Ok(body) => body,
            Err(error) => {
                return Attempt::Final(ApiError::Item {
                    status: Some(status.as_u16()),
                    message: format!("{method} {key} answered a malformed body: {error}"),
                })
            }
        };
        if let Some(record) = record {
            let next_key = next
                .as_deref()
                .map(|next| next.strip_prefix(base).unwrap_or(next).to_string());
            record.borrow_mut().insert(
                key,
                Recorded {
                    status: status.as_u16(),
                    body: body.clone(),
                    next: next_key,
                },
            );
        }
        let header = |name: reqwest::header::HeaderName| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let etag = header(reqwest::header::ETAG);
        let last_modified = header(reqwest::header::LAST_MODIFIED);
        let fresh = (etag.is_some() || last_modified.is_some()).then(|| Cached {
            etag,
            last_modified,
            body: text.clone(),
            next: next.clone(),
            token: None,
        });
        return Attempt::Done(Page {
            body,
            next,
            fresh,
            moved: None,
        });
    }
    let code = status.as_u16();
    let wait = rate_limit_wait(&headers);
    let rate_limited = wait.is_some() || text.to_ascii_lowercase().contains("rate limit");
    match code {
        401 => Attempt::Final(ApiError::Auth {
            status: code,
            message: format!("GitHub refused the token (401) for {method} {key}{github_says}"),
        }),
        403 | 429 if rate_limited => match wait {
            Some(wait) => Attempt::Retry {
                message: format!("rate limited ({code}) on {method} {key}{github_says}"),
                wait: Some(wait),
            },
            None => Attempt::Throttled {
                message: format!("rate limited ({code}) on {method} {key}{github_says}"),
            },
        },
        403 => Attempt::Final(ApiError::Auth {
            status: code,
            message: format!("permission denied (403) for {method} {key}{github_says}"),
        }),
        429 => Attempt::Throttled {
            message: format!("too many requests (429) on {method} {key}"),
        },
        500..=599 => Attempt::Retry {
            message: format!("GitHub answered {code} on {method} {key}"),
            wait: None,
        },
        _ => {
            if let Some(record) = record {
                record.borrow_mut().insert(
                    key,
                    Recorded {
                        status: code,
                        body: serde_json::from_str(&text).unwrap_or(Value::Null),
                        next: None,
                    },
                );
            }
            Attempt::Final(ApiError::Item {
                status: Some(code),
                message: format!("{method} {key} answered {code}{github_says}"),
            })
        }
    }
}

fn replay(snapshot: &Snapshot, key: &str) -> Result<Page, ApiError> {
    let Some(recorded) = snapshot.get(key) else {
        return Err(ApiError::Item {
            status: None,
            message: format!("the snapshot holds no answer for GET {key}"),
        });
    };
    if (200..300).contains(&recorded.status) {
        return Ok(Page {
            body: recorded.body.clone(),
            next: recorded.next.clone(),
            fresh: None,
            moved: None,
        });
    }
    Err(ApiError::Item {
        status: Some(recorded.status),
        message: format!("GET {key} answered {} (from the snapshot)", recorded.status),
    })
}

/// GitHub's clock, for the few places where a local stamp (the journal's) meets GitHub's.
impl Client {
    /// GitHub's `Date` on one answer to `GET /rate_limit`, which GitHub does not count against
    /// the rate limit ("Get rate limit status for the authenticated user"), with our clock at
    /// the same moment; `None` when it cannot be had (a snapshot, no answer, no `Date`). Never
    /// retried: the caller falls back on its clock slack alone.
    pub fn server_clock(&self) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        let Mode::Live { http, token, .. } = &self.mode else {
            return None;
        };
        let url = self.url("/rate_limit");
        self.requests.set(self.requests.get() + 1);
        let response = match http.get(&url).header(AUTHORIZATION, bearer(token)).send() {
            Ok(response) => response,
            Err(_) => {
                self.log("GET", &url, None);
                return None;
            }
        };
        let local = crate::clock::wall();
        self.log("GET", &url, Some(response.status()));
        self.note_limits(response.headers());
        if !response.status().is_success() {
            return None;
        }
        let github = response
            .headers()
            .get(reqwest::header::DATE)
            .and_then(|value| value.to_str().ok())
            .and_then(|text| DateTime::parse_from_rfc2822(text).ok())?
            .with_timezone(&Utc);
        Some((github, local))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_next_link_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(
            reqwest::header::LINK,
            HeaderValue::from_static(
                "<https://x/y?page=1>; rel=\"prev\", <https://x/y?page=3>; rel=\"next\", <https://x/y?page=9>; rel=\"last\"",
            ),
        );
        assert_eq!(next_link(&headers).as_deref(), Some("https://x/y?page=3"));
        assert_eq!(next_link(&HeaderMap::new()), None);
    }

    #[test]
    fn a_secondary_limit_waits_a_minute_then_longer_each_time() {
        assert_eq!(secondary_wait(0), Duration::from_secs(60));
        assert_eq!(secondary_wait(1), Duration::from_secs(120));
        assert_eq!(secondary_wait(2), Duration::from_secs(240));
    }

    #[test]
    fn names_what_a_redirect_or_a_body_points_at() {
        let issue =
            serde_json::json!({"number": 7, "html_url": "https://github.com/o/other/issues/7"});
        assert_eq!(name_of_body(&issue).as_deref(), Some("o/other#7"));
        let pull =
            serde_json::json!({"number": 3, "html_url": "https://ghe.example.com/o/r/pull/3"});
        assert_eq!(name_of_body(&pull).as_deref(), Some("o/r#3"));
        let repo = serde_json::json!({"full_name": "o/renamed", "html_url": "https://github.com/o/renamed"});
        assert_eq!(name_of_body(&repo).as_deref(), Some("o/renamed"));
    }

    #[test]
    fn the_api_host_is_scheme_host_and_port() {
        let origin = |url| Client::origin(url);
        assert_eq!(
            origin("https://api.github.com/repos/o/r"),
            origin("https://API.github.com:443/x")
        );
        assert_ne!(
            origin("http://127.0.0.1:8080/x"),
            origin("http://127.0.0.1:8081/x")
        );
        assert_ne!(
            origin("https://api.github.com/x"),
            origin("https://api.github.com.evil.example/x")
        );
        assert_ne!(
            origin("https://api.github.com/x"),
            origin("http://api.github.com/x")
        );
    }

    #[test]
    fn a_token_fingerprint_tells_tokens_apart_and_hides_them() {
        let one = token_fingerprint(&SecretString::from("ghp_one_token_value".to_string()));
        let two = token_fingerprint(&SecretString::from("ghp_two_token_value".to_string()));
        assert_ne!(one, two);
        assert_eq!(one.len(), 16);
        assert!(!one.contains("ghp") && !one.contains("one"));
    }

    #[test]
    fn a_full_page_is_as_long_as_per_page() {
        let hundred = serde_json::to_string(&vec![1; 100]).unwrap();
        assert!(full_page(
            &hundred,
            "https://x/repos/o/r/issues?per_page=100"
        ));
        assert!(!full_page(
            "[1, 2]",
            "https://x/repos/o/r/issues?per_page=100"
        ));
        let thirty = serde_json::to_string(&vec![1; 30]).unwrap();
        assert!(full_page(&thirty, "https://x/repos/o/r/issues"));
        let wrapped = format!("{{\"total_count\": 120, \"items\": {hundred}}}");
        assert!(full_page(&wrapped, "https://x/search/issues?per_page=100"));
    }

    #[test]
    fn reads_retry_after_and_exhausted_limits() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("7"));
        assert_eq!(rate_limit_wait(&headers), Some(Duration::from_secs(7)));
        let mut headers = HeaderMap::new();
        headers.insert("x-ratelimit-remaining", HeaderValue::from_static("10"));
        assert_eq!(rate_limit_wait(&headers), None);
    }
}
