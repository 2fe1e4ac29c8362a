//! The engine runs the phases of seed 004 and owns their I/O: read and classify the pool under
//! the item-failure budget, confirm, write each thing once (journaled before and after), and
//! build the recap. What to do with an item is decided by a [`Classifier`], whose decisions
//! come from the pure policies.

mod interrupt;
pub mod merge;
pub mod reads;
pub mod stale;
pub mod sweep;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::exit;
use crate::github::{self, ApiError, Client, WriteError};
use crate::item::{ItemRef, RepoRef, Scope};
use crate::policy::disposition::Disposition;
use crate::policy::pacing;
use crate::policy::recap::{self, Outcome, Phase, Planned, Recap, RunFacts, Stop};
use crate::policy::write::{self, Settled, Write, WriteOutcome};
use crate::report::{self, PlanRow};
use crate::settings::Settings;
use crate::store::queue::NewRow;
use crate::store::Store;
use crate::store::UnknownWrite;
use crate::ui::{Choice, Ui};

/// Parses every entry of a list GitHub returned into plain facts; a malformed entry is the
/// item's own failure.
fn parse_all<T>(
    values: Vec<Value>,
    parse: fn(&Value) -> Result<T, String>,
) -> Result<Vec<T>, ReadError> {
    values
        .iter()
        .map(parse)
        .collect::<Result<_, _>>()
        .map_err(ReadError::Item)
}

/// A classified item and the writes its disposition needs.
#[derive(Clone, Debug)]
pub struct Plan {
    pub item: ItemRef,
    pub title: String,
    pub disposition: Disposition,
    pub reason: String,
    pub writes: Vec<Write>,
}

/// Why reading an item failed.
#[derive(Debug)]
pub enum ReadError {
    /// The item's own data: spends the budget.
    Item(String),
    /// The connection: stops the run as an outage.
    Harness(String),
    /// The token: stops the run, exit 4.
    Auth(String),
}

impl From<ApiError> for ReadError {
    fn from(error: ApiError) -> Self {
        match error {
            ApiError::Item { message, .. } => ReadError::Item(message),
            ApiError::Auth { message, .. } => ReadError::Auth(message),
            ApiError::Harness { message } => ReadError::Harness(message),
        }
    }
}

/// The part of a sweep that knows its kind of item.
pub trait Classifier {
    /// The pool of one repository or organisation: each item with its list entry.
    fn list(
        &mut self,
        client: &Client,
        store: &mut Store,
        scope: &Scope,
    ) -> Result<Vec<(ItemRef, Value)>, ApiError>;

    /// Settles an earlier write whose outcome is unknown by asking GitHub, if this kind of
    /// sweep knows how: `Some((what was found, in words))`. `None` leaves the item blocked
    /// until a maintainer checks it by hand.
    fn reconcile(
        &mut self,
        _client: &Client,
        _store: &Store,
        _write: &UnknownWrite,
    ) -> Result<Option<(Settled, String)>, ReadError> {
        Ok(None)
    }

    /// Bookkeeping after GitHub refused one of an item's writes for that item's own state.
    /// Returns whether the run goes on (a refused merge is that PR's failed attempt).
    fn after_refused_write(
        &mut self,
        _store: &Store,
        _plan: &Plan,
        _error: &WriteError,
    ) -> anyhow::Result<bool> {
        Ok(false)
    }

    /// What GitHub's refusal of one of the item's writes means, in words, for its recap line.
    fn refusal(&self, _plan: &Plan, _error: &WriteError) -> Option<String> {
        None
    }

    /// Called once at the end of the run, after the recap is built.
    fn finish(&mut self, _store: &Store) -> anyhow::Result<()> {
        Ok(())
    }

    /// Lines worth telling the maintainer about the listing (a search split into windows).
    fn notes(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// Whether an earlier write of unknown outcome concerns this kind of run: one it settles
    /// or would repeat. Those block their item; any other (a stale sweep's comment, for `poll`)
    /// is mentioned in the recap's notes and the run goes on.
    fn concerns(&self, _write: &UnknownWrite) -> bool {
        true
    }

    /// Called once the run is recorded, with its id (a sweep names its leases after it).
    fn started(&mut self, _run_id: i64) {}

    /// Items of the listing this run leaves alone because another run still at work holds
    /// them, each with the reason (whose lease, until when). They are unfinished, not read.
    fn held_elsewhere(&mut self) -> Vec<(ItemRef, String)> {
        Vec::new()
    }

    /// Counters that summarise the run for a quick look: from the dispositions of the items
    /// it completed, in pool order, and how many items failed.
    fn counters(&self, _completed: &[&Disposition], _failed: usize) -> Option<Value> {
        None
    }

    /// Reads what else the item needs and decides. `listed` is the list entry when there is
    /// one; without it the item is read on its own.
    fn classify(
        &mut self,
        client: &Client,
        store: &Store,
        item: &ItemRef,
        listed: Option<&Value>,
        now: DateTime<Utc>,
    ) -> Result<Plan, ReadError>;

    /// Bookkeeping after all of an item's writes succeeded. `dates` holds GitHub's clock at
    /// each write, where it said.
    fn after_writes(
        &mut self,
        store: &Store,
        plan: &Plan,
        dates: &[DateTime<Utc>],
    ) -> anyhow::Result<()>;
}

/// Whether the run may write.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `classify`: the read phase alone; every classified item is completed.
    Classify,
    /// A sweep: read, confirm, write.
    Sweep,
}

