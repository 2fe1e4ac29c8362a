//! The phases below the binary: the real stale classifier and the real store (a temp file),
//! with GitHub replaced by a scripted reader and a recording writer, and the confirmation by a
//! script. No HTTP, no terminal. Seed 004's contract at this level: read under the budget, stop
//! before any write once it is spent, ask, write each thing once, recap what is left.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::stale::StaleClassifier;
use super::{
    AssumeYes, Classifier, Confirm, DryRun, Listed, Mode, Options, Plan, Prompt, ReadError, Run,
};
use crate::github::client::{ApiError, WriteError, Written};
use crate::github::model::{Event, PullFacts};
use crate::github::reader::{
    Comment, CommonReader, ListedItem, MergeReader, Repository, SearchPage, StaleReader, Writer,
};
use crate::item::Scope;
use crate::item::{ItemRef, RepoRef};
use crate::policy::budget::Budget;
use crate::policy::disposition::Disposition;
use crate::policy::merge::{
    Access, BranchRules, ChangedFile, CheckRun, CheckSuite, MergeSettings, Review, Statuses,
    WorkflowRun,
};
use crate::policy::recap::{Phase, Recap, Stop};
use crate::policy::stale::{Activity, ItemFacts, StaleRules};
use crate::policy::write::Write;
use crate::store::Store;
use crate::ui::{Choice, Ui};

fn now() -> DateTime<Utc> {
    "2025-03-04T12:00:00Z".parse().unwrap()
}

fn repo() -> RepoRef {
    "o/r".parse().unwrap()
}

/// An open issue untouched for `idle_days`.
fn issue(number: u64, idle_days: i64) -> ItemFacts {
    let at = now() - chrono::Duration::days(idle_days);
    ItemFacts {
        number,
        is_pr: false,
        draft: false,
        open: true,
        title: format!("issue {number}"),
        labels: Vec::new(),
        milestone: None,
        assignees: Vec::new(),
        created_at: at,
        updated_at: at,
        locked: false,
    }
}

/// GitHub as a list of issues (an entry given as `Err` does not parse) that its writes change,
/// with a record of every write sent; the writes of the items named in `refuse` are refused.
struct Scripted {
    items: RefCell<Vec<Result<ItemFacts, String>>>,
    sent: RefCell<Vec<(u64, Write)>>,
    refuse: BTreeMap<u64, WriteError>,
    /// What `GET /repos/{o}/{r}` answers, by the name asked: (full name, id, moved).
    repositories: BTreeMap<String, (String, u64, bool)>,
    /// How many repositories an organisation has.
    org_size: u64,
    /// What the rate limit has left, and when it resets.
    remaining: Option<(i64, DateTime<Utc>)>,
}

impl Scripted {
    fn new(items: Vec<Result<ItemFacts, String>>) -> Self {
        Scripted {
            items: RefCell::new(items),
            sent: RefCell::new(Vec::new()),
            refuse: BTreeMap::new(),
            repositories: BTreeMap::new(),
            org_size: 0,
            remaining: None,
        }
    }

    /// The numbers of the items written to, one per write, in order; and forgets them.
    fn take_sent(&self) -> Vec<u64> {
        self.sent
            .take()
            .into_iter()
            .map(|(number, _)| number)
            .collect()
    }
}

fn not_scripted<T>() -> Result<T, ApiError> {
    Err(ApiError::Harness {
        message: "not scripted".into(),
    })
}

impl CommonReader for Scripted {
    fn repository(&self, repo: &RepoRef) -> Result<Repository, ApiError> {
        match self.repositories.get(&repo.to_string()) {
            Some((name, id, moved)) => Ok(Repository {
                full_name: name.parse().unwrap(),
                id: *id,
                moved: *moved,
            }),
            None => not_scripted(),
        }
    }
    fn org_repository_count(&self, _org: &str) -> Result<u64, ApiError> {
        Ok(self.org_size)
    }
    fn viewer(&self) -> Result<Option<String>, ApiError> {
        Ok(Some("maintainer".into()))
    }
    fn on_github_clock(&self, local: DateTime<Utc>) -> DateTime<Utc> {
        local
    }
    fn server_clock(&self) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        None
    }
}

