//! The phases below the binary: the real stale kind and the real store (a temp file),
//! with GitHub replaced by a scripted reader and a recording writer, and the confirmation by a
//! script. No HTTP, no terminal. Seed 004's contract at this level: read under the budget, stop
//! before any write once it is spent, ask, write each thing once, recap what is left.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::stale::StaleKind;
use super::{
    AssumeYes, Classified, Confirm, DryRun, Kind, Listed, Mode, Options, Plan, Prompt, ReadError,
    Reconciled, Run, ScopeListing, StoreView, Summary,
};
use crate::github::client::{ApiError, WriteError, WriteReceipt};
use crate::github::model::{Event, PullFacts};
use crate::github::reader::{
    Comment, CommonReader, ListedItem, MergeReader, Repository, SearchPage, StaleReader, Writer,
};
use crate::item::Scope;
use crate::item::{ItemRef, RepoRef};
use crate::policy::budget::FailureBudget;
use crate::policy::disposition::Disposition;
use crate::policy::merge::{
    Access, BranchRules, ChangedFile, CheckRun, CheckSuite, MergeSettings, Review, Statuses,
    WorkflowRun,
};
use crate::policy::recap::{Phase, Recap, Stop};
use crate::policy::stale::{Activity, ItemFacts, StaleRules};
use crate::policy::write::{LocalWrite, Write};
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
        updated_at_of: crate::policy::stale::StampOf::Issue,
        locked: false,
        issue_type: None,
        comments: 0,
    }
}

/// GitHub as a list of issues (an entry given as `Err` does not parse) that its writes change,
/// with a record of every write sent; the writes of the items named in `refuse` are refused.
struct Scripted {
    items: RefCell<Vec<Result<ItemFacts, String>>>,
    /// What the engine said of its read phases, in order: each item it was done with
    /// (`done #N`), and each end (`over after N writes`).
    read_phase: RefCell<Vec<String>>,
    /// How many times the token's account was asked.
    viewer_asked: std::cell::Cell<u32>,
    sent: RefCell<Vec<(u64, Write)>>,
    refuse: BTreeMap<u64, WriteError>,
    /// What `GET /repos/{o}/{r}` answers, by the name asked: (full name, id, moved).
    repositories: BTreeMap<String, (String, u64, bool)>,
    /// How many repositories an organisation has.
    org_size: u64,
    /// What the rate limit has left, and when it resets: each write spends one, as GitHub's
    /// `x-ratelimit-remaining` says on its answer.
    remaining: std::cell::Cell<Option<(i64, DateTime<Utc>)>>,
    /// The numbers of the items read on their own, in order.
    reads: RefCell<Vec<u64>>,
    /// How many times the list of changed items was asked.
    change_lists: std::cell::Cell<u64>,
    /// What the list of changed items answers instead of the items, when set.
    changes_fail: Option<ApiError>,
    /// What the single-PR read answers, by number.
    pulls: BTreeMap<u64, PullFacts>,
    /// What a sweep's fresh judgement reads, when set.
    merge: Option<MergeWorld>,
}

/// What a sweep reads past its guard: one branch's rules (no classic protection), the
/// repository's merge settings, the head's check runs (no suites, no commit statuses), and an
/// approval of each head in `approved` by a reviewer with write access.
#[derive(Clone, Default)]
struct MergeWorld {
    rules: BranchRules,
    settings: MergeSettings,
    runs: Vec<CheckRun>,
    approved: Vec<String>,
}

impl Scripted {
    /// The merge world, or the harness's refusal when none was scripted.
    fn merge_world(&self) -> Result<&MergeWorld, ApiError> {
        self.merge.as_ref().ok_or(ApiError::Harness {
            message: "not scripted".into(),
        })
    }
}

