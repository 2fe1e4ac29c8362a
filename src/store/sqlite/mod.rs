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
use std::time::Duration;

use crate::store::error::Doing;
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::identity::{Identity, Process};
use super::Liveness;
use super::{LostLease, RunLog, RunRow, Store};
use crate::exit::Fatal;
use crate::http_cache::{NoCache, ResponseCache};
use crate::item::RepoRef;
use crate::policy::recap::Recap;
use crate::private_file::create_private;

mod copy;
pub mod gate;
pub mod http_cache;
mod journal;
mod migrations;
mod prune;
pub mod queue;

pub use migrations::SCHEMA_VERSION;

/// Statements kept prepared on their connection (rusqlite's statement cache): a hot path's SQL
/// is parsed once per connection, not once per call (issue 24: re-parsing was an eighth of a
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
    caches: RefCell<Vec<Weak<Mutex<http_cache::Writer>>>>,
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

/// Retries an operation SQLite refused as busy or locked, for up to ten seconds.
fn busy_retry<T>(mut operation: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        match operation() {
            Err(rusqlite::Error::SqliteFailure(error, message))
                if matches!(
                    error.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && std::time::Instant::now() < deadline =>
            {
                let _ = message;
                std::thread::sleep(Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

pub(crate) fn now_text() -> String {
    crate::clock::wall().to_rfc3339()
}

impl SqliteStore {
    /// A store that lives as long as the process: for replaying a snapshot, which must leave
    /// nothing in the maintainer's own state (no run in `recap --list`, no journal).
    pub fn in_memory() -> anyhow::Result<Self> {
        let connection = Connection::open_in_memory().doing("opening an in-memory store")?;
        connection.set_prepared_statement_cache_capacity(PREPARED_KEPT);
        connection
            .execute_batch("PRAGMA foreign_keys = ON")
            .doing("opening an in-memory store")?;
        let mut store = SqliteStore::unbeating(connection, PathBuf::from(":memory:"));
        store.migrate()?;
        Ok(store)
    }

    /// A store on `connection` whose runs no thread beats for: one in memory (no other process
    /// sees it) or one opened only to be read (it starts no run).
    fn unbeating(connection: Connection, path: PathBuf) -> Self {
        SqliteStore {
            connection,
            path,
            warnings: Vec::new(),
            me: Identity::this_process(),
            host: host(),
            liveness: Liveness::default(),
            beating: Arc::default(),
            _stop: None,
            took_over: RefCell::default(),
            caches: RefCell::default(),
        }
    }

    pub fn open(path: &Path) -> anyhow::Result<Self> {
        Self::open_as(path, &host(), Liveness::default())
    }

    /// Opens the file for runs of the host named `host`, whose heartbeats follow `liveness`.
    pub fn open_as(path: &Path, host: &str, liveness: Liveness) -> anyhow::Result<Self> {
        if let Some(parent) = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
        {
            std::fs::create_dir_all(parent).map_err(|error| {
                Fatal::Usage(format!(
                    "cannot create the database folder {}: {error}",
                    parent.display()
                ))
            })?;
        }
        #[cfg(unix)]
        refuse_foreign_dangling_link(path)?;
        let mut warnings = Vec::new();
        #[cfg(unix)]
        if let Ok(metadata) = std::fs::metadata(path) {
            use std::os::unix::fs::PermissionsExt;
            let mode = metadata.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                warnings.push(format!(
                    "the database {} can be read by other users (mode {mode:o}); run `chmod 600 {}`",
                    path.display(),
                    path.display()
                ));
            }
        }
        // A link to a file not made yet: the file is made where it points, as any path's.
        let made = std::fs::read_link(path)
            .ok()
            .filter(|_| !path.exists())
            .map(|target| match path.parent() {
                Some(parent) if target.is_relative() => parent.join(target),
                _ => target,
            })
            .unwrap_or_else(|| path.to_path_buf());
        if !path.exists() {
            create_private(&made).map_err(|error| {
                Fatal::Usage(format!(
                    "cannot create the database {}: {error}; pass --db PATH to put it elsewhere",
                    path.display()
                ))
            })?;
        }
        let unusable = |error: rusqlite::Error| {
            Fatal::Usage(format!(
                "cannot use the database {}: {error}; pass --db PATH to use another file",
                path.display()
            ))
        };
        let connection = Connection::open(path).map_err(unusable)?;
        connection.set_prepared_statement_cache_capacity(PREPARED_KEPT);
        connection
            .busy_timeout(Duration::from_secs(10))
            .map_err(unusable)?;
        // Switching a new file to WAL needs it to itself for a moment, and SQLite answers
        // "busy" at once instead of calling the busy handler: an overlapping run waits here.
        busy_retry(|| connection.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(())))
            .map_err(unusable)?;
        connection
            .execute_batch("PRAGMA foreign_keys = ON")
            .map_err(unusable)?;
        let beating: Arc<Mutex<Vec<i64>>> = Arc::default();
        let (stop, stopped) = mpsc::channel();
        spawn_heartbeat(path.to_path_buf(), liveness, beating.clone(), stopped);
        let mut store = SqliteStore {
            connection,
            path: path.to_path_buf(),
            warnings,
            me: Identity::this_process(),
            host: host.to_string(),
            liveness,
            beating,
            _stop: Some(stop),
            took_over: RefCell::default(),
            caches: RefCell::default(),
        };
        store
            .migrate()
            .map_err(|error| match error.downcast::<Fatal>() {
                Ok(fatal) => anyhow::Error::new(fatal),
                Err(error) => match error.downcast::<rusqlite::Error>() {
                    Ok(sqlite) => anyhow::Error::new(unusable(sqlite)),
                    Err(other) => other,
                },
            })?;
        store.check_tables()?;
        Ok(store)
    }
}

impl SqliteStore {
    /// Whether this process can write the store at `path`: the file and its folder (where
    /// SQLite puts the `-wal` and `-shm` files). A read-only mount says no even to root
    /// (`EROFS`), a read-only file to anyone but root.
    #[cfg(unix)]
    pub fn writable(path: &Path) -> bool {
        use std::os::unix::ffi::OsStrExt;
        let can_write = |path: &Path| {
            std::ffi::CString::new(path.as_os_str().as_bytes())
                .map(|name| unsafe { libc::access(name.as_ptr(), libc::W_OK) } == 0)
                .unwrap_or(false)
        };
        let folder = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        can_write(path) && can_write(folder)
    }

    #[cfg(not(unix))]
    pub fn writable(path: &Path) -> bool {
        std::fs::metadata(path).is_ok_and(|metadata| !metadata.permissions().readonly())
    }

    /// The store opened only to be read (`recap` on a read-only mount or file): nothing is
    /// migrated or created. A WAL database whose `-shm` file is not there and cannot be made
    /// is opened as immutable, which SQLite allows for a file nobody changes meanwhile; a
    /// store of an older schema cannot be read this way and says so.
    pub fn open_read_only(path: &Path) -> anyhow::Result<Self> {
        use rusqlite::OpenFlags;
        let unusable = |error: rusqlite::Error| {
            Fatal::Usage(format!(
                "cannot read the database {} (it is read-only here, so it was opened read-only): {error}",
                path.display()
            ))
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI;
        let plain = Connection::open_with_flags(path, flags).and_then(|connection| {
            connection.query_row("PRAGMA user_version", [], |row| row.get::<_, i64>(0))?;
            Ok(connection)
        });
        let connection = match plain {
            Ok(connection) => connection,
            Err(_) => {
                let uri = format!(
                    "file:{}?immutable=1",
                    percent_path(&path.display().to_string())
                );
                Connection::open_with_flags(uri, flags).map_err(unusable)?
            }
        };
        connection.set_prepared_statement_cache_capacity(PREPARED_KEPT);
        let version: i64 = connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(unusable)?;
        if version != migrations::SCHEMA_VERSION {
            return Err(Fatal::Usage(format!(
                "the database {} has schema version {version} and this gh-sweep reads version {}; it is read-only here, so it cannot be migrated: open it once where it can be written",
                path.display(),
                migrations::SCHEMA_VERSION
            ))
            .into());
        }
        // Read only: it starts no run, so nothing of it beats.
        let store = SqliteStore::unbeating(connection, path.to_path_buf());
        store.check_tables()?;
        Ok(store)
    }
}

/// A path as a `file:` URI's path: the characters a URI gives a meaning escaped.
fn percent_path(path: &str) -> String {
    let mut text = String::new();
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"/-_.~".contains(&byte) {
            text.push(byte as char);
        } else {
            text.push_str(&format!("%{byte:02X}"));
        }
    }
    text
}

/// Renews the heartbeat of this process's runs every `renew_every`, on a connection of its
/// own, until the store is dropped. A renewal is conditional on the last heartbeat being within
/// the bound (on the wall clock recorded in the file): a run paused past it is never revived,
/// and once taken over it is never renewed.
fn spawn_heartbeat(
    path: PathBuf,
    liveness: Liveness,
    beating: Arc<Mutex<Vec<i64>>>,
    stopped: mpsc::Receiver<()>,
) {
    std::thread::spawn(move || {
        let mut connection: Option<Connection> = None;
        loop {
            match stopped.recv_timeout(liveness.renew_every) {
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                _ => return,
            }
            let runs = match beating.lock() {
                Ok(runs) => runs.clone(),
                Err(_) => return,
            };
            if runs.is_empty() {
                continue;
            }
            if connection.is_none() {
                connection = Connection::open(&path)
                    .ok()
                    .filter(|connection| connection.busy_timeout(Duration::from_secs(2)).is_ok());
            }
            let Some(open) = connection.as_ref() else {
                continue;
            };
            let now = crate::clock::wall();
            let within = now - chrono::Duration::from_std(liveness.bound).unwrap_or_default();
            for run in runs {
                let renewed = open.execute_cached(
                    "UPDATE runs SET heartbeat_at = ?2
                     WHERE id = ?1 AND finished_at IS NULL AND taken_over_at IS NULL
                       AND heartbeat_at >= ?3",
                    params![run, stamp(now), stamp(within)],
                );
                if renewed.is_err() {
                    connection = None;
                    break;
                }
            }
        }
    });
}

impl SqliteStore {
    /// The pages this store's connection has asked SQLite's pager for since it was opened
    /// (found in its page cache or read from the file): what its look-ups cost, counted
    /// rather than timed (issue 24).
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
    /// Whether the file is shared with other processes (an in-memory store is this one's).
    fn shared(&self) -> bool {
        self.path != Path::new(":memory:")
    }

    /// Whether a run may still be at work: not finished, not taken over, its process not known
    /// gone (this kernel and PID namespace only), and its heartbeat younger than the bound
    /// plus the write timeout.
    pub(crate) fn alive(&self, life: &Life) -> bool {
        if life.finished || life.taken_over || life.process.gone(&self.me) {
            return false;
        }
        if !self.shared() {
            return true;
        }
        let dead_before = crate::clock::wall()
            - chrono::Duration::from_std(self.liveness.takeover_after()).unwrap_or_default();
        life.heartbeat_at.is_some_and(|at| at >= dead_before)
    }

    /// What is known of run `run_id`'s life.
    pub(crate) fn life(&self, run_id: i64) -> rusqlite::Result<Option<Life>> {
        self.connection
            .query_row_cached(
                &format!("SELECT {LIFE_COLUMNS} FROM runs WHERE id = ?1"),
                [run_id],
                |row| Life::read(row, 0),
            )
            .optional()
    }

    /// Marks a run this process acts for as taken over, once, and notes it for the recap.
    pub(crate) fn take_over(&self, life: &Life) -> rusqlite::Result<()> {
        if life.finished || life.taken_over {
            return Ok(());
        }
        let now = crate::clock::wall();
        let taken = self.connection.execute_cached(
            "UPDATE runs SET taken_over_at = ?2, taken_over_by = ?3
             WHERE id = ?1 AND taken_over_at IS NULL AND finished_at IS NULL",
            params![life.run_id, stamp(now), self.host],
        )?;
        if taken > 0 {
            self.took_over.borrow_mut().push(format!(
                "took over run {} of host {} at {} (its last heartbeat was at {})",
                life.run_id,
                life.host.as_deref().unwrap_or("unknown"),
                now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                life.heartbeat_at.map_or_else(
                    || "unknown".to_string(),
                    |at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                ),
            ));
        }
        Ok(())
    }

    /// Inside a write transaction: run `run_id` still holds its heartbeat (not finished, not
    /// taken over, renewed within the bound), so it may record a write's intent.
    pub(crate) fn hold_run(&self, run_id: i64) -> crate::store::Result<()> {
        let life = self.life(run_id)?;
        let within = crate::clock::wall()
            - chrono::Duration::from_std(self.liveness.bound).unwrap_or_default();
        let held = life.as_ref().is_some_and(|life| {
            !life.finished
                && !life.taken_over
                && (!self.shared() || life.heartbeat_at.is_some_and(|at| at >= within))
        });
        if !held {
            return Err(LostLease(format!(
                "run {run_id} no longer holds its heartbeat in the database {} (it was paused past its bound, or another run took its work over): it starts no more writes",
                self.path.display()
            ))
            .into());
        }
        Ok(())
    }

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

/// A store path that is a symlink to nothing is made only where the link and the folder it
/// points into are this user's: another user's link (planted in a shared folder, say) would
/// have the store made where they can read it.
#[cfg(unix)]
fn refuse_foreign_dangling_link(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let Ok(link) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    if !link.file_type().is_symlink() || path.exists() {
        return Ok(());
    }
    let target = std::fs::read_link(path).unwrap_or_default();
    let target = match path.parent() {
        Some(parent) if target.is_relative() => parent.join(&target),
        _ => target,
    };
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let folder_is_mine = target
        .parent()
        .and_then(|folder| std::fs::metadata(folder).ok())
        .is_some_and(|folder| folder.uid() == me);
    if link.uid() == me && folder_is_mine {
        return Ok(());
    }
    Err(Fatal::Usage(format!(
        "refusing the database {}: it is a link to {}, which does not exist, and the link or the folder it points into belongs to another user; remove the link, or pass --db PATH to use another file",
        path.display(),
        target.display()
    ))
    .into())
}

impl RunLog for SqliteStore {
    fn start_run(&self, command: &str, argv: &str) -> crate::store::Result<i64> {
        let me = &self.me;
        self.connection
            .execute_cached(
                "INSERT INTO runs (command, argv, started_at, pid, host, run_uid, boot_id, pid_ns, start_time, heartbeat_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    command,
                    argv,
                    now_text(),
                    me.pid,
                    self.host,
                    me.run_uid,
                    me.boot_id,
                    me.pid_ns,
                    me.start_time,
                    stamp(crate::clock::wall())
                ],
            )
            .doing("recording the run")?;
        let id = self.connection.last_insert_rowid();
        if let Ok(mut beating) = self.beating.lock() {
            beating.push(id);
        }
        Ok(id)
    }

    fn record_account(&self, run_id: i64, account: &str) -> crate::store::Result<()> {
        self.connection
            .execute_cached(
                "UPDATE runs SET account = ?2 WHERE id = ?1",
                params![run_id, account],
            )
            .doing("recording the account the run acts as")?;
        Ok(())
    }

    /// Stores the recap and every item's outcome in one transaction.
    fn finish_run(&mut self, recap: &Recap) -> crate::store::Result<()> {
        let transaction = self.connection.transaction()?;
        {
            let mut insert = transaction.prepare_cached(
                "INSERT OR REPLACE INTO run_items (run_id, item, outcome, phase, disposition, detail)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for completed in &recap.completed {
                insert.execute(params![
                    recap.run_id,
                    completed.item,
                    "completed",
                    None::<String>,
                    completed.disposition,
                    completed.detail
                ])?;
            }
            for failed in &recap.failed {
                let phase = serde_json::to_value(failed.phase)?
                    .as_str()
                    .map(str::to_string);
                insert.execute(params![
                    recap.run_id,
                    failed.item,
                    "failed",
                    phase,
                    None::<String>,
                    failed.reason
                ])?;
            }
            for item in &recap.unfinished {
                insert.execute(params![
                    recap.run_id,
                    item,
                    "unfinished",
                    None::<String>,
                    None::<String>,
                    recap.unfinished_reason
                ])?;
            }
        }
        let stopped = recap
            .stopped
            .map(|stop| {
                serde_json::to_value(stop)
                    .map(|value| value.as_str().unwrap_or_default().to_string())
            })
            .transpose()?;
        transaction.execute_cached(
            "UPDATE runs SET finished_at = ?2, stopped = ?3, exit_code = ?4 WHERE id = ?1",
            params![recap.run_id, now_text(), stopped, recap.exit_code],
        )?;
        transaction.execute_cached(
            "INSERT OR REPLACE INTO run_recaps (run_id, recap) VALUES (?1, ?2)",
            params![recap.run_id, serde_json::to_string(recap)?],
        )?;
        transaction.commit().doing("recording the recap")?;
        if let Ok(mut beating) = self.beating.lock() {
            beating.retain(|run| *run != recap.run_id);
        }
        Ok(())
    }

    fn recap(&self, run_id: Option<i64>) -> crate::store::Result<Option<Recap>> {
        let text: Option<String> = match run_id {
            Some(id) => self
                .connection
                .query_row_cached(
                    "SELECT recap FROM run_recaps WHERE run_id = ?1",
                    [id],
                    |row| row.get(0),
                )
                .optional()?,
            None => self
                .connection
                .query_row_cached(
                    "SELECT recap FROM run_recaps ORDER BY run_id DESC LIMIT 1",
                    [],
                    |row| row.get(0),
                )
                .optional()?,
        };
        text.map(|text| serde_json::from_str(&text).doing("the stored recap is damaged"))
            .transpose()
    }

    /// Recent runs, newest first.
    fn runs(&self, limit: usize) -> crate::store::Result<Vec<RunRow>> {
        let mut statement = self.connection.prepare_cached(
            "SELECT id, started_at, stopped, exit_code, argv FROM runs ORDER BY id DESC LIMIT ?1",
        )?;
        let rows = statement.query_map([limit as i64], |row| {
            Ok(RunRow {
                id: row.get(0)?,
                started_at: row.get(1)?,
                stopped: row.get(2)?,
                exit_code: row.get(3)?,
                argv: row.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
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
mod tests {
    use super::*;
    use crate::item::ItemRef;
    use crate::policy::write::JournalWrite;
    use crate::store::{MergeQueue, WriteJournal};

    fn close() -> JournalWrite {
        JournalWrite::Close {
            reason: Some("not_planned".into()),
        }
    }

    #[test]
    fn rows_follow_a_renamed_repository_by_its_id() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = SqliteStore::open(&dir.path().join("state.db")).unwrap();
        let old: RepoRef = "o/r_1".parse().unwrap();
        let new: RepoRef = "o/renamed".parse().unwrap();
        let other: RepoRef = "o/r_10".parse().unwrap();
        assert_eq!(store.follow_repository(7, &old).unwrap(), None);
        let run = store.start_run("poll", "gh-sweep poll").unwrap();
        for (repo, pr) in [(&old, 3), (&other, 4)] {
            let key = crate::store::queue::merge_key(repo, pr, "sha");
            store
                .enqueue(
                    &crate::store::queue::NewRow {
                        key: &key,
                        kind: "merge",
                        repo,
                        pr,
                        head_sha: Some("sha"),
                        max_attempts: 12,
                    },
                    crate::clock::wall(),
                )
                .unwrap();
            store
                .journal_intent(run, &ItemRef::new(repo, pr), &close())
                .unwrap();
        }
        assert_eq!(store.follow_repository(7, &old).unwrap(), None);
        assert_eq!(
            store.follow_repository(7, &new).unwrap().as_deref(),
            Some("o/r_1")
        );
        let rows = |sql: &str| -> Vec<String> {
            let mut statement = store.connection.prepare(sql).unwrap();
            let rows = statement.query_map([], |row| row.get(0)).unwrap();
            rows.map(Result::unwrap).collect()
        };
        assert_eq!(
            rows("SELECT key FROM queue ORDER BY pr"),
            vec!["merge:o/renamed#3@sha", "merge:o/r_10#4@sha"]
        );
        assert_eq!(
            rows("SELECT item FROM journal ORDER BY id"),
            vec!["o/renamed#3", "o/r_10#4"]
        );
    }

    /// A recap of `items` completed items, some 300 bytes each: 1,000 make the ~300 KB of a
    /// real 1,000-item sweep's.
    fn big_recap(run_id: i64, items: usize) -> Recap {
        let completed: Vec<serde_json::Value> = (0..items)
            .map(|n| {
                serde_json::json!({
                    "item": format!("o/r#{n}"),
                    "disposition": "keep",
                    "detail": format!("updated {n} days ago, under the 60 days of `days_before_stale`; {}", "x".repeat(200)),
                })
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "schema": 1, "run_id": run_id, "command": "stale-sweep", "dry_run": false,
            "stopped": null, "stop_detail": null, "completed": completed, "failed": [],
            "unfinished": [], "unfinished_reason": null, "budget": null, "planned": [],
            "rerun": null, "exit_code": 0,
        }))
        .unwrap()
    }

    #[test]
    fn a_journal_row_s_run_is_read_without_its_recap() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = SqliteStore::open(&dir.path().join("state.db")).unwrap();
        let item: ItemRef = "o/r#3".parse().unwrap();
        let runs = 20;
        for _ in 0..runs {
            let run = store
                .start_run("stale-sweep", "gh-sweep stale-sweep")
                .unwrap();
            let id = store.journal_intent(run, &item, &close()).unwrap();
            store
                .journal_outcome(id, crate::policy::write::WriteOutcome::Done, "")
                .unwrap();
            store.finish_run(&big_recap(run, 1000)).unwrap();
        }
        let recap: i64 = store
            .connection
            .query_row("SELECT length(recap) FROM run_recaps LIMIT 1", [], |row| {
                row.get(0)
            })
            .unwrap();
        assert!(recap > 250_000, "{recap} bytes");
        // A new run's write to the item reads every other run's write to it and each writer's
        // run (`written_since`): a few pages a run, not the recap's ~75 overflow pages.
        let run = store
            .start_run("stale-sweep", "gh-sweep stale-sweep")
            .unwrap();
        let mark = store.read_mark().unwrap();
        let before = store.page_reads();
        assert!(store
            .journal_intent_since(run, &item, &close(), mark)
            .unwrap()
            .is_some());
        let read = store.page_reads() - before;
        assert!(read < 8 * runs, "{read} page reads for {runs} runs' writes");
        let before = store.page_reads();
        for id in 1..=runs {
            assert!(store.life(id).unwrap().is_some());
        }
        let read = store.page_reads() - before;
        assert!(read <= 3 * runs, "{read} page reads for {runs} runs");
    }

    /// The statements a connection holds prepared, with how often each has run
    /// (`sqlite3_next_stmt`, `SQLITE_STMTSTATUS_RUN`).
    fn prepared(connection: &Connection) -> Vec<(String, i32)> {
        let mut found = Vec::new();
        // SAFETY: the connection is open and used by this thread alone; each statement handle
        // comes from it and is only read.
        unsafe {
            let db = connection.handle();
            let mut statement = rusqlite::ffi::sqlite3_next_stmt(db, std::ptr::null_mut());
            while !statement.is_null() {
                let sql = std::ffi::CStr::from_ptr(rusqlite::ffi::sqlite3_sql(statement))
                    .to_string_lossy()
                    .into_owned();
                let runs = rusqlite::ffi::sqlite3_stmt_status(
                    statement,
                    rusqlite::ffi::SQLITE_STMTSTATUS_RUN,
                    0,
                );
                found.push((sql, runs));
                statement = rusqlite::ffi::sqlite3_next_stmt(db, statement);
            }
        }
        found
    }

    #[test]
    fn the_hot_paths_statements_stay_prepared_and_are_reused() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("state.db")).unwrap();
        let repo: RepoRef = "o/r".parse().unwrap();
        let round = |n: u64| {
            let run = store
                .start_run("stale-sweep", "gh-sweep stale-sweep")
                .unwrap();
            let item = ItemRef::new(&repo, n);
            let mark = store.read_mark().unwrap();
            let id = store
                .journal_intent_since(run, &item, &close(), mark)
                .unwrap()
                .unwrap();
            store
                .journal_outcome(id, crate::policy::write::WriteOutcome::Done, "")
                .unwrap();
            store.mark_unfinished(&item, "Stale").unwrap();
            store
                .unknown_writes(std::slice::from_ref(&repo), crate::clock::wall())
                .unwrap();
            let key = crate::store::queue::merge_key(&repo, n, "sha");
            store
                .enqueue(
                    &crate::store::queue::NewRow {
                        key: &key,
                        kind: "merge",
                        repo: &repo,
                        pr: n,
                        head_sha: Some("sha"),
                        max_attempts: 3,
                    },
                    crate::clock::wall(),
                )
                .unwrap();
            store.queue_rows(&repo, n).unwrap();
            store.life(run).unwrap();
        };
        round(1);
        let kept = prepared(&store.connection);
        let rounds = 20;
        for n in 2..=rounds {
            round(n);
        }
        let after = prepared(&store.connection);
        // The same statements, none prepared anew: each hot one ran once a round.
        assert_eq!(
            after.iter().map(|(sql, _)| sql).collect::<Vec<_>>(),
            kept.iter().map(|(sql, _)| sql).collect::<Vec<_>>()
        );
        for needle in [
            "INSERT INTO journal",
            "UPDATE journal SET outcome",
            "UPDATE store_clock",
            "FROM runs WHERE id = ?1",
            "INSERT INTO runs",
            "INSERT OR IGNORE INTO queue",
            "journal.outcome IN ('done', 'acknowledged')",
        ] {
            let runs: Vec<i32> = after
                .iter()
                .filter(|(sql, _)| sql.contains(needle))
                .map(|(_, runs)| *runs)
                .collect();
            assert!(
                runs.iter().any(|runs| *runs >= rounds as i32),
                "{needle}: {runs:?} of {after:#?}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_database_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(SqliteStore::open(&path).unwrap());
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