impl StaleReader for Scripted {
    fn open_items(&self, _repo: &RepoRef) -> Result<Vec<ListedItem>, ApiError> {
        Ok(self
            .items
            .borrow()
            .iter()
            .enumerate()
            .map(|(index, facts)| ListedItem {
                number: Some(
                    facts
                        .as_ref()
                        .map_or(index as u64 + 100, |facts| facts.number),
                ),
                facts: facts.clone(),
            })
            .collect())
    }
    fn item(&self, wanted: &ItemRef) -> Result<ItemFacts, ApiError> {
        self.items
            .borrow()
            .iter()
            .flatten()
            .find(|facts| facts.number == wanted.number)
            .cloned()
            .ok_or(ApiError::Item {
                status: Some(404),
                message: "not found".into(),
            })
    }
    fn events(&self, _item: &ItemRef) -> Result<Vec<Event>, ApiError> {
        Ok(Vec::new())
    }
    fn comments_since(&self, _: &ItemRef, _: DateTime<Utc>) -> Result<Vec<Comment>, ApiError> {
        Ok(Vec::new())
    }
    fn timeline(&self, _item: &ItemRef) -> Result<Vec<Activity>, ApiError> {
        Ok(Vec::new())
    }
}

impl MergeReader for Scripted {
    fn search_pulls(&self, _query: &str) -> Result<SearchPage, ApiError> {
        not_scripted()
    }
    fn pull(&self, _item: &ItemRef) -> Result<PullFacts, ApiError> {
        not_scripted()
    }
    fn pull_files(&self, _item: &ItemRef) -> Result<Vec<ChangedFile>, ApiError> {
        not_scripted()
    }
    fn reviews(&self, _item: &ItemRef) -> Result<Vec<Review>, ApiError> {
        not_scripted()
    }
    fn check_runs(&self, _repo: &RepoRef, _sha: &str) -> Result<Vec<CheckRun>, ApiError> {
        not_scripted()
    }
    fn check_suites(&self, _repo: &RepoRef, _sha: &str) -> Result<Vec<CheckSuite>, ApiError> {
        not_scripted()
    }
    fn statuses(&self, _repo: &RepoRef, _sha: &str) -> Result<Statuses, ApiError> {
        not_scripted()
    }
    fn workflow_runs(&self, _repo: &RepoRef, _sha: &str) -> Result<Vec<WorkflowRun>, ApiError> {
        not_scripted()
    }
    fn access(&self, _repo: &RepoRef, _login: &str) -> Result<Access, ApiError> {
        not_scripted()
    }
    fn merge_settings(&self, _repo: &RepoRef) -> Result<MergeSettings, ApiError> {
        not_scripted()
    }
    fn branch_rules(&self, _repo: &RepoRef, _branch: &str) -> Result<BranchRules, ApiError> {
        not_scripted()
    }
}

impl Writer for Scripted {
    fn send(&self, item: &ItemRef, write: &Write) -> Result<Option<Written>, WriteError> {
        self.sent.borrow_mut().push((item.number, write.clone()));
        if let Some(error) = self.refuse.get(&item.number) {
            return Err(error.clone());
        }
        let mut items = self.items.borrow_mut();
        let facts = items
            .iter_mut()
            .flatten()
            .find(|facts| facts.number == item.number)
            .expect("a write to an item of the world");
        match write {
            Write::AddLabels { labels } => facts.labels.extend(labels.iter().cloned()),
            Write::RemoveLabel { label } => facts.labels.retain(|name| name != label),
            Write::Close { .. } => facts.open = false,
            _ => {}
        }
        Ok(Some(Written { server_date: None }))
    }
    fn remaining(&self, resource: &str) -> Option<(i64, DateTime<Utc>)> {
        assert_eq!(resource, "core");
        self.remaining
    }
    fn html_url(&self, _item: &str) -> Option<String> {
        None
    }
}

