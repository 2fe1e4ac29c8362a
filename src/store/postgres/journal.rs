//! The write journal and stale marks in PostgreSQL. A run is at work while it has not finished,
//! nobody took it over, and its heartbeat (the database's clock) is younger than the bound
//! plus the write timeout; on this kernel and PID namespace, a run whose process is gone is dead
//! at once. Each intent is journaled in a transaction that first checks this run still holds
//! its heartbeat, and every write locks the item's row and compares the other runs' writes with
//! the read on the database's ticks (`journal_ticks`), so two hosts never both pass the check.

use crate::store::error::Doing;
use chrono::{DateTime, Utc};
use postgres::GenericClient;

use super::{LostLease, PostgresStore};
use crate::item::{ItemRef, RepoRef};
use crate::policy::pacing;
use crate::policy::write::{self, JournalWrite, WriteOutcome};
use crate::store::{
    Admission, IntentStep, PacedIntent, StaleMarks, UnknownWrite, WriteJournal, IN_FLIGHT,
    RESERVATION_LIFE,
};

/// The columns that tell whether a journal row's run is at work (joined as `runs`), the
/// heartbeat bound in seconds being parameter `$N`.
pub(super) fn life_columns(bound: usize) -> String {
    format!(
        "runs.finished_at IS NOT NULL,
         runs.taken_over_at IS NULL AND runs.heartbeat_at >= now() - make_interval(secs => ${bound}),
         runs.pid, runs.host, runs.id, runs.heartbeat_at, runs.boot_id, runs.pid_ns, runs.start_time"
    )
}

/// What is known of a run's life, as [`life_columns`] read it starting at column `at`.
pub(super) struct RunLife {
    pub finished: bool,
    pub fresh: bool,
    pub pid: Option<i64>,
    pub host: Option<String>,
    pub run_id: i64,
    pub heartbeat_at: DateTime<Utc>,
    pub process: crate::store::identity::Process,
}

impl RunLife {
    pub(super) fn read(row: &postgres::Row, at: usize) -> RunLife {
        RunLife {
            finished: row.get(at),
            fresh: row.get(at + 1),
            pid: row.get(at + 2),
            host: row.get(at + 3),
            run_id: row.get(at + 4),
            heartbeat_at: row.get(at + 5),
            process: crate::store::identity::Process {
                pid: row.get(at + 2),
                boot_id: row.get(at + 6),
                pid_ns: row.get(at + 7),
                start_time: row.get(at + 8),
            },
        }
    }
}

fn stored(action: &JournalWrite) -> crate::store::Result<String> {
    serde_json::to_string(action).doing_with(|| format!("journaling the write `{action}`"))
}

fn in_flight() -> chrono::Duration {
    chrono::Duration::from_std(IN_FLIGHT).unwrap_or_default()
}

impl PostgresStore {
    /// Whether a run may still be at work: not finished, its heartbeat fresh (on the
    /// database's clock), and its process not known gone (known only on this kernel, in this
    /// PID namespace: a host name tells nothing).
    pub(super) fn alive(&self, life: &RunLife) -> bool {
        !life.finished && life.fresh && !life.process.gone(&self.me)
    }

    /// Marks another host's run as taken over, once, and notes it for the recap.
    pub(super) fn take_over(
        &self,
        client: &mut impl GenericClient,
        life: &RunLife,
    ) -> crate::store::Result<()> {
        if life.finished {
            return Ok(());
        }
        let taken = client.query_opt(
            "UPDATE runs SET taken_over_at = now(), taken_over_by = $2
             WHERE id = $1 AND taken_over_at IS NULL RETURNING taken_over_at",
            &[&life.run_id, &self.target.host],
        )?;
        if let Some(row) = taken {
            let at: DateTime<Utc> = row.get(0);
            self.took_over.borrow_mut().push(format!(
                "took over run {} of host {} at {} (its last heartbeat was at {})",
                life.run_id,
                life.host.as_deref().unwrap_or("unknown"),
                at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                life.heartbeat_at
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            ));
        }
        Ok(())
    }

    /// Inside a transaction: this run still holds its heartbeat (locked, so no host takes it
    /// over before the intent commits).
    pub(super) fn hold_run(
        &self,
        client: &mut impl GenericClient,
        run_id: i64,
    ) -> crate::store::Result<()> {
        self.check_heartbeat()?;
        let held = client.query_opt(
            "SELECT 1 FROM runs WHERE id = $1 AND finished_at IS NULL AND taken_over_at IS NULL
               AND heartbeat_at >= now() - make_interval(secs => $2)
             FOR UPDATE",
            &[&run_id, &Self::seconds(self.liveness().bound)],
        )?;
        if held.is_none() {
            return Err(LostLease(format!(
                "run {run_id} no longer holds its heartbeat in the database {} (it was paused or cut off, or another host took its work over): it starts no more writes",
                self.target.shown
            ))
            .into());
        }
        Ok(())
    }
}

