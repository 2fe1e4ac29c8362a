//! Reading a rerun line's items ahead, in batches: one query of aliased
//! `issueOrPullRequest(number:)` (stale) or `pullRequest(number:)` (merge) fields per batch,
//! never a search (search has no number qualifier and its index lags). What a batch carried of
//! each item is kept until the item is read, as a page's entries are; an item the batch could
//! not read keeps its own failure, and the rest of the batch goes on.

use std::cell::Cell;

use serde_json::{json, Value};

use super::queries::{self, Alias, Document};
use super::reader::GraphqlReader;
use super::stale_parse::TimelineField;
use super::transport::{self, Answer};
use crate::github::client::ApiError;
use crate::github::reader::malformed;
use crate::item::ItemRef;

/// Issues (and PRs, for the stale rules) per batch: as many as a page of open items holds.
const ITEMS_PER_BATCH: u64 = super::stale_entry::ITEMS_PER_PAGE;

fn key(item: &ItemRef) -> String {
    item.to_string().to_ascii_lowercase()
}

/// Each item's node in a batch's answer, or its failure: the repository's or the item's error
/// (by its `path`), or, for a `null` with no error, "not found", as a single read says.
pub(super) fn each_node<'x>(
    answer: &'x Answer,
    document: &Document,
    items: &[ItemRef],
    aliases: &[Alias],
) -> Result<Vec<Result<&'x Value, ApiError>>, ApiError> {
    let repos: Vec<Vec<Value>> = aliases
        .iter()
        .map(|alias| vec![json!(alias.repo)])
        .collect();
    answer.only_under(document, &repos)?;
    Ok(items
        .iter()
        .zip(aliases)
        .map(|(item, alias)| {
            let at = [json!(alias.repo), json!(alias.item)];
            // The repository's own error (a repository GitHub does not know) is at its alias
            // alone; an item's, at or below the item's.
            let repository = answer.errors.iter().find(|error| error.path == at[..1]);
            if let Some(error) = answer.error_at(&at).or(repository) {
                return Err(error.item_error());
            }
            answer
                .data
                .get(&alias.repo)
                .and_then(|repository| repository.get(&alias.item))
                .filter(|node| !node.is_null())
                .ok_or_else(|| ApiError::Item {
                    status: Some(404),
                    message: format!(
                        "GitHub's GraphQL API knows no {} {item}",
                        document_noun(document)
                    ),
                })
        })
        .collect())
}

fn document_noun(document: &Document) -> &'static str {
    if document.name == "Pulls" {
        "pull request"
    } else {
        "issue or PR"
    }
}

impl GraphqlReader<'_> {
    /// Sends batches of `items` of `size` (which shrinks for the rest of the run each time
    /// GitHub cuts a query off at its time limit, as a page's does), handing each item its
    /// node or its failure. A failure of a whole batch (an outage, the token) is each of its
    /// items' answer and ends the reading ahead: the first of them to be read stops the run.
    fn read_ahead(
        &self,
        items: &[ItemRef],
        size: &Cell<u64>,
        build: fn(&[ItemRef]) -> queries::Batch,
        keep: &dyn Fn(&ItemRef, Result<&Value, ApiError>),
    ) {
        let mut askable = Vec::new();
        for item in items {
            match queries::askable(item) {
                Ok(_) => askable.push(item.clone()),
                Err(why) => keep(
                    item,
                    Err(ApiError::Item {
                        status: Some(404),
                        message: why.to_string(),
                    }),
                ),
            }
        }
        let mut rest: &[ItemRef] = &askable;
        while !rest.is_empty() {
            let take = (size.get() as usize).clamp(1, rest.len());
            let batch = &rest[..take];
            let (document, variables, aliases) = build(batch);
            self.queries.set(self.queries.get() + 1);
            let sent = transport::send_page(self.client, &document, variables, &self.points, true);
            let answer = match sent {
                Ok(Some(answer)) => answer,
                Ok(None) if size.get() > super::reader::SMALLEST_PAGE => {
                    size.set((size.get() / 2).max(super::reader::SMALLEST_PAGE));
                    continue;
                }
                Ok(None) => {
                    let error = ApiError::Harness {
                        message: format!(
                            "GitHub cut {} off at its time limit, even for {take} items",
                            document.name
                        ),
                    };
                    batch.iter().for_each(|item| keep(item, Err(error.clone())));
                    return;
                }
                Err(error) => {
                    batch.iter().for_each(|item| keep(item, Err(error.clone())));
                    return;
                }
            };
            match each_node(&answer, &document, batch, &aliases) {
                Ok(nodes) => {
                    for (item, node) in batch.iter().zip(nodes) {
                        keep(item, node);
                    }
                }
                Err(error) => {
                    batch.iter().for_each(|item| keep(item, Err(error.clone())));
                    return;
                }
            }
            rest = &rest[take..];
        }
    }

    /// Reads the stale rules' facts of `items` ahead, kept until each is read.
    pub(super) fn items_ahead(&self, items: &[ItemRef]) {
        let size = Cell::new(ITEMS_PER_BATCH);
        self.read_ahead(items, &size, queries::items, &|item, node| {
            let facts = node.and_then(|node| {
                let timeline = TimelineField::of(node).map_err(malformed)?;
                let facts = self.facts_of(item, node, &timeline)?;
                self.keep(item, timeline, &facts, false);
                Ok(facts)
            });
            self.items_read_ahead.borrow_mut().insert(key(item), facts);
        });
    }

    /// Reads the merge rules' facts of `items` ahead, kept until each is read.
    pub(super) fn pulls_ahead(&self, items: &[ItemRef]) {
        self.read_ahead(items, &self.pulls_page, queries::pulls, &|item, node| {
            let kept = node.and_then(|node| self.keep_pull(item, node).map_err(malformed));
            if let Err(error) = kept {
                self.pulls_read_ahead.borrow_mut().insert(key(item), error);
            }
        });
    }
}