/// The maintainer's answer, given once.
struct Answer(Option<Choice>);

impl Confirm for Answer {
    fn asks(&self) -> bool {
        true
    }
    fn choose(&mut self, _labels: &[String], _writes: usize) -> std::io::Result<Choice> {
        Ok(self.0.take().expect("asked once"))
    }
}

fn quiet() -> Ui {
    Ui {
        interactive: false,
        stderr_terminal: false,
        stdout_terminal: false,
        prompt_on_tty: false,
        quiet: true,
        verbose: false,
        json: false,
        ci: false,
        color: false,
    }
}

fn options(db: &std::path::Path) -> Options {
    Options {
        repos: vec![repo()],
        orgs: Vec::new(),
        only: None,
        from_snapshot: false,
        dry_run: false,
        confirm_local: false,
        budget: Budget::Count(0),
        max_writes: None,
        recheck_after: Duration::from_secs(3600),
        write_interval: Duration::ZERO,
        settle_after: Duration::ZERO,
        attempts_per_trigger: 3,
        db: db.to_path_buf(),
        rerun_prefix: "gh-sweep stale-sweep --repo o/r --yes".into(),
        web_url: "https://github.com".into(),
    }
}

/// One stale sweep over the scripted world.
struct Harness {
    _dir: tempfile::TempDir,
    store: Box<dyn Store>,
    options: Options,
}

impl Harness {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("state.db");
        let store = crate::store::open(&crate::store::Location::File(db.clone())).unwrap();
        Harness {
            options: options(&db),
            _dir: dir,
            store,
        }
    }

    fn run(&mut self, github: &Scripted, confirm: &mut dyn Confirm) -> Recap {
        let rules = StaleRules::default();
        let mut classifier = StaleClassifier::new(&rules, false);
        self.run_with(github, &mut classifier, Mode::Sweep, confirm)
    }

    fn run_with(
        &mut self,
        github: &Scripted,
        classifier: &mut dyn Classifier,
        mode: Mode,
        confirm: &mut dyn Confirm,
    ) -> Recap {
        let ui = quiet();
        Run {
            reader: github,
            writer: github,
            store: self.store.as_mut(),
            options: &self.options,
            ui: &ui,
            clock: crate::clock::Clock::fixed(now()),
            now: now(),
            command: "stale-sweep",
            mode,
            argv: "gh-sweep stale-sweep --repo o/r".into(),
            notes: Vec::new(),
        }
        .execute(classifier, confirm)
        .unwrap()
    }
}

fn all() -> Answer {
    Answer(Some(Choice::All))
}

#[test]
fn a_spent_budget_stops_the_run_before_any_write() {
    let github = Scripted::new(vec![
        Ok(issue(1, 100)),
        Err("the `updated_at` field is missing".into()),
        Ok(issue(3, 100)),
    ]);
    let mut harness = Harness::new();
    let recap = harness.run(&github, &mut all());
    assert_eq!(recap.stopped, Some(Stop::BudgetExhausted));
    assert_eq!(github.take_sent(), [] as [u64; 0], "a write was sent");
    assert_eq!(recap.failed.len(), 1);
    assert_eq!(recap.failed[0].item, "o/r#101");
    assert_eq!(recap.failed[0].phase, Phase::Read);
    // Read before the budget was spent, but not written: unfinished, with the rerun line.
    assert_eq!(recap.unfinished, ["o/r#1", "o/r#3"]);
    assert!(recap.rerun.as_deref().unwrap().contains("--only"));
}

