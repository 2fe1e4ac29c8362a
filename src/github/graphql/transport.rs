//! Sending one GraphQL document through the client and sorting out what GitHub answers. GitHub
//! answers a query's own errors with HTTP 200 and an `errors` list beside whatever `data` it
//! could resolve; each error has a `type` and, when it is about one field, the `path` to it.
//! An error about the whole request (the rate limit spent, too many nodes, a malformed query:
//! a `type` of that kind, or no `path`) is a harness failure; an error with a `path` is handed
//! back for the reader to judge whether the path names one item.

use std::cell::Cell;

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::queries::Document;
use crate::github::client::{ApiError, Client, Posted};

/// `mergeStateStatus` is a preview field: GitHub serves it to a request that asks for the
/// `merge-info-preview` media type (as gh does for every GraphQL request).
const ACCEPT: &str = "application/vnd.github.merge-info-preview+json";

/// Error types about the whole request, never one item: GitHub's primary and secondary rate
/// limits (`RATE_LIMITED`, and `RATE_LIMIT` as some answers spell it), the 500,000-node limit,
/// and its own failures.
const HARNESS_TYPES: &[&str] = &[
    "RATE_LIMITED",
    "RATE_LIMIT",
    "MAX_NODE_LIMIT_EXCEEDED",
    "INTERNAL",
    "SERVICE_UNAVAILABLE",
    "TIMEOUT",
];

/// One entry of an answer's `errors`.
#[derive(Clone, Debug)]
pub(super) struct QueryError {
    pub kind: String,
    pub path: Vec<Value>,
    pub message: String,
}

impl QueryError {
    /// Whether the error is at `prefix` or below it.
    pub(super) fn under(&self, prefix: &[Value]) -> bool {
        self.path.len() >= prefix.len() && self.path[..prefix.len()] == *prefix
    }

    /// Whether the error is about one entry of a `timelineItems` list.
    pub(super) fn in_timeline(&self) -> bool {
        self.path
            .windows(2)
            .any(|pair| pair[0] == "timelineItems" && pair[1] == "nodes")
    }

    /// The item failure this error is: `NOT_FOUND` as a 404, like REST's.
    pub(super) fn item_error(&self) -> ApiError {
        ApiError::Item {
            // `INVALID`: a search GitHub refuses, REST's 422 (the type GraphQL gives it is not
            // documented; an unknown type is taken as the item's failure, never as success).
            status: match self.kind.as_str() {
                "NOT_FOUND" => Some(404),
                "INVALID" => Some(422),
                _ => None,
            },
            message: format!(
                "GitHub's GraphQL API answered {}: {}",
                self.kind, self.message
            ),
        }
    }
}

/// An answer's `data`, and its errors about single fields.
pub(super) struct Answer<D = Value> {
    pub data: D,
    pub errors: Vec<QueryError>,
}

/// The shape a document's `data` is parsed into: JSON values, or a page's own types that keep
/// only what the reader takes of it ([`super::stale_page::ItemsPage`]).
pub(super) trait Data: DeserializeOwned {
    /// What the query cost and left of the hour's points (`rateLimit`), when it asked.
    fn rate_limit(&self) -> Option<&Value>;
    /// Every issue's or PR's web address in the answer (a node with a `number` and a `url`,
    /// GraphQL's name for REST's `html_url`), for the recap's links.
    fn links<'a>(&'a self, note: &mut dyn FnMut(&'a str));
}

impl Data for Value {
    fn rate_limit(&self) -> Option<&Value> {
        self.get("rateLimit")
    }

    fn links<'a>(&'a self, note: &mut dyn FnMut(&'a str)) {
        value_links(self, note);
    }
}

impl<D> Answer<D> {
    /// The first error at or below `path`.
    pub(super) fn error_at(&self, path: &[Value]) -> Option<&QueryError> {
        self.errors.iter().find(|error| error.under(path))
    }

