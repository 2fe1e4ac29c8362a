//! "Get repository permissions for a user"
//! (https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user).

use serde_json::json;

use super::server::{error, reply, At, Reply};

pub(super) fn route(at: At<'_>) -> Reply {
    let At {
        world,
        method,
        segments,
        ..
    } = at;
    match (method, segments) {
        // "Get repository permissions for a user": `permission` is the base role (maintain reads as
        // write, triage as read), `role_name` the role itself
        // (https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user).
        ("GET", ["repos", owner, name, "collaborators", user, "permission"]) => {
            let repo = format!("{owner}/{name}");
            if !world.repos.contains(&repo) {
                return error(404, "Not Found");
            }
            if world.permissions_forbidden {
                return error(
                    403,
                    "Must have push access to view collaborator permission.",
                );
            }
            // An App's bot is no collaborator: the endpoint answers `none` for it
            // (anomalyco/opencode#43532), and 404 for the Copilot agent, whose login has no
            // `[bot]` (anthropics/claude-code-action#1018).
            let bot = super::world::account(user);
            if bot.bot && !user.ends_with("[bot]") {
                return error(404, "Not Found");
            }
            let role = world
                .roles
                .get(*user)
                .filter(|_| !bot.bot)
                .cloned()
                .or_else(|| bot.bot.then(|| "none".to_string()))
                .unwrap_or_else(|| "read".into());
            // `permission` is the base role: maintain reads as write, triage as read.
            let permission = match role.as_str() {
                "admin" => "admin",
                "maintain" | "write" => "write",
                "none" => "none",
                _ => "read",
            };
            reply(
                200,
                json!({"permission": permission, "role_name": role, "user": super::world::account(user).rest_json()}),
            )
        }
        _ => Reply::pass(),
    }
}
