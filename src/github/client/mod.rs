//! The one REST client every request goes through: headers, auth, Link pagination, the failure
//! taxonomy (item vs harness vs auth), bounded read retries, and snapshot record/replay. Writes
//! are sent exactly once, whatever happens. It decides nothing about items, and prints
//! nothing: a request line goes to the log sink its caller gave.
//!
//! Here: the client, its options and its public reads. Beside it, by job: `http` (the read
//! loop and its retries), `limits` (rate limits, GitHub's clock), `cache` (conditional
//! requests), `hosts` (the API host, redirects), `errors` (the failure taxonomy), `graphql`
//! (the GraphQL transport), `write` (writes, sent once) and `transport` (the HTTP library:
//! one request sent, a body read).

mod answer;
mod cache;
mod errors;
mod graphql;
mod hosts;
mod http;
mod limits;
mod links;
mod transport;
mod write;

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::time::Duration;

use secrecy::SecretString;
use serde_json::Value;
use ureq::http::StatusCode;

use super::snapshot::Snapshot;
use errors::kind_of;
use hosts::name_of_body;
use transport::Http;

pub(crate) use cache::token_fingerprint;
pub(crate) use errors::{ApiError, Refusal, WriteError};
pub(crate) use graphql::Posted;
/// The HTTP method of a write.
pub(crate) use ureq::http::Method;
pub(crate) use write::WriteReceipt;

/// The cache port lives below both the client and the store; the client uses it from here.
pub(crate) use crate::http_cache::{Cached, ResponseCache};

/// How reads are retried on harness failures.
#[derive(Clone, Debug)]
pub struct RetryPolicy {
    pub retries: u32,
    pub backoff: Duration,
    /// The longest the client waits for a rate limit to reset before giving up as an outage.
    pub max_wait: Duration,
}

/// Where the client's request lines go (`  GET /path -> 200`), one line at a time without its
/// line end: the caller's choice (the terminal's standard error under `-v`). The token never
/// appears in a line.
pub(crate) type Log = Box<dyn Fn(&str)>;

enum Upstream {
    Live {
        http: Http,
        token: SecretString,
        record: Option<RefCell<Snapshot>>,
    },
    Replay(Snapshot),
}

pub(crate) struct Client {
    base: String,
    mode: Upstream,
    retry: RetryPolicy,
    /// Where request lines go; none, and nothing is said.
    log: Option<Log>,
    requests: Cell<u64>,
    not_modified: Cell<u64>,
    cache: Option<Box<dyn ResponseCache>>,
    /// What GitHub last said of each rate-limit resource: (remaining, reset as a Unix time).
    limits: RefCell<std::collections::BTreeMap<String, (i64, i64)>>,
    /// Search has its own limit (30 a minute): its requests are spaced this far apart.
    search_interval: Duration,
    last_search: Cell<Option<std::time::Instant>>,
    /// When the last GraphQL query was sent, to keep under GitHub's secondary limit for it.
    last_graphql: Cell<Option<std::time::Instant>>,
    /// What the last GraphQL query cost in points (1 before any): the next is not sent when
    /// fewer are left.
    graphql_cost: Cell<i64>,
    /// The whole request's time limit, body included: given to the HTTP agent, and checked
    /// again before each read of a body (a trickling answer once took 88 s under a 5 s
    /// timeout with a client that bounded each read, not the sum).
    timeout: Duration,
    /// How far GitHub's clock is ahead of ours, from the `Date` of its latest answer.
    github_offset: Cell<Option<chrono::Duration>>,
    /// Answers read once per run and kept for the run (a repository's own read serves both
    /// its canonical name and its merge settings), by lower-cased path.
    remembered: RefCell<std::collections::BTreeMap<String, Value>>,
    /// A fingerprint of the token (a hash, never the token), kept with each cached validator:
    /// GitHub's ETags are per token.
    fingerprint: String,
    /// Each issue's and PR's `html_url` seen in an answer.
    links: RefCell<links::Links>,
}

pub(crate) struct LiveOptions {
    pub search_interval: Duration,
    pub base: String,
    pub token: SecretString,
    pub timeout: Duration,
    pub retry: RetryPolicy,
    /// Where request lines go; `None` says nothing.
    pub log: Option<Log>,
    pub record: bool,
}

