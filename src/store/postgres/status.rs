//! `store status` and `store copy` on PostgreSQL: the runs at work with their hosts and the
//! database's clock at their last heartbeat, and every table read out or replaced as plain
//! cells (times as RFC 3339 text, cast back to `timestamptz` on the way in).

use postgres::types::ToSql;

use super::journal::{life_columns, RunLife};
use super::{migrations, PostgresStore};
use crate::policy::write::JournalWrite;
use crate::store::copy::{time_text, Cell, ColumnKind, Dump, TABLES};
use crate::store::{LeaseRow, LiveRun, Status, UnknownRow};

/// A column as the copy reads it.
fn select(name: &str, kind: ColumnKind) -> String {
    match kind {
        ColumnKind::Int => format!("{name}::bigint"),
        ColumnKind::Text => name.to_string(),
        ColumnKind::Time => {
            format!("to_char({name} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')")
        }
    }
}

impl PostgresStore {
    pub(super) fn read_status(&self) -> crate::store::Result<Status> {
        let schema_version = migrations::version(&mut self.client())?;
        Ok(Status {
            backend: "postgres",
            location: self.target.shown.clone(),
            schema_version,
            live_runs: self.live_runs()?,
            queue: self.queue_counts()?,
            leases: self.lease_rows()?,
            unknown_writes: self.unknown_rows()?,
        })
    }

    /// The runs at work, for `store status`.
    fn live_runs(&self) -> crate::store::Result<Vec<LiveRun>> {
        let rows = self.client().query(
            &format!(
                "SELECT runs.command, runs.started_at, {} FROM runs
                 WHERE runs.finished_at IS NULL AND runs.taken_over_at IS NULL ORDER BY runs.id",
                life_columns(1)
            ),
            &[&Self::seconds(self.liveness().takeover_after())],
        )?;
        let mut live_runs = Vec::new();
        for row in &rows {
            let life = RunLife::read(row, 2);
            if !self.alive(&life) {
                continue;
            }
            live_runs.push(LiveRun {
                id: life.run_id,
                command: row.get(0),
                host: life.host.clone(),
                pid: life.pid,
                started_at: time_text(row.get(1)),
                heartbeat_at: Some(time_text(life.heartbeat_at)),
            });
        }
        Ok(live_runs)
    }

    /// The queue's rows by status.
    fn queue_counts(&self) -> crate::store::Result<Vec<(String, i64)>> {
        Ok(self
            .client()
            .query(
                "SELECT status, count(*) FROM queue GROUP BY status ORDER BY status",
                &[],
            )?
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect())
    }

    /// The queue's live leases.
    fn lease_rows(&self) -> crate::store::Result<Vec<LeaseRow>> {
        Ok(self
            .client()
            .query(
                "SELECT key, owner, leased_until FROM queue
                 WHERE status = 'claimed' AND owner IS NOT NULL AND leased_until >= $1 ORDER BY key",
                &[&crate::clock::wall()],
            )?
            .iter()
            .map(|row| LeaseRow {
                key: row.get(0),
                owner: row.get(1),
                leased_until: time_text(row.get(2)),
            })
            .collect())
    }

    /// The writes of unknown outcome no run at work will settle.
    fn unknown_rows(&self) -> crate::store::Result<Vec<UnknownRow>> {
        let rows = self.client().query(
            &format!(
                "SELECT journal.run_id, journal.item, journal.action, journal.intent_at,
                        journal.outcome IS NULL, {}
                 FROM journal JOIN runs ON runs.id = journal.run_id
                 WHERE journal.outcome = 'unknown' OR journal.outcome IS NULL ORDER BY journal.id",
                life_columns(1)
            ),
            &[&Self::seconds(self.liveness().takeover_after())],
        )?;
        let mut unknown_writes = Vec::new();
        for row in &rows {
            // Without an outcome, a run at work may still be sending it: that run's to settle.
            let no_outcome: bool = row.get(4);
            if no_outcome && self.alive(&RunLife::read(row, 5)) {
                continue;
            }
            let action = JournalWrite::from_stored(&row.get::<_, String>(2));
            unknown_writes.push(UnknownRow {
                run_id: row.get(0),
                item: row.get(1),
                write: action.to_string(),
                settled_by: action.settled_by(),
                intent_at: time_text(row.get(3)),
            });
        }
        Ok(unknown_writes)
    }

