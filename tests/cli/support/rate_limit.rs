//! "Get rate limit status for the authenticated user" (`GET /rate_limit`,
//! https://docs.github.com/rest/rate-limit/rate-limit).

use serde_json::json;

use super::server::{reply, At, Reply};

pub(super) fn route(at: At<'_>) -> Reply {
    let At {
        method,
        segments,
        now,
        ..
    } = at;
    match (method, segments) {
        // "Get rate limit status for the authenticated user": free of rate limit; like every
        // answer it carries GitHub's `Date` (https://docs.github.com/rest/rate-limit/rate-limit).
        ("GET", ["rate_limit"]) => {
            let core = json!({"limit": 5000, "remaining": 5000, "reset": (now + chrono::Duration::hours(1)).timestamp(), "used": 0});
            reply(200, json!({"resources": {"core": core}, "rate": core}))
        }
        _ => Reply::pass(),
    }
}
