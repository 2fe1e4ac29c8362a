//! The REST writer port: each write of the rules as the one request GitHub documents for it.

use crate::github::client::Method;
use chrono::{DateTime, Utc};
use serde_json::json;

use super::{branch_path, issue_path, pull_path, segment};
use crate::github::client::{Client, WriteError, WriteReceipt};
use crate::github::reader::Writer;
use crate::item::ItemRef;
use crate::policy::write::Write;

/// Whether GitHub refused a write because the item's conversation is locked
/// ([`Refusal::Locked`](crate::github::client::Refusal::Locked), as the client read its answer).
/// GitHub applied nothing, and the refusal is about that item alone.
pub(crate) fn refused_as_locked(error: &WriteError) -> bool {
    error.refusal == crate::github::client::Refusal::Locked && !error.outcome_unknown
}

/// Sends one write for one item. Removing a label that is already gone is success.
pub(super) fn send(
    client: &Client,
    item: &ItemRef,
    write: &Write,
) -> Result<Option<WriteReceipt>, WriteError> {
    let path = issue_path(item);
    match write {
        Write::AddLabels { labels } => client
            .write(
                Method::POST,
                &format!("{path}/labels"),
                Some(&json!({ "labels": labels })),
            )
            .map(Some),
        Write::RemoveLabel { label } if !crate::policy::stale::label_addressable(label) => {
            // `…/labels/..` would be normalised to `…/issues/{n}/` (and `.` to the
            // remove-all-labels endpoint): never send it. The config refuses such names, so
            // this is a last fence.
            Err(WriteError {
                status: None,
                message: format!("the label \"{label}\" cannot be addressed in a URL; not sent"),
                outcome_unknown: false,
                refusal: crate::github::client::Refusal::Other,
            })
        }
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
                body["state_reason"] = json!(reason.word());
            }
            client.write(Method::PATCH, &path, Some(&body)).map(Some)
        }
        // "Delete a reference": `DELETE /repos/{o}/{r}/git/refs/heads/{branch}`, 204 No Content.
        Write::DeleteBranch { branch } => client
            .write(
                Method::DELETE,
                &format!(
                    "/repos/{}/{}/git/refs/heads/{}",
                    item.repo.owner,
                    item.repo.name,
                    branch_path(branch)
                ),
                None,
            )
            .map(Some),
        Write::Merge { sha, method } => client
            .write(
                Method::PUT,
                &format!("{}/merge", pull_path(item)),
                Some(&json!({ "sha": sha, "merge_method": method.word() })),
            )
            .map(Some),
    }
}

/// Parses every entry of a list GitHub returned; a malformed entry is the item's failure.
impl Writer for Client {
    fn send(&self, item: &ItemRef, write: &Write) -> Result<Option<WriteReceipt>, WriteError> {
        send(self, item, write)
    }

    fn remaining(&self, resource: &str) -> Option<(i64, DateTime<Utc>)> {
        Client::remaining(self, resource)
    }

    fn html_url(&self, item: &str) -> Option<String> {
        Client::html_url(self, item)
    }
}
