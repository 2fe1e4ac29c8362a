//! The write journal and stale marks in SQLite: each write's intent before it is sent and its
//! outcome after, read back to find writes of unknown outcome; and when gh-sweep put a stale
//! label on.

use crate::store::error::Doing;
use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::Prepared;
use super::{now_text, SqliteStore, LIFE_COLUMNS};
use crate::item::{ItemRef, RepoRef};
use crate::policy::pacing;
use crate::policy::write::{self, JournalWrite, WriteOutcome};
use crate::store::{
    Admission, IntentStep, PacedIntent, StaleMarks, UnknownWrite, WriteJournal, IN_FLIGHT,
    RESERVATION_LIFE,
};

/// A write as the journal stores it: JSON of its kind and values.
fn stored(action: &JournalWrite) -> crate::store::Result<String> {
    serde_json::to_string(action).doing_with(|| format!("journaling the write `{action}`"))
}

impl SqliteStore {
    /// Inside a write transaction: the intent's row, stamped with the store's next tick, with
    /// the room it reserves for the item's later writes under the account's pacing.
    fn insert_intent(
        &self,
        run_id: i64,
        item: &ItemRef,
        action: &str,
        reserved: i64,
    ) -> crate::store::Result<i64> {
        let tick = self.tick()?;
        self.connection.execute_cached(
            "INSERT INTO journal (run_id, item, repo, action, intent_at, intent_tick, reserved)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                run_id,
                item.to_string(),
                item.repo.to_string(),
                action,
                now_text(),
                tick,
                reserved
            ],
        )?;
        Ok(self.connection.last_insert_rowid())
    }

    /// Inside a write transaction: whether another run settled a write to the item after
    /// `read_mark` (on the store's tick, never a host's clock: what this run read may not
    /// show it), or has one in flight and may still be sending it. A run with a write of the
    /// item in flight that is known dead is taken over in the same transaction, so it never
    /// writes again. Writes settled before the read are not read at all: they cannot make what
    /// this run read out of date, and a run past its bound cannot write again anyway (its
    /// heartbeat is never renewed, and every intent checks it), so a run's cost stays flat
    /// however often earlier runs wrote the item.
    pub(super) fn written_since(
        &self,
        run_id: i64,
        item: &ItemRef,
        read_mark: i64,
    ) -> crate::store::Result<bool> {
        let in_flight_since =
            crate::clock::wall() - chrono::Duration::from_std(IN_FLIGHT).unwrap_or_default();
        // Each write with its run's life in one query (the journal keeps every run it names).
        let others: Vec<(bool, bool, String, super::Life)> = {
            let mut statement = self.connection.prepare_cached(&format!(
                // Two halves, each a range of the index on the item and the outcome's tick
                // (`journal_item_tick`): an intent with no outcome yet has no tick, and a
                // settled write has the tick of its outcome. The tick starts at 0, so a
                // settled write without one (an earlier schema's) is never after a read.
                "SELECT 0, 0, journal.intent_at, {LIFE_COLUMNS}
                 FROM journal JOIN runs ON runs.id = journal.run_id
                 WHERE journal.item = ?1 AND journal.outcome_tick IS NULL
                   AND journal.outcome_at IS NULL AND journal.run_id != ?2
                 UNION ALL
                 SELECT 1, 1, journal.intent_at, {LIFE_COLUMNS}
                 FROM journal JOIN runs ON runs.id = journal.run_id
                 WHERE journal.item = ?1 AND journal.outcome_tick > ?3 AND journal.run_id != ?2
                   AND journal.outcome_at IS NOT NULL"
            ))?;
            let rows =
                statement.query_map(params![item.to_string(), run_id, read_mark], |row| {
                    Ok((
                        row.get(0)?,
                        row.get(1)?,
                        row.get(2)?,
                        super::Life::read(row, 3)?,
                    ))
                })?;
            rows.collect::<Result<_, _>>()?
        };
        let mut dead = Vec::new();
        for (settled, since, intent_at, life) in others {
            // Settled after this run read the item: what it read may not show it.
            if settled && since {
                return Ok(true);
            }
            let alive = self.alive(&life);
            // In flight when this run read, and its run may still be sending it.
            let recent = DateTime::parse_from_rfc3339(&intent_at)
                .map_or(true, |at| at.with_timezone(&Utc) >= in_flight_since);
            if !settled && recent && alive {
                return Ok(true);
            }
            if !alive {
                dead.push(life);
            }
        }
        // This run acts on an item a dead run wrote: that run never writes again.
        for life in &dead {
            self.take_over(life)?;
        }
        Ok(false)
    }
}

