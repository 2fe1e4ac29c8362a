//! Conditional requests: which kept answer a read may ask "changed since?" with, the
//! validators it sends (an ETag only under the token it was given to), a 304 answered from the
//! kept body, and the validators kept from a fresh answer for the next run.

use std::cell::RefCell;

use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;
use ureq::http::header::{HeaderName, ETAG, LAST_MODIFIED};
use ureq::http::{HeaderMap, StatusCode};

use super::answer::{AttemptOutcome, Page, Read};
use super::{Cached, Client};
use crate::github::snapshot::{Recorded, Snapshot};

/// A fingerprint of a token for the HTTP cache: the first 16 hex digits of a SHA-256 of it.
/// It tells two tokens apart; it cannot give the token back.
pub(crate) fn token_fingerprint(token: &SecretString) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, token.expose_secret().as_bytes());
    digest.as_ref()[..8]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Whether a cached answer is a list page that held as many items as its URL's `per_page`
/// (GitHub's default is 30): a full page.
fn full_page(body: &str, url: &str) -> bool {
    let per_page = url::Url::parse(url)
        .ok()
        .and_then(|url| {
            url.query_pairs()
                .find(|(key, _)| key == "per_page")
                .and_then(|(_, value)| value.parse::<usize>().ok())
        })
        .unwrap_or(30);
    let listed = match serde_json::from_str::<Value>(body) {
        Ok(Value::Array(items)) => items.len(),
        // Wrapped lists (search `items`, `check_runs`, `statuses`): the longest list in it.
        Ok(Value::Object(fields)) => fields
            .values()
            .filter_map(Value::as_array)
            .map(Vec::len)
            .max()
            .unwrap_or(0),
        _ => 0,
    };
    listed >= per_page
}

/// The validators worth keeping from a fresh answer, with its body and next page; `None`
/// when GitHub gave neither an ETag nor a `Last-Modified`.
pub(super) fn fresh_validators(
    headers: &HeaderMap,
    text: &str,
    next: Option<&String>,
) -> Option<Cached> {
    let header = |name: HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let etag = header(ETAG);
    let last_modified = header(LAST_MODIFIED);
    (etag.is_some() || last_modified.is_some()).then(|| Cached {
        etag,
        last_modified,
        body: text.to_string(),
        next: next.cloned(),
        token: None,
    })
}

impl Client {
    /// What the cache kept for `url`, when a conditional request may use it. A cached page
    /// that held per_page items and no next page may have one now, under the same ETag (the
    /// Link header is not part of it): it is asked in full.
    pub(super) fn cached_for(&self, url: &str) -> Option<Cached> {
        self.cache
            .as_ref()
            .and_then(|cache| cache.lookup(url))
            .filter(|cached| cached.next.is_some() || !full_page(&cached.body, url))
    }

    /// The headers that make a read conditional on what was kept of it.
    pub(super) fn conditional(&self, cached: Option<&Cached>) -> Vec<(&'static str, String)> {
        let mut headers = Vec::new();
        if let Some(cached) = cached {
            // An ETag is valid only for the token it was given to; under another token
            // it can only miss, so the date alone asks "changed since?".
            let same_token = cached.token.as_deref() == Some(self.fingerprint.as_str());
            if let Some(etag) = cached.etag.as_ref().filter(|_| same_token) {
                headers.push(("if-none-match", etag.clone()));
            }
            if let Some(modified) = &cached.last_modified {
                headers.push(("if-modified-since", modified.clone()));
            }
        }
        headers
    }

    /// A 304 to a conditional read: the kept body, counted, recorded in a snapshot as a 200,
    /// with the validators renewed for this token; a damaged kept body is retried in full.
    pub(super) fn answer_from_cache(
        &self,
        read: &Read,
        cached: &Cached,
        headers: &HeaderMap,
        record: Option<&RefCell<Snapshot>>,
    ) -> AttemptOutcome {
        self.log("GET", &read.url, Some(StatusCode::NOT_MODIFIED));
        self.not_modified.set(self.not_modified.get() + 1);
        self.renew_validators(&read.url, cached, headers);
        match serde_json::from_str(&cached.body) {
            Ok(body) => {
                if let Some(record) = record {
                    let next = cached.next.as_deref().map(|next| self.key(next));
                    record
                        .borrow_mut()
                        .insert(&read.key, Recorded::new(200, &cached.body, next));
                }
                AttemptOutcome::Done(Page {
                    body,
                    next: cached.next.clone(),
                    fresh: None,
                    moved: None,
                })
            }
            Err(_) => AttemptOutcome::Retry {
                message: format!("the cached answer for GET {} is damaged", read.key),
                wait: None,
            },
        }
    }

    /// Keeps a fresh answer's validators under this token, for the next run to ask with.
    pub(super) fn keep_fresh(&self, url: &str, page: &Page) {
        if let (Some(cache), Some(fresh)) = (&self.cache, &page.fresh) {
            let fresh = Cached {
                token: Some(self.fingerprint.clone()),
                ..fresh.clone()
            };
            cache.keep(url, &fresh);
        }
    }

    /// After a 304 to a request under another token than the cached validators', keeps the
    /// ETag GitHub gave this token, so its next read asks by ETag again.
    fn renew_validators(&self, url: &str, cached: &Cached, headers: &HeaderMap) {
        if cached.token.as_deref() == Some(self.fingerprint.as_str()) {
            return;
        }
        let Some(cache) = &self.cache else { return };
        let etag = headers
            .get(ETAG)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string);
        if etag.is_some() {
            cache.keep(
                url,
                &Cached {
                    etag,
                    token: Some(self.fingerprint.clone()),
                    ..cached.clone()
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_fingerprint_tells_tokens_apart_and_hides_them() {
        let one = token_fingerprint(&SecretString::from("ghp_one_token_value".to_string()));
        let two = token_fingerprint(&SecretString::from("ghp_two_token_value".to_string()));
        assert_ne!(one, two);
        assert_eq!(one.len(), 16);
        assert!(!one.contains("ghp") && !one.contains("one"));
    }

    #[test]
    fn a_full_page_is_as_long_as_per_page() {
        let hundred = serde_json::to_string(&vec![1; 100]).unwrap();
        assert!(full_page(
            &hundred,
            "https://x/repos/o/r/issues?per_page=100"
        ));
        assert!(!full_page(
            "[1, 2]",
            "https://x/repos/o/r/issues?per_page=100"
        ));
        let thirty = serde_json::to_string(&vec![1; 30]).unwrap();
        assert!(full_page(&thirty, "https://x/repos/o/r/issues"));
        let wrapped = format!("{{\"total_count\": 120, \"items\": {hundred}}}");
        assert!(full_page(&wrapped, "https://x/search/issues?per_page=100"));
    }
}