    pub(super) fn export_rows(&self) -> crate::store::Result<Dump> {
        let mut dump = Dump::default();
        for table in TABLES {
            let columns: Vec<String> = table
                .columns
                .iter()
                .map(|(name, kind)| select(name, *kind))
                .collect();
            let order = table.columns[0].0;
            let rows = self.client().query(
                &format!(
                    "SELECT {} FROM {} ORDER BY {order}",
                    columns.join(", "),
                    table.name
                ),
                &[],
            )?;
            let rows = rows
                .iter()
                .map(|row| {
                    table
                        .columns
                        .iter()
                        .enumerate()
                        .map(|(at, (_, kind))| match kind {
                            ColumnKind::Int => {
                                row.get::<_, Option<i64>>(at).map_or(Cell::Null, Cell::Int)
                            }
                            ColumnKind::Text | ColumnKind::Time => row
                                .get::<_, Option<String>>(at)
                                .map_or(Cell::Null, Cell::Text),
                        })
                        .collect()
                })
                .collect();
            dump.tables.push(rows);
        }
        Ok(dump)
    }

    pub(super) fn import_rows(&mut self, dump: &Dump) -> crate::store::Result<()> {
        let mut client = self.client();
        let mut transaction = client.transaction()?;
        for table in TABLES.iter().rev() {
            transaction.execute(&format!("DELETE FROM {}", table.name), &[])?;
        }
        for (table, rows) in TABLES.iter().zip(&dump.tables) {
            let columns: Vec<&str> = table.columns.iter().map(|(name, _)| *name).collect();
            let values: Vec<String> = table
                .columns
                .iter()
                .enumerate()
                .map(|(at, (_, kind))| match kind {
                    ColumnKind::Int => format!("${}::bigint", at + 1),
                    ColumnKind::Text => format!("${}::text", at + 1),
                    ColumnKind::Time => format!("${}::text::timestamptz", at + 1),
                })
                .collect();
            let insert = transaction.prepare(&format!(
                "INSERT INTO {} ({}) VALUES ({})",
                table.name,
                columns.join(", "),
                values.join(", ")
            ))?;
            for row in rows {
                let cells: Vec<Box<dyn ToSql + Sync>> = row
                    .iter()
                    .zip(table.columns)
                    .map(|(cell, (_, kind))| -> Box<dyn ToSql + Sync> {
                        match (cell, kind) {
                            (Cell::Int(value), _) => Box::new(Some(*value)),
                            (Cell::Text(text), ColumnKind::Int) => {
                                Box::new(text.parse::<i64>().ok())
                            }
                            (Cell::Text(text), _) => Box::new(Some(text.clone())),
                            (Cell::Null, ColumnKind::Int) => Box::new(None::<i64>),
                            (Cell::Null, _) => Box::new(None::<String>),
                        }
                    })
                    .collect();
                let parameters: Vec<&(dyn ToSql + Sync)> =
                    cells.iter().map(|cell| cell.as_ref()).collect();
                transaction.execute(&insert, &parameters)?;
            }
        }
        // The ids copied in: the next run and journal row continue after them.
        for table in ["runs", "journal"] {
            transaction.execute(
                &format!(
                    "SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE((SELECT max(id) FROM {table}), 0) + 1, false)"
                ),
                &[],
            )?;
        }
        // The journal's ticks go on after the copied ones. Copied runs keep their heartbeats:
        // a run at work on the source (copied with --force) is at work here too, until its
        // heartbeat says otherwise.
        transaction.execute(
            "SELECT setval('journal_ticks', GREATEST(COALESCE((SELECT max(GREATEST(COALESCE(intent_tick, 0), COALESCE(outcome_tick, 0))) FROM journal), 0), 1))",
            &[],
        )?;
        transaction.commit()?;
        Ok(())
    }
}