    /// The first error at or below `path` that is not about one of its timeline entries. A
    /// timeline entry GitHub cannot resolve (a label event whose label was deleted: the
    /// non-null `LabeledEvent.label` has nothing to point to) is `null` in the list: the item
    /// is still readable, and its events are then read through REST, which keeps them whole.
    pub(super) fn item_error_at(&self, path: &[Value]) -> Option<&QueryError> {
        self.errors
            .iter()
            .find(|error| error.under(path) && !error.in_timeline())
    }

    /// A harness failure for any error not at or below one of `items`: an error the reader
    /// cannot put on an item is about the request.
    pub(super) fn only_under(
        &self,
        document: &Document,
        items: &[Vec<Value>],
    ) -> Result<(), ApiError> {
        match self
            .errors
            .iter()
            .find(|error| !items.iter().any(|item| error.under(item)))
        {
            Some(error) => Err(harness(document, error)),
            None => Ok(()),
        }
    }
}

/// The web address of every node of `data` with a `number` and a `url`.
pub(super) fn value_links<'a>(data: &'a Value, note: &mut dyn FnMut(&'a str)) {
    match data {
        Value::Object(fields) => {
            if let (Some(url), Some(_)) = (
                fields.get("url").and_then(Value::as_str),
                fields.get("number"),
            ) {
                note(url);
            }
            // A timeline's entries name no issue or PR by `url` (the documents ask none): not
            // walked, they are most of a page of open items.
            fields
                .iter()
                .filter(|(name, _)| name.as_str() != "timelineItems")
                .for_each(|(_, value)| value_links(value, note));
        }
        Value::Array(entries) => entries.iter().for_each(|value| value_links(value, note)),
        _ => {}
    }
}

/// An answer's two parts, `data` left as its text for the document's own shape.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
    #[serde(default)]
    errors: Value,
}

/// An answer's two parts, `data` read into the document's own shape in the same pass (a
/// missing `data` reads as `None`).
#[derive(Deserialize)]
#[serde(bound = "D: DeserializeOwned")]
struct Typed<D> {
    data: Option<D>,
    #[serde(default)]
    errors: Value,
}

fn harness(document: &Document, error: &QueryError) -> ApiError {
    ApiError::Harness {
        message: format!(
            "GitHub's GraphQL API answered {} to {}: {}",
            error.kind, document.name, error.message
        ),
    }
}

/// The `type` of an error that has none.
const UNTYPED: &str = "UNKNOWN";

/// Whether GitHub gave up on the query at its time limit but answered HTTP 200. GitHub
/// documents a query cut off as "a `502` or `504` status code" with the message "We couldn't
/// respond to your request in time" ("Rate limits and query limits for the GraphQL API",
/// Timeouts), which the client tells by its status; for one answered 200 it documents nothing.
/// Such answers have no `data` and one error with neither a `type` nor a `path` saying
/// "Something went wrong while executing your query. This may be the result of a timeout, or it
/// could be a GitHub bug." (recorded in gayanvoice/top-github-users#107 and
/// liatrio/liatrio-otel-collector#71, whose fix was a smaller page): only there, with nothing
/// else to go by, is the message read. An error with a `type` is told by its type.
fn timed_out(has_data: bool, errors: &[QueryError]) -> bool {
    !has_data
        && errors.iter().any(|error| {
            error.kind == UNTYPED
                && error.path.is_empty()
                && error.message.contains("result of a timeout")
        })
}

