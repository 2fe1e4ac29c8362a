//! The PostgreSQL backend of the store, for several hosts sharing one queue: the same schema
//! and guarantees as SQLite's, with row locks where SQLite takes its one write lock. Claims
//! lease rows with `FOR UPDATE SKIP LOCKED` and a per-PR advisory lock, migrations run under
//! an advisory lock, and runs carry a heartbeat stamped with the database's clock, renewed by
//! a thread of this process, so a host can tell that a run on another host died. Runs and the
//! store as a whole here; the journal, the queue, the gate and the HTTP cache in their own
//! files; URLs, TLS and passwords in [`connect`].

use std::cell::{RefCell, RefMut};
use std::collections::HashMap;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use crate::store::error::Doing;
use postgres::{Client, Statement};

use super::{RunLog, RunRow, Store, StoreError};
use crate::http_cache::ResponseCache;
use crate::item::RepoRef;
use crate::policy::recap::Recap;

mod claim;
pub mod connect;
pub use connect::explain;
mod gate;
mod http_cache;
mod journal;
mod migrations;
mod poll_memory;
mod prune;
mod queue;
#[cfg(test)]
mod round_trips;
mod settle;
mod status;
#[cfg(test)]
pub mod test_server;
#[cfg(test)]
mod tests;

pub use super::location::{Liveness, Target};
pub use migrations::SCHEMA_VERSION;

/// Whether an error came from PostgreSQL (a dropped connection, a refused statement) or from
/// a run that lost its heartbeat.
pub fn is_failure(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<postgres::Error>().is_some()
            || cause.downcast_ref::<LostLease>().is_some()
            || cause.downcast_ref::<StoreError>().is_some_and(|error| {
                matches!(
                    error.root(),
                    StoreError::Postgres(_) | StoreError::LostLease(_)
                )
            })
    })
}

pub use super::LostLease;

/// What the heartbeat thread shares with the store.
struct Beat {
    /// The runs of this process still at work.
    runs: Vec<i64>,
    /// When the heartbeat was last renewed (or the first run started).
    renewed: Instant,
}

/// The store in a PostgreSQL database.
pub struct PostgresStore {
    client: RefCell<Client>,
    /// The statements prepared on `client`, by their SQL ([`PostgresStore::prepared`]).
    statements: RefCell<HashMap<&'static str, Statement>>,
    target: Target,
    beat: Arc<Mutex<Beat>>,
    /// Dropped with the store: the heartbeat thread then stops.
    _stop: mpsc::Sender<()>,
    /// Runs of other hosts whose work this process took over, for the recap.
    took_over: RefCell<Vec<String>>,
    warnings: Vec<String>,
    /// This process, as its runs are recorded.
    me: crate::store::identity::Identity,
}

impl PostgresStore {
    pub fn open(target: &Target) -> anyhow::Result<Self> {
        let mut client = connect::connect(target)?;
        migrations::migrate(&mut client, &target.shown).map_err(|error| {
            let pooled = error
                .chain()
                .filter_map(|cause| cause.downcast_ref::<postgres::Error>())
                .find_map(|cause| explain(cause, &target.shown));
            if let Some(message) = pooled {
                crate::exit::Fatal::Usage(message).into()
            } else if error.downcast_ref::<crate::exit::Fatal>().is_some() {
                error
            } else {
                error.context(format!("migrating the database {}", target.shown))
            }
        })?;
        let beat = Arc::new(Mutex::new(Beat {
            runs: Vec::new(),
            renewed: Instant::now(),
        }));
        let (stop, stopped) = mpsc::channel();
        spawn_heartbeat(target.clone(), beat.clone(), stopped);
        Ok(PostgresStore {
            client: RefCell::new(client),
            statements: RefCell::default(),
            target: target.clone(),
            beat,
            _stop: stop,
            took_over: RefCell::new(Vec::new()),
            warnings: Vec::new(),
            me: crate::store::identity::Identity::this_process(),
        })
    }

