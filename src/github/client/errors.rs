//! The failure taxonomy of a request: what a failed read or write is (the item's own, the
//! harness's, the token's), how an answer that is not a success is classified before retries
//! decide, and the words the errors are made of (GitHub's own message; a request with no
//! answer is put in words where the HTTP library is used, `transport.rs`).

use serde_json::Value;

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

/// A failed write. Never retried.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct WriteError {
    pub status: Option<u16>,
    pub message: String,
    /// True when GitHub may have applied the write (timeout, 5xx, dropped connection).
    pub outcome_unknown: bool,
    /// What GitHub refused it for, as its answer said.
    pub refusal: Refusal,
}

/// What GitHub refused a write for, read once from its answer where the answer arrives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Refusal {
    /// 403 "Unable to create comment because issue is locked." (GitHub's "Locking
    /// conversations": a token that is not a collaborator's cannot comment on a locked item).
    /// GitHub applied nothing, and the refusal is about that item alone.
    Locked,
    /// Any other failure, or no answer at all.
    #[default]
    Other,
}

impl Refusal {
    /// The refusal an answer's status and GitHub's `message` (with its reasons) say.
    pub(crate) fn of(status: u16, message: Option<&str>) -> Refusal {
        let locked = "Unable to create comment because issue is locked.";
        if status == 403 && message.is_some_and(|message| message.ends_with(locked)) {
            Refusal::Locked
        } else {
            Refusal::Other
        }
    }
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

/// What kind of JSON value an answer held where a list was expected.
pub(super) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// GitHub's `message`, with the reasons of a 422's `errors[].message` after it (REST docs,
/// "Client errors": a validation failure says what was wrong in `errors`).
pub(super) fn github_message(text: &str) -> Option<String> {
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
