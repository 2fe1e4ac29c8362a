//! A page of a repository's open items (`OpenItemsPage`) parsed into what the stale reader
//! takes of it: each item's own fields as JSON values (a few dozen of them), and its timeline,
//! up to 100 entries, reduced as it is parsed to the few the rules can tell apart
//! ([`TimelineField`]). Neither the page's text nor a tree of its timelines outlives the parse.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::parse::connection_ref;
use super::stale_parse::{Text, TimelineField};
use super::transport::{value_links, Data};
use crate::github::model::ParseError;

/// The page's `data`.
#[derive(Deserialize)]
pub(super) struct ItemsPage {
    /// `null` (or left out) when GitHub answered no repository.
    pub(super) repository: Option<ItemsRepo>,
    #[serde(rename = "rateLimit")]
    rate_limit: Option<Value>,
}

/// The repository's two lists; a list the page did not ask (`@include(if: false)`) is absent.
#[derive(Deserialize, Default)]
pub(super) struct ItemsRepo {
    issues: Option<ItemsList>,
    #[serde(rename = "pullRequests")]
    pull_requests: Option<ItemsList>,
}

/// One list's page: its nodes (`null` for an entry GitHub could not resolve) and where the
/// next page starts.
#[derive(Deserialize)]
struct ItemsList {
    #[serde(rename = "pageInfo", default)]
    page_info: Value,
    nodes: Option<Vec<Option<ItemNode>>>,
}

/// An issue's or PR's node: its fields but the timeline as JSON values, and the timeline
/// reduced.
pub(super) struct ItemNode {
    pub(super) fields: Value,
    pub(super) timeline: TimelineField,
}

impl ItemsRepo {
    /// The list `name` (`issues` or `pullRequests`), taken: its nodes and the cursor after
    /// them when there are more. A list GitHub answered `null`, or without its `nodes`, is a
    /// list nobody knows, never an empty one (as [`super::parse::list_ref`] says).
    pub(super) fn take(
        &mut self,
        name: &str,
    ) -> Result<(Vec<Option<ItemNode>>, Option<String>), ParseError> {
        let list = match name {
            "issues" => self.issues.take(),
            _ => self.pull_requests.take(),
        };
        let Some(list) = list else {
            return Err(ParseError::NullList {
                field: name.to_string(),
            });
        };
        let Some(nodes) = list.nodes else {
            return Err(ParseError::NullNodes {
                field: name.to_string(),
            });
        };
        let info = serde_json::json!({ "list": { "pageInfo": list.page_info } });
        Ok((nodes, connection_ref(&info, "list").next))
    }

    fn nodes(&self) -> impl Iterator<Item = &ItemNode> {
        [&self.issues, &self.pull_requests]
            .into_iter()
            .flatten()
            .flat_map(|list| list.nodes.iter().flatten().flatten())
    }
}

impl Data for ItemsPage {
    fn rate_limit(&self) -> Option<&Value> {
        self.rate_limit.as_ref()
    }

    fn links<'a>(&'a self, note: &mut dyn FnMut(&'a str)) {
        for node in self.repository.iter().flat_map(ItemsRepo::nodes) {
            value_links(&node.fields, note);
        }
    }
}

impl<'de> Deserialize<'de> for ItemNode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = ItemNode;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("an issue or pull request")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<ItemNode, M::Error> {
                let mut fields = Map::new();
                let mut timeline = TimelineField::Missing;
                while let Some(name) = map.next_key::<Text<'de>>()? {
                    if name.0 == "timelineItems" {
                        timeline = map.next_value()?;
                    } else {
                        fields.insert(name.0.into_owned(), map.next_value()?);
                    }
                }
                Ok(ItemNode {
                    fields: Value::Object(fields),
                    timeline,
                })
            }
        }
        deserializer.deserialize_map(Visit)
    }
}
