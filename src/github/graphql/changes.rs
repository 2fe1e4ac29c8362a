//! What changed in a repository's PRs since an instant, for `poll`'s repeat tick: its PRs of
//! every state ordered by `updatedAt`, newest first (`Repository.pullRequests(orderBy: {field:
//! UPDATED_AT, direction: DESC})`, `IssueOrderField.UPDATED_AT`, "Order issues by update time",
//! in GitHub's GraphQL reference and the vendored schema), read down to the first older than
//! the instant. A PR's `updatedAt` moves with what is done to the PR itself: a push, a comment,
//! a review, a label (dlang/dlang-bot#99: "`updatedAt` of the PR gets updated with adding a
//! label"; actions/stale#1305: label changes "update the PR's `updated_at` timestamp"), an edit,
//! closing and merging. Checks and statuses belong to the commit, not the PR ("Statuses are
//! associated to commits, which aren't strongly associated to pull requests", vito/cadet#46;
//! "It sets the status of the commit, not the pull request",
//! myrotvorets/set-commit-status-action#765): a check completing leaves `updatedAt` where it
//! was, so `poll` reads the PRs it left waiting on checks again whatever this list says.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::parse;
use super::queries;
use super::reader::GraphqlReader;
use crate::github::client::ApiError;
use crate::github::model::timestamp;
use crate::github::reader::{malformed, ChangedPull};
use crate::item::RepoRef;

/// PRs per page of the list of changes: GitHub's largest page, at 1 point.
const CHANGES_PER_PAGE: u64 = 100;

impl GraphqlReader<'_> {
    /// The PRs of `repo` whose `updatedAt` is at or after `since`, newest first.
    pub(super) fn pulls_changed(
        &self,
        repo: &RepoRef,
        since: DateTime<Utc>,
    ) -> Result<Vec<ChangedPull>, ApiError> {
        let document = &queries::PULLS_CHANGED;
        let mut found = Vec::new();
        let mut after: Option<String> = None;
        let mut seen = HashSet::new();
        loop {
            let variables = json!({"owner": &*repo.owner, "name": &*repo.name,
                "first": CHANGES_PER_PAGE, "after": after});
            let answer = self.send(document, variables)?;
            let at = [json!("repository")];
            answer.only_under(document, &[at.to_vec()])?;
            if let Some(error) = answer.error_at(&at) {
                return Err(error.item_error());
            }
            let repository = answer.data.get("repository").unwrap_or(&Value::Null);
            if repository.is_null() {
                return Err(ApiError::Item {
                    status: Some(404),
                    message: format!("GitHub's GraphQL API knows no repository {repo}"),
                });
            }
            let page = parse::list(repository, "pullRequests").map_err(malformed)?;
            for node in &page.nodes {
                let pull = changed_pull(node).map_err(malformed)?;
                if pull.updated_at < since {
                    return Ok(found);
                }
                found.push(pull);
            }
            match page.next {
                Some(next) => {
                    parse::advance(&mut seen, document.name, Some(&next))?;
                    after = Some(next);
                }
                None => return Ok(found),
            }
        }
    }
}

fn changed_pull(node: &Value) -> Result<ChangedPull, crate::github::model::ParseError> {
    let number = node
        .get("number")
        .and_then(Value::as_u64)
        .ok_or_else(|| crate::github::model::ParseError::missing("number"))?;
    Ok(ChangedPull {
        number,
        updated_at: timestamp(node, "updatedAt")?,
        open: parse::string(node, "state")? == "OPEN",
        draft: node.get("isDraft").and_then(Value::as_bool) == Some(true),
    })
}