impl WriteJournal for SqliteStore {
    /// Records that a write is about to be sent. Committed before the request leaves, once
    /// the run is known to hold its heartbeat.
    fn journal_intent(
        &self,
        run_id: i64,
        item: &ItemRef,
        action: &JournalWrite,
    ) -> crate::store::Result<i64> {
        let action = stored(action)?;
        self.flush_caches();
        self.immediate(|| {
            self.hold_run(run_id)?;
            self.insert_intent(run_id, item, &action, 0)
        })
        .doing("journaling a write before sending it")
    }

    fn read_mark(&self) -> crate::store::Result<i64> {
        self.connection
            .query_row_cached("SELECT tick FROM store_clock", [], |row| row.get(0))
            .doing("reading the store's clock")
    }

    /// One `BEGIN IMMEDIATE` transaction: the heartbeat held, the other runs' writes to the
    /// item since `read_mark` (on the store's tick, never a host's clock), the dead writers
    /// taken over, the intent inserted.
    fn journal_intent_since(
        &self,
        run_id: i64,
        item: &ItemRef,
        action: &JournalWrite,
        read_mark: i64,
    ) -> crate::store::Result<Option<i64>> {
        let action = stored(action)?;
        self.flush_caches();
        self.immediate(|| {
            self.hold_run(run_id)?;
            if self.written_since(run_id, item, read_mark)? {
                return Ok(None);
            }
            self.insert_intent(run_id, item, &action, 0).map(Some)
        })
        .doing("journaling a write before sending it")
    }

    /// The account's writes and reservations are read and the intent inserted in one
    /// `BEGIN IMMEDIATE` transaction: SQLite's one writer at a time is the account's lock.
    fn journal_paced_intent(&self, intent: &PacedIntent<'_>) -> crate::store::Result<Admission> {
        let action = stored(intent.action)?;
        self.flush_caches();
        self.immediate(|| {
            // Every write, not only an item's first: the run still holds its heartbeat, and
            // no other run wrote the item since it was read.
            self.hold_run(intent.run_id)?;
            let now = crate::clock::wall();
            let window = chrono::Duration::from_std(pacing::WINDOW).unwrap_or_default();
            let sent = self.account_writes_since(intent.account, now - window)?;
            let life = chrono::Duration::from_std(RESERVATION_LIFE).unwrap_or_default();
            let cutoff = (now - life).to_rfc3339();
            let reserved: i64 = self.connection.query_row_cached(
                "SELECT coalesce(sum(journal.reserved), 0) FROM runs
                 JOIN journal ON journal.run_id = runs.id
                 WHERE runs.account = ?1 AND journal.intent_at >= ?2 AND journal.reserved > 0",
                params![intent.account, cutoff],
                |row| row.get(0),
            )?;
            let (room, reserve) = match intent.step {
                IntentStep::First { writes, .. } => (writes.max(1), writes.saturating_sub(1)),
                IntentStep::Later { first } => {
                    // Its room was reserved with the item's first write, while that lasts.
                    let held: bool = self
                        .connection
                        .query_row_cached(
                            "SELECT reserved > 0 AND intent_at >= ?2 FROM journal WHERE id = ?1",
                            params![first, cutoff],
                            |row| row.get(0),
                        )
                        .optional()?
                        .unwrap_or(false);
                    (usize::from(!held), 0)
                }
            };
            let reserved = usize::try_from(reserved).unwrap_or(0);
            let (wait, rule) = pacing::admission(&sent, reserved, now, room, intent.interval);
            if let Some(rule) = rule.filter(|_| !wait.is_zero()) {
                return Ok(Admission::Wait(wait, rule));
            }
            // Every write, not only an item's first: no other run wrote the item since it
            // was read.
            if self.written_since(intent.run_id, intent.item, intent.read_mark)? {
                return Ok(Admission::Overtaken);
            }
            if let IntentStep::Later { first } = intent.step {
                self.connection.execute_cached(
                    "UPDATE journal SET reserved = max(reserved - 1, 0) WHERE id = ?1",
                    [first],
                )?;
            }
            let reserve = i64::try_from(reserve).unwrap_or(0);
            self.insert_intent(intent.run_id, intent.item, &action, reserve)
                .map(Admission::Journaled)
        })
    }

