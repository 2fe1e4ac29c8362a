//! The SQLite backend of the store: one file, WAL, a busy timeout, schema versioned and
//! migrated on open ([`migrations`]), created 0600. Runs and the store as a whole here; the
//! journal and stale marks, the queue, the gate and the HTTP cache in their own files. Every
//! transaction that must exclude another run is `BEGIN IMMEDIATE`. Runs carry a heartbeat as on
//! PostgreSQL (a file two containers mount is shared as a database is), stamped with the wall
//! clock and renewed by a thread of this process; the journal's intents and outcomes carry ticks
//! of the file's own clock (`store_clock`), which is what "written since it was read" compares.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex, Weak};

use crate::store::error::Doing;
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::identity::{Identity, Process};
use super::Liveness;
use super::Store;
use crate::http_cache::{NoCache, ResponseCache};
use crate::item::RepoRef;

mod copy;
pub mod gate;
pub mod http_cache;
mod journal;
mod migrations;
mod open;
mod poll_memory;
mod prune;
pub mod queue;
mod runs;
mod settle;

pub use migrations::SCHEMA_VERSION;

/// Statements kept prepared on their connection (rusqlite's statement cache): a hot path's SQL
/// is parsed once per connection, not once per call (re-parsing was measured at an eighth of a
/// REST run's CPU). `Connection::execute` and `query_row` prepare and finalize each time.
pub(crate) trait Prepared {
    fn execute_cached<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize>;

    fn query_row_cached<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        read: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T>;
}

impl Prepared for Connection {
    fn execute_cached<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    fn query_row_cached<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        read: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.prepare_cached(sql)?.query_row(params, read)
    }
}

/// How many statements a connection keeps prepared: more than its hot paths use, so none of
/// them is evicted by another (rusqlite keeps 16 by default).
pub(crate) const PREPARED_KEPT: usize = 64;

/// Whether an error came from SQLite.
pub fn is_failure(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<rusqlite::Error>().is_some()
            || cause
                .downcast_ref::<super::StoreError>()
                .is_some_and(|error| matches!(error.root(), super::StoreError::Sqlite(_)))
    })
}

/// The store in one SQLite file (or in memory, for a snapshot replay).
pub struct SqliteStore {
    pub(crate) connection: Connection,
    path: PathBuf,
    /// What the maintainer should know about the file (a database others can read).
    warnings: Vec<String>,
    /// This process, as its runs are recorded.
    me: Identity,
    /// The name this host goes by (`GH_SWEEP_HOST`, else its hostname).
    host: String,
    liveness: Liveness,
    /// The runs of this process still at work, whose heartbeat a thread renews.
    beating: Arc<Mutex<Vec<i64>>>,
    /// Dropped with the store: the heartbeat thread then stops.
    _stop: Option<mpsc::Sender<()>>,
    /// Runs whose work this process took over, for the recap.
    took_over: RefCell<Vec<String>>,
    /// The HTTP caches this store made, whose waiting answers it writes before a write is
    /// journaled and before it prunes ([`http_cache`]).
    caches: RefCell<Vec<Weak<Mutex<http_cache::CacheWriter>>>>,
}

/// What is known of a run's life, read from its row.
pub(crate) struct Life {
    pub run_id: i64,
    pub finished: bool,
    pub taken_over: bool,
    pub heartbeat_at: Option<DateTime<Utc>>,
    pub host: Option<String>,
    pub process: Process,
}

/// The columns [`Life`] is read from, the runs table named `runs`.
pub(crate) const LIFE_COLUMNS: &str = "runs.id, runs.finished_at IS NOT NULL, runs.taken_over_at IS NOT NULL, runs.heartbeat_at, runs.host, runs.pid, runs.boot_id, runs.pid_ns, runs.start_time";

impl Life {
    pub(crate) fn read(row: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Life> {
        let heartbeat: Option<String> = row.get(at + 3)?;
        Ok(Life {
            run_id: row.get(at)?,
            finished: row.get(at + 1)?,
            taken_over: row.get(at + 2)?,
            heartbeat_at: heartbeat
                .and_then(|text| DateTime::parse_from_rfc3339(&text).ok())
                .map(|time| time.with_timezone(&Utc)),
            host: row.get(at + 4)?,
            process: Process {
                pid: row.get(at + 5)?,
                boot_id: row.get(at + 6)?,
                pid_ns: row.get(at + 7)?,
                start_time: row.get(at + 8)?,
            },
        })
    }
}

/// A stamp as the runs' heartbeats are kept: RFC 3339 in UTC, to the microsecond.
pub(crate) fn stamp(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// This machine's name, to tell a run of this machine from one of another sharing the file.
pub fn host_name() -> String {
    host()
}

pub(crate) fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|name| name.trim().to_string())
        .unwrap_or_default()
}

pub(crate) fn now_text() -> String {
    crate::clock::wall().to_rfc3339()
}

impl SqliteStore {
    /// The pages this store's connection has asked SQLite's pager for since it was opened
    /// (found in its page cache or read from the file): what its look-ups cost, counted
    /// rather than timed, so that a test can pin them.
    pub fn page_reads(&self) -> i64 {
        page_reads(&self.connection)
    }
}

