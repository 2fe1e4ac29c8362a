//! `store status` and `store copy` on a SQLite file: the status read from its tables and
//! heartbeats and `/proc`, and every table read out or replaced as plain cells.

use rusqlite::params_from_iter;
use rusqlite::types::ValueRef;

use super::{SqliteStore, LIFE_COLUMNS};
use crate::policy::write::JournalWrite;
use crate::store::copy::{Cell, Dump, TABLES};
use crate::store::{LeaseRow, LiveRun, Status, UnknownRow};

impl SqliteStore {
    pub(super) fn read_status(&self) -> crate::store::Result<Status> {
        let schema_version: i64 = self
            .connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))?;
        let (queue, leases) = self.queue_and_leases()?;
        Ok(Status {
            backend: "sqlite",
            location: self.path.display().to_string(),
            schema_version,
            live_runs: self.live_runs()?,
            queue,
            leases,
            unknown_writes: self.unknown_rows()?,
        })
    }

    /// The runs at work, for `store status`.
    fn live_runs(&self) -> crate::store::Result<Vec<LiveRun>> {
        let mut statement = self.connection.prepare(&format!(
            "SELECT command, started_at, {LIFE_COLUMNS} FROM runs
             WHERE finished_at IS NULL AND taken_over_at IS NULL ORDER BY id"
        ))?;
        let runs = statement.query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                super::Life::read(row, 2)?,
            ))
        })?;
        let mut live_runs = Vec::new();
        for run in runs {
            let (command, started_at, life) = run?;
            if self.alive(&life) {
                live_runs.push(LiveRun {
                    id: life.run_id,
                    command,
                    host: life.host.clone(),
                    pid: life.process.pid,
                    started_at,
                    heartbeat_at: life.heartbeat_at.map(crate::store::copy::time_text),
                });
            }
        }
        Ok(live_runs)
    }

    /// The queue's rows by status, and its live leases.
    #[allow(clippy::type_complexity)]
    fn queue_and_leases(&self) -> crate::store::Result<(Vec<(String, i64)>, Vec<LeaseRow>)> {
        let mut statement = self
            .connection
            .prepare("SELECT status, count(*) FROM queue GROUP BY status ORDER BY status")?;
        let queue = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut statement = self.connection.prepare(
            "SELECT key, owner, leased_until FROM queue
             WHERE status = 'claimed' AND owner IS NOT NULL AND leased_until >= ?1 ORDER BY key",
        )?;
        let now = crate::store::copy::time_text(crate::clock::wall());
        let leases = statement
            .query_map([now], |row| {
                Ok(LeaseRow {
                    key: row.get(0)?,
                    owner: row.get(1)?,
                    leased_until: row.get(2)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok((queue, leases))
    }

    /// The writes of unknown outcome no run at work will settle.
    fn unknown_rows(&self) -> crate::store::Result<Vec<UnknownRow>> {
        let mut statement = self.connection.prepare(&format!(
            "SELECT journal.run_id, journal.item, journal.action, journal.intent_at,
                    journal.outcome IS NULL, {LIFE_COLUMNS}
             FROM journal JOIN runs ON runs.id = journal.run_id
             WHERE journal.outcome = 'unknown' OR journal.outcome IS NULL ORDER BY journal.id"
        ))?;
        let rows = statement.query_map([], |row| {
            Ok((
                {
                    let action = JournalWrite::from_stored(&row.get::<_, String>(2)?);
                    UnknownRow {
                        run_id: row.get(0)?,
                        item: row.get(1)?,
                        write: action.to_string(),
                        settled_by: action.settled_by(),
                        intent_at: row.get(3)?,
                    }
                },
                row.get::<_, bool>(4)?,
                super::Life::read(row, 5)?,
            ))
        })?;
        let mut unknown_writes = Vec::new();
        for row in rows {
            let (write, no_outcome, life) = row?;
            // Without an outcome, a run at work may still be sending it: that run's to settle.
            if !no_outcome || !self.alive(&life) {
                unknown_writes.push(write);
            }
        }
        Ok(unknown_writes)
    }

    pub(super) fn export_rows(&self) -> crate::store::Result<Dump> {
        self.flush_caches();
        let mut dump = Dump::default();
        for table in TABLES {
            let columns: Vec<&str> = table.columns.iter().map(|(name, _)| *name).collect();
            // A run's recap is kept apart from its row here (schema 14), as a column of it in
            // the copy.
            let read: Vec<&str> = columns
                .iter()
                .map(|column| match (table.name, *column) {
                    ("runs", "recap") => RECAP_OF_RUN,
                    _ => column,
                })
                .collect();
            let mut statement = self.connection.prepare(&format!(
                "SELECT {} FROM {} ORDER BY rowid",
                read.join(", "),
                table.name
            ))?;
            let rows = statement.query_map([], |row| {
                (0..columns.len())
                    .map(|at| {
                        Ok(match row.get_ref(at)? {
                            ValueRef::Null => Cell::Null,
                            ValueRef::Integer(value) => Cell::Int(value),
                            ValueRef::Real(value) => Cell::Text(value.to_string()),
                            ValueRef::Text(text) | ValueRef::Blob(text) => {
                                Cell::Text(String::from_utf8_lossy(text).to_string())
                            }
                        })
                    })
                    .collect::<rusqlite::Result<Vec<Cell>>>()
            })?;
            dump.tables.push(rows.collect::<Result<_, _>>()?);
        }
        Ok(dump)
    }

    pub(super) fn import_rows(&mut self, dump: &Dump) -> crate::store::Result<()> {
        let transaction = self
            .connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        transaction.execute("DELETE FROM run_recaps", [])?;
        for table in TABLES.iter().rev() {
            transaction.execute(&format!("DELETE FROM {}", table.name), [])?;
        }
        for (table, rows) in TABLES.iter().zip(&dump.tables) {
            let columns: Vec<&str> = table.columns.iter().map(|(name, _)| *name).collect();
            if table.name == "runs" {
                import_runs(&transaction, &columns, rows)?;
                continue;
            }
            let marks: Vec<String> = (1..=columns.len()).map(|at| format!("?{at}")).collect();
            let mut insert = transaction.prepare(&format!(
                "INSERT INTO {} ({}) VALUES ({})",
                table.name,
                columns.join(", "),
                marks.join(", ")
            ))?;
            for row in rows {
                let values = row.iter().map(|cell| match cell {
                    Cell::Null => rusqlite::types::Value::Null,
                    Cell::Int(value) => rusqlite::types::Value::Integer(*value),
                    Cell::Text(text) => rusqlite::types::Value::Text(text.clone()),
                });
                insert.execute(params_from_iter(values))?;
            }
        }
        // The journal's ticks go on after the copied ones.
        transaction.execute(
            "UPDATE store_clock SET tick = max(tick, (SELECT COALESCE(max(max(COALESCE(intent_tick, 0)), max(COALESCE(outcome_tick, 0))), 0) FROM journal))",
            [],
        )?;
        transaction.commit()?;
        Ok(())
    }
}

/// A run's recap, read as a column of its row.
const RECAP_OF_RUN: &str =
    "(SELECT CAST(recap AS TEXT) FROM run_recaps WHERE run_recaps.run_id = runs.id)";

fn cell_value(cell: &Cell) -> rusqlite::types::Value {
    match cell {
        Cell::Null => rusqlite::types::Value::Null,
        Cell::Int(value) => rusqlite::types::Value::Integer(*value),
        Cell::Text(text) => rusqlite::types::Value::Text(text.clone()),
    }
}

/// The runs of a copy: each row without its recap, and the recap apart.
fn import_runs(
    transaction: &rusqlite::Transaction<'_>,
    columns: &[&str],
    rows: &[Vec<Cell>],
) -> crate::store::Result<()> {
    let recap_at = columns.iter().position(|column| *column == "recap");
    let id_at = columns.iter().position(|column| *column == "id");
    let kept: Vec<(usize, &str)> = columns
        .iter()
        .copied()
        .enumerate()
        .filter(|(at, _)| Some(*at) != recap_at)
        .collect();
    let marks: Vec<String> = (1..=kept.len()).map(|at| format!("?{at}")).collect();
    let names: Vec<&str> = kept.iter().map(|(_, name)| *name).collect();
    let mut insert = transaction.prepare(&format!(
        "INSERT INTO runs ({}) VALUES ({})",
        names.join(", "),
        marks.join(", ")
    ))?;
    let mut recap =
        transaction.prepare("INSERT INTO run_recaps (run_id, recap) VALUES (?1, ?2)")?;
    for row in rows {
        insert.execute(params_from_iter(
            kept.iter().map(|(at, _)| cell_value(&row[*at])),
        ))?;
        if let (Some(recap_at), Some(id_at)) = (recap_at, id_at) {
            if let (Cell::Text(text), Cell::Int(id)) = (&row[recap_at], &row[id_at]) {
                recap.execute(rusqlite::params![id, text])?;
            }
        }
    }
    Ok(())
}