impl Scripted {
    fn new(items: Vec<Result<ItemFacts, String>>) -> Self {
        Scripted {
            items: RefCell::new(items),
            sent: RefCell::new(Vec::new()),
            refuse: BTreeMap::new(),
            repositories: BTreeMap::new(),
            org_size: 0,
            remaining: std::cell::Cell::new(None),
            reads: RefCell::new(Vec::new()),
            change_lists: std::cell::Cell::new(0),
            changes_fail: None,
            read_phase: RefCell::new(Vec::new()),
            viewer_asked: std::cell::Cell::new(0),
            pulls: BTreeMap::new(),
            merge: None,
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
        self.viewer_asked.set(self.viewer_asked.get() + 1);
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
    fn read_phase_over(&self) {
        let sent = self.sent.borrow().len();
        self.read_phase
            .borrow_mut()
            .push(format!("over after {sent} writes"));
    }
    fn done_reading(&self, item: &ItemRef) {
        self.read_phase
            .borrow_mut()
            .push(format!("done #{}", item.number));
    }
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
                facts: facts.clone().map_err(|why| ApiError::Item {
                    status: None,
                    message: why,
                }),
            })
            .collect())
    }
    fn item(&self, wanted: &ItemRef) -> Result<ItemFacts, ApiError> {
        self.reads.borrow_mut().push(wanted.number);
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
    /// Every item, whatever `since`: the scripted stamps are not on the wall clock the
    /// engine's reads are timed by, and the engine must judge by `updated_at` alone.
    fn changed_since(
        &self,
        _repo: &RepoRef,
        _since: DateTime<Utc>,
    ) -> Result<Vec<(u64, DateTime<Utc>)>, ApiError> {
        self.change_lists.set(self.change_lists.get() + 1);
        if let Some(error) = &self.changes_fail {
            return Err(error.clone());
        }
        Ok(self
            .items
            .borrow()
            .iter()
            .flatten()
            .map(|facts| (facts.number, facts.updated_at))
            .collect())
    }

    fn head_branch(
        &self,
        _item: &ItemRef,
    ) -> Result<Option<crate::policy::stale::HeadBranch>, ApiError> {
        not_scripted()
    }
}

impl MergeReader for Scripted {
    fn search_pulls(&self, _query: &str) -> Result<SearchPage, ApiError> {
        not_scripted()
    }
    fn pull(&self, item: &ItemRef) -> Result<PullFacts, ApiError> {
        match self.pulls.get(&item.number) {
            Some(pull) => Ok(pull.clone()),
            None => not_scripted(),
        }
    }
    /// The single-PR read that starts GitHub's computation of its mergeability: its answer is
    /// not looked at, so it always goes through here.
    fn start_mergeability(&self, _item: &ItemRef) -> Result<(), ApiError> {
        Ok(())
    }
    fn pull_files(&self, _item: &ItemRef) -> Result<Vec<ChangedFile>, ApiError> {
        not_scripted()
    }
    fn reviews(&self, _item: &ItemRef) -> Result<Vec<Review>, ApiError> {
        let world = self.merge_world()?;
        let approval = |head: &String| Review {
            login: "maintainer".into(),
            user_id: Some(1),
            bot: false,
            state: "APPROVED".into(),
            commit_id: Some(head.clone()),
            submitted_at: Some(now() - chrono::Duration::hours(1)),
            association: None,
        };
        Ok(world.approved.iter().map(approval).collect())
    }
    fn check_runs(&self, _repo: &RepoRef, _sha: &str) -> Result<Vec<CheckRun>, ApiError> {
        self.merge_world().map(|world| world.runs.clone())
    }
    fn check_suites(&self, _repo: &RepoRef, _sha: &str) -> Result<Vec<CheckSuite>, ApiError> {
        self.merge_world().map(|_| Vec::new())
    }
    fn statuses(&self, _repo: &RepoRef, _sha: &str) -> Result<Statuses, ApiError> {
        self.merge_world().map(|_| Statuses::none())
    }
    fn workflow_runs(&self, _repo: &RepoRef, _sha: &str) -> Result<Vec<WorkflowRun>, ApiError> {
        not_scripted()
    }
    fn access(&self, _repo: &RepoRef, _login: &str) -> Result<Access, ApiError> {
        self.merge_world().map(|_| Access::Write)
    }
    fn merge_settings(&self, _repo: &RepoRef) -> Result<MergeSettings, ApiError> {
        self.merge_world().map(|world| world.settings.clone())
    }
    fn branch_rules(&self, _repo: &RepoRef, _branch: &str) -> Result<BranchRules, ApiError> {
        self.merge_world().map(|world| world.rules.clone())
    }
    fn classic_protection(
        &self,
        _repo: &RepoRef,
        _branch: &str,
    ) -> Result<crate::policy::merge::ClassicProtection, ApiError> {
        self.merge_world().map(|_| Default::default())
    }
}