pub struct Run<'a> {
    pub client: &'a Client,
    pub store: &'a mut Store,
    pub settings: &'a Settings,
    pub ui: &'a Ui,
    pub now: DateTime<Utc>,
    pub command: &'a str,
    pub mode: Mode,
    pub argv: String,
    /// What the maintainer should know before the run starts (a renamed repository).
    pub notes: Vec<String>,
}

struct State {
    outcomes: BTreeMap<ItemRef, Outcome>,
    stopped: Option<Stop>,
    stop_detail: Option<String>,
    exit_override: Option<i32>,
    /// The item whose write was sent and whose outcome is not journaled yet: if the store
    /// fails now, that write's outcome is unknown.
    in_flight: Option<ItemRef>,
    /// The writes sent for each item that completed with writes, for the recap.
    sent: BTreeMap<String, Vec<String>>,
    /// When the run started, for the recap.
    started_at: DateTime<Utc>,
}

/// What a run has found so far, kept outside its phases so that a store failure in mid-run
/// (disk full, a lock held past the busy timeout) still ends with the recap of it.
struct Progress {
    run_id: i64,
    state: State,
    pool: Vec<ItemRef>,
    pool_complete: bool,
    notes: Vec<String>,
    /// Whether earlier writes of unknown outcome block items of this run.
    blocked: bool,
}

/// Whether an error came from the store (SQLite) rather than from anything else.
fn store_failure(error: &anyhow::Error) -> bool {
    error
        .chain()
        .any(|cause| cause.downcast_ref::<rusqlite::Error>().is_some())
}

impl State {
    fn stop(&mut self, stop: Stop, detail: String) {
        self.stopped = Some(stop);
        self.stop_detail = Some(detail);
    }

    fn completed(&mut self, item: &ItemRef, disposition: &Disposition, detail: &str) {
        self.outcomes.insert(
            item.clone(),
            Outcome::Completed {
                disposition: disposition.clone(),
                detail: detail.to_string(),
            },
        );
    }

    /// Completed without its writes: re-read before writing, it is now decided otherwise.
    fn changed(&mut self, item: &ItemRef, now: &Disposition, detail: &str) {
        self.outcomes.insert(
            item.clone(),
            Outcome::Changed {
                now: now.clone(),
                detail: detail.to_string(),
            },
        );
    }

    fn failed(&mut self, item: &ItemRef, phase: Phase, reason: String) {
        self.outcomes
            .insert(item.clone(), Outcome::Failed { phase, reason });
    }

    fn unfinished(&mut self, item: &ItemRef, reason: &str) {
        self.outcomes.insert(
            item.clone(),
            Outcome::Unfinished {
                reason: reason.to_string(),
            },
        );
    }
}