#[test]
fn within_the_budget_every_confirmed_item_is_written_once() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 1)), Ok(issue(3, 100))]);
    let mut harness = Harness::new();
    let recap = harness.run(&github, &mut all());
    assert_eq!(recap.stopped, None);
    // Each stale item gets its label and its comment, in pool order; the fresh one nothing.
    assert_eq!(github.take_sent(), [1, 1, 3, 3]);
    let completed: Vec<&str> = recap.completed.iter().map(|c| c.item.as_str()).collect();
    assert_eq!(completed, ["o/r#1", "o/r#2", "o/r#3"]);
    assert_eq!(recap.exit_code, 0);
    assert!(recap.unfinished.is_empty());
}

#[test]
fn declined_writes_are_never_sent_and_are_left_for_the_rerun() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let mut harness = Harness::new();
    let recap = harness.run(&github, &mut Answer(Some(Choice::Some(vec![1]))));
    assert_eq!(recap.stopped, Some(Stop::NotConfirmed));
    assert_eq!(github.take_sent(), [2, 2]);
    assert_eq!(recap.unfinished, ["o/r#1"]);
}

#[test]
fn a_dry_run_sends_nothing_and_asks_nobody() {
    let github = Scripted::new(vec![Ok(issue(1, 100))]);
    let mut harness = Harness::new();
    harness.options.dry_run = true;
    let recap = harness.run(&github, &mut DryRun);
    assert_eq!(github.take_sent(), [] as [u64; 0]);
    assert_eq!(recap.unfinished, ["o/r#1"]);
    assert_eq!(recap.planned.len(), 1);
}

#[test]
fn the_write_cap_leaves_whole_items_unfinished() {
    let github = Scripted::new(vec![
        Ok(issue(1, 100)),
        Ok(issue(2, 100)),
        Ok(issue(3, 100)),
    ]);
    let mut harness = Harness::new();
    // Room for one item's two writes and half of the next: that one is not begun.
    harness.options.max_writes = Some(3);
    let recap = harness.run(&github, &mut all());
    assert_eq!(recap.stopped, Some(Stop::WriteCap));
    assert_eq!(github.take_sent(), [1, 1]);
    assert_eq!(recap.unfinished, ["o/r#2", "o/r#3"]);
}

#[test]
fn a_refused_write_stops_the_run_and_the_next_run_does_not_repeat_what_was_sent() {
    let mut github = Scripted::new(vec![
        Ok(issue(1, 100)),
        Ok(issue(2, 100)),
        Ok(issue(3, 100)),
    ]);
    github.refuse.insert(
        2,
        WriteError {
            status: Some(500),
            message: "POST answered 500".into(),
            outcome_unknown: true,
        },
    );
    let mut harness = Harness::new();
    let recap = harness.run(&github, &mut all());
    assert_eq!(recap.stopped, Some(Stop::WriteFailed));
    // #2's first write may have happened: nothing more of #2, nothing of #3.
    assert_eq!(github.take_sent(), [1, 1, 2]);
    assert_eq!(recap.failed[0].item, "o/r#2");
    assert_eq!(recap.unfinished, ["o/r#3"]);

    // The next run settles #2's label by reading it (the scripted world shows no label: it did
    // not happen, so #2 is swept again), and #1 was marked by the first run (the store says so).
    github.refuse.clear();
    let recap = harness.run(&github, &mut all());
    assert_eq!(
        github.take_sent(),
        [2, 2, 3, 3],
        "#1 written twice, or #2 not again"
    );
    assert_eq!(recap.stopped, None);
}

/// An answer that must not be asked for.
struct NobodyAsked;

impl Confirm for NobodyAsked {
    fn asks(&self) -> bool {
        true
    }
    fn choose(&mut self, labels: &[String], _writes: usize) -> std::io::Result<Choice> {
        panic!("asked about {labels:?}");
    }
}

#[test]
fn who_is_asked() {
    let ui = quiet();
    assert!(Prompt(&ui).asks() && !Prompt(&ui).dry_run());
    assert!(!AssumeYes.asks() && !AssumeYes.dry_run());
    assert!(!DryRun.asks() && DryRun.dry_run());
}