impl Client {
    pub(crate) fn live(options: LiveOptions) -> anyhow::Result<Self> {
        let http = transport::agent(options.timeout);
        let fingerprint = token_fingerprint(&options.token);
        Ok(Client {
            fingerprint,
            links: RefCell::new(Default::default()),
            base: options.base.trim_end_matches('/').to_string(),
            mode: Upstream::Live {
                http,
                token: options.token,
                record: options
                    .record
                    .then(|| RefCell::new(Snapshot::new(crate::clock::wall()))),
            },
            retry: options.retry,
            log: options.log,
            requests: Cell::new(0),
            not_modified: Cell::new(0),
            cache: None,
            limits: RefCell::new(Default::default()),
            search_interval: options.search_interval,
            last_search: Cell::new(None),
            last_graphql: Cell::new(None),
            graphql_cost: Cell::new(1),
            timeout: options.timeout,
            github_offset: Cell::new(None),
            remembered: RefCell::new(Default::default()),
        })
    }

    pub(crate) fn replay(snapshot: Snapshot) -> Self {
        Client {
            base: String::new(),
            mode: Upstream::Replay(snapshot),
            retry: RetryPolicy {
                retries: 0,
                backoff: Duration::ZERO,
                max_wait: Duration::ZERO,
            },
            log: None,
            requests: Cell::new(0),
            not_modified: Cell::new(0),
            cache: None,
            limits: RefCell::new(Default::default()),
            search_interval: Duration::ZERO,
            last_search: Cell::new(None),
            last_graphql: Cell::new(None),
            graphql_cost: Cell::new(1),
            timeout: Duration::ZERO,
            github_offset: Cell::new(None),
            remembered: RefCell::new(Default::default()),
            fingerprint: String::new(),
            links: RefCell::new(Default::default()),
        }
    }

    /// Keeps an answer for the rest of the run under `path` (matched whatever its case).
    pub(crate) fn remember(&self, path: &str, body: &Value) {
        self.remembered
            .borrow_mut()
            .insert(path.to_ascii_lowercase(), body.clone());
    }

    /// An answer kept by [`Client::remember`], or a fresh read (then kept).
    pub(crate) fn get_remembered(&self, path: &str) -> Result<Value, ApiError> {
        if let Some(body) = self.remembered.borrow().get(&path.to_ascii_lowercase()) {
            return Ok(body.clone());
        }
        let body = self.get(path)?;
        self.remember(path, &body);
        Ok(body)
    }

    /// Makes every read conditional on what `cache` kept from earlier runs.
    pub(crate) fn set_cache(&mut self, cache: Box<dyn ResponseCache>) {
        self.cache = Some(cache);
    }

    /// Requests GitHub answered 304 Not Modified (free of rate limit).
    pub(crate) fn not_modified(&self) -> u64 {
        self.not_modified.get()
    }

    /// Requests sent over the network so far.
    pub(crate) fn requests(&self) -> u64 {
        self.requests.get()
    }

