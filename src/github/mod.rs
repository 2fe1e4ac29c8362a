//! Talking to GitHub: the client (every request goes through it), snapshots, and the JSON
//! model. The REST calls gh-sweep makes are named here, one function each.

pub mod client;
pub mod model;
pub mod snapshot;

use reqwest::Method;
use serde_json::{json, Value};

pub use client::{ApiError, Client, WriteError, Written};

use crate::item::{ItemRef, RepoRef};
use crate::policy::write::Write;

/// Percent-encodes a path segment (label names may hold spaces and slashes).
fn segment(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn issue_path(item: &ItemRef) -> String {
    format!(
        "/repos/{}/{}/issues/{}",
        item.repo.owner, item.repo.name, item.number
    )
}

/// Open issues and PRs, oldest first, 100 per page.
pub fn open_items(client: &Client, repo: &RepoRef) -> Result<Vec<Value>, ApiError> {
    client.get_all(&format!(
        "/repos/{}/{}/issues?state=open&sort=created&direction=asc&per_page=100",
        repo.owner, repo.name
    ))
}

pub fn item(client: &Client, item: &ItemRef) -> Result<Value, ApiError> {
    client.get(&issue_path(item))
}

pub fn events(client: &Client, item: &ItemRef) -> Result<Vec<Value>, ApiError> {
    client.get_all(&format!("{}/events?per_page=100", issue_path(item)))
}

pub fn comments_since(
    client: &Client,
    item: &ItemRef,
    since: &str,
) -> Result<Vec<Value>, ApiError> {
    client.get_all(&format!(
        "{}/comments?since={since}&per_page=100",
        issue_path(item)
    ))
}

/// The token's own login, or `None` when the token cannot say (an app installation token).
pub fn viewer(client: &Client) -> Result<Option<String>, ApiError> {
    match client.get("/user") {
        Ok(user) => Ok(user
            .get("login")
            .and_then(Value::as_str)
            .map(str::to_string)),
        Err(ApiError::Auth { status: 403, .. }) | Err(ApiError::Item { .. }) => Ok(None),
        Err(error) => Err(error),
    }
}

/// Sends one write for one item. Removing a label that is already gone is success.
pub fn send(client: &Client, item: &ItemRef, write: &Write) -> Result<Option<Written>, WriteError> {
    let path = issue_path(item);
    match write {
        Write::AddLabels { labels } => client
            .write(
                Method::POST,
                &format!("{path}/labels"),
                Some(&json!({ "labels": labels })),
            )
            .map(Some),
        Write::RemoveLabel { label } => {
            match client.write(
                Method::DELETE,
                &format!("{path}/labels/{}", segment(label)),
                None,
            ) {
                Err(WriteError {
                    status: Some(404), ..
                }) => Ok(None),
                other => other.map(Some),
            }
        }
        Write::Comment { body, .. } => client
            .write(
                Method::POST,
                &format!("{path}/comments"),
                Some(&json!({ "body": body })),
            )
            .map(Some),
        Write::Close { reason } => {
            let mut body = json!({ "state": "closed" });
            if let Some(reason) = reason {
                body["state_reason"] = json!(reason);
            }
            client.write(Method::PATCH, &path, Some(&body)).map(Some)
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn encodes_label_names() {
        assert_eq!(super::segment("needs info/triage"), "needs%20info%2Ftriage");
    }
}