#[test]
fn classify_completes_every_item_with_what_it_would_write() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 1))]);
    let mut harness = Harness::new();
    let rules = StaleRules::default();
    let mut classifier = StaleClassifier::new(&rules, false);
    let recap = harness.run_with(&github, &mut classifier, Mode::Classify, &mut NobodyAsked);
    assert_eq!(github.take_sent(), [] as [u64; 0]);
    assert!(recap.planned.is_empty());
    let details: Vec<&str> = recap.completed.iter().map(|c| c.detail.as_str()).collect();
    assert!(
        details[0] == "idle 100 days >= 60; would write: label +Stale; comment",
        "{details:?}"
    );
    assert!(!details[1].contains("would"), "{details:?}");
}

#[test]
fn the_budget_stop_says_how_many_failed_and_what_the_budget_allows() {
    let github = Scripted::new(vec![Err("bad".into()), Ok(issue(2, 1))]);
    let mut harness = Harness::new();
    let recap = harness.run(&github, &mut all());
    assert_eq!(
        recap.stop_detail.as_deref(),
        Some("1 items failed, more than item_failure_budget = 0 allows for 2 items (0)")
    );
}

#[test]
fn only_the_items_given_are_read_and_written() {
    let github = Scripted::new(vec![
        Ok(issue(1, 100)),
        Ok(issue(2, 100)),
        Ok(issue(3, 100)),
    ]);
    let mut harness = Harness::new();
    harness.options.only = Some([ItemRef::new(&repo(), 3)].into_iter().collect());
    let recap = harness.run(&github, &mut all());
    assert_eq!(github.take_sent(), [3, 3]);
    let completed: Vec<&str> = recap.completed.iter().map(|c| c.item.as_str()).collect();
    assert_eq!(completed, ["o/r#3"]);
}

#[test]
fn from_a_snapshot_only_picks_from_its_pool() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let mut harness = Harness::new();
    harness.options.from_snapshot = true;
    harness.options.budget = Budget::Count(5);
    harness.options.only = Some(
        [ItemRef::new(&repo(), 2), ItemRef::new(&repo(), 9)]
            .into_iter()
            .collect(),
    );
    let recap = harness.run(&github, &mut all());
    assert_eq!(github.take_sent(), [2, 2]);
    assert_eq!(recap.failed.len(), 1, "{:?}", recap.failed);
    assert_eq!(recap.failed[0].item, "o/r#9");
    assert!(recap.failed[0]
        .reason
        .starts_with("not in the snapshot's pool"));
    let completed: Vec<&str> = recap.completed.iter().map(|c| c.item.as_str()).collect();
    assert_eq!(completed, ["o/r#2"]);
}

#[test]
fn a_write_github_may_still_be_carrying_out_blocks_its_item_until_it_settles() {
    let mut github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    github.refuse.insert(
        1,
        WriteError {
            status: None,
            message: "timed out".into(),
            outcome_unknown: true,
        },
    );
    let mut harness = Harness::new();
    harness.run(&github, &mut all());
    assert_eq!(github.take_sent(), [1]);
    github.refuse.clear();

    // Not on GitHub yet, but within `settle_after` of being sent: blocked, not repeated.
    harness.options.settle_after = Duration::from_secs(3600);
    let recap = harness.run(&github, &mut all());
    assert_eq!(github.take_sent(), [2, 2]);
    assert_eq!(recap.failed.len(), 1);
    assert_eq!(recap.failed[0].item, "o/r#1");
    assert_eq!(recap.failed[0].phase, Phase::Write);
    assert!(
        recap.failed[0]
            .reason
            .starts_with("outcome unknown: label +Stale of run 1 is not on GitHub yet"),
        "{}",
        recap.failed[0].reason
    );
    assert!(recap.notes.is_empty(), "{:?}", recap.notes);

    // Past `settle_after`: "not found" is proof, and the item is swept again.
    harness.options.settle_after = Duration::ZERO;
    let recap = harness.run(&github, &mut all());
    assert_eq!(github.take_sent(), [1, 1]);
    assert_eq!(recap.notes.len(), 1, "{:?}", recap.notes);
    assert!(recap.notes[0].starts_with("o/r#1: `label +Stale` of run 1 had an unknown outcome; found on GitHub that it did not happen"), "{:?}", recap.notes);
}