    /// The recorded snapshot, when recording (taken: a second call finds it empty).
    pub(crate) fn take_recording(&self) -> Option<Snapshot> {
        match &self.mode {
            Upstream::Live {
                record: Some(record),
                ..
            } => {
                // Taken, not copied: the recording may hold every answer of a big pool.
                let captured_at = record.borrow().captured_at;
                Some(std::mem::replace(
                    &mut *record.borrow_mut(),
                    Snapshot::new(captured_at),
                ))
            }
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
    pub(crate) fn get_all(&self, path: &str) -> Result<Vec<Value>, ApiError> {
        self.get_all_in(path, None).map(|(items, _)| items)
    }

    /// Reads every page of a list wrapped in an object (`{"total_count": .., field: [..]}`, as
    /// search and check runs answer), with the first page's object minus the list.
    pub(crate) fn get_all_in(
        &self,
        path: &str,
        field: Option<&str>,
    ) -> Result<(Vec<Value>, Value), ApiError> {
        self.get_all_until(path, field, &|_| false)
    }

    /// [`Client::get_all_in`], stopping after the first page when `enough` says so of it.
    pub(crate) fn get_all_until(
        &self,
        path: &str,
        field: Option<&str>,
        enough: &dyn Fn(&Value) -> bool,
    ) -> Result<(Vec<Value>, Value), ApiError> {
        let mut items = Vec::new();
        let first = self.for_each_page(path, field, enough, &mut |page| items.extend(page))?;
        Ok((items, first))
    }

    /// Reads every page of a list and hands each page's entries to `each` as it arrives, so a
    /// caller that keeps only what it needs of an entry never holds the whole list's JSON (a
    /// repository's 100,000 open issues). Returns the first page's object minus the list.
    pub(crate) fn for_each_page(
        &self,
        path: &str,
        field: Option<&str>,
        enough: &dyn Fn(&Value) -> bool,
        each: &mut dyn FnMut(Vec<Value>),
    ) -> Result<Value, ApiError> {
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
                Value::Array(values) => each(values),
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
        Ok(first.unwrap_or(Value::Null))
    }

    /// Reads one resource. A read GitHub redirected to another resource is not the one asked
    /// for (a transferred issue): an item failure naming where it went.
    pub(crate) fn get(&self, path: &str) -> Result<Value, ApiError> {
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
                    links.insert(&name, url);
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

    /// Keeps one issue's or PR's web address (`https://HOST/OWNER/REPO/issues/N` or `/pull/N`),
    /// as another API than REST gave it, for the recap's links.
    pub(crate) fn note_link(&self, url: &str) {
        if let Some(name) = hosts::name_of_html_url(url) {
            self.links.borrow_mut().insert(&name, url);
        }
    }

    /// The `html_url` GitHub gave for `item` (`owner/repo#N`), when an answer carried it.
    pub(crate) fn html_url(&self, item: &str) -> Option<String> {
        self.links.borrow().get(item)
    }

    /// Reads one resource, following GitHub's redirects on the API host, and says where the
    /// answer came from when it was redirected (a renamed repository).
    pub(crate) fn get_following(&self, path: &str) -> Result<(Value, Option<String>), ApiError> {
        let page = self.get_page(path)?;
        Ok((page.body, page.moved.map(|(_, to)| self.key(&to))))
    }

    /// Says one request and its answer's status to the log sink, if there is one.
    fn log(&self, method: &str, url: &str, status: Option<StatusCode>) {
        if let Some(log) = &self.log {
            let status = status.map_or("no answer".to_string(), |status| {
                status.as_u16().to_string()
            });
            log(&format!("  {method} {} -> {status}", self.key(url)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::rc::Rc;

    /// A server on a local port that answers each of `answers` connections with a 404.
    fn not_found_server(answers: usize) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(answers) {
                let mut stream = stream.unwrap();
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request);
                let body = r#"{"message": "Not Found"}"#;
                let answer = format!(
                    "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(answer.as_bytes());
            }
        });
        format!("http://{address}")
    }

    fn client(base: String, log: Option<Log>) -> Client {
        Client::live(LiveOptions {
            search_interval: Duration::ZERO,
            base,
            token: SecretString::from("ghp_never_shown_token".to_string()),
            timeout: Duration::from_secs(5),
            retry: RetryPolicy {
                retries: 0,
                backoff: Duration::ZERO,
                max_wait: Duration::ZERO,
            },
            log,
            record: false,
        })
        .unwrap()
    }

    #[test]
    fn each_request_is_one_line_to_the_log_sink_without_the_token() {
        let lines = Rc::new(RefCell::new(Vec::<String>::new()));
        let sink = Rc::clone(&lines);
        let log: Log = Box::new(move |line: &str| sink.borrow_mut().push(line.to_string()));
        let client = client(not_found_server(2), Some(log));
        assert!(client.get("/repos/o/r/issues/7").is_err());
        assert!(client.get("/repos/o/r").is_err());
        assert_eq!(
            *lines.borrow(),
            [
                "  GET /repos/o/r/issues/7 -> 404",
                "  GET /repos/o/r -> 404"
            ]
        );
        assert!(lines.borrow().iter().all(|line| !line.contains("ghp_")));
    }

    #[test]
    fn without_a_log_sink_a_request_still_counts_and_fails_the_same() {
        let client = client(not_found_server(1), None);
        let error = client.get("/repos/o/r/issues/7").unwrap_err();
        assert_eq!(
            error,
            ApiError::Item {
                status: Some(404),
                message: "GET /repos/o/r/issues/7 answered 404: Not Found".into()
            }
        );
        assert_eq!(client.requests(), 1);
    }
}