    fn release_reserved(&self, first: i64) -> crate::store::Result<()> {
        self.connection
            .execute_cached("UPDATE journal SET reserved = 0 WHERE id = ?1", [first])
            .doing("giving back an item's reserved writes")?;
        Ok(())
    }

    /// Records what became of a journaled write: `done`, `failed` (refused, nothing written)
    /// or `unknown`, stamped with the store's next tick.
    fn journal_outcome(
        &self,
        id: i64,
        outcome: WriteOutcome,
        detail: &str,
    ) -> crate::store::Result<()> {
        self.immediate(|| {
            let tick = self.tick()?;
            self.connection.execute_cached(
                "UPDATE journal SET outcome = ?2, outcome_at = ?3, detail = ?4, outcome_tick = ?5 WHERE id = ?1",
                params![id, outcome.journal_word(), now_text(), detail, tick],
            )?;
            Ok(())
        })
        .doing("journaling a write's outcome")
    }

    /// Through the index on the runs' accounts and the journal's (run, intent) pairs: the
    /// last hour of one account, not a scan of every run's rows.
    fn account_writes_since(
        &self,
        account: &str,
        since: DateTime<Utc>,
    ) -> crate::store::Result<Vec<DateTime<Utc>>> {
        let mut statement = self.connection.prepare_cached(
            "SELECT journal.intent_at FROM runs JOIN journal ON journal.run_id = runs.id
             WHERE runs.account = ?1 AND journal.intent_at >= ?2",
        )?;
        let rows = statement.query_map(params![account, since.to_rfc3339()], |row| {
            row.get::<_, String>(0)
        })?;
        let mut times = Vec::new();
        for row in rows {
            // A stamp that does not parse is still a write: counted as sent at `since`.
            let text = row.doing("reading an account's writes")?;
            times.push(
                DateTime::parse_from_rfc3339(&text)
                    .map_or(since, |time| time.with_timezone(&Utc))
                    .max(since),
            );
        }
        times.sort_unstable();
        Ok(times)
    }

    /// Writes in these repositories whose outcome is unknown and not yet acknowledged.
    ///
    /// A write without an outcome whose run has not finished, and that is younger than
    /// [`IN_FLIGHT`], belongs to a run still at work (an overlapping cron run): it is that run's
    /// to settle, not ours.
    fn unknown_writes(
        &self,
        repos: &[RepoRef],
        now: DateTime<Utc>,
    ) -> crate::store::Result<Vec<UnknownWrite>> {
        let mut statement = self.connection.prepare_cached(&format!(
            "SELECT journal.id, journal.run_id, journal.item, journal.action, journal.intent_at,
                    runs.finished_at IS NOT NULL OR journal.intent_at < ?2, {LIFE_COLUMNS}
             FROM journal JOIN runs ON runs.id = journal.run_id
             WHERE journal.repo = ?1 AND (journal.outcome IS NULL OR journal.outcome = 'unknown')
             ORDER BY journal.id"
        ))?;
        let settled_before =
            (now - chrono::Duration::from_std(IN_FLIGHT).unwrap_or_default()).to_rfc3339();
        let mut found = Vec::new();
        for repo in repos {
            let rows = statement.query_map(params![repo.to_string(), settled_before], |row| {
                let over: bool = row.get(5)?;
                let life = super::Life::read(row, 6)?;
                let write = UnknownWrite {
                    id: row.get(0)?,
                    run_id: row.get(1)?,
                    item: row.get(2)?,
                    action: JournalWrite::from_stored(&row.get::<_, String>(3)?),
                    intent_at: DateTime::parse_from_rfc3339(&row.get::<_, String>(4)?)
                        .map_or(DateTime::<Utc>::MIN_UTC, |time| time.with_timezone(&Utc)),
                };
                Ok((write, over, life))
            })?;
            for row in rows {
                let (write, over, life) = row?;
                let alive = self.alive(&life);
                if over || !alive {
                    // Its writes are ours to settle now: the run never writes again.
                    if !alive {
                        self.take_over(&life)?;
                    }
                    found.push(write);
                }
            }
        }
        Ok(found)
    }