/// A kind of sweep whose every item plans one entry in gh-sweep's own queue; counts its
/// classifications.
struct Enqueues(Vec<u64>, u32);

impl Classifier for Enqueues {
    fn list(
        &mut self,
        _github: &dyn crate::github::Reader,
        _store: &mut dyn Store,
        _scope: &Scope,
    ) -> Result<Vec<(ItemRef, Listed)>, ApiError> {
        Ok(self
            .0
            .iter()
            .map(|number| {
                (
                    ItemRef::new(&repo(), *number),
                    Listed::Queued { head_sha: None },
                )
            })
            .collect())
    }

    fn classify(
        &mut self,
        _github: &dyn crate::github::Reader,
        _store: &dyn Store,
        item: &ItemRef,
        _listed: Option<&Listed>,
        _now: DateTime<Utc>,
    ) -> Result<Plan, ReadError> {
        self.1 += 1;
        Ok(Plan {
            item: item.clone(),
            title: format!("pr {}", item.number),
            disposition: Disposition::EnqueueMerge,
            reason: "green".into(),
            writes: vec![Write::Enqueue {
                key: format!("o/r#{}@h", item.number),
                head_sha: "h".into(),
            }],
        })
    }

    fn after_writes(&mut self, _: &dyn Store, _: &Plan, _: &[DateTime<Utc>]) -> anyhow::Result<()> {
        Ok(())
    }
}

#[test]
fn local_writes_are_asked_about_only_with_confirm() {
    let github = Scripted::new(Vec::new());
    let mut harness = Harness::new();
    let recap = harness.run_with(
        &github,
        &mut Enqueues(vec![7], 0),
        Mode::Sweep,
        &mut NobodyAsked,
    );
    assert_eq!(recap.stopped, None);
    assert_eq!(
        github.take_sent(),
        [] as [u64; 0],
        "an enqueue is not sent to GitHub"
    );
    assert_eq!(harness.store.queue_rows(&repo(), 7).unwrap().len(), 1);

    harness.options.confirm_local = true;
    let recap = harness.run_with(
        &github,
        &mut Enqueues(vec![8], 0),
        Mode::Sweep,
        &mut Answer(Some(Choice::None)),
    );
    assert_eq!(recap.stopped, Some(Stop::NotConfirmed));
    assert!(harness.store.queue_rows(&repo(), 8).unwrap().is_empty());
}

#[test]
fn a_repository_is_swept_by_its_canonical_name() {
    let mut github = Scripted::new(Vec::new());
    github
        .repositories
        .insert("o/r".into(), ("o/renamed".into(), 42, true));
    let mut harness = Harness::new();
    let mut options = harness.options.clone();
    options.repos.push("o/other".parse().unwrap());
    options.only = Some([ItemRef::new(&repo(), 5)].into_iter().collect());
    let notes = super::canonicalise_repos(&github, harness.store.as_mut(), &mut options).unwrap();
    assert_eq!(
        options.repos,
        [
            "o/renamed".parse::<RepoRef>().unwrap(),
            "o/other".parse().unwrap()
        ]
    );
    assert_eq!(
        options.only,
        Some(
            [ItemRef::new(&"o/renamed".parse().unwrap(), 5)]
                .into_iter()
                .collect()
        )
    );
    assert_eq!(
        options.rerun_prefix,
        "gh-sweep stale-sweep --repo o/renamed --yes"
    );
    assert_eq!(
        notes,
        ["o/r is now o/renamed (GitHub redirected it; repository id 42): swept as o/renamed"]
    );
    // The next run, under the new name, knows the id already: nothing to say.
    let notes = super::canonicalise_repos(&github, harness.store.as_mut(), &mut options).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
}