/// The advisory locks' class for an account's pacing (the two-key form: its own key space,
/// apart from the migrations' one-key lock); the second key is the account's `hashtext`.
const ACCOUNT_LOCK: i32 = 21;

fn insert_intent(
    client: &mut impl GenericClient,
    run_id: i64,
    item: &ItemRef,
    action: &str,
    reserved: i64,
) -> crate::store::Result<i64> {
    let row = client
        .query_one(
            "INSERT INTO journal (run_id, item, repo, action, intent_at, reserved, intent_tick)
             VALUES ($1, $2, $3, $4, $5, $6, nextval('journal_ticks')) RETURNING id",
            &[
                &run_id,
                &item.to_string(),
                &item.repo.to_string(),
                &action,
                &crate::clock::wall(),
                &reserved,
            ],
        )
        .doing("journaling a write before sending it")?;
    Ok(row.get(0))
}

impl PostgresStore {
    /// Inside a transaction: whether another run settled a write to the item after
    /// `read_mark` (on the database's ticks, never a host's clock: what this run read may not
    /// show it), or has one in flight and may still be sending it. Locks the item's row first:
    /// a second host's check waits here until this one commits, then sees its intent. A run
    /// that wrote the item and is known dead is taken over in the same transaction, so it
    /// never writes again.
    fn written_since(
        &self,
        transaction: &mut impl GenericClient,
        run_id: i64,
        item: &ItemRef,
        read_mark: i64,
    ) -> crate::store::Result<bool> {
        let name = item.to_string();
        transaction.execute(
            "INSERT INTO item_locks (item) VALUES ($1) ON CONFLICT (item) DO NOTHING",
            &[&name],
        )?;
        transaction.execute(
            "SELECT item FROM item_locks WHERE item = $1 FOR UPDATE",
            &[&name],
        )?;
        let others = transaction.query(
            &format!(
                // Two ranges of the index on the item and the outcome's tick: an intent
                // with no outcome has no tick; the ticks start at 1, so a settled write
                // without one (an earlier schema's) is never after a read.
                "SELECT false, false, journal.intent_at >= now() - make_interval(secs => $4), {0}
                 FROM journal JOIN runs ON runs.id = journal.run_id
                 WHERE journal.item = $1 AND journal.outcome_tick IS NULL
                   AND journal.outcome_at IS NULL AND journal.run_id != $2
                 UNION ALL
                 SELECT true, true, journal.intent_at >= now() - make_interval(secs => $4), {0}
                 FROM journal JOIN runs ON runs.id = journal.run_id
                 WHERE journal.item = $1 AND journal.outcome_tick > $3
                   AND journal.outcome_at IS NOT NULL AND journal.run_id != $2",
                life_columns(5)
            ),
            &[
                &name,
                &run_id,
                &read_mark,
                &IN_FLIGHT.as_secs_f64(),
                &Self::seconds(self.liveness().takeover_after()),
            ],
        )?;
        let mut dead = Vec::new();
        for other in &others {
            let settled: bool = other.get(0);
            let since: bool = other.get(1);
            let recent: bool = other.get(2);
            let life = RunLife::read(other, 3);
            let alive = self.alive(&life);
            if (settled && since) || (!settled && recent && alive) {
                return Ok(true);
            }
            if !alive {
                dead.push(life);
            }
        }
        // This run acts on an item a dead run wrote: that run never writes again.
        for life in &dead {
            self.take_over(transaction, life)?;
        }
        Ok(false)
    }
}

