use super::*;
use crate::item::ItemRef;
use crate::policy::recap::Recap;
use crate::policy::write::JournalWrite;
use crate::store::{MergeQueue, RunLog, WriteJournal};

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

/// A recap streamed into its row comes back as it was, whatever its text holds: an issue
/// title is anyone's text (quotes, backslashes, control characters, emoji, a NUL), and its
/// escaped JSON is longer than the text; the row's length is counted from the same
/// serializer that writes it, so nothing is cut off or left over.
#[test]
fn a_recap_with_hostile_text_comes_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(&dir.path().join("state.db")).unwrap();
    let run = store
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    let mut recap = big_recap(run, 3);
    let hostile =
        "\"quoted\" \\ back\\slash \u{0}nul \u{1b}[31mred\u{1b}[0m \n\t 🧹 ' ; DROP TABLE runs; --";
    recap.completed[1].detail = hostile.repeat(50);
    recap.stop_detail = Some(hostile.to_string());
    store.finish_run(&recap).unwrap();
    let back = store.recap(Some(run)).unwrap().expect("the stored recap");
    assert_eq!(back.completed[1].detail, hostile.repeat(50));
    assert_eq!(back.stop_detail.as_deref(), Some(hostile));
    assert_eq!(
        serde_json::to_value(&back).unwrap(),
        serde_json::to_value(&recap).unwrap()
    );
}

/// Fifty runs each write the same 30 items (a label, then a comment), as a daily stale sweep
/// over one busy repository does inside the journal's day. A new run's check that no other run
/// wrote an item since it read it (`written_since`) reads the few writes that can matter (in
/// flight, or settled after the read) by index, not all 100 of each item's writes: a few
/// pages an item however many runs came before (before: 62 an item at run 50, 5 at run 1).
#[test]
fn the_check_of_other_runs_writes_reads_as_many_pages_after_fifty_runs_as_after_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(&dir.path().join("state.db")).unwrap();
    let items: Vec<ItemRef> = (1..=1000u64)
        .filter(|n| n % 100 <= 2)
        .map(|n| format!("o/r#{n}").parse().unwrap())
        .collect();
    let label = JournalWrite::AddLabels {
        labels: vec!["Stale".into()],
    };
    let comment = JournalWrite::Comment {
        marker: crate::policy::write::marker("mark-stale"),
    };
    let mut reads = Vec::new();
    for _ in 1..=50 {
        let run_id = store.start_run("stale-sweep", "gh-sweep").unwrap();
        let mark = store.read_mark().unwrap();
        let before = store.page_reads();
        for item in &items {
            assert!(!store.written_since(run_id, item, mark).unwrap());
        }
        reads.push(store.page_reads() - before);
        for item in &items {
            for action in [&label, &comment] {
                let id = store.journal_intent(run_id, item, action).unwrap();
                store
                    .journal_outcome(id, crate::policy::write::WriteOutcome::Done, "")
                    .unwrap();
            }
        }
        store.finish_run(&big_recap(run_id, 10)).unwrap();
    }
    let per_item = |pages: i64| pages as f64 / items.len() as f64;
    let (first, last) = (per_item(reads[1]), per_item(reads[49]));
    assert!(
        last <= 6.0,
        "{last:.1} pages an item at run 50 (run 2: {first:.1}): {reads:?}"
    );
    // Still found: a write settled after the read, and one in flight.
    let run_id = store.start_run("stale-sweep", "gh-sweep").unwrap();
    let mark = store.read_mark().unwrap();
    let other = store.start_run("stale-sweep", "gh-sweep").unwrap();
    let id = store.journal_intent(other, &items[0], &label).unwrap();
    assert!(store.written_since(run_id, &items[0], mark).unwrap());
    store
        .journal_outcome(id, crate::policy::write::WriteOutcome::Done, "")
        .unwrap();
    assert!(store.written_since(run_id, &items[0], mark).unwrap());
    assert!(!store.written_since(run_id, &items[1], mark).unwrap());
}
