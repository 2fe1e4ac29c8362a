//! The GraphQL transport: where GitHub's GraphQL API is, and one query sent as a read like any
//! other (paced by the rate limit, retried on harness failures, recorded in a snapshot and
//! replayed from it), or answered as cut off when the caller asks a smaller page instead.

use std::cell::RefCell;
use std::thread;
use std::time::Instant;

use reqwest::header::{ACCEPT, AUTHORIZATION};
use serde_json::Value;

use super::answer::{Asked, AttemptOutcome};
use super::errors::{describe_transport, ApiError};
use super::http::{read_attempt, Deadline};
use super::limits::secondary_wait;
use super::{bearer, Client, Transport};
use crate::github::snapshot::{Recorded, Snapshot};

/// What a GraphQL read answered: GitHub's JSON, or that GitHub cut the query off at its time
/// limit (the status, 502 or 504) when the caller asked to hear of it rather than retry.
pub enum Posted {
    Answer(Value),
    CutOff(u16),
}

impl Client {
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
            Transport::Replay(snapshot) => return replayed(snapshot, &key),
            Transport::Live {
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
            let result = http
                .post(&url)
                .header(AUTHORIZATION, bearer(token))
                .header(ACCEPT, accept)
                .json(body)
                .send();
            let outcome = match result {
                Ok(response) => {
                    let status = response.status();
                    self.log("POST", &url, Some(status));
                    self.note_limits(response.headers());
                    if cut_off_is_final && matches!(status.as_u16(), 502 | 504) {
                        return Ok(Posted::CutOff(status.as_u16()));
                    }
                    let body = Deadline {
                        inner: response,
                        deadline,
                    };
                    read_attempt(body, status, &asked)
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

/// A GraphQL read answered from a snapshot.
fn replayed(snapshot: &Snapshot, key: &str) -> Result<Posted, ApiError> {
    match snapshot.get_posted(key) {
        Some(recorded) => Ok(Posted::Answer(recorded.body())),
        None => Err(ApiError::Harness {
            message: format!("the snapshot holds no answer for POST {key}"),
        }),
    }
}

/// Keeps a GraphQL answer in the snapshot being recorded, if any.
fn record_posted(record: Option<&RefCell<Snapshot>>, key: &str, body: &Value) {
    if let Some(record) = record {
        record
            .borrow_mut()
            .insert_posted(key, Recorded::of(200, body, None));
    }
}