impl WriteJournal for PostgresStore {
    /// Every host's runs of the account: the ceilings are GitHub's, per account.
    fn account_writes_since(
        &self,
        account: &str,
        since: DateTime<Utc>,
    ) -> crate::store::Result<Vec<DateTime<Utc>>> {
        let rows = self
            .client()
            .query(
                "SELECT journal.intent_at FROM runs JOIN journal ON journal.run_id = runs.id
                 WHERE runs.account = $1 AND journal.intent_at >= $2
                 ORDER BY journal.intent_at",
                &[&account, &since],
            )
            .doing("reading an account's writes")?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    fn journal_intent(
        &self,
        run_id: i64,
        item: &ItemRef,
        action: &JournalWrite,
    ) -> crate::store::Result<i64> {
        let action = stored(action)?;
        let mut client = self.client();
        let mut transaction = client.transaction()?;
        self.hold_run(&mut transaction, run_id)?;
        let row = transaction
            .query_one(
                "INSERT INTO journal (run_id, item, repo, action, intent_at, intent_tick)
                 VALUES ($1, $2, $3, $4, $5, nextval('journal_ticks')) RETURNING id",
                &[
                    &run_id,
                    &item.to_string(),
                    &item.repo.to_string(),
                    &action,
                    &crate::clock::wall(),
                ],
            )
            .doing("journaling a write before sending it")?;
        transaction
            .commit()
            .doing("journaling a write before sending it")?;
        Ok(row.get(0))
    }

    /// A tick of the database's sequence: every intent and outcome stamped after this call
    /// gets a greater one, whichever host stamps it.
    fn read_mark(&self) -> crate::store::Result<i64> {
        Ok(self
            .client()
            .query_one("SELECT nextval('journal_ticks')", &[])
            .doing("reading the store's clock")?
            .get(0))
    }

    fn journal_intent_since(
        &self,
        run_id: i64,
        item: &ItemRef,
        action: &JournalWrite,
        read_mark: i64,
    ) -> crate::store::Result<Option<i64>> {
        let action = stored(action)?;
        let mut client = self.client();
        let mut transaction = client.transaction()?;
        self.hold_run(&mut transaction, run_id)?;
        if self.written_since(&mut transaction, run_id, item, read_mark)? {
            return Ok(None);
        }
        let id = insert_intent(&mut transaction, run_id, item, &action, 0)?;
        transaction
            .commit()
            .doing("journaling a write before sending it")?;
        Ok(Some(id))
    }

    /// Under the account's advisory lock (`pg_advisory_xact_lock`, released with the
    /// transaction), every host's writes and reservations of the account are counted on the
    /// database's rows and the intent inserted, so hosts sharing a token never pass a
    /// ceiling together.
    fn journal_paced_intent(&self, intent: &PacedIntent<'_>) -> crate::store::Result<Admission> {
        let action = stored(intent.action)?;
        let mut client = self.client();
        let mut transaction = client.transaction()?;
        self.hold_run(&mut transaction, intent.run_id)?;
        transaction.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))",
            &[&ACCOUNT_LOCK, &intent.account],
        )?;
        let now = crate::clock::wall();
        let window = chrono::Duration::from_std(pacing::WINDOW).unwrap_or_default();
        let sent: Vec<DateTime<Utc>> = transaction
            .query(
                "SELECT journal.intent_at FROM runs JOIN journal ON journal.run_id = runs.id
                 WHERE runs.account = $1 AND journal.intent_at >= $2
                 ORDER BY journal.intent_at",
                &[&intent.account, &(now - window)],
            )?
            .iter()
            .map(|row| row.get(0))
            .collect();
        let cutoff = now - chrono::Duration::from_std(RESERVATION_LIFE).unwrap_or_default();
        let reserved: i64 = transaction
            .query_one(
                "SELECT coalesce(sum(journal.reserved), 0)::BIGINT FROM runs
                 JOIN journal ON journal.run_id = runs.id
                 WHERE runs.account = $1 AND journal.intent_at >= $2 AND journal.reserved > 0",
                &[&intent.account, &cutoff],
            )?
            .get(0);
        let (room, reserve) = match intent.step {
            IntentStep::First { writes, .. } => (writes.max(1), writes.saturating_sub(1)),
            IntentStep::Later { first } => {
                let held = transaction
                    .query_opt(
                        "SELECT reserved > 0 AND intent_at >= $2 FROM journal WHERE id = $1",
                        &[&first, &cutoff],
                    )?
                    .is_some_and(|row| row.get::<_, bool>(0));
                (usize::from(!held), 0)
            }
        };
        let reserved = usize::try_from(reserved).unwrap_or(0);
        let (wait, rule) = pacing::admission(&sent, reserved, now, room, intent.interval);
        if let Some(rule) = rule.filter(|_| !wait.is_zero()) {
            return Ok(Admission::Wait(wait, rule));
        }
        // Every write, not only an item's first: no other run wrote the item since it was
        // read.
        if self.written_since(
            &mut transaction,
            intent.run_id,
            intent.item,
            intent.read_mark,
        )? {
            return Ok(Admission::Overtaken);
        }
        if let IntentStep::Later { first } = intent.step {
            transaction.execute(
                "UPDATE journal SET reserved = greatest(reserved - 1, 0) WHERE id = $1",
                &[&first],
            )?;
        }
        let reserve = i64::try_from(reserve).unwrap_or(0);
        let id = insert_intent(
            &mut transaction,
            intent.run_id,
            intent.item,
            &action,
            reserve,
        )?;
        transaction
            .commit()
            .doing("journaling a write before sending it")?;
        Ok(Admission::Journaled(id))
    }

    fn release_reserved(&self, first: i64) -> crate::store::Result<()> {
        self.client()
            .execute("UPDATE journal SET reserved = 0 WHERE id = $1", &[&first])
            .doing("giving back an item's reserved writes")?;
        Ok(())
    }

    fn journal_outcome(
        &self,
        id: i64,
        outcome: WriteOutcome,
        detail: &str,
    ) -> crate::store::Result<()> {
        self.client()
            .execute(
                "UPDATE journal SET outcome = $2, outcome_at = $3, detail = $4,
                     outcome_tick = nextval('journal_ticks') WHERE id = $1",
                &[&id, &outcome.journal_word(), &crate::clock::wall(), &detail],
            )
            .doing("journaling a write's outcome")?;
        Ok(())
    }

    /// Writes in these repositories whose outcome is unknown. Another host's run counts as
    /// over once its heartbeat is older than the bound plus the write timeout (a write it had
    /// sent may land until then); its work is then marked taken over by this host.
    fn unknown_writes(
        &self,
        repos: &[RepoRef],
        now: DateTime<Utc>,
    ) -> crate::store::Result<Vec<UnknownWrite>> {
        let names: Vec<String> = repos.iter().map(ToString::to_string).collect();
        let mut client = self.client();
        let rows = client.query(
            &format!(
                "SELECT journal.id, journal.run_id, journal.item, journal.action, journal.intent_at,
                        journal.intent_at < $2, {}
                 FROM journal JOIN runs ON runs.id = journal.run_id
                 WHERE journal.repo = ANY($1) AND (journal.outcome IS NULL OR journal.outcome = 'unknown')
                 ORDER BY journal.id",
                life_columns(3)
            ),
            &[&names, &(now - in_flight()), &Self::seconds(self.liveness().takeover_after())],
        )?;
        let mut found = Vec::new();
        for row in &rows {
            let old: bool = row.get(5);
            let life = RunLife::read(row, 6);
            let alive = self.alive(&life);
            if !old && alive {
                continue;
            }
            if !alive {
                self.take_over(&mut *client, &life)?;
            }
            found.push(UnknownWrite {
                id: row.get(0),
                run_id: row.get(1),
                item: row.get(2),
                action: JournalWrite::from_stored(&row.get::<_, String>(3)),
                intent_at: row.get(4),
            });
        }
        Ok(found)
    }

    fn acknowledge(&self, item: &ItemRef) -> crate::store::Result<usize> {
        Ok(self.client().execute(
            "UPDATE journal SET outcome = 'acknowledged', outcome_at = $2,
                 outcome_tick = nextval('journal_ticks')
             WHERE item = $1 AND (outcome IS NULL OR outcome = 'unknown')",
            &[&item.to_string(), &crate::clock::wall()],
        )? as usize)
    }

    fn mark_unfinished(&self, item: &ItemRef, label: &str) -> crate::store::Result<bool> {
        let labelled = JournalWrite::AddLabels {
            labels: vec![label.to_string()],
        };
        let commented = JournalWrite::Comment {
            marker: write::marker("mark-stale"),
        };
        let rows = self.client().query(
            &format!(
                "SELECT journal.action, {} FROM journal JOIN runs ON runs.id = journal.run_id
                 WHERE journal.item = $1 AND journal.outcome IN ('done', 'acknowledged')
                 ORDER BY journal.id DESC",
                life_columns(2)
            ),
            &[
                &item.to_string(),
                &Self::seconds(self.liveness().takeover_after()),
            ],
        )?;
        let mut comment_after = false;
        for row in &rows {
            let action = JournalWrite::from_stored(&row.get::<_, String>(0));
            if action == commented {
                comment_after = true;
            } else if action == labelled {
                if self.alive(&RunLife::read(row, 1)) {
                    return Ok(false);
                }
                return Ok(!comment_after);
            }
        }
        Ok(false)
    }
}

