//! The SQLite schema and its migrations: each version's step, run once per file inside a
//! `BEGIN IMMEDIATE` transaction, and the check that a current file has every table.

use super::SqliteStore;
use crate::exit::Fatal;

/// Each entry migrates the schema from its index to the next version.
pub(super) const MIGRATIONS: &[&str] = &[
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
    // 8 -> 9: the journal looked up by item (the check that no other run wrote an item since it
    // was read, an interrupted mark, an acknowledged write) without a scan of every run's rows.
    "CREATE INDEX IF NOT EXISTS journal_item ON journal(item, id);",
    // 9 -> 10: which GitHub account each run acts as, and the journal looked up by run and
    // time: GitHub's write ceilings are per account, so the pacing counts every run's writes.
    "ALTER TABLE runs ADD COLUMN account TEXT;
     CREATE INDEX runs_account ON runs(account);
     CREATE INDEX journal_run_intent ON journal(run_id, intent_at);",
    // 10 -> 11: what `prune` looks up without reading every row: an old cached answer by its
    // stamp, without reading its body (whether a journal row still names a run goes through
    // 10's index on the journal's run and time).
    "CREATE INDEX IF NOT EXISTS http_cache_stored ON http_cache(stored_at);",
    // 11 -> 12: the room an item's first write reserves for its later writes under the
    // account's pacing, so that concurrent runs never take it.
    "ALTER TABLE journal ADD COLUMN reserved INTEGER NOT NULL DEFAULT 0;",
    // 12 -> 13: a run known by what cannot collide (a random id, the kernel's boot id, its PID
    // namespace and its process's start time), its heartbeat and who took it over; and the
    // store's own clock, a tick every intent and outcome is stamped with, so runs on hosts
    // with different clocks compare on one. A run of an earlier version has beaten last when
    // it started.
    "ALTER TABLE runs ADD COLUMN run_uid TEXT;
     ALTER TABLE runs ADD COLUMN boot_id TEXT;
     ALTER TABLE runs ADD COLUMN pid_ns TEXT;
     ALTER TABLE runs ADD COLUMN start_time INTEGER;
     ALTER TABLE runs ADD COLUMN heartbeat_at TEXT;
     ALTER TABLE runs ADD COLUMN taken_over_at TEXT;
     ALTER TABLE runs ADD COLUMN taken_over_by TEXT;
     UPDATE runs SET heartbeat_at = started_at;
     ALTER TABLE journal ADD COLUMN intent_tick INTEGER;
     ALTER TABLE journal ADD COLUMN outcome_tick INTEGER;
     CREATE TABLE store_clock (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        tick INTEGER NOT NULL
     );
     INSERT INTO store_clock (id, tick) VALUES (1, 0);",
    // 13 -> 14: a run's recap (some 300 KB for 1,000 items) apart from its row, so that what
    // is read of a run on every journal row (its process, host, heartbeat, whether it
    // finished) no longer walks the recap's overflow pages: `pid` and `host` came after it
    // (a look-up of 23 runs was measured at 911 page reads).
    "CREATE TABLE run_recaps (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id),
        recap TEXT NOT NULL
     );
     INSERT INTO run_recaps (run_id, recap) SELECT id, recap FROM runs WHERE recap IS NOT NULL;
     ALTER TABLE runs DROP COLUMN recap;",
    // 14 -> 15: what `poll` remembers of each repository's last tick, so that a repeat tick
    // reads only the PRs that changed and those left waiting on their checks.
    "CREATE TABLE poll_memory (
        repo TEXT PRIMARY KEY,
        memory TEXT NOT NULL,
        stored_at TEXT NOT NULL
     );",
    // 15 -> 16: the check that no other run wrote an item since this run read it reads only
    // the writes that can matter (in flight, or settled after the read, on the store's tick)
    // by index, not every write to the item in the journal's day: its cost stays flat as
    // runs pile up.
    "CREATE INDEX journal_item_tick ON journal(item, outcome_tick);",
];

pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The tables the migrations create, by name.
fn expected_tables() -> Vec<&'static str> {
    MIGRATIONS
        .iter()
        .flat_map(|sql| sql.split("CREATE TABLE ").skip(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .collect()
}

impl SqliteStore {
    /// Every table the migrations create is there: a file whose schema version says it is
    /// current but that lost a table (damaged, or changed by another program) is refused up
    /// front, naming the file, instead of failing mid-run on a raw SQL error.
    pub(super) fn check_tables(&self) -> anyhow::Result<()> {
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
    pub(super) fn migrate(&mut self) -> anyhow::Result<()> {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::{ItemRef, RepoRef};
    use crate::policy::write::{self, JournalWrite};
    use crate::store::queue;
    use crate::store::{MergeQueue, StaleMarks, WriteJournal};

    fn close() -> JournalWrite {
        JournalWrite::Close {
            reason: Some("not_planned".into()),
        }
    }
    use rusqlite::{params, Connection};

    #[test]
    fn the_expected_tables_are_those_a_new_store_has() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("state.db")).unwrap();
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
    fn the_journal_is_looked_up_by_item_through_its_index() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(SqliteStore::open(&path).unwrap());
        let connection = Connection::open(&path).unwrap();
        // The shapes of the per-item look-ups in journal.rs.
        for query in [
            "SELECT outcome_at FROM journal WHERE item = ?1 AND run_id != ?2",
            "SELECT action FROM journal WHERE item = ?1 AND outcome IN ('done', 'acknowledged') ORDER BY id DESC",
        ] {
            let plan: Vec<String> = connection
                .prepare(&format!("EXPLAIN QUERY PLAN {query}"))
                .unwrap()
                .query_map(
                    rusqlite::params_from_iter(["o/r#1", "1"].iter().take(query.matches('?').count())),
                    |row| row.get::<_, String>(3),
                )
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert!(
                plan.iter().any(|step| step.contains("USING INDEX journal_item")),
                "{query}: {plan:?}"
            );
        }
    }

    #[test]
    fn an_accounts_writes_are_looked_up_through_the_indexes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(SqliteStore::open(&path).unwrap());
        let connection = Connection::open(&path).unwrap();
        // The shape of `account_writes_since` in journal.rs.
        let plan: Vec<String> = connection
            .prepare(
                "EXPLAIN QUERY PLAN SELECT journal.intent_at FROM runs JOIN journal ON journal.run_id = runs.id
                 WHERE runs.account = ?1 AND journal.intent_at >= ?2",
            )
            .unwrap()
            .query_map(params!["github.com/octocat", "2026-01-01T00:00:00Z"], |row| {
                row.get::<_, String>(3)
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for index in ["runs_account", "journal_run_intent"] {
            assert!(
                plan.iter().any(|step| step.contains(index)),
                "{index}: {plan:?}"
            );
        }
    }

    #[test]
    fn prune_finds_old_cached_answers_and_a_run_s_writes_through_indexes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(SqliteStore::open(&path).unwrap());
        let connection = Connection::open(&path).unwrap();
        for (query, index) in [
            (
                "SELECT url FROM http_cache WHERE stored_at < ?1",
                "http_cache_stored",
            ),
            (
                "SELECT 1 FROM journal WHERE journal.run_id = ?1",
                "journal_run_intent",
            ),
        ] {
            let plan: Vec<String> = connection
                .prepare(&format!("EXPLAIN QUERY PLAN {query}"))
                .unwrap()
                .query_map(["1"], |row| row.get::<_, String>(3))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert!(
                plan.iter().any(|step| step.contains(index)),
                "{query}: {plan:?}"
            );
        }
    }

    #[test]
    fn refuses_a_newer_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(SqliteStore::open(&path).unwrap());
        let connection = Connection::open(&path).unwrap();
        connection
            .execute_batch("PRAGMA user_version = 99")
            .unwrap();
        drop(connection);
        let error = SqliteStore::open(&path).err().unwrap().to_string();
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
                // From version 14 on, a run's recap is in `run_recaps`.
                let runs = if version < 14 {
                    "INSERT INTO runs (id, command, argv, started_at, finished_at, exit_code, recap)
                       VALUES (1, 'stale-sweep', 'gh-sweep stale-sweep --repo o/r', '2026-11-01T00:00:00Z', '2026-11-01T00:01:00Z', 11, NULL);
                     INSERT INTO runs (id, command, argv, started_at, finished_at, exit_code, recap)
                       VALUES (2, 'classify', 'gh-sweep classify stale --repo o/r', '2026-11-01T00:02:00Z', '2026-11-01T00:03:00Z', 0, '{\"run_id\": 2}');"
                } else {
                    "INSERT INTO runs (id, command, argv, started_at, finished_at, exit_code)
                       VALUES (1, 'stale-sweep', 'gh-sweep stale-sweep --repo o/r', '2026-11-01T00:00:00Z', '2026-11-01T00:01:00Z', 11);
                     INSERT INTO runs (id, command, argv, started_at, finished_at, exit_code)
                       VALUES (2, 'classify', 'gh-sweep classify stale --repo o/r', '2026-11-01T00:02:00Z', '2026-11-01T00:03:00Z', 0);
                     INSERT INTO run_recaps (run_id, recap) VALUES (2, '{\"run_id\": 2}');"
                };
                connection.execute_batch(runs).unwrap();
                connection
                    .execute_batch(
                        "INSERT INTO stale_marks VALUES ('o/r#4', 'Stale', '2026-11-01T00:00:10Z', '2026-11-01T00:00:11Z');",
                    )
                    .unwrap();
                // Words no version wrote, as that version stores them: from version 8 on, the
                // 7 -> 8 migration has already made them an unrecognised write.
                let odd = if version <= 7 {
                    "comment".to_string()
                } else {
                    serde_json::to_string(&JournalWrite::Unrecognised {
                        text: "comment".into(),
                    })
                    .unwrap()
                };
                connection
                    .execute(
                        "INSERT INTO journal (run_id, item, repo, action, intent_at) VALUES (1, 'o/r#3', 'o/r', ?1, '2026-11-01T00:00:30Z')",
                        params![odd],
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
            let mut store = SqliteStore::open(&path).unwrap();
            let migrated: i64 = store
                .connection
                .query_row("PRAGMA user_version", [], |row| row.get(0))
                .unwrap();
            assert_eq!(migrated, SCHEMA_VERSION, "from version {version}");
            if version >= 1 {
                // Each run's recap is kept, apart from its row.
                let recaps: Vec<(i64, String)> = store
                    .connection
                    .prepare("SELECT run_id, recap FROM run_recaps ORDER BY run_id")
                    .unwrap()
                    .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                assert_eq!(
                    recaps,
                    vec![(2, "{\"run_id\": 2}".to_string())],
                    "from version {version}"
                );
            }
            if version >= 1 {
                let repo: RepoRef = "o/r".parse().unwrap();
                let unknown: Vec<(String, JournalWrite, bool)> = store
                    .unknown_writes(std::slice::from_ref(&repo), crate::clock::wall())
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
                // Pruned (its rows are a month old): the settled writes go, but for #5's
                // unfinished mark and #7's labels (no stale comment followed them); the
                // unknown and unrecognised writes stay, and every answer is the same.
                use crate::store::Store;
                let unknown_before = store
                    .unknown_writes(std::slice::from_ref(&repo), crate::clock::wall())
                    .unwrap()
                    .len();
                assert_eq!(
                    store.prune(crate::clock::wall()).unwrap().journal,
                    6,
                    "from version {version}"
                );
                assert_eq!(
                    store
                        .unknown_writes(std::slice::from_ref(&repo), crate::clock::wall())
                        .unwrap()
                        .len(),
                    unknown_before
                );
                for (item, unfinished) in [("o/r#5", true), ("o/r#6", false), ("o/r#7", false)] {
                    let item: ItemRef = item.parse().unwrap();
                    assert_eq!(store.mark_unfinished(&item, "Stale").unwrap(), unfinished);
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
            assert!(store.enqueue(&row, crate::clock::wall()).unwrap());
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
}
