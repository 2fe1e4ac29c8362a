//! The SQLite store: runs and their items, the write journal, and what gh-sweep itself wrote
//! (stale label times). One file, WAL, a busy timeout, schema versioned and migrated on open,
//! created 0600. It holds no secrets: the token never reaches it.

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use crate::exit::Fatal;
use crate::item::{ItemRef, RepoRef};
use crate::policy::recap::Recap;
use crate::policy::write::{self, JournalWrite};

pub mod gate;
pub mod http_cache;
pub mod queue;

/// Each entry migrates the schema from its index to the next version.
const MIGRATIONS: &[&str] = &[
    // 0 -> 1
    "CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        command TEXT NOT NULL,
        argv TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        stopped TEXT,
        exit_code INTEGER,
        recap TEXT
     );
     CREATE TABLE run_items (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        item TEXT NOT NULL,
        outcome TEXT NOT NULL,
        phase TEXT,
        disposition TEXT,
        detail TEXT,
        PRIMARY KEY (run_id, item)
     );
     CREATE TABLE journal (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id),
        item TEXT NOT NULL,
        repo TEXT NOT NULL,
        action TEXT NOT NULL,
        intent_at TEXT NOT NULL,
        outcome TEXT,
        outcome_at TEXT,
        detail TEXT
     );
     CREATE INDEX journal_open ON journal(repo) WHERE outcome IS NULL OR outcome = 'unknown';
     CREATE TABLE stale_marks (
        item TEXT PRIMARY KEY,
        label TEXT NOT NULL,
        labeled_at TEXT NOT NULL,
        last_write_at TEXT NOT NULL
     );",
    // 1 -> 2: the queue of seed 002.
    "CREATE TABLE queue (
        key TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        repo TEXT NOT NULL,
        pr INTEGER NOT NULL,
        head_sha TEXT,
        status TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        max_attempts INTEGER NOT NULL DEFAULT 3,
        owner TEXT,
        leased_until TEXT,
        enqueued_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        failed_at TEXT,
        last_error TEXT
     );
     CREATE INDEX queue_pr ON queue(repo, pr);
     CREATE INDEX queue_claimable ON queue(status, enqueued_at);",
    // 2 -> 3: the merge gate and sweep budgets of seed 001.
    "CREATE TABLE merge_gate (
        repo TEXT NOT NULL,
        pr INTEGER NOT NULL,
        head_sha TEXT NOT NULL,
        approved_at TEXT,
        ci_passed_at TEXT,
        blocked TEXT,
        merged_at TEXT,
        observed_at TEXT NOT NULL,
        PRIMARY KEY (repo, pr)
     );
     CREATE TABLE sweep_budget (
        repo TEXT NOT NULL,
        pr INTEGER NOT NULL,
        budget TEXT NOT NULL,
        PRIMARY KEY (repo, pr)
     );",
    // 3 -> 4: which process ran a run, so a run that died is known at once.
    "ALTER TABLE runs ADD COLUMN pid INTEGER;
     ALTER TABLE runs ADD COLUMN host TEXT;",
    // 4 -> 5: the answers kept for conditional requests (ETag / Last-Modified).
    "CREATE TABLE http_cache (
        url TEXT PRIMARY KEY,
        etag TEXT,
        last_modified TEXT,
        body TEXT NOT NULL,
        next TEXT,
        stored_at TEXT NOT NULL
     );",
    // 5 -> 6: the fingerprint of the token each cached validator was given to.
    "ALTER TABLE http_cache ADD COLUMN token TEXT;",
    // 6 -> 7: each repository by its id, which never changes, with the name it had last.
    "CREATE TABLE repositories (
        id INTEGER PRIMARY KEY,
        full_name TEXT NOT NULL,
        seen_at TEXT NOT NULL
     );",
    // 7 -> 8: the journal keeps each write as data (JSON of `JournalWrite`), not as its words.
    // Today's rows are read back from the words versions 1 to 7 wrote (`Write`'s text then);
    // `GLOB` matches case-sensitively, as the words were compared. Words these versions never
    // wrote are kept as they are, unrecognised (their item stays blocked until checked).
    "UPDATE journal SET action = CASE
        WHEN action GLOB 'comment <*' THEN
            json_object('kind', 'comment', 'marker', substr(action, 9))
        WHEN action GLOB 'label +*' THEN
            json_object('kind', 'add-labels', 'labels',
                json('[' || replace(json_quote(substr(action, 8)), ', +', '\",\"') || ']'))
        WHEN action GLOB 'label -*' THEN
            json_object('kind', 'remove-label', 'label', substr(action, 8))
        WHEN action = 'close' THEN
            json_object('kind', 'close', 'reason', NULL)
        WHEN action GLOB 'close (*)' THEN
            json_object('kind', 'close', 'reason', substr(action, 8, length(action) - 8))
        WHEN action GLOB 'merge * (*)' THEN
            json_object('kind', 'merge',
                'sha', substr(action, 7, instr(action, ' (') - 7),
                'method', substr(action, instr(action, ' (') + 2,
                    length(action) - instr(action, ' (') - 2))
        ELSE json_object('kind', 'unrecognised', 'text', action)
     END;",
];

