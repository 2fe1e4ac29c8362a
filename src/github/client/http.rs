//! The read loop: one GET asked until it is answered (conditional on the cache, following
//! redirects on the API host, retried on harness failures with backoff and GitHub's waits),
//! one attempt's answer read against the deadline and the body cap, `Link` pagination, and a
//! snapshot's replay of a read.

use std::cell::RefCell;
use std::thread;
use std::time::{Duration, Instant};

use ureq::http::header::LINK;
use ureq::http::{HeaderMap, Method, StatusCode};

use super::answer::{classify_failure, Asked, AttemptOutcome, Body, Page, Read};
use super::cache::fresh_validators;
use super::errors::ApiError;
use super::limits::secondary_wait;
use super::transport::{self, describe_transport, read_capped, Response, MAX_BODY};
use super::{Client, Upstream};
use crate::github::snapshot::{Recorded, Snapshot};

/// Redirects one read follows on the API host before giving up.
const MAX_REDIRECTS: u32 = 3;

impl Client {
    /// One page of a read, asked until it is answered or the retries are spent.
    pub(super) fn get_page(&self, path: &str) -> Result<Page, ApiError> {
        let url = self.url(path);
        let key = self.key(&url);
        let (http, token, record) = match &self.mode {
            Upstream::Replay(snapshot) => return replay(snapshot, &key),
            Upstream::Live {
                http,
                token,
                record,
            } => (http, token, record.as_ref()),
        };
        if !self.on_api_host(&url) {
            return Err(self.off_host_error(&url, &format!("the next page's URL {url}")));
        }
        let mut read = Read {
            cached: self.cached_for(&url),
            target: url.clone(),
            url,
            key,
            first_redirect: None,
            hops: 0,
        };
        let mut attempt = 0;
        loop {
            self.before_request(&read.target)?;
            self.requests.set(self.requests.get() + 1);
            let conditional = self.conditional(read.cached.as_ref());
            let deadline = Instant::now() + self.timeout;
            let sent = transport::send(http, Method::GET, &read.target, token, &conditional, None);
            let outcome = match sent {
                Ok(response) => {
                    self.note_limits(response.headers());
                    match self.answer(&mut read, response, deadline, record) {
                        Some(outcome) => outcome,
                        None => continue,
                    }
                }
                Err(error) => {
                    self.log("GET", &read.url, None);
                    AttemptOutcome::Retry {
                        message: describe_transport(&error, &read.url),
                        wait: None,
                    }
                }
            };
            let (message, wait) = match outcome {
                AttemptOutcome::Done(page) => return Ok(self.finish_read(&read, page)),
                AttemptOutcome::Final(error) => return Err(error),
                AttemptOutcome::Retry { message, wait } => (message, wait),
                AttemptOutcome::Throttled { message } => (message, Some(secondary_wait(attempt))),
            };
            thread::sleep(self.retry_wait(attempt, message, wait)?);
            attempt += 1;
        }
    }

    /// What one answer to a read means: a 304 served from the cache, a redirect (`None` when
    /// it is followed, to ask again at once), or an answer read and classified.
    fn answer(
        &self,
        read: &mut Read,
        response: Response,
        deadline: Instant,
        record: Option<&RefCell<Snapshot>>,
    ) -> Option<AttemptOutcome> {
        let status = response.status();
        if status == StatusCode::NOT_MODIFIED {
            if let Some(cached) = &read.cached {
                return Some(self.answer_from_cache(read, cached, response.headers(), record));
            }
        }
        if status.is_redirection() && status != StatusCode::NOT_MODIFIED {
            return self.follow_redirect(read, &response);
        }
        self.log("GET", &read.target, Some(status));
        let asked = Asked {
            method: "GET",
            url: &read.target,
            key: &read.key,
            base: &self.base,
            record,
        };
        Some(read_attempt(response, deadline, &asked))
    }

    /// Follows a redirect on the API host (`None`: ask the new target), or the item failure
    /// when it leads elsewhere, nowhere, or too far.
    fn follow_redirect(&self, read: &mut Read, response: &Response) -> Option<AttemptOutcome> {
        let status = response.status();
        self.log("GET", &read.target, Some(status));
        match self.redirect_target(&read.target, &read.key, status, response.headers()) {
            Ok(_) if read.hops >= MAX_REDIRECTS => Some(AttemptOutcome::Final(ApiError::Item {
                status: Some(status.as_u16()),
                message: format!(
                    "GET {} redirected more than {MAX_REDIRECTS} times",
                    read.key
                ),
            })),
            Ok(next) => {
                read.hops += 1;
                read.first_redirect.get_or_insert(status.as_u16());
                read.target = next;
                // The validators were for the old address.
                read.cached = None;
                None
            }
            Err(error) => Some(AttemptOutcome::Final(error)),
        }
    }