    /// The maintainer checked an item by hand: its unknown writes stop blocking it.
    fn acknowledge(&self, item: &ItemRef) -> crate::store::Result<usize> {
        self.immediate(|| {
            let tick = self.tick()?;
            Ok(self.connection.execute_cached(
                "UPDATE journal SET outcome = 'acknowledged', outcome_at = ?2, outcome_tick = ?3
                 WHERE item = ?1 AND (outcome IS NULL OR outcome = 'unknown')",
                params![item.to_string(), now_text(), tick],
            )?)
        })
    }

    /// Whether gh-sweep's latest stale label on an item was put on by a run that never got to
    /// post the stale comment after it.
    fn mark_unfinished(&self, item: &ItemRef, label: &str) -> crate::store::Result<bool> {
        let labelled = JournalWrite::AddLabels {
            labels: vec![label.to_string()],
        };
        let commented = JournalWrite::Comment {
            marker: write::marker("mark-stale"),
        };
        // An acknowledged write is done: the maintainer checked that it happened.
        let mut statement = self.connection.prepare_cached(&format!(
            "SELECT journal.action, {LIFE_COLUMNS} FROM journal
             JOIN runs ON runs.id = journal.run_id
             WHERE journal.item = ?1 AND journal.outcome IN ('done', 'acknowledged')
             ORDER BY journal.id DESC"
        ))?;
        let rows = statement.query_map([item.to_string()], |row| {
            Ok((row.get::<_, String>(0)?, super::Life::read(row, 1)?))
        })?;
        // Newest first: a stale comment seen before the latest label was posted after it.
        let mut comment_after = false;
        for row in rows {
            let (action, life) = row?;
            let action = JournalWrite::from_stored(&action);
            if action == commented {
                comment_after = true;
            } else if action == labelled {
                // The latest label gh-sweep put on; a run still at work may be about to
                // comment.
                if self.alive(&life) {
                    return Ok(false);
                }
                return Ok(!comment_after);
            }
        }
        Ok(false)
    }
}

impl StaleMarks for SqliteStore {
    /// When gh-sweep put the stale label on an item, and its last write there.
    fn stale_mark(
        &self,
        item: &ItemRef,
        label: &str,
    ) -> crate::store::Result<Option<(DateTime<Utc>, DateTime<Utc>)>> {
        let row: Option<(String, String)> = self
            .connection
            .query_row_cached(
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

    fn record_stale_mark(
        &self,
        item: &ItemRef,
        label: &str,
        labeled_at: DateTime<Utc>,
        last_write_at: DateTime<Utc>,
    ) -> crate::store::Result<()> {
        self.connection.execute_cached(
            "INSERT OR REPLACE INTO stale_marks (item, label, labeled_at, last_write_at) VALUES (?1, ?2, ?3, ?4)",
            params![item.to_string(), label, labeled_at.to_rfc3339(), last_write_at.to_rfc3339()],
        )?;
        Ok(())
    }

    fn forget_stale_mark(&self, item: &ItemRef) -> crate::store::Result<()> {
        self.connection.execute_cached(
            "DELETE FROM stale_marks WHERE item = ?1",
            [item.to_string()],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::RunLog;

    fn close() -> JournalWrite {
        JournalWrite::Close {
            reason: Some("not_planned".into()),
        }
    }

    #[test]
    fn journal_rows_without_outcome_are_unknown_until_acknowledged() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("state.db")).unwrap();
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
                .unknown_writes(std::slice::from_ref(&repo), crate::clock::wall())
                .unwrap()
                .is_empty(),
            "its run is still at work"
        );
        store
            .connection
            .execute("UPDATE runs SET finished_at = started_at", [])
            .unwrap();
        let unknown = store
            .unknown_writes(std::slice::from_ref(&repo), crate::clock::wall())
            .unwrap();
        assert_eq!(unknown.len(), 1);
        assert_eq!(unknown[0].action, close());
        assert_eq!(store.acknowledge(&item).unwrap(), 1);
        assert!(store
            .unknown_writes(&[repo], crate::clock::wall())
            .unwrap()
            .is_empty());
    }
}
