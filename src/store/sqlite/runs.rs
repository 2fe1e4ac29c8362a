//! Runs: their rows, their heartbeat (renewed by a thread of this process), whether one is
//! still at work, taking one over, and a run's hold on its heartbeat before it writes.

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};

use super::{now_text, stamp, Life, Liveness, Prepared, SqliteStore, LIFE_COLUMNS};
use crate::policy::recap::Recap;
use crate::store::error::Doing;
use crate::store::{LostLease, RunLog, RunRow};

/// Renews the heartbeat of this process's runs every `renew_every`, on a connection of its
/// own, until the store is dropped. A renewal is conditional on the last heartbeat being within
/// the bound (on the wall clock recorded in the file): a run paused past it is never revived,
/// and once taken over it is never renewed.
pub(super) fn spawn_heartbeat(
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
        store_recap(&transaction, recap)?;
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
                    "SELECT CAST(recap AS TEXT) FROM run_recaps WHERE run_id = ?1",
                    [id],
                    |row| row.get(0),
                )
                .optional()?,
            None => self
                .connection
                .query_row_cached(
                    "SELECT CAST(recap AS TEXT) FROM run_recaps ORDER BY run_id DESC LIMIT 1",
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

/// Writes `recap` as JSON into its row, streamed into the row's pages through SQLite's
/// incremental blob I/O: a recap of 100,000 items is some 20 MB, which a bound parameter would
/// hold three times over (the serialized text, SQLite's copy of it, the record made of that).
/// The value is stored as a blob of the JSON's UTF-8 bytes; readers cast it to text.
fn store_recap(transaction: &rusqlite::Transaction<'_>, recap: &Recap) -> rusqlite::Result<()> {
    let to_sql = |error: serde_json::Error| rusqlite::Error::ToSqlConversionFailure(error.into());
    let mut counted = Counted(0);
    serde_json::to_writer(&mut counted, recap).map_err(to_sql)?;
    transaction.execute_cached(
        "INSERT OR REPLACE INTO run_recaps (run_id, recap) VALUES (?1, zeroblob(?2))",
        params![recap.run_id, counted.0],
    )?;
    let blob = transaction.blob_open(
        rusqlite::DatabaseName::Main,
        "run_recaps",
        "recap",
        recap.run_id,
        false,
    )?;
    let mut writer = std::io::BufWriter::with_capacity(64 * 1024, blob);
    serde_json::to_writer(&mut writer, recap).map_err(to_sql)?;
    writer
        .into_inner()
        .map_err(|error| rusqlite::Error::ToSqlConversionFailure(error.into_error().into()))?
        .close()
}

/// A writer that only counts the bytes written to it.
struct Counted(i64);

impl std::io::Write for Counted {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len() as i64;
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