/// How long a write without an outcome may belong to a run that is still at work. Past this
/// (or once its run has finished) the write's outcome is unknown. As long as a queue lease.
pub const IN_FLIGHT: Duration = Duration::from_secs(30 * 60);

pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The tables the migrations create, by name.
fn expected_tables() -> Vec<&'static str> {
    MIGRATIONS
        .iter()
        .flat_map(|sql| sql.split("CREATE TABLE ").skip(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .collect()
}

pub struct Store {
    pub(crate) connection: Connection,
    path: PathBuf,
    /// What the maintainer should know about the file (a database others can read).
    pub warnings: Vec<String>,
}

/// Writes a file readable by its owner only.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)
}

/// This machine's name, to tell a run of this machine from one of another sharing the file.
fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|name| name.trim().to_string())
        .unwrap_or_default()
}

/// Whether the process of a run may still be at work. Only a run of this machine whose process
/// is gone (Linux's `/proc` says so) is known to be dead; anything else may be alive.
fn run_alive(pid: Option<i64>, run_host: Option<&str>) -> bool {
    let (Some(pid), Some(run_host)) = (pid, run_host) else {
        return true;
    };
    if run_host.is_empty() || run_host != host() || !Path::new("/proc/self").exists() {
        return true;
    }
    pid == i64::from(std::process::id()) || Path::new(&format!("/proc/{pid}")).exists()
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

/// Creates an empty file readable by its owner only, unless it exists: never truncates, so two
/// runs starting at once cannot wipe the database the other just created.
fn create_private(path: &Path) -> std::io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(error) => Err(error),
    }
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
        if self.is_merge() {
            "sweep"
        } else {
            "stale-sweep"
        }
    }
}

fn now_text() -> String {
    Utc::now().to_rfc3339()
}

/// A write as the journal stores it: JSON of its kind and values.
fn stored(action: &JournalWrite) -> anyhow::Result<String> {
    serde_json::to_string(action).with_context(|| format!("journaling the write `{action}`"))
}

impl Store {
    /// A store that lives as long as the process: for replaying a snapshot, which must leave
    /// nothing in the maintainer's own state (no run in `recap --list`, no journal).
    pub fn in_memory() -> anyhow::Result<Self> {
        let connection = Connection::open_in_memory().context("opening an in-memory store")?;
        connection
            .execute_batch("PRAGMA foreign_keys = ON")
            .context("opening an in-memory store")?;
        let mut store = Store {
            connection,
            path: PathBuf::from(":memory:"),
            warnings: Vec::new(),
        };
        store.migrate()?;
        Ok(store)
    }

