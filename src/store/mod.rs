//! The store port: what the engine and the commands keep between runs (runs and their recaps,
//! the write journal, the merge queue and its leases, the merge gate and sweep budgets, stale
//! marks, repositories by id, HTTP validators), as traits over plain data. A backend lives
//! behind it ([`sqlite`], the default, and `postgres` for several hosts, built with the cargo
//! feature `postgres`, on by default); [`open`] is the one place that picks it.
//!
//! Every method that must be atomic says so and is one transaction in the backend: a caller
//! never holds a transaction or a connection. A run's bookkeeping (an item's, a listing's)
//! goes through [`Store::settle`], which applies all of it in one transaction, or none of it
//! when the run no longer holds its heartbeat. The claim's `admit` gets the facts the backend
//! read inside the claim's own transaction ([`ClaimFacts`]), so its decision and the lease
//! commit together. It holds no secrets: the token never reaches it.

use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::http_cache::ResponseCache;
use crate::item::{ItemRef, RepoRef};
use crate::policy::backoff::Failure;
use crate::policy::recap::Recap;
use crate::policy::sweep::{Budget, Gate};
use crate::policy::write::{JournalWrite, Settled, WriteOutcome};

pub(crate) mod copy;
pub(crate) mod effect;
pub(crate) mod error;
pub(crate) mod identity;
pub mod location;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod queue;
pub mod sqlite;

#[cfg(test)]
mod contract;

pub use effect::{Applied, Effect};
pub use error::{Result, StoreError};
pub use location::{Liveness, Location, Runs, Target};
use queue::{Claim, Lease, NewRow, Pending, Row};

/// How long a write without an outcome may belong to a run that is still at work. Past this
/// (or once its run has finished) the write's outcome is unknown. As long as a queue lease.
pub const IN_FLIGHT: Duration = Duration::from_secs(30 * 60);

/// How long the store keeps what, for [`Store::prune`]: every row a decision can still read
/// is kept, and the rest goes, so a store's size and a run's cost stay flat however many runs
/// it has seen.
pub mod retention {
    use std::time::Duration;

    /// A settled write (done, failed, not sent, acknowledged) is kept this long after its
    /// intent: longer than GitHub's hourly write limit that pacing counts, than [`IN_FLIGHT`]
    /// (`journal_intent_since` reads only writes that young) and than a run's re-reads.
    /// Writes of unknown outcome, and writes without one, are kept until settled.
    ///
    /// [`IN_FLIGHT`]: super::IN_FLIGHT
    pub const JOURNAL_KEPT: Duration = Duration::from_secs(24 * 60 * 60);

    /// The newest runs keep their whole recap (for `gh-sweep recap --run N`) and their items'
    /// outcomes; an older run keeps its summary (what `recap --list` shows).
    pub const RECAPS_KEPT: usize = 50;

    /// The newest runs keep their summary; an older one is forgotten once it is older than
    /// [`JOURNAL_KEPT`] and no journal row names it.
    pub const RUNS_KEPT: usize = 200;

    /// An HTTP answer kept for conditional requests is forgotten this long after it was
    /// stored or renewed: a validator nobody asked with for a week is worth less than its body.
    pub const CACHE_KEPT: Duration = Duration::from_secs(7 * 24 * 60 * 60);

    /// At most this many rows of a kind are pruned in one transaction, so no prune holds the
    /// store's write lock (or a PostgreSQL transaction its row locks) for long. Both backends
    /// repeat the batches until nothing past the retention is left (a 1,000-item sweep adds
    /// more than one batch a run).
    pub const PRUNE_BATCH: usize = 1000;
}

/// What one [`Store::prune`] forgot, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Settled journal rows past [`retention::JOURNAL_KEPT`].
    pub journal: usize,
    /// Runs whose recap was dropped (their summary row stays).
    pub recaps: usize,
    /// Item outcomes of those runs.
    pub run_items: usize,
    /// Runs forgotten altogether.
    pub runs: usize,
    /// HTTP answers past [`retention::CACHE_KEPT`].
    pub cache: usize,
}

/// A write whose outcome nobody knows: sent (or about to be) when the process died, or
/// answered with a timeout or a 5xx.
#[derive(Debug, Clone)]
pub struct UnknownWrite {
    pub id: i64,
    pub run_id: i64,
    pub item: String,
    pub action: JournalWrite,
    /// When the intent was recorded, before the request left.
    pub intent_at: DateTime<Utc>,
}