    fn client(&self) -> RefMut<'_, Client> {
        self.client.borrow_mut()
    }

    /// `sqls` as statements prepared on this store's connection, each prepared the first time
    /// it is asked for and kept (preparing, running and closing each statement of a claim
    /// cost three round trips where one does).
    fn prepared<const N: usize>(
        &self,
        sqls: [&'static str; N],
    ) -> crate::store::Result<[Statement; N]> {
        let mut kept = self.statements.borrow_mut();
        let mut client = self.client();
        let mut found = Vec::with_capacity(N);
        for sql in sqls {
            let statement = match kept.get(sql) {
                Some(statement) => statement.clone(),
                None => {
                    let statement = client.prepare(sql)?;
                    kept.insert(sql, statement.clone());
                    statement
                }
            };
            found.push(statement);
        }
        Ok(found
            .try_into()
            .unwrap_or_else(|_| unreachable!("one statement per SQL text")))
    }

    fn liveness(&self) -> Liveness {
        self.target.liveness
    }

    /// Refuses to start a write once the heartbeat has gone unrenewed past the local
    /// deadline: other hosts may soon think this run dead and settle its writes.
    fn check_heartbeat(&self) -> crate::store::Result<()> {
        let renewed = self
            .beat
            .lock()
            .map(|beat| beat.renewed)
            .unwrap_or_else(|poisoned| poisoned.into_inner().renewed);
        if renewed.elapsed() > self.liveness().local_deadline() {
            return Err(LostLease(format!(
                "the run could not renew its heartbeat in the database {} for {} s: it starts no more writes",
                self.target.shown,
                renewed.elapsed().as_secs()
            ))
            .into());
        }
        Ok(())
    }

    /// Seconds as a PostgreSQL interval parameter.
    fn seconds(duration: Duration) -> f64 {
        duration.as_secs_f64()
    }
}

/// Renews the heartbeat of this process's runs every `renew_every`, on a connection of its
/// own (the store's may be inside a transaction), until the store is dropped. A failed renewal
/// leaves `renewed` where it was, so the local deadline comes; the next renewal reconnects.
fn spawn_heartbeat(target: Target, beat: Arc<Mutex<Beat>>, stopped: mpsc::Receiver<()>) {
    std::thread::spawn(move || {
        let mut client: Option<Client> = None;
        loop {
            match stopped.recv_timeout(target.liveness.renew_every) {
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                _ => return,
            }
            let runs = match beat.lock() {
                Ok(beat) => beat.runs.clone(),
                Err(_) => return,
            };
            if runs.is_empty() {
                if let Ok(mut beat) = beat.lock() {
                    beat.renewed = Instant::now();
                }
                continue;
            }
            if client.as_ref().is_none_or(Client::is_closed) {
                client = connect::connect(&target).ok();
            }
            let Some(connection) = client.as_mut() else {
                continue;
            };
            // Only a heartbeat still within the bound is renewed (on the database's clock): a
            // run paused past it is never revived, and a run taken over never renewed.
            let renewed = connection.execute(
                "UPDATE runs SET heartbeat_at = now()
                 WHERE id = ANY($1) AND finished_at IS NULL AND taken_over_at IS NULL
                   AND heartbeat_at >= now() - make_interval(secs => $2)",
                &[&runs, &target.liveness.bound.as_secs_f64()],
            );
            match renewed {
                Ok(count) if count as usize == runs.len() => {
                    if let Ok(mut beat) = beat.lock() {
                        beat.renewed = Instant::now();
                    }
                }
                Ok(_) => {}
                Err(_) => client = None,
            }
        }
    });
}

impl RunLog for PostgresStore {
    fn record_account(&self, run_id: i64, account: &str) -> crate::store::Result<()> {
        self.client()
            .execute(
                "UPDATE runs SET account = $2 WHERE id = $1",
                &[&run_id, &account],
            )
            .doing("recording the run's GitHub account")?;
        Ok(())
    }