fn query_errors(errors: &Value) -> Vec<QueryError> {
    errors
        .as_array()
        .map(|errors| {
            errors
                .iter()
                .map(|error| QueryError {
                    kind: error
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or(UNTYPED)
                        .to_string(),
                    path: error
                        .get("path")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default(),
                    message: error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("no message")
                        .to_string(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Sends `document` with `variables`; adds what it cost to `points` and tells the client what
/// is left of the `graphql` budget (GitHub's `rateLimit`, "Rate limits and node limits for the
/// GraphQL API"). A query GitHub cuts off at its time limit is retried like any failed read.
pub(super) fn send<D: Data>(
    client: &Client,
    document: &Document,
    variables: Value,
    points: &Cell<u64>,
) -> Result<Answer<D>, ApiError> {
    match send_page(client, document, variables, points, false)? {
        Some(answer) => Ok(answer),
        None => Err(ApiError::Harness {
            message: format!("GitHub cut {} off at its time limit", document.name),
        }),
    }
}

/// [`send`] for a page whose size can shrink: `None` when GitHub cut the query off at its
/// 10-second limit (502 or 504), not retried as it was.
pub(super) fn send_page<D: Data>(
    client: &Client,
    document: &Document,
    variables: Value,
    points: &Cell<u64>,
    shrinkable: bool,
) -> Result<Option<Answer<D>>, ApiError> {
    let key = format!("{} {variables}", document.name);
    let body = json!({
        "query": document.text,
        "operationName": document.name,
        "variables": variables,
    });
    let text = match client.post_graphql(&key, &body, ACCEPT, shrinkable)? {
        Posted::Answer(text) => text,
        Posted::CutOff => return Ok(None),
    };
    let malformed = |error: serde_json::Error| ApiError::Item {
        status: Some(200),
        message: format!(
            "GitHub's GraphQL API answered {} in a shape it does not have: {error}",
            document.name
        ),
    };
    // One pass over the answer for the usual one, `data` read straight into the document's
    // shape; an answer that does not fit is read again in two steps, and the error kept for
    // after the answer's own errors are looked at, as they come first.
    let (data, errors) = match serde_json::from_str::<Typed<D>>(text.get()) {
        Ok(typed) => (typed.data.map(Ok), typed.errors),
        Err(_) => {
            let answer: Envelope = serde_json::from_str(text.get()).map_err(malformed)?;
            let data = answer
                .data
                .map(|data| serde_json::from_str::<D>(data.get()));
            (data, answer.errors)
        }
    };
    let errors = query_errors(&errors);
    if timed_out(data.is_some(), &errors) {
        return Ok(None);
    }
    if let Some(error) = errors
        .iter()
        .find(|error| HARNESS_TYPES.contains(&error.kind.as_str()) || error.path.is_empty())
    {
        return Err(harness(document, error));
    }
    let Some(data) = data else {
        // Nothing resolved, and an error names the field that failed (a search GitHub refuses,
        // a top-level field not found): that field's failure, as REST's 404 or 422 would be.
        if let Some(error) = errors.first() {
            return Err(error.item_error());
        }
        return Err(ApiError::Harness {
            message: format!(
                "GitHub's GraphQL API answered {} without data",
                document.name
            ),
        });
    };
    let data: D = data.map_err(malformed)?;
    if let Some(limit) = data.rate_limit() {
        let cost = limit.get("cost").and_then(Value::as_u64).unwrap_or(0);
        points.set(points.get() + cost);
        let reset = limit
            .get("resetAt")
            .and_then(Value::as_str)
            .and_then(|text| DateTime::parse_from_rfc3339(text).ok());
        if let (Some(remaining), Some(reset)) =
            (limit.get("remaining").and_then(Value::as_i64), reset)
        {
            let cost = i64::try_from(cost).unwrap_or(i64::MAX);
            client.note_graphql_limit(remaining, reset.with_timezone(&Utc), cost);
        }
    }
    data.links(&mut |url| client.note_link(url));
    Ok(Some(Answer { data, errors }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_untyped_error_is_read_for_a_timeout() {
        let said = "Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug.";
        let untyped = json!([{"message": said}]);
        assert!(timed_out(false, &query_errors(&untyped)));
        // A typed error is what its type says, whatever its message.
        let typed = json!([{"type": "INTERNAL", "message": said}]);
        assert!(!timed_out(false, &query_errors(&typed)));
        // An answer with data was not cut off.
        assert!(!timed_out(true, &query_errors(&untyped)));
    }
}
