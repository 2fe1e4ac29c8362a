//! Where the token may go and where an answer points: the API host (the only place the token
//! is sent), redirects (followed on a read only on that host, never on a write), and naming
//! what a redirect or a body points at (`owner/repo#N`, `owner/repo`).

use std::time::Instant;

use serde_json::Value;
use ureq::http::header::LOCATION;
use ureq::http::{HeaderMap, Method};

use super::errors::ApiError;
use super::transport::{self, read_capped};
use super::{Client, Upstream};

/// `owner/repo#N` from an issue or PR body's `html_url`, or `owner/repo` from a repository's
/// `full_name`.
pub(super) fn name_of_body(body: &Value) -> Option<String> {
    let html = body.get("html_url").and_then(Value::as_str);
    if let Some(name) = html.and_then(name_of_html_url) {
        return Some(name);
    }
    body.get("full_name")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// `owner/repo#N` from an issue's or PR's web address (`https://github.com/o/r/issues/3`,
/// `…/pull/3`, a GitHub Enterprise host's the same), read off its path as GitHub writes it:
/// one of these per issue of a 100,000-item pool, so no URL parser's normalising copy.
pub(super) fn name_of_html_url(html: &str) -> Option<String> {
    let (_, rest) = html.split_once("://")?;
    let path = &rest[rest.find('/')?..];
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let mut segments = path.split('/').skip(1);
    let (owner, name, kind, number) = (
        segments.next()?,
        segments.next()?,
        segments.next()?,
        segments.next()?,
    );
    (segments.next().is_none()
        && matches!(kind, "issues" | "pull")
        && ![owner, name, number].iter().any(|part| part.is_empty()))
    .then(|| format!("{owner}/{name}#{number}"))
}

impl Client {
    /// The scheme, host and port of a URL: where the token may go.
    fn origin(url: &str) -> Option<(String, String, Option<u16>)> {
        let url = url::Url::parse(url).ok()?;
        Some((
            url.scheme().to_string(),
            url.host_str()?.to_ascii_lowercase(),
            url.port_or_known_default(),
        ))
    }

    /// Whether `url` is on the API base's host, the only place the token is sent.
    pub(super) fn on_api_host(&self, url: &str) -> bool {
        match (Self::origin(url), Self::origin(&self.base)) {
            (Some(url), Some(base)) => url == base,
            _ => false,
        }
    }

    /// The item failure for an address off the API host, which is never asked.
    pub(super) fn off_host_error(&self, url: &str, what: &str) -> ApiError {
        let host = url::Url::parse(url)
            .ok()
            .and_then(|url| url.host_str().map(str::to_string))
            .unwrap_or_else(|| url.to_string());
        let api = url::Url::parse(&self.base)
            .ok()
            .and_then(|url| url.host_str().map(str::to_string))
            .unwrap_or_default();
        ApiError::Item {
            status: None,
            message: format!(
                "{what} points to another host ({host}) than the API's ({api}); not requested, so the token stays with {api}"
            ),
        }
    }

    /// The item failure for a read GitHub redirected to another resource.
    pub(super) fn moved_error(
        &self,
        path: &str,
        status: u16,
        to: &str,
        body: Option<&Value>,
    ) -> ApiError {
        let name = body
            .and_then(name_of_body)
            .unwrap_or_else(|| self.name_location(to));
        ApiError::Item {
            status: Some(status),
            message: format!(
                "GET {} answered {status}: moved to {name}; not the item asked for",
                self.key(&self.url(path))
            ),
        }
    }

    /// Names what a redirect points at, as `owner/repo#N` or `owner/repo` where it can, asking
    /// GitHub once (on the API host) when the address holds only a repository id.
    pub(super) fn name_location(&self, url: &str) -> String {
        let key = self.key(url);
        let path = key.split('?').next().unwrap_or_default();
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        match segments.as_slice() {
            ["repos", owner, name, "issues" | "pulls", number, ..] => {
                format!("{owner}/{name}#{number}")
            }
            ["repos", owner, name, ..] => format!("{owner}/{name}"),
            ["repositories", id, "issues" | "pulls", number, ..] => self
                .peek(&format!("/repositories/{id}/issues/{number}"))
                .as_ref()
                .and_then(name_of_body)
                .unwrap_or(key),
            ["repositories", id, ..] => self
                .peek(&format!("/repositories/{id}"))
                .as_ref()
                .and_then(name_of_body)
                .unwrap_or(key),
            _ => key,
        }
    }

    /// One plain GET on the API host, no retries, no cache, no redirects: for naming things.
    fn peek(&self, path: &str) -> Option<Value> {
        let Upstream::Live { http, token, .. } = &self.mode else {
            return None;
        };
        let url = self.url(path);
        if !self.on_api_host(&url) {
            return None;
        }
        self.requests.set(self.requests.get() + 1);
        let deadline = Instant::now() + self.timeout;
        let response = transport::send(http, Method::GET, &url, token, &[], None).ok()?;
        self.log("GET", &url, Some(response.status()));
        self.note_limits(response.headers());
        if !response.status().is_success() {
            return None;
        }
        let bytes = read_capped(response.into_body(), deadline).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Where a read's redirect points, when the client may follow it there.
    pub(super) fn redirect_target(
        &self,
        from: &str,
        key: &str,
        status: ureq::http::StatusCode,
        headers: &HeaderMap,
    ) -> Result<String, ApiError> {
        let status = status.as_u16();
        let location = headers
            .get(LOCATION)
            .and_then(|value| value.to_str().ok())
            .ok_or_else(|| ApiError::Item {
                status: Some(status),
                message: format!("GET {key} answered {status} without a Location"),
            })?;
        let next = url::Url::parse(from)
            .and_then(|from| from.join(location))
            .map_err(|_| ApiError::Item {
                status: Some(status),
                message: format!("GET {key} answered {status} with a Location that is no URL"),
            })?
            .to_string();
        if !self.on_api_host(&next) {
            return Err(self.off_host_error(
                &next,
                &format!("GET {key} answered {status}, whose Location"),
            ));
        }
        Ok(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_what_a_redirect_or_a_body_points_at() {
        let issue =
            serde_json::json!({"number": 7, "html_url": "https://github.com/o/other/issues/7"});
        assert_eq!(name_of_body(&issue).as_deref(), Some("o/other#7"));
        let pull =
            serde_json::json!({"number": 3, "html_url": "https://ghe.example.com/o/r/pull/3"});
        assert_eq!(name_of_body(&pull).as_deref(), Some("o/r#3"));
        let repo = serde_json::json!({"full_name": "o/renamed", "html_url": "https://github.com/o/renamed"});
        assert_eq!(name_of_body(&repo).as_deref(), Some("o/renamed"));
    }

    #[test]
    fn an_items_name_is_read_off_its_web_address_and_nothing_else_is_one() {
        let name = |url| name_of_html_url(url);
        assert_eq!(
            name("https://github.com/o/r/issues/3").as_deref(),
            Some("o/r#3")
        );
        assert_eq!(
            name("https://ghe.example.com:8443/o/r/pull/12").as_deref(),
            Some("o/r#12")
        );
        assert_eq!(
            name("https://github.com/o/r/pull/4?x=1#top").as_deref(),
            Some("o/r#4")
        );
        for other in [
            "https://github.com/o/r",
            "https://github.com/o/r/issues",
            "https://github.com/o/r/commit/abc",
            "https://github.com/o/r/pull/4/files",
            "https://github.com/o/r/pull/4/",
            "https://github.com//r/issues/4",
            "https://github.com",
            "github.com/o/r/issues/4",
        ] {
            assert_eq!(name(other), None, "{other}");
        }
    }

    #[test]
    fn the_api_host_is_scheme_host_and_port() {
        let origin = |url| Client::origin(url);
        assert_eq!(
            origin("https://api.github.com/repos/o/r"),
            origin("https://API.github.com:443/x")
        );
        assert_ne!(
            origin("http://127.0.0.1:8080/x"),
            origin("http://127.0.0.1:8081/x")
        );
        assert_ne!(
            origin("https://api.github.com/x"),
            origin("https://api.github.com.evil.example/x")
        );
        assert_ne!(
            origin("https://api.github.com/x"),
            origin("http://api.github.com/x")
        );
    }
}
