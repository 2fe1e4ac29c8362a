//! The cache port for conditional requests: what the GitHub client asks of a place that keeps
//! answers between runs, and what a store backend implements. Below both `github/` and
//! `store/`, so neither imports the other.

/// An answer kept for conditional requests: its validators, body and next page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cached {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub body: String,
    pub next: Option<String>,
    /// The fingerprint of the token the validators were given to (the client's
    /// `token_fingerprint`).
    pub token: Option<String>,
}

/// Where answers are kept between runs, so a repeated read asks "changed since?" and a 304
/// (which GitHub does not charge against the rate limit) reuses the body. Best effort: a cache
/// that fails only costs requests.
pub trait ResponseCache {
    fn lookup(&self, url: &str) -> Option<Cached>;
    fn keep(&self, url: &str, cached: &Cached);
}

/// A cache that keeps nothing: every read is a full one.
pub struct NoCache;

impl ResponseCache for NoCache {
    fn lookup(&self, _url: &str) -> Option<Cached> {
        None
    }

    fn keep(&self, _url: &str, _cached: &Cached) {}
}