    pub fn open(path: &Path) -> anyhow::Result<Self> {
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
        if !path.exists() {
            create_private(path).map_err(|error| {
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
        let mut store = Store {
            connection,
            path: path.to_path_buf(),
            warnings,
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

    /// Every table the migrations create is there: a file whose schema version says it is
    /// current but that lost a table (damaged, or changed by another program) is refused up
    /// front, naming the file, instead of failing mid-run on a raw SQL error.
    fn check_tables(&self) -> anyhow::Result<()> {
        let unusable = |detail: String| {
            Fatal::Usage(format!(
                "cannot use the database {}: {detail}; pass --db PATH to use another file",
                self.path.display()
            ))
        };
        let present: Vec<String> = {
            let mut statement = self
                .connection
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
                .map_err(|error| unusable(error.to_string()))?;
            let rows = statement
                .query_map([], |row| row.get(0))
                .map_err(|error| unusable(error.to_string()))?;
            rows.collect::<Result<_, _>>()
                .map_err(|error| unusable(error.to_string()))?
        };
        let missing: Vec<&str> = expected_tables()
            .into_iter()
            .filter(|table| !present.iter().any(|name| name == table))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(unusable(format!(
            "its schema version is {SCHEMA_VERSION} but it has no table {} (it was damaged or changed by another program)",
            missing
                .iter()
                .map(|table| format!("`{table}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .into())
    }

    /// Runs the migrations, one step per `BEGIN IMMEDIATE` transaction that reads the version
    /// inside it, so overlapping first runs on a new file migrate it exactly once.
    fn migrate(&mut self) -> anyhow::Result<()> {
        loop {
            let transaction = self
                .connection
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let version: i64 =
                transaction.query_row("PRAGMA user_version", [], |row| row.get(0))?;
            if version > SCHEMA_VERSION {
                return Err(Fatal::Usage(format!(
                    "the database {} has schema version {version}, newer than this gh-sweep knows ({SCHEMA_VERSION}): upgrade gh-sweep, or pass --db PATH",
                    self.path.display()
                ))
                .into());
            }
            if version == SCHEMA_VERSION {
                transaction.commit()?;
                return Ok(());
            }
            transaction.execute_batch(MIGRATIONS[version as usize])?;
            transaction.execute_batch(&format!("PRAGMA user_version = {}", version + 1))?;
            transaction.commit()?;
        }
    }

    pub fn start_run(&self, command: &str, argv: &str) -> anyhow::Result<i64> {
        self.connection
            .execute(
                "INSERT INTO runs (command, argv, started_at, pid, host) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![command, argv, now_text(), std::process::id(), host()],
            )
            .context("recording the run")?;
        Ok(self.connection.last_insert_rowid())
    }

    /// Stores the recap and every item's outcome in one transaction.
    pub fn finish_run(&mut self, recap: &Recap) -> anyhow::Result<()> {
        let transaction = self.connection.transaction()?;
        {
            let mut insert = transaction.prepare(
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
        transaction.execute(
            "UPDATE runs SET finished_at = ?2, stopped = ?3, exit_code = ?4, recap = ?5 WHERE id = ?1",
            params![recap.run_id, now_text(), stopped, recap.exit_code, serde_json::to_string(recap)?],
        )?;
        transaction.commit().context("recording the recap")?;
        Ok(())
    }

    pub fn recap(&self, run_id: Option<i64>) -> anyhow::Result<Option<Recap>> {
        let text: Option<String> = match run_id {
            Some(id) => self
                .connection
                .query_row(
                    "SELECT recap FROM runs WHERE id = ?1 AND recap IS NOT NULL",
                    [id],
                    |row| row.get(0),
                )
                .optional()?,
            None => self
                .connection
                .query_row(
                    "SELECT recap FROM runs WHERE recap IS NOT NULL ORDER BY id DESC LIMIT 1",
                    [],
                    |row| row.get(0),
                )
                .optional()?,
        };
        text.map(|text| serde_json::from_str(&text).context("the stored recap is damaged"))
            .transpose()
    }

    /// Recent runs, newest first.
    pub fn runs(&self, limit: usize) -> anyhow::Result<Vec<RunRow>> {
        let mut statement = self.connection.prepare(
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

    /// Records that a write is about to be sent. Committed before the request leaves.
    pub fn journal_intent(
        &self,
        run_id: i64,
        item: &ItemRef,
        action: &JournalWrite,
    ) -> anyhow::Result<i64> {
        let action = stored(action)?;
        self.connection
            .execute(
                "INSERT INTO journal (run_id, item, repo, action, intent_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![run_id, item.to_string(), item.repo.to_string(), action, now_text()],
            )
            .context("journaling a write before sending it")?;
        Ok(self.connection.last_insert_rowid())
    }

    /// Records the intent of an item's first write, unless another run was writing to the item
    /// when this run read it, or has since (then what this run read is out of date, and it
    /// must not write). The
    /// check and the insert are one `BEGIN IMMEDIATE` transaction, so two overlapping runs
    /// cannot both pass it.
    pub fn journal_first_intent(
        &self,
        run_id: i64,
        item: &ItemRef,
        action: &JournalWrite,
        read_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> anyhow::Result<Option<i64>> {
        let action = stored(action)?;
        self.connection
            .execute_batch("BEGIN IMMEDIATE")
            .context("taking the store's write lock")?;
        let result = (|| -> anyhow::Result<Option<i64>> {
            // Another run's write that had not finished when this run read the item (what this
            // run read may not show it), unless that run is known to have died.
            let mut statement = self.connection.prepare(
                "SELECT journal.outcome_at IS NOT NULL, runs.pid, runs.host FROM journal
                 JOIN runs ON runs.id = journal.run_id
                 WHERE journal.item = ?1 AND journal.run_id != ?2 AND journal.intent_at >= ?4
                   AND (journal.outcome_at IS NULL OR journal.outcome_at >= ?3)",
            )?;
            let others = statement.query_map(
                params![
                    item.to_string(),
                    run_id,
                    read_at.to_rfc3339(),
                    (now - chrono::Duration::from_std(IN_FLIGHT).unwrap_or_default()).to_rfc3339()
                ],
                |row| {
                    Ok((
                        row.get::<_, bool>(0)?,
                        row.get::<_, Option<i64>>(1)?,
                        row.get::<_, Option<String>>(2)?,
                    ))
                },
            )?;
            for other in others {
                let (finished, pid, host) = other?;
                if finished || run_alive(pid, host.as_deref()) {
                    return Ok(None);
                }
            }
            drop(statement);
            self.connection.execute(
                "INSERT INTO journal (run_id, item, repo, action, intent_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![run_id, item.to_string(), item.repo.to_string(), action, now_text()],
            )?;
            Ok(Some(self.connection.last_insert_rowid()))
        })();
        let end = if result.is_ok() { "COMMIT" } else { "ROLLBACK" };
        self.connection.execute_batch(end)?;
        result
    }

    /// Records what became of a journaled write: `done`, `failed` (refused, nothing written)
    /// or `unknown`.
    pub fn journal_outcome(
        &self,
        id: i64,
        outcome: crate::policy::write::WriteOutcome,
        detail: &str,
    ) -> anyhow::Result<()> {
        self.connection
            .execute(
                "UPDATE journal SET outcome = ?2, outcome_at = ?3, detail = ?4 WHERE id = ?1",
                params![id, outcome.journal_word(), now_text(), detail],
            )
            .context("journaling a write's outcome")?;
        Ok(())
    }

    /// Writes in these repositories whose outcome is unknown and not yet acknowledged.
    ///
    /// A write without an outcome whose run has not finished, and that is younger than
    /// [`IN_FLIGHT`], belongs to a run still at work (an overlapping cron run): it is that run's
    /// to settle, not ours.
    pub fn unknown_writes(
        &self,
        repos: &[RepoRef],
        now: DateTime<Utc>,
    ) -> anyhow::Result<Vec<UnknownWrite>> {
        let mut statement = self.connection.prepare(
            "SELECT journal.id, journal.run_id, journal.item, journal.action, journal.intent_at,
                    runs.finished_at IS NOT NULL OR journal.intent_at < ?2, runs.pid, runs.host
             FROM journal JOIN runs ON runs.id = journal.run_id
             WHERE journal.repo = ?1 AND (journal.outcome IS NULL OR journal.outcome = 'unknown')
             ORDER BY journal.id",
        )?;
        let settled_before =
            (now - chrono::Duration::from_std(IN_FLIGHT).unwrap_or_default()).to_rfc3339();
        let mut found = Vec::new();
        for repo in repos {
            let rows = statement.query_map(params![repo.to_string(), settled_before], |row| {
                let over: bool = row.get(5)?;
                let pid: Option<i64> = row.get(6)?;
                let host: Option<String> = row.get(7)?;
                let write = UnknownWrite {
                    id: row.get(0)?,
                    run_id: row.get(1)?,
                    item: row.get(2)?,
                    action: JournalWrite::from_stored(&row.get::<_, String>(3)?),
                    intent_at: DateTime::parse_from_rfc3339(&row.get::<_, String>(4)?)
                        .map_or(DateTime::<Utc>::MIN_UTC, |time| time.with_timezone(&Utc)),
                };
                Ok((write, over || !run_alive(pid, host.as_deref())))
            })?;
            for row in rows {
                let (write, settled) = row?;
                if settled {
                    found.push(write);
                }
            }
        }
        Ok(found)
    }

    /// The maintainer checked an item by hand: its unknown writes stop blocking it.
    pub fn acknowledge(&self, item: &ItemRef) -> anyhow::Result<usize> {
        Ok(self.connection.execute(
            "UPDATE journal SET outcome = 'acknowledged', outcome_at = ?2
             WHERE item = ?1 AND (outcome IS NULL OR outcome = 'unknown')",
            params![item.to_string(), now_text()],
        )?)
    }

    /// Whether gh-sweep's latest stale label on an item was put on by a run that never got to
    /// post the stale comment after it.
    pub fn mark_unfinished(&self, item: &ItemRef, label: &str) -> anyhow::Result<bool> {
        let labelled = JournalWrite::AddLabels {
            labels: vec![label.to_string()],
        };
        let commented = JournalWrite::Comment {
            marker: write::marker("mark-stale"),
        };
        // An acknowledged write is done: the maintainer checked that it happened.
        let mut statement = self.connection.prepare(
            "SELECT journal.action, runs.finished_at IS NOT NULL, runs.pid, runs.host FROM journal
             JOIN runs ON runs.id = journal.run_id
             WHERE journal.item = ?1 AND journal.outcome IN ('done', 'acknowledged')
             ORDER BY journal.id DESC",
        )?;
        let rows = statement.query_map([item.to_string()], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, bool>(1)?,
                row.get::<_, Option<i64>>(2)?,
                row.get::<_, Option<String>>(3)?,
            ))
        })?;
        // Newest first: a stale comment seen before the latest label was posted after it.
        let mut comment_after = false;
        for row in rows {
            let (action, finished, pid, host) = row?;
            let action = JournalWrite::from_stored(&action);
            if action == commented {
                comment_after = true;
            } else if action == labelled {
                // The latest label gh-sweep put on; a run still at work may be about to
                // comment.
                if !finished && run_alive(pid, host.as_deref()) {
                    return Ok(false);
                }
                return Ok(!comment_after);
            }
        }
        Ok(false)
    }

    /// When gh-sweep put the stale label on an item, and its last write there.
    pub fn stale_mark(
        &self,
        item: &ItemRef,
        label: &str,
    ) -> anyhow::Result<Option<(DateTime<Utc>, DateTime<Utc>)>> {
        let row: Option<(String, String)> = self
            .connection
            .query_row(
                "SELECT labeled_at, last_write_at FROM stale_marks WHERE item = ?1 AND label = ?2 COLLATE NOCASE",
                params![item.to_string(), label],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        // A damaged row reads as unknown: the events are read instead.
        Ok(row.and_then(|(labeled, last)| {
            let labeled = DateTime::parse_from_rfc3339(&labeled)
                .ok()?
                .with_timezone(&Utc);
            let last = DateTime::parse_from_rfc3339(&last)
                .ok()?
                .with_timezone(&Utc);
            Some((labeled, last))
        }))
    }

    pub fn record_stale_mark(
        &self,
        item: &ItemRef,
        label: &str,
        labeled_at: DateTime<Utc>,
        last_write_at: DateTime<Utc>,
    ) -> anyhow::Result<()> {
        self.connection.execute(
            "INSERT OR REPLACE INTO stale_marks (item, label, labeled_at, last_write_at) VALUES (?1, ?2, ?3, ?4)",
            params![item.to_string(), label, labeled_at.to_rfc3339(), last_write_at.to_rfc3339()],
        )?;
        Ok(())
    }

    pub fn forget_stale_mark(&self, item: &ItemRef) -> anyhow::Result<()> {
        self.connection.execute(
            "DELETE FROM stale_marks WHERE item = ?1",
            [item.to_string()],
        )?;
        Ok(())
    }

    /// Remembers repository `id` under its canonical name. When the id was last seen under
    /// another name (a rename, a transfer), every row kept under that name (the queue, the
    /// merge gate, sweep budgets, the journal, stale marks) moves to the new one in one
    /// transaction, so nothing waits forever under a name GitHub no longer answers to. Past
    /// runs' recaps keep the names they had. Returns the old name when rows moved.
    /// (Rows are keyed by name; the id is what tells a new name from another repository.)
    pub fn follow_repository(&mut self, id: u64, name: &RepoRef) -> anyhow::Result<Option<String>> {
        let new = name.to_string();
        let transaction = self
            .connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .context("following a renamed repository")?;
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
}

/// `text` for a LIKE pattern, its wildcards escaped with `\`.
fn like_escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

#[derive(serde::Serialize)]
pub struct RunRow {
    pub id: i64,
    pub started_at: String,
    pub stopped: Option<String>,
    pub exit_code: Option<i64>,
    pub argv: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close() -> JournalWrite {
        JournalWrite::Close {
            reason: Some("not_planned".into()),
        }
    }

    #[test]
    fn rows_follow_a_renamed_repository_by_its_id() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("state.db")).unwrap();
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
                    Utc::now(),
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

    #[test]
    fn journal_rows_without_outcome_are_unknown_until_acknowledged() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("state.db")).unwrap();
        let run = store
            .start_run("stale-sweep", "gh-sweep stale-sweep")
            .unwrap();
        let item: ItemRef = "o/r#3".parse().unwrap();
        let done = store
            .journal_intent(
                run,
                &item,
                &write::comment("Stale.", "mark-stale").journal(),
            )
            .unwrap();
        store
            .journal_outcome(done, crate::policy::write::WriteOutcome::Done, "")
            .unwrap();
        store.journal_intent(run, &item, &close()).unwrap();
        let repo: RepoRef = "o/r".parse().unwrap();
        assert!(
            store
                .unknown_writes(std::slice::from_ref(&repo), Utc::now())
                .unwrap()
                .is_empty(),
            "its run is still at work"
        );
        store
            .connection
            .execute("UPDATE runs SET finished_at = started_at", [])
            .unwrap();
        let unknown = store
            .unknown_writes(std::slice::from_ref(&repo), Utc::now())
            .unwrap();
        assert_eq!(unknown.len(), 1);
        assert_eq!(unknown[0].action, close());
        assert_eq!(store.acknowledge(&item).unwrap(), 1);
        assert!(store
            .unknown_writes(&[repo], Utc::now())
            .unwrap()
            .is_empty());
    }

    #[test]
    fn the_expected_tables_are_those_a_new_store_has() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("state.db")).unwrap();
        let mut statement = store
            .connection
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .unwrap();
        let present: Vec<String> = statement
            .query_map([], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let mut expected = expected_tables();
        expected.sort_unstable();
        assert_eq!(present, expected);
        assert!(expected.contains(&"queue") && expected.contains(&"journal"));
    }

    #[test]
    fn refuses_a_newer_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(Store::open(&path).unwrap());
        let connection = Connection::open(&path).unwrap();
        connection
            .execute_batch("PRAGMA user_version = 99")
            .unwrap();
        drop(connection);
        let error = Store::open(&path).err().unwrap().to_string();
        assert!(error.contains("schema version 99"), "{error}");
    }

    #[test]
    fn a_database_of_every_earlier_version_migrates_with_its_rows() {
        for version in 0..SCHEMA_VERSION {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("state.db");
            let connection = Connection::open(&path).unwrap();
            for sql in &MIGRATIONS[..version as usize] {
                connection.execute_batch(sql).unwrap();
            }
            connection
                .execute_batch(&format!("PRAGMA user_version = {version}"))
                .unwrap();
            if version >= 1 {
                connection
                    .execute_batch(
                        "INSERT INTO runs (id, command, argv, started_at, finished_at, exit_code, recap)
                           VALUES (1, 'stale-sweep', 'gh-sweep stale-sweep --repo o/r', '2026-11-01T00:00:00Z', '2026-11-01T00:01:00Z', 11, NULL);
                         INSERT INTO journal (run_id, item, repo, action, intent_at) VALUES (1, 'o/r#3', 'o/r', 'comment', '2026-11-01T00:00:30Z');
                         INSERT INTO stale_marks VALUES ('o/r#4', 'Stale', '2026-11-01T00:00:10Z', '2026-11-01T00:00:11Z');",
                    )
                    .unwrap();
                // A journal row of every kind of write, as that version stored it: its words
                // up to version 7, its JSON after.
                for (item, outcome, write) in journal_rows() {
                    let action = if version <= 7 {
                        write.to_string()
                    } else {
                        serde_json::to_string(&write).unwrap()
                    };
                    connection
                        .execute(
                            "INSERT INTO journal (run_id, item, repo, action, intent_at, outcome)
                             VALUES (1, ?1, 'o/r', ?2, '2026-11-01T00:00:40Z', ?3)",
                            params![item, action, outcome],
                        )
                        .unwrap();
                }
            }
            drop(connection);
            let store = Store::open(&path).unwrap();
            let migrated: i64 = store
                .connection
                .query_row("PRAGMA user_version", [], |row| row.get(0))
                .unwrap();
            assert_eq!(migrated, SCHEMA_VERSION, "from version {version}");
            if version >= 1 {
                let repo: RepoRef = "o/r".parse().unwrap();
                let unknown: Vec<(String, JournalWrite, bool)> = store
                    .unknown_writes(&[repo], Utc::now())
                    .unwrap()
                    .into_iter()
                    .map(|write| (write.item.clone(), write.action.clone(), write.is_merge()))
                    .collect();
                let merge = journal_rows().pop().unwrap().2;
                assert_eq!(
                    unknown,
                    vec![
                        (
                            "o/r#3".to_string(),
                            JournalWrite::Unrecognised {
                                text: "comment".into()
                            },
                            false
                        ),
                        ("o/r#8".to_string(), merge, true),
                    ],
                    "from version {version}"
                );
                let mut statement = store
                    .connection
                    .prepare("SELECT action FROM journal ORDER BY id")
                    .unwrap();
                let stored: Vec<JournalWrite> = statement
                    .query_map([], |row| row.get::<_, String>(0))
                    .unwrap()
                    .map(|text| serde_json::from_str(&text.unwrap()).unwrap())
                    .collect();
                drop(statement);
                let mut expected = vec![JournalWrite::Unrecognised {
                    text: "comment".into(),
                }];
                expected.extend(journal_rows().into_iter().map(|(_, _, write)| write));
                assert_eq!(stored, expected, "from version {version}");
                for (item, unfinished) in [("o/r#5", true), ("o/r#6", false), ("o/r#7", false)] {
                    let item: ItemRef = item.parse().unwrap();
                    assert_eq!(
                        store.mark_unfinished(&item, "Stale").unwrap(),
                        unfinished,
                        "{item} from version {version}"
                    );
                }
                let item: ItemRef = "o/r#4".parse().unwrap();
                assert!(store.stale_mark(&item, "stale").unwrap().is_some());
            }
            let key = queue::merge_key(&"o/r".parse().unwrap(), 1, "h");
            let repo: RepoRef = "o/r".parse().unwrap();
            let row = queue::NewRow {
                key: &key,
                kind: "merge",
                repo: &repo,
                pr: 1,
                head_sha: Some("h"),
                max_attempts: 3, // seed 002's default bound
            };
            assert!(store.enqueue(&row, Utc::now()).unwrap());
        }
    }

    /// Journal rows of every kind of write gh-sweep journals, with their outcomes: #5's mark
    /// lost its comment, #6's is finished, #8's merge has no known outcome.
    fn journal_rows() -> Vec<(&'static str, Option<&'static str>, JournalWrite)> {
        let label = |labels: &[&str]| JournalWrite::AddLabels {
            labels: labels.iter().map(|label| label.to_string()).collect(),
        };
        let comment = |disposition| JournalWrite::Comment {
            marker: write::marker(disposition),
        };
        vec![
            ("o/r#5", Some("done"), label(&["Stale"])),
            ("o/r#6", Some("done"), label(&["Stale"])),
            ("o/r#6", Some("done"), comment("mark-stale")),
            // (Words could not tell a label holding `, +` from two: JSON can.)
            (
                "o/r#7",
                Some("done"),
                label(&["Stale", "needs \"info\"", "more"]),
            ),
            (
                "o/r#7",
                Some("failed"),
                JournalWrite::RemoveLabel {
                    label: "Stale".into(),
                },
            ),
            ("o/r#7", Some("done"), comment("close")),
            ("o/r#7", Some("not sent"), close()),
            (
                "o/r#7",
                Some("acknowledged"),
                JournalWrite::Close { reason: None },
            ),
            (
                "o/r#8",
                Some("unknown"),
                // Versions up to 7 kept a merge's head by its first 12 characters.
                JournalWrite::Merge {
                    sha: "0123456789ab".into(),
                    method: "squash".into(),
                },
            ),
        ]
    }

    #[cfg(unix)]
    #[test]
    fn the_database_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(Store::open(&path).unwrap());
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