    /// A page as answered: marked moved when a redirect led to another resource, else its
    /// fresh validators kept.
    fn finish_read(&self, read: &Read, mut page: Page) -> Page {
        let moved = read
            .first_redirect
            .filter(|_| !self.key(&read.target).eq_ignore_ascii_case(&read.key))
            .map(|status| (status, read.target.clone()));
        if moved.is_some() {
            page.moved = moved;
        } else {
            self.keep_fresh(&read.url, &page);
        }
        page
    }

    /// How long to wait before retrying a read that failed on its try `attempt` (0 for the
    /// first), or the harness failure when the retries are spent or GitHub asks for a longer
    /// wait than the run may make.
    pub(in crate::github) fn retry_wait(
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
}

/// One attempt's answer, read and classified: a page, or why not. A body cut off is retried;
/// one past the cap is not an answer to read.
pub(super) fn read_attempt<B: Body>(
    response: Response,
    deadline: Instant,
    asked: &Asked,
) -> AttemptOutcome<B> {
    let Asked {
        method, url, key, ..
    } = *asked;
    let status = response.status();
    let (parts, body) = response.into_parts();
    let headers = parts.headers;
    let bytes = match read_capped(body, deadline) {
        Ok(bytes) => bytes,
        Err(error) => {
            return AttemptOutcome::Retry {
                message: format!(
                    "{method} {url} answered {status} but the body was cut off: {error}"
                ),
                wait: None,
            }
        }
    };
    if bytes.len() as u64 > MAX_BODY {
        return AttemptOutcome::Final(ApiError::Item {
            status: Some(status.as_u16()),
            message: format!(
                "{method} {key} answered more than {} MiB; not read",
                MAX_BODY >> 20
            ),
        });
    }
    // The body's own bytes when they are UTF-8 (as JSON is), not a lossy copy of them.
    let text = String::from_utf8(bytes)
        .unwrap_or_else(|invalid| String::from_utf8_lossy(invalid.as_bytes()).into_owned());
    if status.is_success() {
        return read_success(text, status, &headers, asked);
    }
    classify_failure(status, &headers, &text, asked)
}

/// A successful answer: its JSON (a malformed body is the item's failure), recorded in a
/// snapshot when recording, with its next page and validators.
fn read_success<B: Body>(
    text: String,
    status: StatusCode,
    headers: &HeaderMap,
    asked: &Asked,
) -> AttemptOutcome<B> {
    let Asked {
        method,
        key,
        base,
        record,
        ..
    } = *asked;
    let next = next_link(headers);
    // What is kept of the text is taken before it is parsed (a GraphQL answer's text becomes
    // its body), and kept only once it parsed.
    let recorded = record.map(|record| {
        let next_key = next
            .as_deref()
            .map(|next| next.strip_prefix(base).unwrap_or(next).to_string());
        (record, Recorded::new(status.as_u16(), &text, next_key))
    });
    let fresh = fresh_validators(headers, &text, next.as_ref());
    let body = match B::parse(text) {
        Ok(body) => body,
        Err(error) => {
            return AttemptOutcome::Final(ApiError::Item {
                status: Some(status.as_u16()),
                message: format!("{method} {key} answered a malformed body: {error}"),
            })
        }
    };
    if let Some((record, recorded)) = recorded {
        record.borrow_mut().insert(key, recorded);
    }
    AttemptOutcome::Done(Page {
        body,
        next,
        fresh,
        moved: None,
    })
}

/// The `rel="next"` URL of a `Link` header.
fn next_link(headers: &HeaderMap) -> Option<String> {
    let link = headers.get(LINK)?.to_str().ok()?;
    link.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        let is_next = params
            .split(';')
            .any(|param| param.trim().replace(' ', "") == "rel=\"next\"");
        let url = url.trim().strip_prefix('<')?.strip_suffix('>')?;
        is_next.then(|| url.to_string())
    })
}

/// A read answered from a snapshot, as it was recorded.
fn replay(snapshot: &Snapshot, key: &str) -> Result<Page, ApiError> {
    let Some(recorded) = snapshot.get(key) else {
        return Err(ApiError::Item {
            status: None,
            message: format!("the snapshot holds no answer for GET {key}"),
        });
    };
    if (200..300).contains(&recorded.status) {
        return Ok(Page {
            body: recorded.body(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use ureq::http::HeaderValue;

    #[test]
    fn finds_the_next_link_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(
            LINK,
            HeaderValue::from_static(
                "<https://x/y?page=1>; rel=\"prev\", <https://x/y?page=3>; rel=\"next\", <https://x/y?page=9>; rel=\"last\"",
            ),
        );
        assert_eq!(next_link(&headers).as_deref(), Some("https://x/y?page=3"));
        assert_eq!(next_link(&HeaderMap::new()), None);
    }
}