impl UnknownWrite {
    /// Whether it is a merge, which `sweep` settles; every other journaled write is a stale
    /// sweep's (label, comment, close), which `stale-sweep` settles.
    pub fn is_merge(&self) -> bool {
        matches!(self.action, JournalWrite::Merge { .. })
    }

    /// The subcommand that settles it by asking GitHub.
    pub fn settled_by(&self) -> &'static str {
        self.action.settled_by()
    }
}

/// A past run, as `recap --list` shows it.
#[derive(Debug, serde::Serialize)]
pub struct RunRow {
    pub id: i64,
    pub started_at: String,
    pub stopped: Option<String>,
    pub exit_code: Option<i64>,
    pub argv: String,
}

/// What `store status` shows: the backend, its schema version, the runs at work (with their
/// hosts and heartbeats), the queue by status and the live leases.
#[derive(Debug, serde::Serialize)]
pub struct Status {
    pub backend: &'static str,
    /// The file, or the URL without its password.
    pub location: String,
    pub schema_version: i64,
    pub live_runs: Vec<LiveRun>,
    pub queue: Vec<(String, i64)>,
    pub leases: Vec<LeaseRow>,
    /// Writes whose outcome nobody knows and that no run at work will settle (answered with
    /// a timeout or a 5xx, or left without an outcome by a run that is gone), oldest first:
    /// they block their items until a run settles them by asking GitHub, or a maintainer
    /// acknowledges them.
    pub unknown_writes: Vec<UnknownRow>,
}

/// A write of unknown outcome, as `store status` shows it.
#[derive(Debug, serde::Serialize)]
pub struct UnknownRow {
    pub run_id: i64,
    pub item: String,
    /// The write in the recap's words (`label +Stale`, `comment <!-- gh-sweep:mark-stale -->`).
    pub write: String,
    /// The subcommand whose next run settles it by asking GitHub.
    pub settled_by: &'static str,
    pub intent_at: String,
}

/// A run still at work, as `store status` shows it.
#[derive(Debug, serde::Serialize)]
pub struct LiveRun {
    pub id: i64,
    pub command: String,
    pub host: Option<String>,
    pub pid: Option<i64>,
    pub started_at: String,
    /// Its last heartbeat: the database's clock on PostgreSQL, the beating host's wall clock on SQLite.
    pub heartbeat_at: Option<String>,
}

/// A live lease, as `store status` shows it.
#[derive(Debug, serde::Serialize)]
pub struct LeaseRow {
    pub key: String,
    pub owner: String,
    pub leased_until: String,
}

/// What a claim's `admit` decides on: the candidate PR's gate entry and sweep budget, read
/// inside the claim's transaction. A gate that cannot be read is `None`; a budget missing,
/// damaged or unreadable is fresh.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClaimFacts {
    pub gate: Option<Gate>,
    pub budget: Budget,
}

/// Decides whether a candidate row may be leased: the row as it would be leased (its attempt
/// counted), the facts read with it, and the claim's `now`.
pub type Admit<'a> = dyn FnMut(&Claim, &ClaimFacts, DateTime<Utc>) -> bool + 'a;

/// A run that may no longer write: its heartbeat went past its bound (paused, cut off), or
/// another run took its work over.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct LostLease(pub String);

/// Opens the store at `location`, its schema migrated to this version.
pub fn open(location: &Location) -> anyhow::Result<Box<dyn Store>> {
    open_as(location, &Runs::default())
}

/// Opens the store at `location` for runs recorded as `runs` says (on a SQLite file).
pub fn open_as(location: &Location, runs: &Runs) -> anyhow::Result<Box<dyn Store>> {
    Ok(match location {
        Location::File(path) => Box::new(sqlite::SqliteStore::open_as(
            path,
            &runs.host,
            runs.liveness,
        )?),
        Location::Memory => Box::new(sqlite::SqliteStore::in_memory()?),
        #[cfg(feature = "postgres")]
        Location::Postgres(target) => Box::new(postgres::PostgresStore::open(target)?),
        #[cfg(not(feature = "postgres"))]
        Location::Postgres(target) => {
            let why = format!("cannot open {}: {WITHOUT_POSTGRES}", target.shown);
            return Err(crate::exit::Fatal::Usage(why).into());
        }
    })
}

