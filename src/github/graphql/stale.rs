//! The stale rules' reads over GraphQL: a page of 100 open issues and 100 open PRs carries
//! each item's facts and the newest 100 entries of its timeline of the kinds that explain an
//! `updatedAt` (label events, comments, reviews, pushes). An item's events, comments since a
//! time and timeline activity are answered from those entries, each once; older entries are
//! read, for that item alone, only when the page said there were more. An item not on a page
//! (`--only`, a recheck before writing, a reconcile) is read by itself.

use std::collections::{BTreeMap, HashSet};
use std::rc::Rc;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::parse::string;
use super::queries;
use super::reader::GraphqlReader;
use super::stale_entry::{leaves_open, Ask, ItemEntry, Timeline, TimelineRead};
use super::stale_page::{ItemNode, ItemsPage};
use super::stale_parse::{self, TimelineField};
use super::transport::Answer;
use crate::github::client::ApiError;
use crate::github::model::Event;
use crate::github::reader::{malformed, Comment, ListedItem, StaleReader};
use crate::item::{ItemRef, RepoRef};
use crate::policy::stale::{Activity, HeadBranch, ItemFacts};

fn key(item: &ItemRef) -> String {
    item.to_string().to_ascii_lowercase()
}

fn variables(repo: &RepoRef) -> serde_json::Map<String, Value> {
    let mut map = serde_json::Map::new();
    map.insert("owner".into(), json!(&*repo.owner));
    map.insert("name".into(), json!(&*repo.name));
    map
}

/// The error at `["repository"]` (a repository GitHub does not know) as the listing's failure;
/// `repository: null` with no error, a repository GitHub did not answer, as REST's 404 is,
/// never one with nothing open.
fn repository_error<D>(repo: &RepoRef, answer: &Answer<D>, null: bool) -> Result<(), ApiError> {
    match answer.error_at(&[json!("repository")]) {
        Some(error) if error.path.len() <= 2 => return Err(error.item_error()),
        _ => {}
    }
    if null {
        return Err(ApiError::Item {
            status: Some(404),
            message: format!(
                "GitHub's GraphQL API answered `repository: null` for {repo}, with no error"
            ),
        });
    }
    Ok(())
}

/// A page of open items' variables: `size` of each list still `open`, after its cursor.
fn page_variables(
    repo: &RepoRef,
    size: u64,
    open: &BTreeMap<&str, bool>,
    cursors: &BTreeMap<&str, Option<String>>,
) -> Value {
    let mut vars = variables(repo);
    vars.insert("first".into(), json!(size));
    vars.insert("issues".into(), json!(open["issues"]));
    let after = |list: &str| json!(cursors.get(list).cloned().flatten());
    vars.insert("issuesAfter".into(), after("issues"));
    vars.insert("pulls".into(), json!(open["pullRequests"]));
    vars.insert("pullsAfter".into(), after("pullRequests"));
    Value::Object(vars)
}