/// The pages `connection` has asked its pager for since it was opened: its page cache's hits
/// and misses (`SQLITE_DBSTATUS_CACHE_HIT` and `_MISS`).
pub(crate) fn page_reads(connection: &Connection) -> i64 {
    let status = |which| {
        let (mut current, mut highest) = (0, 0);
        // SAFETY: the handle is this open connection's; the call only reads its counters.
        unsafe {
            rusqlite::ffi::sqlite3_db_status(
                connection.handle(),
                which,
                &mut current,
                &mut highest,
                0,
            )
        };
        i64::from(current)
    };
    status(rusqlite::ffi::SQLITE_DBSTATUS_CACHE_HIT)
        + status(rusqlite::ffi::SQLITE_DBSTATUS_CACHE_MISS)
}

impl SqliteStore {
    /// Writes the answers the HTTP caches it made hold in memory: before a write is
    /// journaled (what was read before it is on disk before anything is sent) and before
    /// pruning or copying the store (which then see every answer).
    pub(crate) fn flush_caches(&self) {
        for cache in self.caches.borrow().iter() {
            if let Some(writer) = cache.upgrade() {
                if let Ok(mut writer) = writer.lock() {
                    writer.flush();
                }
            }
        }
    }

    /// Runs `work` inside one `BEGIN IMMEDIATE` transaction, committed when it succeeds.
    pub(crate) fn immediate<T>(
        &self,
        work: impl FnOnce() -> crate::store::Result<T>,
    ) -> crate::store::Result<T> {
        self.connection
            .execute_batch("BEGIN IMMEDIATE")
            .doing("taking the store's write lock")?;
        let result = work();
        let end = if result.is_ok() { "COMMIT" } else { "ROLLBACK" };
        self.connection.execute_batch(end)?;
        result
    }

    /// The next tick of the store's clock, inside a write transaction: what stamps the
    /// journal's intents and outcomes so that runs on hosts with different clocks compare
    /// them on one.
    pub(crate) fn tick(&self) -> rusqlite::Result<i64> {
        self.connection
            .execute_cached("UPDATE store_clock SET tick = tick + 1", [])?;
        self.connection
            .query_row_cached("SELECT tick FROM store_clock", [], |row| row.get(0))
    }
}

impl Store for SqliteStore {
    fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// (Rows are keyed by name; the id is what tells a new name from another repository.)
    fn follow_repository(
        &mut self,
        id: u64,
        name: &RepoRef,
    ) -> crate::store::Result<Option<String>> {
        let new = name.to_string();
        let transaction = self
            .connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .doing("following a renamed repository")?;
        let old: Option<String> = transaction
            .query_row(
                "SELECT full_name FROM repositories WHERE id = ?1",
                [id as i64],
                |row| row.get(0),
            )
            .optional()?;
        transaction.execute(
            "INSERT OR REPLACE INTO repositories (id, full_name, seen_at) VALUES (?1, ?2, ?3)",
            params![id as i64, new, now_text()],
        )?;
        let moved = old.filter(|old| *old != new);
        if let Some(old) = &moved {
            // `owner/name#` prefixes: item names and queue keys (`merge:owner/name#N@sha`).
            let prefix_length = old.len() as i64 + 1;
            let old_items = format!("{}#%", like_escape(old));
            transaction.execute(
                "UPDATE OR REPLACE queue SET repo = ?2,
                    key = CASE WHEN key LIKE ?4 ESCAPE '\\' THEN 'merge:' || ?2 || substr(key, ?3 + 7) ELSE key END
                 WHERE repo = ?1",
                params![old, new, prefix_length - 1, format!("merge:{}#%", like_escape(old))],
            )?;
            for table in ["merge_gate", "sweep_budget"] {
                transaction.execute(
                    &format!("UPDATE OR REPLACE {table} SET repo = ?2 WHERE repo = ?1"),
                    params![old, new],
                )?;
            }
            transaction.execute(
                "UPDATE journal SET repo = ?2, item = ?2 || substr(item, ?3) WHERE repo = ?1",
                params![old, new, prefix_length],
            )?;
            transaction.execute(
                "UPDATE OR REPLACE stale_marks SET item = ?2 || substr(item, ?3)
                 WHERE item LIKE ?4 ESCAPE '\\'",
                params![old, new, prefix_length, old_items],
            )?;
        }
        transaction.commit()?;
        Ok(moved)
    }

    /// A second connection to the same file, so the client's best-effort cache writes never
    /// share the run's transactions. An in-memory store keeps no answers.
    fn response_cache(&self) -> crate::store::Result<Box<dyn ResponseCache>> {
        if self.path == Path::new(":memory:") {
            return Ok(Box::new(NoCache));
        }
        let cache = http_cache::SqliteCache::open(&self.path)?;
        let mut caches = self.caches.borrow_mut();
        caches.retain(|made| made.strong_count() > 0);
        caches.push(cache.handle());
        Ok(Box::new(cache))
    }

    fn prune(&mut self, now: chrono::DateTime<chrono::Utc>) -> crate::store::Result<super::Pruned> {
        self.prune_rows(now).doing("pruning the store")
    }

    fn status(&self) -> crate::store::Result<super::Status> {
        self.read_status()
    }

    fn export(&self) -> crate::store::Result<super::copy::Dump> {
        self.export_rows()
    }

    fn import(&mut self, dump: &super::copy::Dump) -> crate::store::Result<()> {
        self.import_rows(dump)
    }

    fn settle(
        &self,
        run_id: i64,
        effects: &[super::Effect],
    ) -> crate::store::Result<super::Applied> {
        self.settle_effects(run_id, effects)
    }

    fn notes(&self) -> Vec<String> {
        self.took_over.borrow().clone()
    }
}

/// `text` for a LIKE pattern, its wildcards escaped with `\`.
fn like_escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

#[cfg(test)]
mod tests;