/// Why a build without the `postgres` feature refuses a PostgreSQL store, after what named it
/// (never the value itself, which may hold a password).
pub const WITHOUT_POSTGRES: &str = "this gh-sweep was built without PostgreSQL support (cargo feature `postgres`); name a SQLite file (a path or `sqlite:PATH`), or use a build with the feature (it is on by default)";

/// What a store failure means beyond the database's words, when that is known (a pooler in
/// transaction mode that loses prepared statements).
#[cfg(feature = "postgres")]
pub fn explain_failure(error: &anyhow::Error) -> Option<String> {
    error
        .chain()
        .filter_map(|cause| {
            cause.downcast_ref::<::postgres::Error>().or_else(|| {
                cause
                    .downcast_ref::<StoreError>()
                    .and_then(StoreError::postgres)
            })
        })
        .find_map(|cause| postgres::explain(cause, "(PostgreSQL)"))
}

/// Without PostgreSQL, SQLite's failures speak for themselves.
#[cfg(not(feature = "postgres"))]
pub fn explain_failure(_error: &anyhow::Error) -> Option<String> {
    None
}

/// Whether an error came from the store's backend (a full disk, a lock held past the busy
/// timeout, a dropped database connection, a heartbeat lost), rather than from anything else.
pub fn is_failure(error: &anyhow::Error) -> bool {
    #[cfg(feature = "postgres")]
    if postgres::is_failure(error) {
        return true;
    }
    sqlite::is_failure(error)
        || error.chain().any(|cause| {
            cause.downcast_ref::<LostLease>().is_some()
                || cause
                    .downcast_ref::<StoreError>()
                    .is_some_and(StoreError::is_backend)
        })
}

/// The whole store: each part below, and what concerns the store as one.
pub trait Store: RunLog + WriteJournal + StaleMarks + MergeQueue + MergeGate + PollMemory {
    /// What the maintainer should know about the store (a file others can read).
    fn warnings(&self) -> &[String];

    /// Remembers repository `id` under its canonical name. When the id was last seen under
    /// another name (a rename, a transfer), every row kept under that name (the queue, the
    /// merge gate, sweep budgets, the journal, stale marks) moves to the new one in one
    /// transaction, so nothing waits forever under a name GitHub no longer answers to. Past
    /// runs' recaps keep the names they had. Returns the old name when rows moved.
    fn follow_repository(&mut self, id: u64, name: &RepoRef) -> Result<Option<String>>;

    /// The HTTP validators kept beside the rest, for the client's conditional requests.
    fn response_cache(&self) -> Result<Box<dyn ResponseCache>>;

    /// Forgets what no decision needs any more, as of `now` (the wall clock, which the stamps
    /// are on), in transactions of at most [`retention::PRUNE_BATCH`] rows of a kind (see
    /// there for how many a call runs):
    ///
    /// - journal rows with a settled outcome whose intent is older than
    ///   [`retention::JOURNAL_KEPT`], except a done or acknowledged `add-labels` with no done
    ///   or acknowledged stale comment (marker `mark-stale`) after it on the same item, which
    ///   [`WriteJournal::mark_unfinished`] still reads; a write without an outcome or of
    ///   unknown outcome is never pruned;
    /// - the recap and item outcomes of every run but the newest [`retention::RECAPS_KEPT`];
    /// - the summary row of a run beyond the newest [`retention::RUNS_KEPT`], started before
    ///   the journal window, that no journal row names;
    /// - HTTP answers stored more than [`retention::CACHE_KEPT`] ago.
    ///
    /// Every answer of every other method is the same before and after, but for
    /// [`RunLog::recap`] of a run whose recap was dropped (`None`) and the older runs' rows of
    /// [`RunLog::runs`].
    fn prune(&mut self, now: DateTime<Utc>) -> Result<Pruned>;

    /// The backend, schema version, runs at work, queue and leases, for `store status`.
    fn status(&self) -> Result<Status>;

    /// Every row `store copy` moves, table by table.
    fn export(&self) -> Result<copy::Dump>;

    /// Replaces every table `store copy` moves with `dump`'s rows, in one transaction.
    fn import(&mut self, dump: &copy::Dump) -> Result<()>;