/// Names every `--repo` as GitHub does, once per run: `GET /repos/{o}/{r}` answers a name in any
/// case with the canonical `full_name`, and an old name with a 301 to the renamed repository.
/// The canonical name replaces the given one everywhere (pool, `--only`, queue scope, rerun
/// line). Best effort: a repository that cannot be read is left as given, and its listing
/// says why. Returns the notes for the recap.
pub fn canonicalise_repos(
    client: &Client,
    store: &mut Store,
    settings: &mut Settings,
) -> anyhow::Result<Vec<String>> {
    let mut notes = Vec::new();
    for given in settings.repos.clone() {
        let Ok(found) = github::repository(client, &given) else {
            continue;
        };
        let canonical = found.full_name;
        if let Some(old) = store.follow_repository(found.id, &canonical)? {
            notes.push(format!(
                "repository id {} was {old} and is now {canonical}: what gh-sweep kept under {old} (queue, merge gate, journal, stale marks) is now under {canonical}",
                found.id
            ));
        }
        if canonical.to_string() == given.to_string() {
            continue;
        }
        if found.moved {
            notes.push(format!(
                "{given} is now {canonical} (GitHub redirected it; repository id {}): swept as {canonical}",
                found.id
            ));
        }
        let mut repos = Vec::new();
        for repo in settings.repos.drain(..) {
            let repo = if repo == given {
                canonical.clone()
            } else {
                repo
            };
            if !repos.contains(&repo) {
                repos.push(repo);
            }
        }
        settings.repos = repos;
        if let Some(only) = &settings.only {
            settings.only = Some(
                only.iter()
                    .map(|item| {
                        if item.repo == given {
                            ItemRef::new(&canonical, item.number)
                        } else {
                            item.clone()
                        }
                    })
                    .collect(),
            );
        }
        let given = given.to_string();
        let canonical = canonical.to_string();
        settings.rerun_prefix = settings
            .rerun_prefix
            .split(' ')
            .map(|word| {
                if word == given {
                    canonical.as_str()
                } else {
                    word
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
    }
    Ok(notes)
}

/// The recap's note when an organisation has more repositories than one search looks at.
/// Best effort: when the count cannot be read, nothing is said.
fn org_search_note(client: &Client, org: &str) -> Option<String> {
    let count = github::org_repository_count(client, org).ok()?;
    (count > github::SEARCH_REPOSITORY_CAP).then(|| {
        format!(
            "organisation {org} has {count} repositories; GitHub's search looks at no more than 4,000 of them, so PRs in the others may be missing from this pool: list those repositories with --repo"
        )
    })
}

/// The "Choose items" list: item, title, disposition and writes in aligned columns, as in the
/// plan table above it (titles cut at 40 characters).
fn choice_labels(rows: &[PlanRow]) -> Vec<String> {
    let title = |row: &PlanRow| -> String {
        let title = report::clean(&row.title);
        if title.chars().count() > 40 {
            title.chars().take(39).chain(['…']).collect()
        } else {
            title
        }
    };
    let width = |cell: &dyn Fn(&PlanRow) -> String| {
        rows.iter()
            .map(|row| cell(row).chars().count())
            .max()
            .unwrap_or(0)
    };
    let item_width = width(&|row| row.item.clone());
    let title_width = width(&title);
    let disposition_width = width(&|row| row.disposition.clone());
    rows.iter()
        .map(|row| {
            let pad = |text: String, width: usize| {
                let fill = width.saturating_sub(text.chars().count());
                format!("{text}{}", " ".repeat(fill))
            };
            format!(
                "{}  {}  {}  {}",
                pad(row.item.clone(), item_width),
                pad(title(row), title_width),
                pad(row.disposition.clone(), disposition_width),
                row.writes
            )
        })
        .collect()
}

/// What a classification would do: `would write: label +Stale; comment` for writes to GitHub,
/// `would enqueue merge of abc1234` for an entry in gh-sweep's own queue (no write to GitHub).
fn would_text(writes: &[Write]) -> String {
    let (local, remote): (Vec<Write>, Vec<Write>) =
        writes.iter().cloned().partition(Write::is_local);
    let mut parts = Vec::new();
    if !remote.is_empty() {
        parts.push(format!("would write: {}", writes_text(&remote)));
    }
    for write in &local {
        parts.push(format!("would {write}"));
    }
    parts.join("; ")
}

fn writes_text(writes: &[Write]) -> String {
    writes
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

impl Run<'_> {
    pub fn execute(mut self, classifier: &mut dyn Classifier) -> anyhow::Result<Recap> {
        let run_id = self.store.start_run(self.command, &self.argv)?;
        classifier.started(run_id);
        let mut progress = Progress {
            run_id,
            state: State {
                outcomes: BTreeMap::new(),
                stopped: None,
                stop_detail: None,
                exit_override: None,
                in_flight: None,
                sent: BTreeMap::new(),
                started_at: Utc::now(),
            },
            pool: Vec::new(),
            pool_complete: true,
            notes: self.notes.clone(),
            blocked: false,
        };
        match self.phases(classifier, &mut progress) {
            Ok(recap) => Ok(recap),
            Err(error) if store_failure(&error) => {
                Ok(self.after_store_failure(classifier, progress, &error))
            }
            Err(error) => Err(error),
        }
    }

    /// A store that fails in mid-run stops the run as a harness failure (exit 5): the recap
    /// from memory, as far as known; the items not reached unfinished; a write sent but not
    /// journaled, unknown. Storing that recap is tried, and said when it fails too.
    fn after_store_failure(
        &mut self,
        classifier: &mut dyn Classifier,
        progress: Progress,
        error: &anyhow::Error,
    ) -> Recap {
        let mut state = progress.state;
        if let Some(item) = state.in_flight.take() {
            state.failed(
                &item,
                Phase::Write,
                "outcome unknown: sent, but the store failed before the outcome was journaled; check it by hand".to_string(),
            );
        }
        state.stop(
            Stop::HarnessOutage,
            format!("the store failed in mid-run: {error:#}"),
        );
        state.exit_override = None;
        let mut recap = self.build_recap(
            classifier,
            progress.run_id,
            &state,
            &progress.pool,
            progress.pool_complete,
            Vec::new(),
            progress.notes,
            progress.blocked,
        );
        if let Err(stored) = self.store.finish_run(&recap) {
            recap.notes.push(format!(
                "this recap could not be stored ({stored:#}); `gh-sweep recap` will not show it"
            ));
        }
        recap
    }

    fn phases(
        &mut self,
        classifier: &mut dyn Classifier,
        progress: &mut Progress,
    ) -> anyhow::Result<Recap> {
        let Progress {
            run_id,
            state,
            pool,
            pool_complete,
            notes,
            blocked: any_blocked,
        } = progress;
        let run_id = *run_id;
        // When each item's facts were asked of GitHub: a list entry is as old as its list.
        let mut read_times: BTreeMap<ItemRef, DateTime<Utc>> = BTreeMap::new();
        // Before anything else, writes of unknown outcome are settled by asking GitHub, where
        // the sweep knows how (a merge: did it happen?). Never by sending them again.
        // A write not found on GitHub may still be in flight there (the client gave up on a
        // slow answer, or the process was killed mid-request): "not found" is proof only once
        // `settle_after` has passed since it was sent. Until then its item stays blocked.
        let mut settles_at: BTreeMap<i64, DateTime<Utc>> = BTreeMap::new();
        if self.mode == Mode::Sweep && !self.settings.dry_run {
            for write in self.store.unknown_writes(&self.settings.repos, self.now)? {
                let finding = classifier.reconcile(self.client, self.store, &write);
                let pending = match &finding {
                    Ok(Some((settled, _))) => write::pending_until(
                        *settled,
                        write.intent_at,
                        Utc::now(),
                        settle_after(self.settings),
                    ),
                    _ => None,
                };
                if let Some(at) = pending {
                    settles_at.insert(write.id, at);
                    continue;
                }
                match finding {
                    Ok(Some((settled, found))) => {
                        self.store.resolve_journal(write.id, settled, &found)?;
                        let note = format!(
                            "{}: `{}` of run {} had an unknown outcome; {found}",
                            write.item, write.action, write.run_id
                        );
                        self.ui.status(&note);
                        notes.push(note);
                    }
                    Ok(None) | Err(ReadError::Item(_)) => {}
                    Err(ReadError::Harness(message)) => {
                        state.stop(Stop::HarnessOutage, message);
                        *pool_complete = false;
                        break;
                    }
                    Err(ReadError::Auth(message)) => {
                        state.stop(Stop::Auth, message);
                        *pool_complete = false;
                        break;
                    }
                }
            }
        }

        // The pool: explicit items, or each repository's list, in the order GitHub gave it.

        let mut listed: BTreeMap<ItemRef, Value> = BTreeMap::new();
        // Items another run still at work holds: unfinished, never read by this run.
        let mut held: BTreeSet<ItemRef> = BTreeSet::new();
        // A snapshot holds its pool's list, not each item's own read: there `--only` picks from
        // the saved pool (so a rerun line pasted with `--snapshot` replays those items).
        let from_snapshot = self.settings.snapshot.is_some();
        if state.stopped.is_some() {
        } else if let Some(only) = self.settings.only.as_ref().filter(|_| !from_snapshot) {
            pool.extend(only.iter().cloned());
        } else {
            let scopes = self
                .settings
                .repos
                .iter()
                .cloned()
                .map(Scope::Repo)
                .chain(self.settings.orgs.iter().cloned().map(Scope::Org));
            for scope in scopes {
                let name = match &scope {
                    Scope::Repo(repo) => format!("repository {repo}"),
                    Scope::Org(org) => format!("organisation {org}"),
                };
                let listed_at = Utc::now();
                let result = classifier.list(self.client, self.store, &scope);
                for note in classifier.notes() {
                    self.ui.status(&note);
                    notes.push(note);
                }
                for (item, reason) in classifier.held_elsewhere() {
                    if !pool.contains(&item) {
                        pool.push(item.clone());
                    }
                    state.unfinished(&item, &reason);
                    held.insert(item);
                }
                if let (Scope::Org(org), Ok(_)) = (&scope, &result) {
                    if let Some(note) = org_search_note(self.client, org) {
                        self.ui.status(&note);
                        notes.push(note);
                    }
                }
                match result {
                    Ok(entries) => {
                        for (item, entry) in entries {
                            if listed.contains_key(&item) {
                                continue;
                            }
                            pool.push(item.clone());
                            read_times.insert(item.clone(), listed_at);
                            listed.insert(item, entry);
                        }
                    }
                    Err(error) => {
                        let (stop, detail, code) = listing_stop(&scope, &name, error);
                        state.stop(stop, detail);
                        state.exit_override = code;
                        *pool_complete = false;
                    }
                }
                if state.stopped.is_some() {
                    break;
                }
            }
            if let (Some(only), true) = (&self.settings.only, from_snapshot) {
                pool.retain(|item| only.contains(item));
                for item in only {
                    if !listed.contains_key(item) && !pool.contains(item) {
                        pool.push(item.clone());
                        state.failed(
                            item,
                            Phase::Read,
                            "not in the snapshot's pool: it was not open when the snapshot was saved".to_string(),
                        );
                        // Never read: the snapshot has no answer for it.
                        held.insert(item.clone());
                    }
                }
            }
        }

        // Writes of unknown outcome block their item until checked by hand.
        let mut repos: Vec<RepoRef> = self.settings.repos.clone();
        for item in pool.iter() {
            if !repos.contains(&item.repo) {
                repos.push(item.repo.clone());
            }
        }
        let unknown = self.store.unknown_writes(&repos, self.now)?;
        let mut blocked: BTreeSet<ItemRef> = BTreeSet::new();
        let mut mentioned: BTreeSet<ItemRef> = BTreeSet::new();
        for write in &unknown {
            let Ok(item) = write.item.parse::<ItemRef>() else {
                continue;
            };
            if self
                .settings
                .only
                .as_ref()
                .is_some_and(|only| !only.contains(&item))
            {
                continue;
            }
            if !classifier.concerns(write) {
                if mentioned.insert(item.clone()) {
                    let note = unconcerned_note(&item, write);
                    self.ui.status(&note);
                    notes.push(note);
                }
                continue;
            }
            if !pool.contains(&item) {
                pool.push(item.clone());
            }
            if blocked.insert(item.clone()) {
                let reason = match settles_at.get(&write.id) {
                    Some(at) => format!(
                        "outcome unknown: {} of run {} is not on GitHub yet, but GitHub may still be carrying it out; a run after {} settles it",
                        write.action,
                        write.run_id,
                        at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                    ),
                    None => format!(
                        "outcome unknown: check by hand ({} in run {}), then run `gh-sweep recap --acknowledge {item}`",
                        write.action, write.run_id
                    ),
                };
                state.failed(&item, Phase::Write, reason);
            }
        }

        // Read phase, budgeted.
        let mut plans: Vec<(Plan, Instant, DateTime<Utc>)> = Vec::new();
        let mut failures = 0u64;
        if state.stopped.is_none() {
            let mut progress = self.ui.progress(pool.len(), "reading");
            for item in pool.iter() {
                if state.interrupted(&format!("before reading {item}")) {
                    break;
                }
                if blocked.contains(item) || held.contains(item) {
                    progress.advance(&item.to_string());
                    continue;
                }
                if self.settings.budget.exhausted(failures, pool.len()) {
                    state.stop(
                        Stop::BudgetExhausted,
                        format!(
                            "{failures} items failed, more than item_failure_budget = {} allows for {} items ({})",
                            self.settings.budget,
                            pool.len(),
                            self.settings.budget.allowed(pool.len())
                        ),
                    );
                    break;
                }
                progress.advance(&item.to_string());
                let read_at = read_times.get(item).copied().unwrap_or_else(Utc::now);
                match classifier.classify(self.client, self.store, item, listed.get(item), self.now)
                {
                    Ok(plan) if plan.writes.is_empty() || self.mode == Mode::Classify => {
                        let detail = if plan.writes.is_empty() {
                            plan.reason.clone()
                        } else {
                            format!("{}; {}", plan.reason, would_text(&plan.writes))
                        };
                        state.completed(item, &plan.disposition, &detail);
                    }
                    Ok(plan) => plans.push((plan, Instant::now(), read_at)),
                    Err(ReadError::Item(reason)) => {
                        failures += 1;
                        state.failed(item, Phase::Read, reason);
                    }
                    Err(ReadError::Harness(message)) => {
                        state.stop(Stop::HarnessOutage, message);
                        break;
                    }
                    Err(ReadError::Auth(message)) => {
                        state.stop(Stop::Auth, message);
                        break;
                    }
                }
            }
            // The last item's failure may be the one that spends the budget.
            if state.stopped.is_none() && self.settings.budget.exhausted(failures, pool.len()) {
                state.stop(
                    Stop::BudgetExhausted,
                    format!(
                        "{failures} items failed, more than item_failure_budget = {} allows for {} items ({})",
                        self.settings.budget,
                        pool.len(),
                        self.settings.budget.allowed(pool.len())
                    ),
                );
            }
            progress.finish();
        }

        let planned: Vec<Planned> = plans
            .iter()
            .map(|(plan, _, _)| Planned {
                item: plan.item.to_string(),
                disposition: plan.disposition.to_string(),
                detail: plan.reason.clone(),
                writes: plan.writes.iter().map(ToString::to_string).collect(),
            })
            .collect();

        *any_blocked = !blocked.is_empty();
        if state.stopped.is_none() && !plans.is_empty() {
            self.confirm_and_write(run_id, classifier, state, plans)?;
        }

        let recap = self.build_recap(
            classifier,
            run_id,
            state,
            pool,
            *pool_complete,
            planned,
            std::mem::take(notes),
            *any_blocked,
        );
        classifier.finish(self.store)?;
        self.store.finish_run(&recap)?;
        Ok(recap)
    }

    #[allow(clippy::too_many_arguments)]
    fn build_recap(
        &self,
        classifier: &mut dyn Classifier,
        run_id: i64,
        state: &State,
        pool: &[ItemRef],
        pool_complete: bool,
        planned: Vec<Planned>,
        notes: Vec<String>,
        blocked: bool,
    ) -> Recap {
        let rerun_file_path = rerun_file_path(&self.settings.db, run_id);
        let mut recap = recap::build(RunFacts {
            run_id,
            command: self.command,
            dry_run: self.settings.dry_run,
            pool,
            pool_complete,
            outcomes: &state.outcomes,
            stopped: state.stopped,
            stop_detail: state.stop_detail.clone(),
            budget: self.settings.budget,
            planned,
            rerun_prefix: &self.settings.rerun_prefix,
            rerun_file_path: &rerun_file_path,
            exit_override: state.exit_override,
            unknown_writes: blocked,
        });
        for completed in &mut recap.completed {
            if let Some(writes) = state.sent.get(&completed.item) {
                completed.writes = writes.clone();
            }
        }
        recap.counters = classifier.counters(
            &completed_dispositions(pool, &state.outcomes),
            recap.failed.len(),
        );
        recap.notes = notes;
        write_rerun_file(&mut recap, &self.settings.rerun_prefix);
        recap.web_url = crate::settings::web_url(&self.settings.api_base);
        recap.links = pool
            .iter()
            .filter_map(|item| {
                let item = item.to_string();
                self.client.html_url(&item).map(|url| (item, url))
            })
            .collect();
        recap.started_at = Some(recap::time_text(state.started_at));
        recap.finished_at = Some(recap::time_text(Utc::now()));
        recap
    }

    fn confirm_and_write(
        &self,
        run_id: i64,
        classifier: &mut dyn Classifier,
        state: &mut State,
        plans: Vec<(Plan, Instant, DateTime<Utc>)>,
    ) -> anyhow::Result<()> {
        let rows: Vec<PlanRow> = plans
            .iter()
            .map(|(plan, _, _)| PlanRow {
                item: plan.item.to_string(),
                title: plan.title.clone(),
                disposition: plan.disposition.to_string(),
                writes: writes_text(&plan.writes),
            })
            .collect();
        let total: usize = plans.iter().map(|(plan, _, _)| plan.writes.len()).sum();
        if self.settings.dry_run {
            // The recap shows these items with their writes.
            self.ui.status(&format!(
                "Dry run: {} on {} planned, none sent.",
                report::count(total as u64, "write"),
                report::count(plans.len() as u64, "item")
            ));
            for (plan, _, _) in &plans {
                state.unfinished(&plan.item, "dry run");
            }
            return Ok(());
        }

        let all_local = plans
            .iter()
            .all(|(plan, _, _)| plan.writes.iter().all(Write::is_local));
        let ask = !self.settings.yes && (!all_local || self.settings.confirm);
        if ask || !all_local {
            self.ui.status(&format!(
                "Planned writes ({total} on {}):",
                report::count(plans.len() as u64, "item")
            ));
            self.ui
                .status(&report::plan(&rows, self.ui.stderr_terminal));
        }
        if state.interrupted("before the prompt; nothing was written") {
            return Ok(());
        }
        let chosen: Vec<bool> = if !ask {
            vec![true; plans.len()]
        } else {
            let labels = choice_labels(&rows);
            match self.ui.confirm(&labels, total)? {
                Choice::All => vec![true; plans.len()],
                Choice::None => vec![false; plans.len()],
                Choice::Some(indices) => (0..plans.len())
                    .map(|index| indices.contains(&index))
                    .collect(),
                Choice::Interrupted => {
                    state.interrupted("at the prompt; nothing was written");
                    return Ok(());
                }
            }
        };
        if chosen.iter().any(|chosen| !chosen) {
            state.stopped = Some(Stop::NotConfirmed);
            state.stop_detail =
                Some("the maintainer declined some or all of the planned writes".into());
        }

        // Stop cleanly, before the first write, when the rate limit cannot pay for the writes.
        let remote: usize = plans
            .iter()
            .zip(&chosen)
            .filter(|(_, chosen)| **chosen)
            .map(|((plan, _, _), _)| plan.writes.iter().filter(|write| !write.is_local()).count())
            .sum();
        if let Some((left, reset)) = self.client.remaining("core") {
            if remote > 0 && left < remote as i64 && reset > Utc::now() {
                state.stop(
                    Stop::HarnessOutage,
                    format!(
                        "{remote} writes are planned but GitHub's rate limit has {left} requests left until {}: run again after that",
                        reset.to_rfc3339()
                    ),
                );
                return Ok(());
            }
        }
        let mut sent: u64 = 0;
        // When each write of this run was sent, for the pacing.
        let started = Instant::now();
        let mut sent_at: Vec<Duration> = Vec::new();
        let mut progress = self.ui.progress(total, "writing");
        let mut cap_reached = false;
        for ((plan, read_at, read_at_utc), chosen) in plans.into_iter().zip(chosen) {
            let item = plan.item.clone();
            if !chosen {
                state.unfinished(&item, "not confirmed");
                continue;
            }
            if state.stopped.is_some_and(|stop| stop != Stop::NotConfirmed) {
                continue;
            }
            if state.interrupted(&format!("before the writes of {item}")) {
                continue;
            }
            if let Some(cap) = self.settings.max_writes {
                let remote = plan.writes.iter().filter(|write| !write.is_local()).count() as u64;
                if cap_reached || sent + remote > cap {
                    cap_reached = true;
                    if state.stopped.is_none() {
                        state.stop(
                            Stop::WriteCap,
                            format!("--max-writes {cap} reached after {sent} writes"),
                        );
                    }
                    state.unfinished(&item, "write cap reached");
                    continue;
                }
            }
            // A maintainer may have taken a while at the prompt: re-read before writing.
            let mut read_at_utc = read_at_utc;
            let plan = if read_at.elapsed() > self.settings.recheck_after {
                read_at_utc = Utc::now();
                match classifier.classify(self.client, self.store, &item, None, Utc::now()) {
                    Ok(fresh) if fresh.disposition != plan.disposition => {
                        state.changed(&item, &fresh.disposition, &fresh.reason);
                        continue;
                    }
                    Ok(fresh) => fresh,
                    Err(ReadError::Item(reason)) => {
                        state.failed(&item, Phase::Read, reason);
                        continue;
                    }
                    Err(ReadError::Harness(message)) => {
                        state.stop(Stop::HarnessOutage, message);
                        continue;
                    }
                    Err(ReadError::Auth(message)) => {
                        state.stop(Stop::Auth, message);
                        continue;
                    }
                }
            } else {
                plan
            };

            let mut dates = Vec::new();
            let mut failed = None;
            let mut first_remote = true;
            let mut overtaken = false;
            let mut interrupted = false;
            for write in &plan.writes {
                progress.advance(&format!("{item}: {write}"));
                if let Write::Enqueue { key, head_sha } = write {
                    let row = NewRow {
                        key,
                        kind: "merge",
                        repo: &item.repo,
                        pr: item.number,
                        head_sha: Some(head_sha),
                        max_attempts: self.settings.sweep.attempts_per_trigger,
                    };
                    self.store.enqueue(&row, Utc::now())?;
                    dates.push(Utc::now());
                    continue;
                }
                let (wait, why) =
                    pacing::wait(&sent_at, started.elapsed(), self.settings.write_interval);
                if !wait.is_zero() {
                    if wait >= Duration::from_secs(2) {
                        let note = format!("waiting {}s for {why}", wait.as_secs());
                        progress.note(&note);
                        // Without a bar (cron, CI) a long silence deserves a line.
                        if !self.ui.stderr_terminal && wait >= Duration::from_secs(10) {
                            self.ui.status(&format!("{item}: {note}"));
                        }
                    }
                    // A signal during the wait before the item's first write stops the run
                    // there; once the item's writes have begun, they are finished.
                    if interrupt::sleep(wait, first_remote) {
                        interrupted = true;
                        break;
                    }
                }
                // The item's first write checks, atomically, that no other run has written to
                // it since it was read: two overlapping runs never both write one item.
                let journal = if first_remote {
                    first_remote = false;
                    match self.store.journal_first_intent(
                        run_id,
                        &item,
                        &write.journal(),
                        read_at_utc,
                        self.now,
                    )? {
                        Some(journal) => journal,
                        None => {
                            overtaken = true;
                            break;
                        }
                    }
                } else {
                    self.store.journal_intent(run_id, &item, &write.journal())?
                };
                state.in_flight = Some(item.clone());
                let result = github::send(self.client, &item, write);
                sent_at.push(started.elapsed());
                sent += 1;
                match result {
                    Ok(written) => {
                        self.store
                            .journal_outcome(journal, WriteOutcome::Done, "")?;
                        state.in_flight = None;
                        dates.push(
                            written
                                .and_then(|written| written.server_date)
                                .unwrap_or_else(Utc::now),
                        );
                    }
                    Err(error) => {
                        let outcome = if error.outcome_unknown {
                            WriteOutcome::Unknown
                        } else if error.moved() {
                            WriteOutcome::NotSent
                        } else {
                            WriteOutcome::Failed
                        };
                        self.store
                            .journal_outcome(journal, outcome, &error.message)?;
                        state.in_flight = None;
                        let known = if error.outcome_unknown {
                            "outcome unknown: check by hand"
                        } else if error.moved() {
                            "not sent: the item moved"
                        } else {
                            "refused, nothing written by it"
                        };
                        let reason = format!("{write} failed ({known}): {}", error.message);
                        failed = Some((reason, error));
                        break;
                    }
                }
            }
            if overtaken {
                state.unfinished(&item, "written by another run since it was read");
                continue;
            }
            if interrupted {
                state.interrupted(&format!("before the writes of {item}"));
                continue;
            }
            match failed {
                Some((reason, error)) => {
                    let reason = match classifier.refusal(&plan, &error) {
                        Some(meaning) => format!("{reason}; {meaning}"),
                        None => reason,
                    };
                    state.failed(&item, Phase::Write, reason.clone());
                    // A refusal for the item's own state (a merge GitHub will not do) is that
                    // item's failed attempt; the run goes on. Anything else stops it here.
                    // A redirected write (the item moved) wrote nothing anywhere: its own failure.
                    let goes_on = error.moved()
                        || (!error.outcome_unknown
                            && classifier.after_refused_write(self.store, &plan, &error)?);
                    if !goes_on {
                        state.stop(Stop::WriteFailed, format!("{item}: {reason}"));
                    }
                }
                None => {
                    classifier.after_writes(self.store, &plan, &dates)?;
                    state.completed(&item, &plan.disposition, &plan.reason);
                    state.sent.insert(
                        item.to_string(),
                        plan.writes.iter().map(ToString::to_string).collect(),
                    );
                }
            }
        }
        progress.finish();
        Ok(())
    }
}

/// The dispositions of the pool's completed items, in pool order: what the recap's `completed`
/// shows, as types. An item that changed since it was read completed with no disposition of
/// its own.
fn completed_dispositions<'a>(
    pool: &[ItemRef],
    outcomes: &'a BTreeMap<ItemRef, Outcome>,
) -> Vec<&'a Disposition> {
    pool.iter()
        .filter_map(|item| match outcomes.get(item) {
            Some(Outcome::Completed { disposition, .. }) => Some(disposition),
            _ => None,
        })
        .collect()
}

/// The recap's note on another kind of run's write of unknown outcome: who settles it.
fn unconcerned_note(item: &ItemRef, write: &UnknownWrite) -> String {
    format!(
        "{item}: `{}` of run {} has an unknown outcome; `gh-sweep {}` settles it (or check by hand, then `gh-sweep recap --acknowledge {item}`); this run goes on",
        write.action,
        write.run_id,
        write.settled_by()
    )
}

/// Why listing a scope stopped the run, and the exit code when the stop's own is not the
/// one: a repository GitHub says is not there (404) exits 4 like a permission refusal (GitHub
/// answers 404 for both); an organisation its search cannot see (422, "The listed users and
/// repositories cannot be searched...") is a mistyped `--org`, a usage error.
fn listing_stop(scope: &Scope, name: &str, error: ApiError) -> (Stop, String, Option<i32>) {
    match (scope, error) {
        (
            Scope::Repo(_),
            ApiError::Item {
                status: Some(404), ..
            },
        ) => (
            Stop::NotFound,
            format!("{name} was not found, or the token cannot see it"),
            None,
        ),
        (
            Scope::Org(org),
            ApiError::Item {
                status: Some(422),
                message,
            },
        ) => (
            Stop::NotFound,
            format!("{name} cannot be searched ({message}): check the spelling of --org {org}"),
            Some(exit::USAGE),
        ),
        (_, ApiError::Auth { message, .. }) => (Stop::Auth, message, None),
        (_, other) => (
            Stop::HarnessOutage,
            format!("listing {name}: {other}"),
            None,
        ),
    }
}

/// [`Settings::settle_after`] as a duration on the clock of journal times.
fn settle_after(settings: &Settings) -> chrono::Duration {
    chrono::Duration::from_std(settings.settle_after).unwrap_or_else(|_| chrono::Duration::days(1))
}

/// Where the selector of a run's rerun line goes when it is too long for the command line: a
/// `rerun` folder beside the database, one file per run.
fn rerun_file_path(db: &std::path::Path, run_id: i64) -> String {
    let folder = db
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or_else(|| std::path::Path::new("."));
    folder
        .join("rerun")
        .join(format!("run-{run_id}.txt"))
        .display()
        .to_string()
}

/// Writes a long rerun selector to its file, one item range per line. If it cannot be written,
/// the rerun line carries the selector inline after all (long, but nothing is lost) and says
/// why in a note.
fn write_rerun_file(recap: &mut recap::Recap, prefix: &str) {
    let Some(file) = &recap.rerun_file else {
        return;
    };
    let path = std::path::Path::new(&file.path);
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(path, format!("{}\n", file.selector.replace(',', "\n"))));
    if let Err(error) = written {
        recap.notes.push(format!(
            "the rerun selector could not be written to {}: {error}; it is given inline",
            file.path
        ));
        recap.rerun = Some(format!(
            "{prefix} --only {}",
            recap::shell_quote(&file.selector)
        ));
        recap.rerun_file = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::disposition::Skip;

    #[test]
    fn completed_dispositions_follow_the_pool_and_leave_out_changed_items() {
        let item = |number| ItemRef::new(&"o/r".parse().unwrap(), number);
        let mut outcomes = BTreeMap::new();
        let completed = |disposition| Outcome::Completed {
            disposition,
            detail: String::new(),
        };
        outcomes.insert(item(3), completed(Disposition::EnqueueMerge));
        outcomes.insert(item(1), completed(Disposition::Skip(Skip::Held)));
        outcomes.insert(
            item(2),
            Outcome::Changed {
                now: Disposition::Skip(Skip::InFlight),
                detail: String::new(),
            },
        );
        outcomes.insert(
            item(4),
            Outcome::Unfinished {
                reason: "dry run".into(),
            },
        );
        // Not in the pool: not in the recap either.
        outcomes.insert(item(9), completed(Disposition::Merge));
        let pool = [item(3), item(2), item(1), item(4)];
        assert_eq!(
            completed_dispositions(&pool, &outcomes),
            [&Disposition::EnqueueMerge, &Disposition::Skip(Skip::Held)]
        );
    }
}
