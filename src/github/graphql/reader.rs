//! `GraphqlReader`: the reader port over GitHub's GraphQL API. A page of a PR search carries
//! each PR's files, reviews and head checks; the per-item reads answer from what the page
//! carried, each fact once (a later read of the same fact, such as a recheck before a merge,
//! asks GitHub again). A nested connection longer than its first page is followed for that PR
//! alone; a PR not on any page is read by itself; a PR with a `RENAMED` file gets one REST files
//! read, GraphQL's changed files carrying no previous path. What GraphQL does not carry (a
//! reviewer's permission, merge settings, branch rules, workflow runs) is REST's, through the
//! same client. The stale rules' reads, and its
//! `StaleReader`, are in `stale.rs`.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::parse::{self, Connection, RollupContext};
use super::queries::{self, Document};
use super::transport::{self, Answer, Data};
use crate::github::client::{ApiError, Client};
use crate::github::model::{ParseError, PullFacts};
use crate::github::reader::{malformed, CommonReader, MergeReader, Repository, SearchPage};
use crate::item::{ItemRef, RepoRef};
use crate::policy::merge::{
    Access, BranchRules, ChangedFile, CheckRun, CheckSuite, ClassicProtection, MergeSettings,
    Review, Statuses, WorkflowRun,
};
use crate::policy::stale::ItemFacts;

/// PRs per search page at first. Pages of 100 PRs with their files and checks can pass GitHub's
/// 10-second execution limit (Prow's Tide pages at 37): gh-sweep asks 50 at a time, and fewer
/// once GitHub cuts a page off.
pub(crate) const PULLS_PER_PAGE: u64 = 50;

/// What one page carried of one PR, each fact kept until it is read.
#[derive(Default)]
pub(super) struct PullEntry {
    facts: Option<PullFacts>,
    pub(super) files: Option<Connection>,
    reviews: Option<Connection>,
}

/// What one page carried of a head commit's checks.
#[derive(Default)]
struct HeadEntry {
    contexts: Option<Connection>,
    suites: Option<Connection>,
    runs: Option<Vec<CheckRun>>,
    statuses: Option<Statuses>,
    /// How many of the rollup's check runs each suite (by id) holds.
    suite_runs: Option<BTreeMap<u64, u64>>,
}

pub(crate) struct GraphqlReader<'a> {
    pub(super) client: &'a Client,
    pub(super) items: RefCell<BTreeMap<String, super::stale_entry::ItemEntry>>,
    /// The logins and label names of the timelines kept, each once.
    pub(super) names: RefCell<super::stale_entry::Interner>,
    /// The stale label of issues and of PRs, when known: a page's item that does not carry
    /// its kind's keeps no timeline.
    pub(super) stale_labels: Option<[String; 2]>,
    pub(super) pulls: RefCell<BTreeMap<String, PullEntry>>,
    heads: RefCell<BTreeMap<String, HeadEntry>>,
    pub(super) points: Cell<u64>,
    pub(super) queries: Cell<u64>,
    /// PRs per search page (and per batch read ahead), and open issues (and PRs) per stale
    /// page: halved for the rest of the run each time GitHub cuts a page off at its time limit.
    pub(super) pulls_page: Cell<u64>,
    pub(super) items_page: Cell<u64>,
    /// What a batch read ahead (`batch.rs`) found of each item, for the stale rules, kept
    /// until the item is read; and, for the merge rules, the PRs it could not read (those it
    /// read are kept in `pulls`).
    pub(super) items_read_ahead: RefCell<BTreeMap<String, Result<ItemFacts, ApiError>>>,
    pub(super) pulls_read_ahead: RefCell<BTreeMap<String, ApiError>>,
}

/// The smallest page a cut-off page shrinks to.
pub(super) const SMALLEST_PAGE: u64 = 5;

pub(super) fn pull_key(item: &ItemRef) -> String {
    item.to_string().to_ascii_lowercase()
}

fn head_key(repo: &RepoRef, sha: &str) -> String {
    format!("{repo}@{sha}").to_ascii_lowercase()
}

fn repo_variables(repo: &RepoRef) -> serde_json::Map<String, Value> {
    let mut map = serde_json::Map::new();
    map.insert("owner".into(), json!(&*repo.owner));
    map.insert("name".into(), json!(&*repo.name));
    map
}