    fn start_run(&self, command: &str, argv: &str) -> crate::store::Result<i64> {
        let row = self
            .client()
            .query_one(
                "INSERT INTO runs (command, argv, started_at, pid, host, heartbeat_at, run_uid, boot_id, pid_ns, start_time)
                 VALUES ($1, $2, $3, $4, $5, now(), $6, $7, $8, $9) RETURNING id",
                &[
                    &command,
                    &argv,
                    &crate::clock::wall(),
                    &self.me.pid,
                    &self.target.host,
                    &self.me.run_uid,
                    &self.me.boot_id,
                    &self.me.pid_ns,
                    &self.me.start_time,
                ],
            )
            .doing("recording the run")?;
        let id: i64 = row.get(0);
        if let Ok(mut beat) = self.beat.lock() {
            if beat.runs.is_empty() {
                beat.renewed = Instant::now();
            }
            beat.runs.push(id);
        }
        Ok(id)
    }

    fn finish_run(&mut self, recap: &Recap) -> crate::store::Result<()> {
        let mut client = self.client();
        let mut transaction = client.transaction()?;
        let insert = transaction.prepare(
            "INSERT INTO run_items (run_id, item, outcome, phase, disposition, detail)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (run_id, item) DO UPDATE SET outcome = EXCLUDED.outcome,
                 phase = EXCLUDED.phase, disposition = EXCLUDED.disposition, detail = EXCLUDED.detail",
        )?;
        for completed in &recap.completed {
            transaction.execute(
                &insert,
                &[
                    &recap.run_id,
                    &completed.item,
                    &"completed",
                    &None::<String>,
                    &Some(&completed.disposition),
                    &completed.detail,
                ],
            )?;
        }
        for failed in &recap.failed {
            let phase = serde_json::to_value(failed.phase)?
                .as_str()
                .map(str::to_string);
            transaction.execute(
                &insert,
                &[
                    &recap.run_id,
                    &failed.item,
                    &"failed",
                    &phase,
                    &None::<String>,
                    &failed.reason,
                ],
            )?;
        }
        for item in &recap.unfinished {
            transaction.execute(
                &insert,
                &[
                    &recap.run_id,
                    item,
                    &"unfinished",
                    &None::<String>,
                    &None::<String>,
                    &recap.unfinished_reason,
                ],
            )?;
        }
        let stopped = recap
            .stopped
            .map(|stop| {
                serde_json::to_value(stop)
                    .map(|value| value.as_str().unwrap_or_default().to_string())
            })
            .transpose()?;
        transaction.execute(
            "UPDATE runs SET finished_at = $2, stopped = $3, exit_code = $4, recap = $5 WHERE id = $1",
            &[
                &recap.run_id,
                &crate::clock::wall(),
                &stopped,
                &i64::from(recap.exit_code),
                &serde_json::to_string(recap)?,
            ],
        )?;
        transaction.commit().doing("recording the recap")?;
        if let Ok(mut beat) = self.beat.lock() {
            beat.runs.retain(|run| *run != recap.run_id);
        }
        Ok(())
    }

    fn recap(&self, run_id: Option<i64>) -> crate::store::Result<Option<Recap>> {
        let row = match run_id {
            Some(id) => self.client().query_opt(
                "SELECT recap FROM runs WHERE id = $1 AND recap IS NOT NULL",
                &[&id],
            )?,
            None => self.client().query_opt(
                "SELECT recap FROM runs WHERE recap IS NOT NULL ORDER BY id DESC LIMIT 1",
                &[],
            )?,
        };
        row.map(|row| {
            serde_json::from_str(&row.get::<_, String>(0)).doing("the stored recap is damaged")
        })
        .transpose()
    }

