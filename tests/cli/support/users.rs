//! The token's user: "Get the authenticated user" (`GET /user`,
//! https://docs.github.com/rest/users/users#get-the-authenticated-user).

use serde_json::json;

use super::server::{reply, At, Reply};

pub(super) fn route(at: At<'_>) -> Reply {
    let At {
        world,
        method,
        segments,
        viewer,
        ..
    } = at;
    match (method, segments) {
        // An app or installation token, `GITHUB_TOKEN` included, has no user: GitHub answers
        // 403 "Resource not accessible by integration" ("Get the authenticated user",
        // https://docs.github.com/rest/users/users#get-the-authenticated-user; as recorded in
        // e.g. actions/create-github-app-token#258 and mislav/hub#2149).
        ("GET", ["user"]) if world.viewer_app => reply(
            403,
            json!({"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user", "status": "403"}),
        ),
        ("GET", ["user"]) => reply(200, json!({"login": viewer, "type": "User"})),
        _ => Reply::pass(),
    }
}
