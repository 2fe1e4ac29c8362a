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

/// Whether an answer to `url` is worth keeping for a later run: not a list of what changed in a
/// repository since an instant (`GET /repos/{o}/{r}/issues?since=…`, the recheck before
/// writes), whose URL names a moment that never comes again, so no later read asks for it
/// (each used to be kept for a week, for nothing). An item's comments since its stale label
/// do repeat, run after run, and are kept.
pub(crate) fn worth_keeping(url: &str) -> bool {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let repository_list = path
        .rsplit_once("/repos/")
        .is_some_and(|(_, rest)| rest.split('/').count() == 3 && rest.ends_with("/issues"));
    !(repository_list && query.split('&').any(|pair| pair.starts_with("since=")))
}

/// A cache that keeps nothing: every read is a full one.
pub(crate) struct NoCache;

impl ResponseCache for NoCache {
    fn lookup(&self, _url: &str) -> Option<Cached> {
        None
    }

    fn keep(&self, _url: &str, _cached: &Cached) {}
}

#[cfg(test)]
mod tests {
    use super::worth_keeping;

    #[test]
    fn a_list_of_changes_since_an_instant_is_not_kept_but_an_items_comments_since_are() {
        let base = "https://api.github.com/repos/o/r";
        assert!(!worth_keeping(&format!(
            "{base}/issues?state=all&since=2026-12-01T10:00:00Z&sort=created&direction=asc&per_page=100"
        )));
        assert!(!worth_keeping(&format!(
            "{base}/issues?page=2&since=2026-12-01T10:00:00Z"
        )));
        assert!(worth_keeping(&format!(
            "{base}/issues/3/comments?since=2026-12-01T10:00:00Z&per_page=100"
        )));
        assert!(worth_keeping(&format!(
            "{base}/issues?state=open&per_page=100"
        )));
        assert!(worth_keeping(&format!("{base}/issues/3")));
    }
}