impl StaleMarks for PostgresStore {
    fn stale_mark(
        &self,
        item: &ItemRef,
        label: &str,
    ) -> crate::store::Result<Option<(DateTime<Utc>, DateTime<Utc>)>> {
        let row = self.client().query_opt(
            "SELECT labeled_at, last_write_at FROM stale_marks WHERE item = $1 AND lower(label) = lower($2)",
            &[&item.to_string(), &label],
        )?;
        Ok(row.map(|row| (row.get(0), row.get(1))))
    }

    fn record_stale_mark(
        &self,
        item: &ItemRef,
        label: &str,
        labeled_at: DateTime<Utc>,
        last_write_at: DateTime<Utc>,
    ) -> crate::store::Result<()> {
        self.client().execute(
            "INSERT INTO stale_marks (item, label, labeled_at, last_write_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (item) DO UPDATE SET label = EXCLUDED.label, labeled_at = EXCLUDED.labeled_at,
                 last_write_at = EXCLUDED.last_write_at",
            &[&item.to_string(), &label, &labeled_at, &last_write_at],
        )?;
        Ok(())
    }

    fn forget_stale_mark(&self, item: &ItemRef) -> crate::store::Result<()> {
        self.client().execute(
            "DELETE FROM stale_marks WHERE item = $1",
            &[&item.to_string()],
        )?;
        Ok(())
    }
}