    /// Applies `effects` of run `run_id`, in order, in one transaction (`BEGIN IMMEDIATE` on
    /// SQLite, one `BEGIN`/`COMMIT` on PostgreSQL) that first checks that this run still
    /// holds its heartbeat: not finished, not taken over, renewed within its bound. A run that
    /// lost it gets [`LostLease`] and nothing is applied, so a run paused past its bound and
    /// resumed after another run took its work over never applies its stale bookkeeping; any
    /// effect failing rolls every other one back. Only that run is checked: another run of
    /// the same store that lost its heartbeat fences its own settlements, not this one's.
    fn settle(&self, run_id: i64, effects: &[Effect]) -> Result<Applied>;

    /// What the recap should say about the store's doings this run (a dead run of another
    /// host taken over, and when).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Runs, their recaps and their items' outcomes.
pub trait RunLog {
    /// Records a run starting (with this process's id and host); returns its id.
    fn start_run(&self, command: &str, argv: &str) -> Result<i64>;

    /// Records which GitHub account run `run_id` acts as (host and login, or an app
    /// installation's identity), so that every run of one account shares GitHub's per-account
    /// write ceilings ([`WriteJournal::account_writes_since`]).
    fn record_account(&self, run_id: i64, account: &str) -> Result<()>;

    /// Stores the recap and every item's outcome in one transaction.
    fn finish_run(&mut self, recap: &Recap) -> Result<()>;

    /// The recap of run `run_id`, or of the latest finished run.
    fn recap(&self, run_id: Option<i64>) -> Result<Option<Recap>>;

    /// Recent runs, newest first.
    fn runs(&self, limit: usize) -> Result<Vec<RunRow>>;
}

/// How long the room an item's first write reserved for its later writes is kept: an item's
/// writes are seconds apart, so a reservation older than this belongs to a run that died
/// between them.
pub const RESERVATION_LIFE: Duration = Duration::from_secs(10 * 60);

/// A write's intent, to be journaled under its account's pacing
/// ([`WriteJournal::journal_paced_intent`]).
pub struct PacedIntent<'a> {
    pub run_id: i64,
    pub item: &'a ItemRef,
    pub action: &'a JournalWrite,
    pub step: IntentStep,
    /// The store's tick when the item was read ([`WriteJournal::read_mark`]): every write of
    /// the item, not only its first, is refused when another run wrote the item since.
    pub read_mark: i64,
    /// The account whose writes GitHub's ceilings count (`runs.account`).
    pub account: &'a str,
    /// The least time between two writes of the account.
    pub interval: Duration,
}

/// Which of an item's writes an intent is.
#[derive(Clone, Copy, Debug)]
pub enum IntentStep {
    /// The item's first write to GitHub, of `writes` in all.
    First { writes: usize },
    /// A later write of the item, whose first write's journal row is `first`.
    Later { first: i64 },
}

/// What the store made of a paced intent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Journaled: the write may be sent. Its journal row.
    Journaled(i64),
    /// Another run wrote the item since it was read.
    Overtaken,
    /// Nothing journaled: the pacing asks for this wait first, for this rule.
    Wait(Duration, crate::policy::pacing::Limit),
}

/// The write journal: each write's intent before it is sent, and its outcome after.
pub trait WriteJournal {
    /// Records that a write is about to be sent. Committed before the request leaves, in a
    /// transaction that first checks the run still holds its heartbeat.
    fn journal_intent(&self, run_id: i64, item: &ItemRef, action: &JournalWrite) -> Result<i64>;

    /// The store's clock now, for [`WriteJournal::journal_intent_since`]: a number every
    /// intent and outcome recorded later exceeds, whichever host records it (a tick of the
    /// store's own, never a host's clock).
    fn read_mark(&self) -> Result<i64>;

    /// Records the intent of a write to an item read at `read_mark`, unless another run was
    /// writing to the item when this run read it, or has since (then what this run read is out
    /// of date, and it must not write). Every write of an item goes through it, not only its
    /// first. The check, the check that this run still holds its heartbeat (a run taken over
    /// or past its bound gets [`LostLease`]), and the insert are one transaction, so two
    /// overlapping runs cannot both pass it; a run whose heartbeat is past the bound and that
    /// wrote the item is marked taken over in it, so it never writes again.
    fn journal_intent_since(
        &self,
        run_id: i64,
        item: &ItemRef,
        action: &JournalWrite,
        read_mark: i64,
    ) -> Result<Option<i64>>;