impl Writer for Scripted {
    fn send(&self, item: &ItemRef, write: &Write) -> Result<Option<WriteReceipt>, WriteError> {
        self.sent.borrow_mut().push((item.number, write.clone()));
        if let Some((left, reset)) = self.remaining.get() {
            self.remaining.set(Some(((left - 1).max(0), reset)));
        }
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
        Ok(Some(WriteReceipt { server_date: None }))
    }
    fn remaining(&self, resource: &str) -> Option<(i64, DateTime<Utc>)> {
        assert_eq!(resource, "core");
        self.remaining.get()
    }
    fn html_url(&self, _item: &str) -> Option<String> {
        None
    }
}

/// The maintainer's answer, given once.
struct GivenAnswer(Option<Choice>);

impl Confirm for GivenAnswer {
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
        pager: None,
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
        budget: FailureBudget::Count(0),
        max_writes: None,
        recheck_after: Duration::from_secs(3600),
        write_interval: Duration::ZERO,
        max_wait: Duration::from_secs(600),
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
        let mut classifier = StaleKind::new(&rules, false);
        self.run_with(github, &mut classifier, Mode::Sweep, confirm)
    }

    fn run_with(
        &mut self,
        github: &Scripted,
        kind: &mut dyn Kind,
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
        .execute(kind, confirm)
        .unwrap()
    }
}

fn all() -> GivenAnswer {
    GivenAnswer(Some(Choice::All))
}

struct NobodyAsked;

impl Confirm for NobodyAsked {
    fn asks(&self) -> bool {
        true
    }
    fn choose(&mut self, labels: &[String], _writes: usize) -> std::io::Result<Choice> {
        panic!("asked about {labels:?}");
    }
}

/// classifications.
struct Enqueues(Vec<u64>, u32);

impl Kind for Enqueues {
    /// Like poll: a stale sweep's write of unknown outcome is the stale sweep's to settle.
    fn concerns(&self, write: &crate::store::UnknownWrite) -> bool {
        write.is_merge()
    }

    fn list(
        &mut self,
        _github: &dyn crate::github::Reader,
        _store: StoreView<'_>,
        _scope: &Scope,
    ) -> ScopeListing {
        ScopeListing::of(Ok(self
            .0
            .iter()
            .map(|number| {
                (
                    ItemRef::new(&repo(), *number),
                    Listed::Queued { head_sha: None },
                )
            })
            .collect()))
    }

    fn classify(
        &mut self,
        _github: &dyn crate::github::Reader,
        _store: StoreView<'_>,
        item: &ItemRef,
        _listed: Option<&Listed>,
        _now: DateTime<Utc>,
    ) -> Result<Classified, ReadError> {
        self.1 += 1;
        Ok(Plan {
            item: item.clone(),
            title: format!("pr {}", item.number),
            disposition: Disposition::EnqueueMerge,
            reason: "green".into(),
            remote: Vec::new(),
            local: vec![LocalWrite::Enqueue {
                key: format!("o/r#{}@h", item.number),
                head_sha: "h".into(),
            }],
            updated_at: None,
        }
        .into())
    }

    fn reconcile(
        &mut self,
        _github: &dyn crate::github::Reader,
        _store: StoreView<'_>,
        _write: &crate::store::UnknownWrite,
    ) -> Result<Option<Reconciled>, ReadError> {
        Ok(None)
    }

    fn summary(&self, _: &[&Disposition], _: usize, _: bool) -> Summary {
        Summary::default()
    }
}

mod contract;
mod kinds;
mod pool;
mod recheck;
mod stale;
mod write;