/// The page of a connection at `pointer` in a follow-up's answer. Its parent `null` with no
/// error (the PR or commit gone between two reads, `repository: null`) or the list `null`
/// leaves the rest unknown: the item's failure, never the end of its list. A commit without a
/// rollup has no contexts.
fn page_at(answer: &Answer, document: &Document, pointer: &str) -> Result<Connection, ApiError> {
    let (parent, name) = pointer.rsplit_once('/').unwrap_or(("", pointer));
    match answer.data.pointer(parent) {
        Some(parent) if !parent.is_null() => parse::list(parent, name).map_err(malformed),
        _ if parent.ends_with("/statusCheckRollup")
            && answer
                .data
                .pointer(parent.trim_end_matches("/statusCheckRollup"))
                .is_some_and(|commit| !commit.is_null()) =>
        {
            Ok(Connection::default())
        }
        _ => Err(malformed(format!(
            "{} answered `{parent}` null with no error: the rest of its `{name}` is unknown",
            document.name
        ))),
    }
}

impl<'a> GraphqlReader<'a> {
    pub(crate) fn new(client: &'a Client) -> Self {
        GraphqlReader {
            client,
            items: RefCell::new(BTreeMap::new()),
            names: RefCell::default(),
            stale_labels: None,
            pulls: RefCell::new(BTreeMap::new()),
            heads: RefCell::new(BTreeMap::new()),
            points: Cell::new(0),
            queries: Cell::new(0),
            pulls_page: Cell::new(PULLS_PER_PAGE),
            items_page: Cell::new(super::stale_entry::ITEMS_PER_PAGE),
            items_read_ahead: RefCell::new(BTreeMap::new()),
            pulls_read_ahead: RefCell::new(BTreeMap::new()),
        }
    }

    /// Told the stale labels of issues and of PRs, the reader keeps the timelines of the
    /// items that carry them alone (the stale rules read no other item's history).
    pub(crate) fn knowing_stale_labels(mut self, issue: &str, pull: &str) -> Self {
        self.stale_labels = Some([issue.to_string(), pull.to_string()]);
        self
    }

    /// The GraphQL points this reader's queries cost, as GitHub's `rateLimit.cost` said.
    pub(crate) fn points(&self) -> u64 {
        self.points.get()
    }

    /// How many GraphQL queries this reader sent.
    pub(crate) fn queries(&self) -> u64 {
        self.queries.get()
    }

    pub(super) fn send(&self, document: &Document, variables: Value) -> Result<Answer, ApiError> {
        self.queries.set(self.queries.get() + 1);
        transport::send(self.client, document, variables, &self.points)
    }

    /// Sends a page query of `size` items (`variables` of the size), halving the size for the
    /// rest of the run each time GitHub cuts the query off at its 10-second limit ("Rate limits
    /// and node limits for the GraphQL API", Timeouts: a 502 or 504), down to 5.
    pub(super) fn send_shrinking<D: Data>(
        &self,
        document: &Document,
        size: &Cell<u64>,
        variables: impl Fn(u64) -> Value,
    ) -> Result<Answer<D>, ApiError> {
        loop {
            self.queries.set(self.queries.get() + 1);
            let sent = transport::send_page(
                self.client,
                document,
                variables(size.get()),
                &self.points,
                true,
            )?;
            if let Some(answer) = sent {
                return Ok(answer);
            }
            if size.get() <= SMALLEST_PAGE {
                return Err(ApiError::Harness {
                    message: format!(
                        "GitHub cut {} off at its time limit, even for a page of {}",
                        document.name,
                        size.get()
                    ),
                });
            }
            size.set((size.get() / 2).max(SMALLEST_PAGE));
        }
    }

    /// A page asked again for its items' numbers alone (`document`, with the page's own
    /// variables): its answer's `data`.
    pub(super) fn page_numbers(
        &self,
        document: &Document,
        variables: Value,
    ) -> Result<Value, ApiError> {
        Ok(self.send(document, variables)?.data)
    }

