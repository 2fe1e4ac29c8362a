//! A PR search through GraphQL: every page of it (only the first when it is over GitHub's
//! cap), each hit's PR kept for the merge rules' reads of it (`reader.rs`).

use serde_json::{json, Value};

use super::parse;
use super::queries;
use super::reader::GraphqlReader;
use super::transport::Answer;
use crate::github::client::ApiError;
use crate::github::model::PullFacts;
use crate::github::reader::{malformed, SearchHit, SearchPage};
use crate::github::rest::SEARCH_CAP;
use crate::item::{ItemRef, RepoRef};

impl GraphqlReader<'_> {
    /// Every page of the search (only the first when it is over GitHub's cap, which GraphQL's
    /// search shares: "up to 1,000 results for each search").
    pub(super) fn search_pages(&self, query: &str) -> Result<SearchPage, ApiError> {
        let query = format!("{query} sort:created-asc");
        let mut items = Vec::new();
        let mut after: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        let mut total;
        loop {
            let answer: Answer = self.send_shrinking(
                &queries::PULLS_PAGE,
                &self.pulls_page,
                |size| json!({"query": query, "first": size, "after": after}),
            )?;
            let asked = json!({"query": query, "first": self.pulls_page.get(), "after": after});
            let search = answer.data.get("search").cloned().unwrap_or(Value::Null);
            // `nodes` may be null by the schema; a null list of results is not "none".
            let nodes = parse::list(&answer.data, "search")
                .map_err(|why| ApiError::Harness {
                    message: format!("the search `{query}`: {why}"),
                })?
                .nodes;
            let at = |index: usize| vec![json!("search"), json!("nodes"), json!(index)];
            let on_items: Vec<Vec<Value>> = (0..nodes.len()).map(at).collect();
            answer.only_under(&queries::PULLS_PAGE, &on_items)?;
            total = search
                .get("issueCount")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            let mut named: Option<Value> = None;
            for (index, node) in nodes.iter().enumerate() {
                let error = answer.error_at(&at(index)).map(|error| error.item_error());
                if node.is_null() {
                    // A result GitHub could not serve: which PR it is comes from the same page
                    // asked again for numbers alone; that PR fails, the page goes on.
                    if named.is_none() {
                        named =
                            Some(self.page_numbers(&queries::PULLS_PAGE_NUMBERS, asked.clone())?);
                    }
                    let entry = named
                        .as_ref()
                        .and_then(|named| named.pointer(&format!("/search/nodes/{index}")));
                    items.push(unnamed_hit(&query, index, entry, error)?);
                    continue;
                }
                // A node of another type than the fragment's is an empty object.
                if node.get("number").is_none() && error.is_none() {
                    continue;
                }
                items.push(self.hit(node, error));
            }
            let more = search
                .pointer("/pageInfo/hasNextPage")
                .and_then(Value::as_bool);
            if let Some(sent) = &after {
                seen.insert(sent.clone());
            }
            after = search
                .pointer("/pageInfo/endCursor")
                .and_then(Value::as_str)
                .map(str::to_string);
            if total > SEARCH_CAP || more != Some(true) || after.is_none() {
                break;
            }
            parse::advance(&mut seen, queries::PULLS_PAGE.name, after.as_ref())?;
        }
        Ok(SearchPage {
            items,
            total,
            incomplete: false,
        })
    }

    /// A search hit as REST's search gives it: what the search matched (`is:open`), the
    /// labels, the draft flag, no head; the PR's own state comes with [`MergeReader::pull`].
    fn hit(&self, node: &Value, error: Option<ApiError>) -> SearchHit {
        let repo: Option<RepoRef> = node
            .pointer("/repository/nameWithOwner")
            .and_then(Value::as_str)
            .and_then(|name| name.parse().ok());
        let number = node.get("number").and_then(Value::as_u64);
        let draft = node.get("isDraft").and_then(Value::as_bool);
        let facts = match (error, &repo, number) {
            (Some(error), _, _) => Err(error),
            (None, Some(repo), Some(number)) => {
                let item = ItemRef::new(repo, number);
                self.keep_pull(&item, node)
                    .and_then(|()| {
                        Ok(PullFacts {
                            title: parse::string(node, "title")?,
                            labels: parse::label_names(node)?,
                            draft,
                            open: true,
                            head_sha: None,
                            merged: false,
                            mergeable: None,
                            mergeable_state: None,
                            base_ref: None,
                        })
                    })
                    .map_err(malformed)
            }
            _ => Err(malformed("the search result names no repository or number")),
        };
        SearchHit {
            repo,
            number,
            draft,
            facts,
        }
    }
}

/// A search result GitHub answered `null`, named by the page asked again for numbers: that
/// PR's failure, with the error GitHub gave (or none). When not even its number can be read
/// the page is not whole, and the listing ends with an error rather than drop it.
fn unnamed_hit(
    query: &str,
    index: usize,
    entry: Option<&Value>,
    error: Option<ApiError>,
) -> Result<SearchHit, ApiError> {
    let repo: Option<RepoRef> = entry
        .and_then(|entry| entry.pointer("/repository/nameWithOwner"))
        .and_then(Value::as_str)
        .and_then(|name| name.parse().ok());
    let number = entry
        .and_then(|entry| entry.get("number"))
        .and_then(Value::as_u64);
    let why = match &error {
        Some(error) => error.to_string(),
        None => "GitHub's search answered this PR `null`, with no error".to_string(),
    };
    match (repo, number) {
        (Some(repo), Some(number)) => Ok(SearchHit {
            repo: Some(repo),
            number: Some(number),
            draft: None,
            facts: Err(malformed(why)),
        }),
        _ => Err(ApiError::Harness {
            message: format!(
                "the search `{query}` answered its result {index} `null` ({why}) and GitHub would not say which PR it is"
            ),
        }),
    }
}