impl GraphqlReader<'_> {
    /// An item's facts from its node, whole: labels or assignees past their first page are
    /// read by REST.
    pub(super) fn facts_of(
        &self,
        item: &ItemRef,
        node: &Value,
        timeline: &TimelineField,
    ) -> Result<ItemFacts, ApiError> {
        let (facts, more) = stale_parse::item_facts(node, timeline).map_err(malformed)?;
        if more {
            return self.client.item(item);
        }
        Ok(facts)
    }

    /// The labels an item's stale label may be: the stale label of its kind when the reader
    /// knows it and the item carries it, else every label of the item.
    fn stale_label_candidates(&self, facts: &ItemFacts) -> Vec<Rc<str>> {
        let mut names = self.names.borrow_mut();
        match &self.stale_labels {
            Some([issue, pull]) => {
                let label = if facts.is_pr { pull } else { issue };
                if facts.has_label(label) {
                    vec![names.get(label)]
                } else {
                    Vec::new()
                }
            }
            None => facts.labels.iter().map(|label| names.get(label)).collect(),
        }
    }

    /// Keeps what an item's node carried of its timeline, reduced, for its reads to come. An
    /// item on a page that cannot carry the stale label keeps nothing: the stale rules never
    /// read its history, and a read of it reads the item again.
    pub(super) fn keep(
        &self,
        item: &ItemRef,
        timeline: TimelineField,
        facts: &ItemFacts,
        on_page: bool,
    ) {
        let labels = self.stale_label_candidates(facts);
        let mut items = self.items.borrow_mut();
        if on_page && labels.is_empty() {
            items.remove(&key(item));
            return;
        }
        let mut timeline = timeline.into_timeline();
        timeline.intern(&mut self.names.borrow_mut());
        items.insert(key(item), ItemEntry::new(timeline, labels));
    }

    /// Reads one issue or PR by itself and keeps its timeline entries.
    fn read_item(&self, item: &ItemRef) -> Result<ItemFacts, ApiError> {
        super::queries::askable(item).map_err(|why| ApiError::Item {
            status: Some(404),
            message: why.to_string(),
        })?;
        let mut vars = variables(&item.repo);
        vars.insert("number".into(), json!(item.number));
        let answer = self.send(&queries::ITEM, Value::Object(vars))?;
        answer.only_under(&queries::ITEM, &[vec![json!("repository")]])?;
        if let Some(error) = answer.item_error_at(&[json!("repository")]) {
            return Err(error.item_error());
        }
        let node = answer
            .data
            .pointer("/repository/issueOrPullRequest")
            .filter(|node| !node.is_null())
            .ok_or_else(|| ApiError::Item {
                status: Some(404),
                message: format!("GitHub's GraphQL API knows no issue or PR {item}"),
            })?;
        let timeline = TimelineField::of(node).map_err(malformed)?;
        let facts = self.facts_of(item, node, &timeline)?;
        self.keep(item, timeline, &facts, false);
        Ok(facts)
    }

    /// Makes the item's kept timeline answer `read`: the page's, read afresh when this read
    /// already took it (or the page kept nothing), and its older entries read when the
    /// entries kept leave `ask` open ([`leaves_open`]).
    fn timeline_for(
        &self,
        item: &ItemRef,
        read: TimelineRead,
        ask: impl Fn(&ItemEntry) -> Ask<'_>,
    ) -> Result<(), ApiError> {
        let kept = self
            .items
            .borrow_mut()
            .get_mut(&key(item))
            .is_some_and(|entry| entry.take(read));
        if !kept {
            self.read_item(item)?;
            if let Some(entry) = self.items.borrow_mut().get_mut(&key(item)) {
                entry.take(read);
            }
        }
        // A page back at a time, until what is kept settles the read.
        let mut seen = HashSet::new();
        loop {
            let open = self
                .items
                .borrow()
                .get(&key(item))
                .filter(|entry| leaves_open(&entry.timeline, ask(entry)))
                .map(|entry| entry.timeline.before.clone());
            let before = match open {
                None => return Ok(()),
                Some(None) => {
                    return Err(malformed(format!(
                        "GitHub said {item}'s timeline has older entries and gave no cursor to them"
                    )))
                }
                Some(Some(before)) => before,
            };
            seen.insert(before.clone());
            let older = self.older_page(item, before)?;
            super::parse::advance(
                &mut seen,
                queries::ITEM_TIMELINE.name,
                older.before.as_ref(),
            )?;
            if let Some(entry) = self.items.borrow_mut().get_mut(&key(item)) {
                entry.timeline.prepend(older);
            }
        }
    }

    /// The page of entries before `before`, reduced.
    fn older_page(&self, item: &ItemRef, before: String) -> Result<Timeline, ApiError> {
        let mut vars = variables(&item.repo);
        vars.insert("number".into(), json!(item.number));
        vars.insert("before".into(), json!(before));
        let answer = self.send(&queries::ITEM_TIMELINE, Value::Object(vars))?;
        answer.only_under(&queries::ITEM_TIMELINE, &[vec![json!("repository")]])?;
        if let Some(error) = answer.item_error_at(&[json!("repository")]) {
            return Err(error.item_error());
        }
        // The item gone between two reads, or no timeline: its older entries are unknown.
        let node = answer
            .data
            .pointer("/repository/issueOrPullRequest")
            .filter(|node| !node.is_null())
            .ok_or_else(|| {
                malformed(format!(
                    "GitHub answered {item} `null`, with no error, while reading its older timeline entries"
                ))
            })?;
        super::parse::list_ref(node, "timelineItems").map_err(malformed)?;
        stale_parse::timeline(node, &mut self.names.borrow_mut()).map_err(malformed)
    }

    /// The open issues and PRs of a repository, oldest first.
    pub(super) fn open_items_page(&self, repo: &RepoRef) -> Result<Vec<ListedItem>, ApiError> {
        let mut cursors: BTreeMap<&str, Option<String>> = BTreeMap::new();
        let mut open: BTreeMap<&str, bool> = [("issues", true), ("pullRequests", true)].into();
        let mut found: Vec<(Option<DateTime<Utc>>, u64, ListedItem)> = Vec::new();
        let mut seen: BTreeMap<&str, HashSet<String>> = BTreeMap::new();
        while open.values().any(|more| *more) {
            let page_variables = |size: u64| page_variables(repo, size, &open, &cursors);
            let mut answer: Answer<ItemsPage> =
                self.send_shrinking(&queries::OPEN_ITEMS_PAGE, &self.items_page, page_variables)?;
            let asked = page_variables(self.items_page.get());
            let repository = answer.data.repository.take();
            repository_error(repo, &answer, repository.is_none())?;
            let mut repository = repository.unwrap_or_default();
            let lists = ["issues", "pullRequests"];
            let on_items: Vec<Vec<Value>> = lists
                .iter()
                .map(|list| vec![json!("repository"), json!(list), json!("nodes")])
                .collect();
            answer.only_under(&queries::OPEN_ITEMS_PAGE, &on_items)?;
            let lists_asked: Vec<&str> = lists.into_iter().filter(|list| open[list]).collect();
            let mut named: Option<Value> = None;
            for list in lists_asked {
                let (nodes, next) = repository.take(list).map_err(|why| ApiError::Harness {
                    message: format!("listing {repo}: {why}"),
                })?;
                for (index, node) in nodes.into_iter().enumerate() {
                    let Some(node) = node else {
                        // Which item it is comes from the same page asked again for numbers
                        // alone; that item fails, the page goes on.
                        if named.is_none() {
                            named = Some(
                                self.page_numbers(&queries::OPEN_ITEM_NUMBERS, asked.clone())?,
                            );
                        }
                        let number = named
                            .as_ref()
                            .and_then(|named| {
                                named.pointer(&format!("/repository/{list}/nodes/{index}/number"))
                            })
                            .and_then(Value::as_u64);
                        found.push(unnamed(repo, list, index, number, &answer)?);
                        continue;
                    };
                    found.push(self.listed(repo, list, index, node, &answer));
                }
                let seen = seen.entry(list).or_default();
                if let Some(Some(sent)) = cursors.get(list) {
                    seen.insert(sent.clone());
                }
                super::parse::advance(seen, queries::OPEN_ITEMS_PAGE.name, next.as_ref())?;
                open.insert(list, next.is_some());
                cursors.insert(list, next);
            }
        }
        found.sort_by_key(|(created, number, _)| (*created, *number));
        Ok(found.into_iter().map(|(_, _, listed)| listed).collect())
    }

    fn listed(
        &self,
        repo: &RepoRef,
        list: &str,
        index: usize,
        node: ItemNode,
        answer: &Answer<ItemsPage>,
    ) -> (Option<DateTime<Utc>>, u64, ListedItem) {
        let ItemNode { fields, timeline } = node;
        let number = fields.get("number").and_then(Value::as_u64);
        let created = string(&fields, "createdAt")
            .ok()
            .and_then(|text| DateTime::parse_from_rfc3339(&text).ok())
            .map(|time| time.with_timezone(&Utc));
        let path = [
            json!("repository"),
            json!(list),
            json!("nodes"),
            json!(index),
        ];
        let facts = match (answer.item_error_at(&path), number) {
            (Some(error), _) => Err(error.item_error()),
            (None, Some(number)) => {
                let item = ItemRef::new(repo, number);
                let facts = self.facts_of(&item, &fields, &timeline);
                if let Ok(facts) = &facts {
                    self.keep(&item, timeline, facts, true);
                }
                facts
            }
            (None, None) => Err(malformed("the entry has no `number`")),
        };
        (created, number.unwrap_or(0), ListedItem { number, facts })
    }

    /// An item's facts: as a batch read them ahead, once; else read by itself.
    pub(super) fn item_facts(&self, item: &ItemRef) -> Result<ItemFacts, ApiError> {
        if let Some(read) = self.items_read_ahead.borrow_mut().remove(&key(item)) {
            return read;
        }
        self.read_item(item)
    }

    /// The item's issue events from its timeline, unless the timeline cannot be trusted to
    /// name them as REST does: an entry GitHub answered `null` (a label since deleted), or a
    /// label event whose live label changed after it (a rename: GraphQL may show the label's
    /// name now, REST the name it had then). Those items' events are REST's.
    pub(super) fn item_events(&self, item: &ItemRef) -> Result<Vec<Event>, ApiError> {
        self.timeline_for(item, TimelineRead::Events, |entry| Ask::Events {
            labels: &entry.labels,
        })?;
        let mut items = self.items.borrow_mut();
        let Some(entry) = items.get_mut(&key(item)) else {
            return Ok(Vec::new());
        };
        if entry.timeline.doubt {
            drop(items);
            return StaleReader::events(self.client, item);
        }
        if let Some(why) = entry.timeline.error(TimelineRead::Events) {
            return Err(malformed(why.clone()));
        }
        entry.events_after = entry.timeline.after;
        Ok(entry.timeline.events())
    }

    /// The comments created since `since` (REST's `since` is by update; a comment's creation
    /// is what the stale rules and a reconcile look at). When the events were answered from
    /// fewer entries than `since` reaches back to (the stale label's date as the store has
    /// it, older than the events showed), the events they left out come first, as activity
    /// like a comment's: the rules judge each the same.
    pub(super) fn item_comments_since(
        &self,
        item: &ItemRef,
        since: DateTime<Utc>,
    ) -> Result<Vec<Comment>, ApiError> {
        self.timeline_for(item, TimelineRead::Comments, |_| Ask::CommentsSince(since))?;
        let mut items = self.items.borrow_mut();
        let Some(entry) = items.get_mut(&key(item)) else {
            return Ok(Vec::new());
        };
        entry.since = Some(since);
        if let Some(why) = entry.timeline.error(TimelineRead::Comments) {
            return Err(malformed(why.clone()));
        }
        let left_out = entry.events_after.take().filter(|after| since <= *after);
        let comments = entry.timeline.comments();
        let events = match left_out {
            Some(_) if !entry.timeline.doubt => Some(entry.timeline.events()),
            _ => None,
        };
        drop(items);
        let mut found = Vec::new();
        if let Some(after) = left_out {
            let events = match events {
                Some(events) => events,
                None => StaleReader::events(self.client, item)?,
            };
            found.extend(
                events
                    .into_iter()
                    .filter(|event| event.activity.at > since && event.activity.at <= after)
                    .map(|event| Comment {
                        activity: event.activity,
                        body: String::new(),
                    }),
            );
        }
        found.extend(
            comments
                .into_iter()
                .filter(|comment| comment.activity.at >= since),
        );
        Ok(found)
    }

    pub(super) fn item_timeline(&self, item: &ItemRef) -> Result<Vec<Activity>, ApiError> {
        self.timeline_for(item, TimelineRead::Timeline, |entry| {
            Ask::TimelineSince(entry.since)
        })?;
        let items = self.items.borrow();
        let Some(entry) = items.get(&key(item)) else {
            return Ok(Vec::new());
        };
        if let Some(why) = entry.timeline.error(TimelineRead::Timeline) {
            return Err(malformed(why.clone()));
        }
        Ok(entry.timeline.timeline())
    }
}