    /// Journals a write's intent under its account's pacing, in one transaction under the
    /// account's lock (`BEGIN IMMEDIATE` on SQLite, `pg_advisory_xact_lock` on PostgreSQL):
    /// the account's writes of the last hour (every run's, every host's) and the room items
    /// whose first write is out have reserved are counted, and the intent is journaled only
    /// when `policy::pacing::admission` says no wait is needed; else nothing is written and
    /// the wait is returned. In the same transaction every write checks that the run still
    /// holds its heartbeat ([`LostLease`] if not) and that no other run wrote the item since
    /// it was read (taking over dead writers of the item, as
    /// [`WriteJournal::journal_intent_since`] does); an item's first write reserves room for
    /// its later writes, which each use one of it.
    fn journal_paced_intent(&self, intent: &PacedIntent<'_>) -> Result<Admission>;

    /// Gives back the room an item reserved (its first write's journal row `first`) for
    /// writes it will not send: it failed, or the run was stopped between its writes.
    fn release_reserved(&self, first: i64) -> Result<()>;

    /// Records what became of a journaled write: `done`, `failed` (refused, nothing written)
    /// or `unknown`.
    fn journal_outcome(&self, id: i64, outcome: WriteOutcome, detail: &str) -> Result<()>;

    /// When each write to GitHub journaled by any run recorded as `account` was started (its
    /// intent), from `since` on, ascending: what GitHub's per-account ceilings count. Local
    /// writes (the queue's) are never journaled, so never counted.
    fn account_writes_since(
        &self,
        account: &str,
        since: DateTime<Utc>,
    ) -> Result<Vec<DateTime<Utc>>>;

    /// Writes in these repositories whose outcome is unknown and not yet acknowledged. A write
    /// without an outcome whose run has not finished, and that is younger than [`IN_FLIGHT`],
    /// belongs to a run still at work: it is that run's to settle, not ours.
    fn unknown_writes(&self, repos: &[RepoRef], now: DateTime<Utc>) -> Result<Vec<UnknownWrite>>;

    /// The maintainer checked an item by hand: its unknown writes stop blocking it.
    fn acknowledge(&self, item: &ItemRef) -> Result<usize>;

    /// Whether gh-sweep's latest stale label on an item was put on by a run that never got to
    /// post the stale comment after it.
    fn mark_unfinished(&self, item: &ItemRef, label: &str) -> Result<bool>;

    /// Settles a journal row whose outcome was unknown, once GitHub has been asked.
    fn resolve_journal(&self, id: i64, found: Settled, detail: &str) -> Result<()> {
        self.journal_outcome(id, found.outcome(), detail)
    }
}

/// What gh-sweep itself wrote of stale labels: when it put one on, and its last write there.
pub trait StaleMarks {
    /// When gh-sweep put the stale label on an item, and its last write there. A damaged row
    /// reads as unknown.
    fn stale_mark(
        &self,
        item: &ItemRef,
        label: &str,
    ) -> Result<Option<(DateTime<Utc>, DateTime<Utc>)>>;

    fn record_stale_mark(
        &self,
        item: &ItemRef,
        label: &str,
        labeled_at: DateTime<Utc>,
        last_write_at: DateTime<Utc>,
    ) -> Result<()>;