    /// Keeps what a PR node carries; answers its facts as the search hit gives them.
    pub(super) fn keep_pull(&self, item: &ItemRef, node: &Value) -> Result<(), ParseError> {
        let facts = parse::pull_facts(node)?;
        let files = parse::list(node, "files")?;
        let reviews = parse::list(node, "reviews")?;
        let head = facts.head_sha.clone().unwrap_or_default();
        let commit = node
            .pointer("/commits/nodes/0/commit")
            .cloned()
            .unwrap_or(Value::Null);
        // The page's head is the PR's head unless a push came between the two fields' reads.
        let head_entry = if commit.get("oid").and_then(Value::as_str) == Some(head.as_str()) {
            // A `null` rollup is a commit nothing reported on (github/combine-prs, "add null
            // check for commit status rollup"); a rollup's `contexts` is never null.
            let contexts = match commit.get("statusCheckRollup") {
                None | Some(Value::Null) => Connection::default(),
                Some(rollup) => parse::list(rollup, "contexts")?,
            };
            HeadEntry {
                contexts: Some(contexts),
                suites: Some(parse::list(&commit, "checkSuites")?),
                ..HeadEntry::default()
            }
        } else {
            HeadEntry::default()
        };
        self.heads
            .borrow_mut()
            .insert(head_key(&item.repo, &head), head_entry);
        self.pulls.borrow_mut().insert(
            pull_key(item),
            PullEntry {
                facts: Some(facts),
                files: Some(files),
                reviews: Some(reviews),
            },
        );
        Ok(())
    }

    /// Reads one PR by itself (not on a page, or its page's facts already read).
    pub(super) fn read_pull(&self, item: &ItemRef) -> Result<(), ApiError> {
        if let Some(error) = self.pulls_read_ahead.borrow_mut().remove(&pull_key(item)) {
            return Err(error);
        }
        queries::askable(item).map_err(|why| ApiError::Item {
            status: Some(404),
            message: why.to_string(),
        })?;
        let mut variables = repo_variables(&item.repo);
        variables.insert("number".into(), json!(item.number));
        let answer = self.send(&queries::PULL, Value::Object(variables))?;
        let at = [json!("repository")];
        answer.only_under(&queries::PULL, &[at.to_vec()])?;
        if let Some(error) = answer.error_at(&at) {
            return Err(error.item_error());
        }
        let node = answer
            .data
            .pointer("/repository/pullRequest")
            .filter(|node| !node.is_null())
            .ok_or_else(|| ApiError::Item {
                status: Some(404),
                message: format!("GitHub's GraphQL API knows no pull request {item}"),
            })?;
        self.keep_pull(item, node).map_err(malformed)
    }

    /// Takes one kept fact of a PR, reading the PR first when none is kept.
    pub(super) fn take_pull<T>(
        &self,
        item: &ItemRef,
        take: fn(&mut PullEntry) -> Option<T>,
    ) -> Result<T, ApiError> {
        if let Some(found) = self
            .pulls
            .borrow_mut()
            .get_mut(&pull_key(item))
            .and_then(take)
        {
            return Ok(found);
        }
        self.read_pull(item)?;
        self.pulls
            .borrow_mut()
            .get_mut(&pull_key(item))
            .and_then(take)
            .ok_or_else(|| malformed(format!("GitHub's answer for {item} carried no facts")))
    }

    /// Every node of a connection: its first page, then its next pages, each asked by
    /// `document` for this item alone, found in the answer at `pointer`.
    fn follow(
        &self,
        first: Connection,
        document: &Document,
        variables: serde_json::Map<String, Value>,
        pointer: &str,
    ) -> Result<Vec<Value>, ApiError> {
        let mut nodes = first.nodes;
        let mut next = first.next;
        let mut seen = std::collections::HashSet::new();
        if let Some(after) = variables.get("after").and_then(Value::as_str) {
            seen.insert(after.to_string());
        }
        while let Some(after) = next.take() {
            parse::advance(&mut seen, document.name, Some(&after))?;
            let mut variables = variables.clone();
            variables.insert("after".into(), json!(after));
            let answer = self.send(document, Value::Object(variables))?;
            let at = [json!("repository")];
            answer.only_under(document, &[at.to_vec()])?;
            if let Some(error) = answer.error_at(&at) {
                return Err(error.item_error());
            }
            let page = page_at(&answer, document, pointer)?;
            nodes.extend(page.nodes);
            next = page.next;
        }
        Ok(nodes)
    }

    fn pull_variables(item: &ItemRef) -> serde_json::Map<String, Value> {
        let mut variables = repo_variables(&item.repo);
        variables.insert("number".into(), json!(item.number));
        variables
    }