/// An entry of a page of open items GitHub answered `null`: that item's failure, with the
/// error whose `path` names it (or none), once the page asked again names its number. Without
/// a number the listing is not whole, and it ends with an error rather than drop the entry.
fn unnamed(
    repo: &RepoRef,
    list: &str,
    index: usize,
    number: Option<u64>,
    answer: &Answer<ItemsPage>,
) -> Result<(Option<DateTime<Utc>>, u64, ListedItem), ApiError> {
    let path = [
        json!("repository"),
        json!(list),
        json!("nodes"),
        json!(index),
    ];
    let why = match answer.error_at(&path) {
        Some(error) => error.item_error().to_string(),
        None => format!(
            "GitHub's list of {repo}'s open {list} answered this entry `null`, with no error"
        ),
    };
    let Some(number) = number else {
        return Err(ApiError::Harness {
            message: format!(
                "listing {repo}: entry {index} of its open {list} is `null` ({why}) and GitHub would not say which item it is"
            ),
        });
    };
    Ok((
        None,
        number,
        ListedItem {
            number: Some(number),
            facts: Err(malformed(why)),
        },
    ))
}

impl StaleReader for GraphqlReader<'_> {
    fn open_items(&self, repo: &RepoRef) -> Result<Vec<ListedItem>, ApiError> {
        self.open_items_page(repo)
    }

    fn item(&self, item: &ItemRef) -> Result<ItemFacts, ApiError> {
        self.item_facts(item)
    }

    fn events(&self, item: &ItemRef) -> Result<Vec<Event>, ApiError> {
        self.item_events(item)
    }

    /// REST's "Get an issue": GraphQL gives a PR's pull request stamp only.
    fn issue_stamp(&self, item: &ItemRef) -> Result<DateTime<Utc>, ApiError> {
        StaleReader::item(self.client, item).map(|facts| facts.updated_at)
    }

    /// REST's list of the item's issue events.
    fn events_in_full(&self, item: &ItemRef) -> Result<Option<Vec<Event>>, ApiError> {
        StaleReader::events(self.client, item).map(Some)
    }

    fn comments_since(
        &self,
        item: &ItemRef,
        since: DateTime<Utc>,
    ) -> Result<Vec<Comment>, ApiError> {
        self.item_comments_since(item, since)
    }

    fn timeline(&self, item: &ItemRef) -> Result<Vec<Activity>, ApiError> {
        self.item_timeline(item)
    }

    fn items_ahead(&self, items: &[ItemRef]) {
        GraphqlReader::items_ahead(self, items);
    }

    fn read_phase_over(&self) {
        self.items.borrow_mut().clear();
    }

    fn done_reading(&self, item: &ItemRef) {
        self.items.borrow_mut().remove(&key(item));
    }

    /// By REST's list of issues: GraphQL's `issues(filterBy: {since})` has no PRs, and
    /// `pullRequests` no `since` at all (GraphQL docs, `IssueFilters` and
    /// `Repository.pullRequests`).
    fn changed_since(
        &self,
        repo: &RepoRef,
        since: DateTime<Utc>,
    ) -> Result<Vec<(u64, DateTime<Utc>)>, ApiError> {
        self.client.changed_since(repo, since)
    }

    /// Read through REST, once per PR closed with `delete_branch`.
    fn head_branch(&self, item: &ItemRef) -> Result<Option<HeadBranch>, ApiError> {
        self.client.head_branch(item)
    }
}