#[test]
fn an_organisation_past_the_search_cap_is_said() {
    let mut github = Scripted::new(Vec::new());
    github.org_size = 4000;
    assert_eq!(super::pool::org_search_note(&github, "big"), None);
    github.org_size = 4001;
    let note = super::pool::org_search_note(&github, "big").unwrap();
    assert!(
        note.starts_with("organisation big has 4001 repositories"),
        "{note}"
    );
}

#[test]
fn choice_labels_align_their_columns_and_cut_long_titles() {
    let row = |item: &str, title: &str, disposition: &str| crate::report::PlanRow {
        item: item.into(),
        title: title.into(),
        disposition: disposition.into(),
        writes: "comment".into(),
    };
    let long = "a title that is much longer than forty characters, cut";
    let labels = super::confirm::choice_labels(&[
        row("o/r#1", "short", "mark-stale"),
        row("o/r#10", long, "close"),
    ]);
    assert_eq!(
        labels,
        [
            format!("o/r#1   short{}  mark-stale  comment", " ".repeat(35)),
            format!("o/r#10  {}…  close       comment", &long[..39]),
        ]
    );
    // Exactly 40 characters are kept whole.
    let forty = "x".repeat(40);
    let labels = super::confirm::choice_labels(&[row("o/r#1", &forty, "close")]);
    assert_eq!(labels, [format!("o/r#1  {forty}  close  comment")]);
}

#[test]
fn a_long_rerun_selector_goes_to_a_file_beside_the_store() {
    assert_eq!(
        super::recap::rerun_file_path(std::path::Path::new("/x/state.db"), 7),
        "/x/rerun/run-7.txt"
    );
    assert_eq!(
        super::recap::rerun_file_path(std::path::Path::new("state.db"), 7),
        "./rerun/run-7.txt"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rerun/run-3.txt").display().to_string();
    let mut recap: Recap = serde_json::from_value(serde_json::json!({
        "run_id": 3, "command": "stale-sweep", "dry_run": false, "stopped": null,
        "stop_detail": null, "completed": [], "failed": [], "unfinished": [],
        "unfinished_reason": null, "budget": null, "planned": [], "rerun": "x", "exit_code": 0
    }))
    .unwrap();
    recap.rerun_file = Some(crate::policy::recap::RerunFile {
        path: path.clone(),
        selector: "o/r#1-3,o/r#9".into(),
    });
    super::recap::write_rerun_file(&mut recap, "gh-sweep stale-sweep");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "o/r#1-3\no/r#9\n");
    assert!(recap.rerun_file.is_some());
}

fn refusal(status: u16, message: &str) -> WriteError {
    WriteError {
        status: Some(status),
        message: message.into(),
        outcome_unknown: false,
    }
}

#[test]
fn writes_the_rate_limit_cannot_pay_for_are_not_begun() {
    let items = || vec![Ok(issue(1, 100)), Ok(issue(2, 100))];
    let in_an_hour = crate::clock::wall() + chrono::Duration::hours(1);
    // Four writes planned, three requests left until the reset: nothing is sent.
    let mut github = Scripted::new(items());
    github.remaining = Some((3, in_an_hour));
    let recap = Harness::new().run(&github, &mut all());
    assert_eq!(recap.stopped, Some(Stop::HarnessOutage));
    assert!(
        recap
            .stop_detail
            .as_deref()
            .unwrap()
            .starts_with("4 writes are planned but GitHub's rate limit has 3 requests left until"),
        "{:?}",
        recap.stop_detail
    );
    assert_eq!(github.take_sent(), [] as [u64; 0]);
    // Exactly enough: all sent.
    let mut github = Scripted::new(items());
    github.remaining = Some((4, in_an_hour));
    let recap = Harness::new().run(&github, &mut all());
    assert_eq!(
        (recap.stopped, github.take_sent()),
        (None, vec![1, 1, 2, 2])
    );
    // A reset already past: the limit is whole again.
    let mut github = Scripted::new(items());
    github.remaining = Some((0, crate::clock::wall() - chrono::Duration::minutes(1)));
    let recap = Harness::new().run(&github, &mut all());
    assert_eq!(
        (recap.stopped, github.take_sent()),
        (None, vec![1, 1, 2, 2])
    );
}