    fn forget_stale_mark(&self, item: &ItemRef) -> Result<()>;
}

/// The queue of seed 002: rows keyed by their dedupe key, kept after completion.
pub trait MergeQueue {
    /// Enqueues a trigger once. Returns whether the row is new. A merge that failed for this
    /// same key and whose backoff has passed is made pending again, keeping its attempts.
    fn enqueue(&self, row: &NewRow<'_>, now: DateTime<Utc>) -> Result<bool>;

    /// Rows for a PR that the in-flight guard reads, newest first.
    fn queue_rows(&self, repo: &RepoRef, pr: u64) -> Result<Vec<Row>>;

    /// Failed merges of a PR since `since`, for the backoff.
    fn failures(&self, repo: &RepoRef, pr: u64, since: DateTime<Utc>) -> Result<Vec<Failure>>;

    /// Leases the first claimable row that `admit` accepts, in one transaction that also reads
    /// the facts `admit` is given. A row whose attempts are used up is abandoned instead of
    /// offered; a refused row keeps its status and its attempts; a row is skipped while
    /// another row of the same PR holds a live lease; only rows of `repos` are considered.
    fn claim(
        &mut self,
        now: DateTime<Utc>,
        owner: &str,
        repos: &[RepoRef],
        lease: chrono::Duration,
        admit: &mut Admit<'_>,
    ) -> Result<Option<Claim>>;

    /// Marks a claimed row done. False when the caller no longer holds it.
    fn complete(&self, key: &str, owner: &str, now: DateTime<Utc>) -> Result<bool>;

    /// Hands a claimed row back at once (its attempt stays counted).
    fn release(&self, key: &str, owner: &str, now: DateTime<Utc>) -> Result<bool>;

    /// Hands a claimed row back without counting the attempt: nothing was tried.
    fn release_unattempted(&self, key: &str, owner: &str, now: DateTime<Utc>) -> Result<bool>;

    /// Gives up on a row that will only fail again.
    fn abandon(&self, key: &str, owner: &str, now: DateTime<Utc>) -> Result<bool>;

    /// Records a failed merge: the row the backoff reads.
    fn fail(&self, key: &str, owner: &str, error: &str, now: DateTime<Utc>) -> Result<bool>;

    /// Rows a run still holds, for releasing what it did not finish.
    fn held_by(&self, owner: &str) -> Result<Vec<String>>;

    /// Pending merge rows of these repositories, oldest first (what a sweep would claim).
    fn pending(&self, repos: &[RepoRef], now: DateTime<Utc>) -> Result<Vec<Pending>>;

    /// Claimed merge rows of these repositories whose lease has not run out, oldest first, each
    /// with what is known of the run holding it.
    fn leases(&self, repos: &[RepoRef], now: DateTime<Utc>) -> Result<Vec<Lease>>;

    /// After `done_key` completed, closes every other pending row of the same PR and kind that
    /// was already pending when the work started and names no other commit. Returns how many.
    fn fold(&self, done_key: &str, started: DateTime<Utc>, now: DateTime<Utc>) -> Result<usize>;
}

/// The merge gate of seed 001 (per PR, what `poll` observed, and the merged marker) and the
/// sweep budgets.
pub trait MergeGate {
    fn gate(&self, item: &ItemRef) -> Result<Option<Gate>>;

    /// Every gate entry of these repositories, for the lost-trigger sweep.
    fn gates(&self, repos: &[RepoRef]) -> Result<Vec<(ItemRef, Gate)>>;

    /// Records what was observed of a PR. The merged marker is kept.
    fn record_gate(&self, item: &ItemRef, gate: &Gate, observed_at: DateTime<Utc>) -> Result<()>;

    /// Records a run's observations in one transaction (one commit, not one per PR).
    fn record_gates(&self, observations: &[(ItemRef, Gate, DateTime<Utc>)]) -> Result<()>;

    /// The merged marker, set only after a real merge (or a merge found on GitHub).
    fn record_merged(&self, item: &ItemRef, head_sha: &str, at: DateTime<Utc>) -> Result<()>;

    /// A PR's sweep budget; missing or damaged reads as fresh.
    fn budget(&self, item: &ItemRef) -> Result<Budget>;

    fn record_budget(&self, item: &ItemRef, budget: &Budget) -> Result<()>;

    /// After a merge was found on GitHub: the PR's waiting and claimed merge rows are done,
    /// whoever held them.
    fn settle_merged(&self, item: &ItemRef, now: DateTime<Utc>) -> Result<usize>;

    /// After a merge was found not to have happened: the PR's claimed rows go back to pending
    /// (their lease belonged to a run that is over).
    fn reopen_claims(&self, item: &ItemRef, now: DateTime<Utc>) -> Result<usize>;
}

/// What `poll` remembers of each repository's last tick: a document the engine
/// writes and reads back whole (JSON), one per repository, so that a repeat tick asks GitHub
/// only what changed since. Lost or unreadable, it costs one full tick, never a verdict.
pub trait PollMemory {
    fn poll_memory(&self, repo: &RepoRef) -> Result<Option<String>>;

    /// Replaces the memory of `repo`. One statement and no transaction of its own: it is
    /// applied as an effect, inside the settlement's transaction ([`Store::settle`]).
    fn record_poll_memory(&self, repo: &RepoRef, memory: &str) -> Result<()>;
}
