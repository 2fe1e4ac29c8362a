//! Writes: each sent exactly once, whatever happens, never retried and never redirected; what
//! GitHub answered (its clock, for the journal) or why the write failed, and whether it may
//! have been applied all the same.

use std::time::Instant;

use chrono::{DateTime, Utc};
use serde_json::Value;
use ureq::http::header::LOCATION;
use ureq::http::{Method, StatusCode};

use super::errors::{github_message, Refusal, WriteError};
use super::limits::github_date;
use super::transport::{self, describe_transport, read_capped, Response};
use super::{Client, Upstream};

/// What a write answered: GitHub's clock when it answered.
pub(crate) struct WriteReceipt {
    pub server_date: Option<DateTime<Utc>>,
}

impl Client {
    /// Sends one write, once. The caller journals the intent before and the outcome after.
    pub(crate) fn write(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<WriteReceipt, WriteError> {
        let url = self.url(path);
        let (http, token) = match &self.mode {
            Upstream::Replay(_) => {
                return Err(WriteError {
                    status: None,
                    message: "a snapshot run never writes".into(),
                    outcome_unknown: false,
                    refusal: Refusal::Other,
                })
            }
            Upstream::Live { http, token, .. } => (http, token),
        };
        self.requests.set(self.requests.get() + 1);
        let deadline = Instant::now() + self.timeout;
        let response = match transport::send(http, method.clone(), &url, token, &[], body) {
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
                    refusal: Refusal::Other,
                });
            }
        };
        let status = response.status();
        self.log(method.as_str(), &url, Some(status));
        self.note_limits(response.headers());
        if status.is_redirection() {
            return Err(self.moved_write(&method, &url, &response));
        }
        self.written(&method, &url, status, response, deadline)
    }

    /// What a write's answer says: written (with GitHub's clock), or the failure, unknown in
    /// outcome when the body was lost or GitHub failed on its side.
    fn written(
        &self,
        method: &Method,
        url: &str,
        status: StatusCode,
        response: Response,
        deadline: Instant,
    ) -> Result<WriteReceipt, WriteError> {
        let server_date = github_date(response.headers());
        let text = match read_capped(response.into_body(), deadline) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(error) => {
                return Err(WriteError {
                    status: Some(status.as_u16()),
                    message: format!(
                        "{method} {} answered {status} but the body was lost: {error}",
                        self.key(url)
                    ),
                    outcome_unknown: true,
                    refusal: Refusal::Other,
                })
            }
        };
        if status.is_success() {
            return Ok(WriteReceipt { server_date });
        }
        let said = github_message(&text);
        Err(WriteError {
            status: Some(status.as_u16()),
            message: format!(
                "{method} {} answered {status}{}",
                self.key(url),
                said.as_ref().map(|m| format!(": {m}")).unwrap_or_default()
            ),
            outcome_unknown: status.is_server_error(),
            refusal: Refusal::of(status.as_u16(), said.as_deref()),
        })
    }

    /// A write GitHub answered with a redirect: not followed, so not written anywhere.
    fn moved_write(&self, method: &Method, url: &str, response: &Response) -> WriteError {
        let status = response.status();
        let target = response
            .headers()
            .get(LOCATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|location| url::Url::parse(url).ok()?.join(location).ok())
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
            refusal: Refusal::Other,
        }
    }
}
