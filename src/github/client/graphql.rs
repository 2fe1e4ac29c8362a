//! The GraphQL transport: where GitHub's GraphQL API is, and one query sent as a read like any
//! other (paced by the rate limit, retried on harness failures, recorded in a snapshot and
//! replayed from it), or answered as cut off when the caller asks a smaller page instead.

use std::cell::RefCell;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use ureq::http::Method;

use super::answer::{Asked, AttemptOutcome, Text};
use super::errors::ApiError;
use super::http::read_attempt;
use super::limits::{rate_limit_wait, secondary_wait};
use super::transport::{self, describe_transport};
use super::{Client, Upstream};
use crate::github::snapshot::{Recorded, Snapshot};

/// What a GraphQL read answered: GitHub's text (the document that asked reads it, once, into
/// its own shape, and a text that is not JSON fails there), or that GitHub cut the query off
/// at its time limit (GitHub answers 502 or 504) when the caller asked to hear of it rather
/// than retry.
pub(crate) enum Posted {
    Answer(Text),
    CutOff,
}

impl Client {
    /// Where GitHub's GraphQL API is: `{api}/graphql` beside api.github.com's REST API, and
    /// `http(s)://HOSTNAME/api/graphql` on GitHub Enterprise Server, whose REST API is under
    /// `/api/v3` (GitHub docs, "Forming calls with GraphQL", The GraphQL endpoint).
    pub(crate) fn graphql_url(&self) -> String {
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
    pub(crate) fn post_graphql(
        &self,
        key: &str,
        body: &Value,
        accept: &str,
        cut_off_is_final: bool,
    ) -> Result<Posted, ApiError> {
        let key = format!("/graphql {key}");
        let (http, token, record) = match &self.mode {
            Upstream::Replay(snapshot) => return replayed(snapshot, &key),
            Upstream::Live {
                http,
                token,
                record,
            } => (http, token, record.as_ref()),
        };
        let url = self.graphql_url();
        let asked = Asked {
            method: "POST",
            url: &url,
            key: &key,
            base: &self.base,
            record: None,
        };
        let mut attempt = 0;
        loop {
            self.before_request(&url)?;
            self.requests.set(self.requests.get() + 1);
            let deadline = Instant::now() + self.timeout;
            let accept = [("accept", accept.to_string())];
            let result = transport::send(http, Method::POST, &url, token, &accept, Some(body));
            let outcome = match result {
                Ok(response) => {
                    let status = response.status();
                    self.log("POST", &url, Some(status));
                    self.note_limits(response.headers());
                    if cut_off_is_final && matches!(status.as_u16(), 502 | 504) {
                        return Ok(Posted::CutOff);
                    }
                    let wait = rate_limit_wait(response.headers());
                    refused_for_limit(read_attempt(response, deadline, &asked), wait, &key)
                }
                Err(error) => {
                    self.log("POST", &url, None);
                    AttemptOutcome::Retry {
                        message: describe_transport(&error, &url),
                        wait: None,
                    }
                }
            };
            let (message, wait) = match outcome {
                AttemptOutcome::Done(page) => {
                    record_posted(record, &key, &page.body);
                    return Ok(Posted::Answer(page.body));
                }
                AttemptOutcome::Final(error) => return Err(error),
                AttemptOutcome::Retry { message, wait } => (message, wait),
                AttemptOutcome::Throttled { message } => (message, Some(secondary_wait(attempt))),
            };
            thread::sleep(self.retry_wait(attempt, message, wait)?);
            attempt += 1;
        }
    }
}

/// A GraphQL answer GitHub gave instead of running the query because a rate limit is spent,
/// told by what GitHub documents for it ("Rate limits and query limits for the GraphQL API",
/// Exceeding the rate limit): HTTP 200 with an error message and no `data`, and `retry-after`
/// (a secondary limit) or `x-ratelimit-remaining: 0` until `x-ratelimit-reset` (the primary
/// one). Retried after the wait GitHub named, as REST's are; any other answer as it is (the
/// caller reads the errors' `type`, `RATE_LIMITED`, when no header says so).
fn refused_for_limit(
    outcome: AttemptOutcome<Text>,
    wait: Option<Duration>,
    key: &str,
) -> AttemptOutcome<Text> {
    let (AttemptOutcome::Done(page), Some(wait)) = (&outcome, wait) else {
        return outcome;
    };
    // Parsed only here, where a header says a limit is spent: such answers are small.
    let body: Value = serde_json::from_str(page.body.get()).unwrap_or(Value::Null);
    let errors = body.get("errors").and_then(Value::as_array);
    let Some(first) = errors.and_then(|errors| errors.first()) else {
        return outcome;
    };
    if !body.get("data").is_none_or(Value::is_null) {
        return outcome;
    }
    let said = |field: &str| first.get(field).and_then(Value::as_str).unwrap_or("");
    AttemptOutcome::Retry {
        message: format!(
            "rate limited (200) on POST {key}: {} {}",
            said("type"),
            said("message")
        ),
        wait: Some(wait),
    }
}

/// A GraphQL read answered from a snapshot.
fn replayed(snapshot: &Snapshot, key: &str) -> Result<Posted, ApiError> {
    match snapshot.get_posted(key) {
        Some(recorded) => Ok(Posted::Answer(recorded.body.get().into())),
        None => Err(ApiError::Harness {
            message: format!("the snapshot holds no answer for POST {key}"),
        }),
    }
}

/// Keeps a GraphQL answer in the snapshot being recorded, if any.
fn record_posted(record: Option<&RefCell<Snapshot>>, key: &str, body: &Text) {
    if let Some(record) = record {
        // Read as JSON here, where a snapshot is being saved: the snapshot keeps JSON, and an
        // answer that is not JSON (a proxy's error page) is not one to replay.
        if let Ok(body) = serde_json::value::RawValue::from_string(body.get().to_string()) {
            let recorded = Recorded {
                status: 200,
                body,
                next: None,
            };
            record.borrow_mut().insert_posted(key, recorded);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{LiveOptions, RetryPolicy};
    use super::*;
    use secrecy::SecretString;
    use std::io::{Read, Write};

    #[test]
    fn a_snapshot_keeps_an_answer_that_is_json_and_not_one_that_is_not() {
        let record = RefCell::new(Snapshot::new(chrono::Utc::now()));
        record_posted(Some(&record), "Q {}", &Text::from(r#"{"data": {}}"#));
        record_posted(
            Some(&record),
            "R {}",
            &Text::from("<html>502 Bad Gateway</html>"),
        );
        let snapshot = record.borrow();
        let kept = snapshot
            .get_posted("Q {}")
            .map(|recorded| recorded.body.get());
        assert_eq!(kept, Some(r#"{"data": {}}"#));
        assert!(snapshot.get_posted("R {}").is_none());
    }

    /// A server on a local port that answers one connection with HTTP 200, `headers` and
    /// `body`.
    fn server(headers: &str, body: &str) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = [0u8; 8192];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(answer.as_bytes());
        });
        format!("http://{address}")
    }

    fn client(base: String) -> Client {
        Client::live(LiveOptions {
            search_interval: Duration::ZERO,
            base,
            token: SecretString::from("ghp_never_shown_token".to_string()),
            timeout: Duration::from_secs(5),
            retry: RetryPolicy {
                retries: 1,
                backoff: Duration::ZERO,
                max_wait: Duration::ZERO,
            },
            log: None,
            record: false,
        })
        .unwrap()
    }

    #[test]
    fn a_spent_limit_is_told_by_githubs_headers_and_its_wait_is_kept() {
        let reset = crate::clock::wall().timestamp() + 3600;
        let spent = format!("x-ratelimit-remaining: 0\r\nx-ratelimit-reset: {reset}\r\n");
        // The primary limit spent: HTTP 200, an error, no data, `x-ratelimit-remaining: 0`
        // (an error type GitHub spells another way changes nothing).
        let refused = r#"{"errors": [{"type": "RATE_LIMIT", "message": "API rate limit already exceeded for user ID 1."}]}"#;
        let limited = client(server(&spent, refused));
        let query = serde_json::json!({"query": "{ viewer { login } }"});
        let error = match limited.post_graphql("q", &query, "application/json", false) {
            Err(error) => error,
            Ok(_) => panic!("a refused query is not an answer"),
        };
        let message = error.to_string();
        assert!(matches!(error, ApiError::Harness { .. }), "{message}");
        assert!(message.contains("rate limited (200) on POST /graphql q: RATE_LIMIT"));
        assert!(
            message.contains("more than the 0s this run may wait"),
            "{message}"
        );
        assert_eq!(limited.requests(), 1);

        // The query that spent the last point is answered, data and all.
        let answered = r#"{"data": {"viewer": {"login": "octocat"}}}"#;
        let client = client(server(&spent, answered));
        let posted = client.post_graphql("q", &query, "application/json", false);
        assert!(matches!(posted, Ok(Posted::Answer(_))));
    }
}
