//! What one read's answer comes to: a page, or why the attempt failed ([`AttemptOutcome`]), and
//! what an answer that is not a success means. Plain types below the read loop (`http.rs`)
//! and the conditional requests (`cache.rs`), which both take them.

use std::cell::RefCell;
use std::time::Duration;

use serde_json::Value;
use ureq::http::{HeaderMap, StatusCode};

use super::errors::{github_message, ApiError};
use super::limits::rate_limit_wait;
use super::Cached;
use crate::github::snapshot::{Recorded, Snapshot};

/// How a successful answer's text is kept: parsed into JSON values (REST's pages), or kept as
/// its text (GraphQL's, which the document that asked reads into its own shape).
pub(super) trait Body: Sized {
    fn parse(text: String) -> Result<Self, serde_json::Error>;
}

impl Body for Value {
    fn parse(text: String) -> Result<Self, serde_json::Error> {
        serde_json::from_str(&text)
    }
}

/// An answer's text as it came, not yet read as JSON: a GraphQL answer is read once, into the
/// shape of the document that asked, and a text that is not JSON fails there.
#[derive(Clone, Debug)]
pub(crate) struct Text(Box<str>);

impl Text {
    pub(crate) fn get(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Self {
        Text(text.into())
    }
}

impl Body for Text {
    fn parse(text: String) -> Result<Self, serde_json::Error> {
        Ok(Text(text.into_boxed_str()))
    }
}

/// One page of a read.
pub(super) struct Page<B = Value> {
    pub body: B,
    pub next: Option<String>,
    /// A fresh answer with validators, to keep for the next run's conditional request.
    pub(super) fresh: Option<Cached>,
    /// Set when GitHub redirected the read elsewhere on the API host: the first redirect's
    /// status and the URL that answered.
    pub(super) moved: Option<(u16, String)>,
}

/// Why a single attempt failed, before retries decide.
pub(super) enum AttemptOutcome<B = Value> {
    Done(Page<B>),
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

/// Where one read stands between its tries.
pub(super) struct Read {
    /// The URL asked for, under which the answer is cached.
    pub(super) url: String,
    /// The URL without the base: the snapshot's key.
    pub(super) key: String,
    /// Where the read is asked now: the URL, or where GitHub redirected it on the API host.
    pub(super) target: String,
    /// The validators still good for the target (none once redirected).
    pub(super) cached: Option<Cached>,
    pub(super) first_redirect: Option<u16>,
    pub(super) hops: u32,
}

/// What one attempt asked, for reading and classifying its answer.
#[derive(Clone, Copy)]
pub(super) struct Asked<'a> {
    pub(super) method: &'a str,
    pub(super) url: &'a str,
    pub(super) key: &'a str,
    pub(super) base: &'a str,
    /// The snapshot being recorded, when an answer is to be kept in it.
    pub(super) record: Option<&'a RefCell<Snapshot>>,
}

/// What GitHub says of a 403 or 429 as a rate limit, by the signs it documents ("Rate limits
/// for the REST API" and "Rate limits and query limits for the GraphQL API", Exceeding the rate
/// limit), strongest first.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Limited {
    /// `retry-after`, or `x-ratelimit-remaining: 0` until `x-ratelimit-reset`: the wait GitHub
    /// named, whatever its message says.
    Wait(Duration),
    /// A secondary limit that names no wait. For it GitHub documents no header and no field,
    /// only "an error message that indicates that you exceeded a secondary rate limit": its
    /// `message` is read as the last resort ("You have exceeded a secondary rate limit", as
    /// its primary limit's "API rate limit exceeded", both say "rate limit").
    Said,
    /// 429 Too Many Requests that says nothing more.
    TooMany,
}

/// Whether a 403 or 429 is a rate limit, and what GitHub said of it; `None` for any other
/// answer, and for a 403 with no sign of one (a permission refused).
pub(super) fn limited(status: u16, headers: &HeaderMap, message: Option<&str>) -> Option<Limited> {
    if !matches!(status, 403 | 429) {
        return None;
    }
    if let Some(wait) = rate_limit_wait(headers) {
        return Some(Limited::Wait(wait));
    }
    if message.is_some_and(|message| message.to_ascii_lowercase().contains("rate limit")) {
        return Some(Limited::Said);
    }
    (status == 429).then_some(Limited::TooMany)
}

/// What an answer that is not a success means: the token refused, a rate limit (with the wait
/// GitHub named, or none), a server failure to retry, or the item's own failure (recorded in a
/// snapshot, as a replay must answer it the same).
pub(super) fn classify_failure<B>(
    status: StatusCode,
    headers: &HeaderMap,
    text: &str,
    asked: &Asked,
) -> AttemptOutcome<B> {
    let Asked {
        method,
        key,
        record,
        ..
    } = *asked;
    let said = github_message(text);
    let github_says = said.as_ref().map(|m| format!(": {m}")).unwrap_or_default();
    let code = status.as_u16();
    match (code, limited(code, headers, said.as_deref())) {
        (401, _) => AttemptOutcome::Final(ApiError::Auth {
            status: code,
            message: format!("GitHub refused the token (401) for {method} {key}{github_says}"),
        }),
        (_, Some(Limited::Wait(wait))) => AttemptOutcome::Retry {
            message: format!("rate limited ({code}) on {method} {key}{github_says}"),
            wait: Some(wait),
        },
        (_, Some(Limited::Said)) => AttemptOutcome::Throttled {
            message: format!("rate limited ({code}) on {method} {key}{github_says}"),
        },
        (_, Some(Limited::TooMany)) => AttemptOutcome::Throttled {
            message: format!("too many requests (429) on {method} {key}"),
        },
        (403, None) => AttemptOutcome::Final(ApiError::Auth {
            status: code,
            message: format!("permission denied (403) for {method} {key}{github_says}"),
        }),
        (500..=599, _) => AttemptOutcome::Retry {
            message: format!("GitHub answered {code} on {method} {key}"),
            wait: None,
        },
        _ => {
            if let Some(record) = record {
                record
                    .borrow_mut()
                    .insert(key, Recorded::new(code, text, None));
            }
            AttemptOutcome::Final(ApiError::Item {
                status: Some(code),
                message: format!("{method} {key} answered {code}{github_says}"),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ureq::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    #[test]
    fn a_rate_limit_is_told_by_githubs_headers_before_its_message() {
        // A primary limit spent: `x-ratelimit-remaining: 0`, whatever the message says.
        let reset = (crate::clock::wall().timestamp() + 30).to_string();
        let spent = headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", &reset),
        ]);
        let wait = limited(403, &spent, Some("Forbidden"));
        assert!(
            matches!(wait, Some(Limited::Wait(wait)) if wait <= Duration::from_secs(30)),
            "{wait:?}"
        );
        let asked = headers(&[("retry-after", "7")]);
        assert_eq!(
            limited(429, &asked, None),
            Some(Limited::Wait(Duration::from_secs(7)))
        );
        // No wait named: the message is the only sign GitHub gives of a secondary limit.
        let left = headers(&[("x-ratelimit-remaining", "4990")]);
        let secondary = "You have exceeded a secondary rate limit. Please wait a few minutes.";
        assert_eq!(limited(403, &left, Some(secondary)), Some(Limited::Said));
        assert_eq!(limited(403, &left, Some("Must have admin rights")), None);
        assert_eq!(limited(429, &left, None), Some(Limited::TooMany));
        // Not a 403 or 429: never a rate limit, whatever it says.
        assert_eq!(limited(404, &spent, Some(secondary)), None);
    }
}
