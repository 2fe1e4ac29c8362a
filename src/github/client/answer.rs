//! What one read's answer comes to: a page, or why the attempt failed ([`AttemptOutcome`]), and
//! what an answer that is not a success means. Plain types below the read loop (`http.rs`)
//! and the conditional requests (`cache.rs`), which both take them.

use std::cell::RefCell;
use std::time::Duration;

use reqwest::header::HeaderMap;
use reqwest::StatusCode;
use serde_json::Value;

use super::errors::{github_message, ApiError};
use super::limits::rate_limit_wait;
use super::Cached;
use crate::github::snapshot::{Recorded, Snapshot};

/// One page of a read.
pub struct Page {
    pub body: Value,
    pub next: Option<String>,
    /// A fresh answer with validators, to keep for the next run's conditional request.
    pub(super) fresh: Option<Cached>,
    /// Set when GitHub redirected the read elsewhere on the API host: the first redirect's
    /// status and the URL that answered.
    pub(super) moved: Option<(u16, String)>,
}

/// Why a single attempt failed, before retries decide.
pub(super) enum AttemptOutcome {
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

/// What an answer that is not a success means: the token refused, a rate limit (with the wait
/// GitHub named, or none), a server failure to retry, or the item's own failure (recorded in a
/// snapshot, as a replay must answer it the same).
pub(super) fn classify_failure(
    status: StatusCode,
    headers: &HeaderMap,
    text: &str,
    asked: &Asked,
) -> AttemptOutcome {
    let Asked {
        method,
        key,
        record,
        ..
    } = *asked;
    let github_says = github_message(text)
        .map(|m| format!(": {m}"))
        .unwrap_or_default();
    let code = status.as_u16();
    let wait = rate_limit_wait(headers);
    let rate_limited = wait.is_some() || text.to_ascii_lowercase().contains("rate limit");
    match code {
        401 => AttemptOutcome::Final(ApiError::Auth {
            status: code,
            message: format!("GitHub refused the token (401) for {method} {key}{github_says}"),
        }),
        403 | 429 if rate_limited => match wait {
            Some(wait) => AttemptOutcome::Retry {
                message: format!("rate limited ({code}) on {method} {key}{github_says}"),
                wait: Some(wait),
            },
            None => AttemptOutcome::Throttled {
                message: format!("rate limited ({code}) on {method} {key}{github_says}"),
            },
        },
        403 => AttemptOutcome::Final(ApiError::Auth {
            status: code,
            message: format!("permission denied (403) for {method} {key}{github_says}"),
        }),
        429 => AttemptOutcome::Throttled {
            message: format!("too many requests (429) on {method} {key}"),
        },
        500..=599 => AttemptOutcome::Retry {
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
