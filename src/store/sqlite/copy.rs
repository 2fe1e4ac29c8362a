//! `store status` and `store copy` on a SQLite file: the status read from its tables and
//! heartbeats and `/proc`, and every table read out or replaced as plain cells.

use rusqlite::params_from_iter;
use rusqlite::types::ValueRef;

use super::{SqliteStore, LIFE_COLUMNS};
use crate::policy::write::JournalWrite;
use crate::store::copy::{Cell, Dump, TABLES};
use crate::store::{LeaseRow, LiveRun, Status, UnknownRow};

impl SqliteStore {
    pub(super) fn read_status(&self) -> anyhow::Result<Status> {
        let schema_version: i64 = self
            .connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))?;
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
        Ok(Status {
            backend: "sqlite",
            location: self.path.display().to_string(),
            schema_version,
            live_runs,
            queue,
            leases,
            unknown_writes,
        })
    }

    pub(super) fn export_rows(&self) -> anyhow::Result<Dump> {
        let mut dump = Dump::default();
        for table in TABLES {
            let columns: Vec<&str> = table.columns.iter().map(|(name, _)| *name).collect();
            let mut statement = self.connection.prepare(&format!(
                "SELECT {} FROM {} ORDER BY rowid",
                columns.join(", "),
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

    pub(super) fn import_rows(&mut self, dump: &Dump) -> anyhow::Result<()> {
        let transaction = self
            .connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        for table in TABLES.iter().rev() {
            transaction.execute(&format!("DELETE FROM {}", table.name), [])?;
        }
        for (table, rows) in TABLES.iter().zip(&dump.tables) {
            let columns: Vec<&str> = table.columns.iter().map(|(name, _)| *name).collect();
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