#[test]
fn a_write_cap_that_fits_exactly_sends_everything() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let mut harness = Harness::new();
    harness.options.max_writes = Some(4);
    let recap = harness.run(&github, &mut all());
    assert_eq!(
        (recap.stopped, github.take_sent()),
        (None, vec![1, 1, 2, 2])
    );
}

/// Confirms everything, after the world moved on: #1 was commented on meanwhile.
struct MeanwhileCommented<'a>(&'a Scripted);

impl Confirm for MeanwhileCommented<'_> {
    fn asks(&self) -> bool {
        true
    }
    fn choose(&mut self, _labels: &[String], _writes: usize) -> std::io::Result<Choice> {
        for facts in self.0.items.borrow_mut().iter_mut().flatten() {
            if facts.number == 1 {
                facts.updated_at = now();
            }
        }
        Ok(Choice::All)
    }
}

#[test]
fn an_item_read_long_ago_is_read_again_and_not_written_if_it_changed() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let mut harness = Harness::new();
    harness.options.recheck_after = Duration::ZERO;
    let recap = harness.run(&github, &mut MeanwhileCommented(&github));
    assert_eq!(github.take_sent(), [2, 2]);
    assert_eq!(recap.stopped, None);
    let first = &recap.completed[0];
    assert_eq!(first.item, "o/r#1");
    assert!(first.writes.is_empty(), "{first:?}");

    // Read a moment ago: not read again, so the change is not seen and the plan stands.
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let mut harness = Harness::new();
    harness.run(&github, &mut MeanwhileCommented(&github));
    assert_eq!(github.take_sent(), [1, 1, 2, 2]);
}

#[test]
fn a_refusal_for_the_items_own_state_fails_that_item_and_the_run_goes_on() {
    // A locked conversation (GitHub's 403 for it), and an item that moved (a redirect, not
    // followed): each is its item's failure, and the next item is written.
    for (status, message) in [
        (
            403,
            "POST answered 403 Forbidden: Unable to create comment because issue is locked.",
        ),
        (301, "POST answered 301 Moved Permanently"),
    ] {
        let mut github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
        github.refuse.insert(1, refusal(status, message));
        let recap = Harness::new().run(&github, &mut all());
        assert_eq!(recap.stopped, None, "{status}");
        assert_eq!(github.take_sent(), [1, 2, 2], "{status}");
        assert_eq!(recap.failed.len(), 1);
        assert_eq!(recap.failed[0].phase, Phase::Write);
    }
    // Any other refusal stops the run there.
    let mut github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    github
        .refuse
        .insert(1, refusal(422, "POST answered 422: Validation Failed"));
    let recap = Harness::new().run(&github, &mut all());
    assert_eq!(recap.stopped, Some(Stop::WriteFailed));
    assert_eq!(github.take_sent(), [1]);
    assert_eq!(recap.unfinished, ["o/r#2"]);
}

#[test]
fn a_local_write_is_never_a_reason_to_read_again() {
    // Issue 13, point 7: an entry in gh-sweep's own queue is no GitHub write, so however long
    // ago the PR was read, it is not read again before it is queued.
    let github = Scripted::new(Vec::new());
    let mut harness = Harness::new();
    harness.options.recheck_after = Duration::ZERO;
    let mut classifier = Enqueues(vec![1, 2, 3], 0);
    harness.run_with(&github, &mut classifier, Mode::Sweep, &mut NobodyAsked);
    assert_eq!(classifier.1, 3, "one classification per PR");
    assert_eq!(harness.store.queue_rows(&repo(), 3).unwrap().len(), 1);
}