    fn runs(&self, limit: usize) -> crate::store::Result<Vec<RunRow>> {
        let rows = self.client().query(
            "SELECT id, started_at, stopped, exit_code, argv FROM runs ORDER BY id DESC LIMIT $1",
            &[&(limit as i64)],
        )?;
        Ok(rows
            .iter()
            .map(|row| RunRow {
                id: row.get(0),
                started_at: row.get::<_, chrono::DateTime<chrono::Utc>>(1).to_rfc3339(),
                stopped: row.get(2),
                exit_code: row.get(3),
                argv: row.get(4),
            })
            .collect())
    }
}

impl Store for PostgresStore {
    fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn prune(&mut self, now: chrono::DateTime<chrono::Utc>) -> crate::store::Result<super::Pruned> {
        self.prune_rows(now)
    }

    fn follow_repository(
        &mut self,
        id: u64,
        name: &RepoRef,
    ) -> crate::store::Result<Option<String>> {
        let new = name.to_string();
        let mut client = self.client();
        let mut transaction = client
            .transaction()
            .doing("following a renamed repository")?;
        let old: Option<String> = transaction
            .query_opt(
                "SELECT full_name FROM repositories WHERE id = $1 FOR UPDATE",
                &[&(id as i64)],
            )?
            .map(|row| row.get(0));
        transaction.execute(
            "INSERT INTO repositories (id, full_name, seen_at) VALUES ($1, $2, $3)
             ON CONFLICT (id) DO UPDATE SET full_name = EXCLUDED.full_name, seen_at = EXCLUDED.seen_at",
            &[&(id as i64), &new, &crate::clock::wall()],
        )?;
        let moved = old.filter(|old| *old != new);
        if let Some(old) = &moved {
            let old_length = old.chars().count() as i32;
            let old_prefix = format!("{old}#");
            let old_key = format!("merge:{old}#");
            // Rows already kept under the new name win, as SQLite's `UPDATE OR REPLACE` does.
            transaction.execute(
                "DELETE FROM queue WHERE repo = $2 AND key IN (
                     SELECT 'merge:' || $2 || substr(key, $3 + 7) FROM queue
                     WHERE repo = $1 AND starts_with(key, $4))",
                &[old, &new, &old_length, &old_key],
            )?;
            transaction.execute(
                "UPDATE queue SET repo = $2,
                     key = CASE WHEN starts_with(key, $4) THEN 'merge:' || $2 || substr(key, $3 + 7) ELSE key END
                 WHERE repo = $1",
                &[old, &new, &old_length, &old_key],
            )?;
            for table in ["merge_gate", "sweep_budget"] {
                transaction.execute(
                    &format!(
                        "DELETE FROM {table} WHERE repo = $2 AND pr IN (SELECT pr FROM {table} WHERE repo = $1)"
                    ),
                    &[old, &new],
                )?;
                transaction.execute(
                    &format!("UPDATE {table} SET repo = $2 WHERE repo = $1"),
                    &[old, &new],
                )?;
            }
            transaction.execute(
                "UPDATE journal SET repo = $2, item = $2 || substr(item, $3 + 1) WHERE repo = $1",
                &[old, &new, &old_length],
            )?;
            transaction.execute(
                "DELETE FROM stale_marks WHERE item IN (
                     SELECT $1 || substr(item, $2 + 1) FROM stale_marks WHERE starts_with(item, $3))",
                &[&new, &old_length, &old_prefix],
            )?;
            transaction.execute(
                "UPDATE stale_marks SET item = $1 || substr(item, $2 + 1) WHERE starts_with(item, $3)",
                &[&new, &old_length, &old_prefix],
            )?;
        }
        transaction.commit()?;
        Ok(moved)
    }

    /// A connection of its own, so the client's best-effort cache writes never share the run's
    /// transactions; shared by every host on the database.
    fn response_cache(&self) -> crate::store::Result<Box<dyn ResponseCache>> {
        Ok(Box::new(
            http_cache::PostgresCache::open(&self.target).map_err(super::StoreError::Open)?,
        ))
    }

    fn notes(&self) -> Vec<String> {
        self.took_over.borrow().clone()
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
}
