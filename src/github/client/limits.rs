//! Rate limits and GitHub's clock: what GitHub last said of each rate-limit resource, refusing
//! a request the limit cannot pay for, spacing search requests, the waits GitHub asks for
//! (primary and secondary limits), and how far GitHub's clock is from ours.

use std::thread;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use ureq::http::header::DATE;
use ureq::http::{HeaderMap, Method};

use super::errors::ApiError;
use super::transport;
use super::{Client, Upstream};

/// The least a client waits after a secondary rate limit that names no wait. GitHub, "Rate
/// limits for the REST API": without `retry-after`, and with `x-ratelimit-remaining` not 0,
/// "wait for at least one minute before retrying".
const SECONDARY_LIMIT_WAIT: Duration = Duration::from_secs(60);

/// How long to wait before retry `attempt` (0 for the first) after a secondary rate limit
/// without `retry-after`: at least a minute, "an exponentially increasing amount of time"
/// while it goes on (GitHub, "Rate limits for the REST API").
pub(super) fn secondary_wait(attempt: u32) -> Duration {
    SECONDARY_LIMIT_WAIT.saturating_mul(2u32.saturating_pow(attempt))
}

/// Seconds GitHub asks us to wait, from `retry-after` or `x-ratelimit-reset`.
pub(super) fn rate_limit_wait(headers: &HeaderMap) -> Option<Duration> {
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

/// GitHub's clock when it answered: the answer's `Date`.
pub(super) fn github_date(headers: &HeaderMap) -> Option<DateTime<Utc>> {
    headers
        .get(DATE)
        .and_then(|value| value.to_str().ok())
        .and_then(|text| DateTime::parse_from_rfc2822(text).ok())
        .map(|date| date.with_timezone(&Utc))
}

/// The least time between two GraphQL queries. GitHub's secondary rate limit allows no more
/// than 2,000 points a minute on its GraphQL endpoint, and charges a query without a mutation
/// one point ("Rate limits and query limits for the GraphQL API", Secondary rate limits and
/// Calculating points for the secondary rate limit): 30 ms apart, no minute holds more.
pub(super) const GRAPHQL_SPACING: Duration = Duration::from_millis(60_000 / 2_000);

/// How long to wait before a request kept `spacing` after the one sent at `last`.
fn spacing_wait(last: Option<Instant>, spacing: Duration, now: Instant) -> Duration {
    last.map_or(Duration::ZERO, |last| {
        (last + spacing).saturating_duration_since(now)
    })
}

impl Client {
    /// What is left of a rate-limit resource (`core`, `search`) and when it resets, as GitHub
    /// last said.
    pub(crate) fn remaining(&self, resource: &str) -> Option<(i64, DateTime<Utc>)> {
        let (remaining, reset) = *self.limits.borrow().get(resource)?;
        Some((remaining, DateTime::from_timestamp(reset, 0)?))
    }

    /// A time on our clock, put on GitHub's: shifted by how far GitHub's `Date` said its clock
    /// was from ours, or unchanged before any answer and in a replay. `Date` has whole
    /// seconds and arrives after a round trip, so a difference within the clock slack (15 s)
    /// is noise, not skew, and is not applied.
    pub(crate) fn on_github_clock(&self, local: DateTime<Utc>) -> DateTime<Utc> {
        match self.github_offset.get() {
            Some(offset) if offset.abs() > chrono::Duration::seconds(15) => local + offset,
            _ => local,
        }
    }

    /// Keeps what an answer's headers said: GitHub's clock, and its rate-limit resource's
    /// remaining requests and reset.
    pub(super) fn note_limits(&self, headers: &HeaderMap) {
        if let Some(github) = github_date(headers) {
            self.github_offset.set(Some(github - crate::clock::wall()));
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

    /// Keeps what a GraphQL answer's `rateLimit` said of the `graphql` resource: the points
    /// left, when they reset, and what that query cost (the next of its kind costs about as
    /// much, so it is not sent when fewer points are left).
    pub(crate) fn note_graphql_limit(&self, remaining: i64, reset: DateTime<Utc>, cost: i64) {
        self.limits
            .borrow_mut()
            .insert("graphql".to_string(), (remaining, reset.timestamp()));
        self.graphql_cost.set(cost.max(1));
    }

    /// Refuses a request the rate limit cannot pay for, instead of failing half way; spaces
    /// search requests.
    pub(super) fn before_request(&self, url: &str) -> Result<(), ApiError> {
        let search = self.key(url).starts_with("/search/");
        let resource = if search {
            "search"
        } else if url == self.graphql_url() {
            "graphql"
        } else {
            "core"
        };
        // A request costs one of REST's; a query what the last one cost in points.
        let needed = if resource == "graphql" {
            self.graphql_cost.get()
        } else {
            1
        };
        if let Some((remaining, reset)) = self.remaining(resource) {
            if remaining < needed && reset > crate::clock::wall() {
                let left = if remaining <= 0 {
                    "is spent".to_string()
                } else {
                    format!(
                        "has {remaining} points left, fewer than the last query cost ({needed})"
                    )
                };
                return Err(ApiError::Harness {
                    message: format!(
                        "GitHub's {resource} rate limit {left} until {} (x-ratelimit-reset); stopping before asking again",
                        reset.to_rfc3339()
                    ),
                });
            }
        }
        let (last, spacing) = match resource {
            "search" => (&self.last_search, self.search_interval),
            "graphql" => (&self.last_graphql, GRAPHQL_SPACING),
            _ => return Ok(()),
        };
        thread::sleep(spacing_wait(last.get(), spacing, Instant::now()));
        last.set(Some(Instant::now()));
        Ok(())
    }

    /// GitHub's `Date` on one answer to `GET /rate_limit`, which GitHub does not count against
    /// the rate limit ("Get rate limit status for the authenticated user"), with our clock at
    /// the same moment; `None` when it cannot be had (a snapshot, no answer, no `Date`). Never
    /// retried: the caller falls back on its clock slack alone. For the few places where a
    /// local stamp (the journal's) meets GitHub's.
    pub(crate) fn server_clock(&self) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        let Upstream::Live { http, token, .. } = &self.mode else {
            return None;
        };
        let url = self.url("/rate_limit");
        self.requests.set(self.requests.get() + 1);
        let response = match transport::send(http, Method::GET, &url, token, &[], None) {
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
        let github = github_date(response.headers())?;
        Some((github, local))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ureq::http::HeaderValue;

    #[test]
    fn a_secondary_limit_waits_a_minute_then_longer_each_time() {
        assert_eq!(secondary_wait(0), Duration::from_secs(60));
        assert_eq!(secondary_wait(1), Duration::from_secs(120));
        assert_eq!(secondary_wait(2), Duration::from_secs(240));
    }

    #[test]
    fn graphql_queries_are_spaced_so_no_minute_holds_more_than_2000() {
        let start = Instant::now();
        assert_eq!(spacing_wait(None, GRAPHQL_SPACING, start), Duration::ZERO);
        // Sent back to back, each query waits out the spacing after the one before.
        let mut sent = start;
        let mut in_a_minute = 0;
        while sent < start + Duration::from_secs(60) {
            in_a_minute += 1;
            sent += spacing_wait(Some(sent), GRAPHQL_SPACING, sent);
        }
        assert_eq!(in_a_minute, 2_000);
        // A query long after the last one does not wait.
        let later = start + Duration::from_secs(1);
        assert_eq!(
            spacing_wait(Some(start), GRAPHQL_SPACING, later),
            Duration::ZERO
        );
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