    fn commit_variables(repo: &RepoRef, sha: &str) -> serde_json::Map<String, Value> {
        let mut variables = repo_variables(repo);
        variables.insert("oid".into(), json!(sha));
        variables
    }

    /// Whether a head's kept facts satisfy `kept`.
    fn head_has(&self, repo: &RepoRef, sha: &str, kept: fn(&HeadEntry) -> bool) -> bool {
        self.heads
            .borrow()
            .get(&head_key(repo, sha))
            .is_some_and(kept)
    }

    /// The head's rollup contexts, split into check runs and statuses, kept until read: from
    /// the page's first page of them and their next pages, or (none kept) all asked afresh.
    fn complete_contexts(&self, repo: &RepoRef, sha: &str) -> Result<(), ApiError> {
        let key = head_key(repo, sha);
        let first = {
            let mut heads = self.heads.borrow_mut();
            heads.entry(key.clone()).or_default().contexts.take()
        };
        let variables = Self::commit_variables(repo, sha);
        let pointer = "/repository/object/statusCheckRollup/contexts";
        let nodes = match first {
            Some(first) => self.follow(first, &queries::COMMIT_CONTEXTS, variables, pointer)?,
            // Not on a page: every page of the commit's contexts, from the first.
            None => {
                let mut variables = variables;
                variables.insert("after".into(), Value::Null);
                self.first_and_follow(&queries::COMMIT_CONTEXTS, variables, pointer)?
            }
        };
        let mut runs = Vec::new();
        let mut statuses = Vec::new();
        for node in &nodes {
            match parse::context(node).map_err(malformed)? {
                RollupContext::Run(run) => runs.push(run),
                RollupContext::Status(status) => statuses.push(status),
            }
        }
        let mut suite_runs = BTreeMap::new();
        for run in &runs {
            if let Some(suite) = run.suite_id {
                *suite_runs.entry(suite).or_insert(0) += 1;
            }
        }
        let mut heads = self.heads.borrow_mut();
        let entry = heads.entry(key).or_default();
        entry.suite_runs = Some(suite_runs);
        entry.runs = Some(runs);
        entry.statuses = Some(parse::statuses(statuses));
        Ok(())
    }

    /// Every page of a connection asked from its start.
    fn first_and_follow(
        &self,
        document: &Document,
        variables: serde_json::Map<String, Value>,
        pointer: &str,
    ) -> Result<Vec<Value>, ApiError> {
        let answer = self.send(document, Value::Object(variables.clone()))?;
        let at = [json!("repository")];
        answer.only_under(document, &[at.to_vec()])?;
        if let Some(error) = answer.error_at(&at) {
            return Err(error.item_error());
        }
        let first = page_at(&answer, document, pointer)?;
        self.follow(first, document, variables, pointer)
    }

    fn take_head<T>(
        &self,
        repo: &RepoRef,
        sha: &str,
        take: fn(&mut HeadEntry) -> Option<T>,
    ) -> Option<T> {
        self.heads
            .borrow_mut()
            .get_mut(&head_key(repo, sha))
            .and_then(take)
    }
}

impl CommonReader for GraphqlReader<'_> {
    fn repository(&self, repo: &RepoRef) -> Result<Repository, ApiError> {
        CommonReader::repository(self.client, repo)
    }

    fn org_repository_count(&self, org: &str) -> Result<u64, ApiError> {
        self.client.org_repository_count(org)
    }

    fn viewer(&self) -> Result<Option<String>, ApiError> {
        self.client.viewer()
    }

    fn on_github_clock(&self, local: DateTime<Utc>) -> DateTime<Utc> {
        self.client.on_github_clock(local)
    }

    fn server_clock(&self) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        self.client.server_clock()
    }
}

impl MergeReader for GraphqlReader<'_> {
    fn search_pulls(&self, query: &str) -> Result<SearchPage, ApiError> {
        self.search_pages(query)
    }

    fn pull(&self, item: &ItemRef) -> Result<PullFacts, ApiError> {
        self.take_pull(item, |entry| entry.facts.take())
    }

    /// One REST "Get a pull request", which GitHub documents as starting the computation
    /// (whether GraphQL's `mergeable: UNKNOWN` read does is unverified: apache/airflow#63317
    /// and richlander/dotnet-inspect#4160 say no, langchain-ai/open-swe#2901 yes). Its answer
    /// is not used: the verdict comes from the next sweep's read.
    fn start_mergeability(&self, item: &ItemRef) -> Result<(), ApiError> {
        self.client.pull(item).map(|_| ())
    }

    fn pull_files(&self, item: &ItemRef) -> Result<Vec<ChangedFile>, ApiError> {
        self.changed_files(item)
    }

    fn reviews(&self, item: &ItemRef) -> Result<Vec<Review>, ApiError> {
        let first = self.take_pull(item, |entry| entry.reviews.take())?;
        let nodes = self.follow(
            first,
            &queries::PULL_REVIEWS,
            Self::pull_variables(item),
            "/repository/pullRequest/reviews",
        )?;
        nodes
            .iter()
            .map(parse::review)
            .collect::<Result<_, _>>()
            .map_err(malformed)
    }

    fn check_runs(&self, repo: &RepoRef, sha: &str) -> Result<Vec<CheckRun>, ApiError> {
        if !self.head_has(repo, sha, |entry| {
            entry.runs.is_some() || entry.statuses.is_some()
        }) {
            self.complete_contexts(repo, sha)?;
        }
        Ok(self
            .take_head(repo, sha, |entry| entry.runs.take())
            .unwrap_or_default())
    }

    fn check_suites(&self, repo: &RepoRef, sha: &str) -> Result<Vec<CheckSuite>, ApiError> {
        if !self.head_has(repo, sha, |entry| entry.suite_runs.is_some()) {
            self.complete_contexts(repo, sha)?;
        }
        let counts = self
            .take_head(repo, sha, |entry| entry.suite_runs.take())
            .unwrap_or_default();
        let variables = Self::commit_variables(repo, sha);
        let pointer = "/repository/object/checkSuites";
        let nodes = match self.take_head(repo, sha, |entry| entry.suites.take()) {
            Some(first) => self.follow(first, &queries::COMMIT_SUITES, variables, pointer)?,
            None => {
                let mut variables = variables;
                variables.insert("after".into(), Value::Null);
                self.first_and_follow(&queries::COMMIT_SUITES, variables, pointer)?
            }
        };
        nodes
            .iter()
            .map(|node| {
                let id = node.get("databaseId").and_then(Value::as_u64);
                let runs = id.and_then(|id| counts.get(&id)).copied().unwrap_or(0);
                parse::check_suite(node, runs)
            })
            .collect::<Result<_, _>>()
            .map_err(malformed)
    }

    fn statuses(&self, repo: &RepoRef, sha: &str) -> Result<Statuses, ApiError> {
        if !self.head_has(repo, sha, |entry| {
            entry.runs.is_some() || entry.statuses.is_some()
        }) {
            self.complete_contexts(repo, sha)?;
        }
        Ok(self
            .take_head(repo, sha, |entry| entry.statuses.take())
            .unwrap_or_else(|| parse::statuses(Vec::new())))
    }

    fn workflow_runs(&self, repo: &RepoRef, sha: &str) -> Result<Vec<WorkflowRun>, ApiError> {
        self.client.workflow_runs(repo, sha)
    }

    fn access(&self, repo: &RepoRef, login: &str) -> Result<Access, ApiError> {
        self.client.access(repo, login)
    }

    fn merge_settings(&self, repo: &RepoRef) -> Result<MergeSettings, ApiError> {
        self.client.merge_settings(repo)
    }

    fn branch_rules(&self, repo: &RepoRef, branch: &str) -> Result<BranchRules, ApiError> {
        self.client.branch_rules(repo, branch)
    }

    fn classic_protection(
        &self,
        repo: &RepoRef,
        branch: &str,
    ) -> Result<ClassicProtection, ApiError> {
        self.client.classic_protection(repo, branch)
    }

    fn pulls_ahead(&self, items: &[ItemRef]) {
        GraphqlReader::pulls_ahead(self, items);
    }

    fn link(&self, item: &ItemRef) -> Option<String> {
        self.client.html_url(&item.to_string())
    }

    fn keep_link(&self, url: &str) {
        self.client.note_link(url);
    }

    fn pulls_changed_since(
        &self,
        repo: &RepoRef,
        since: DateTime<Utc>,
    ) -> Result<Option<Vec<crate::github::reader::ChangedPull>>, ApiError> {
        self.pulls_changed(repo, since).map(Some)
    }
}
