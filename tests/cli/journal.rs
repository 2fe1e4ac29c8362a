//! What the store keeps is data, not words: the write journal keeps each write as JSON of its
//! kind and values, not as the words the recap shows, so rewording a message cannot change what
//! a crashed run's next run does; a database whose journal was written as text by an earlier
//! gh-sweep is still recovered; and the merge gate is blocked by the approval verdict's kind.

use serde_json::{json, Value};

use crate::support::{issue, items, numbers, Fault, Test, REPO, VIEWER};

/// The journal's stored `action` column, in order.
fn stored_actions(test: &Test) -> Vec<String> {
    let connection = rusqlite::Connection::open(test.db_path()).unwrap();
    let mut statement = connection
        .prepare("SELECT action FROM journal ORDER BY id")
        .unwrap();
    let rows = statement.query_map([], |row| row.get(0)).unwrap();
    rows.map(Result::unwrap).collect()
}

/// Makes the database look as an earlier gh-sweep left it: schema version 7, whose journal
/// named each write by its words. `texts` are the actions of the journal's rows, in order.
fn as_text_schema(test: &Test, texts: &[&str]) {
    let connection = rusqlite::Connection::open(test.db_path()).unwrap();
    let ids: Vec<i64> = {
        let mut statement = connection
            .prepare("SELECT id FROM journal ORDER BY id")
            .unwrap();
        let rows = statement.query_map([], |row| row.get(0)).unwrap();
        rows.map(Result::unwrap).collect()
    };
    assert_eq!(ids.len(), texts.len(), "one text per journal row");
    for (id, text) in ids.iter().zip(texts) {
        connection
            .execute(
                "UPDATE journal SET action = ?2 WHERE id = ?1",
                rusqlite::params![id, text],
            )
            .unwrap();
    }
    // What version 7 did not have yet: schema 10's accounts of runs (and their indexes), and
    // schema 12's reservations of an item's later writes, and schema 13's identities and
    // heartbeats of runs, ticks of the journal and the store's clock; and version 7 kept each
    // run's recap in its row, which schema 14 keeps apart; nor schema 16's index of the
    // journal by item and outcome tick.
    connection
        .execute_batch(
            "ALTER TABLE runs ADD COLUMN recap TEXT;
             UPDATE runs SET recap = (SELECT recap FROM run_recaps WHERE run_id = runs.id);
             DROP TABLE run_recaps;
             DROP INDEX IF EXISTS runs_account;
             DROP INDEX IF EXISTS journal_run_intent;
             DROP INDEX IF EXISTS journal_item_tick;
             ALTER TABLE runs DROP COLUMN account;
             ALTER TABLE journal DROP COLUMN reserved;
             ALTER TABLE runs DROP COLUMN run_uid;
             ALTER TABLE runs DROP COLUMN boot_id;
             ALTER TABLE runs DROP COLUMN pid_ns;
             ALTER TABLE runs DROP COLUMN start_time;
             ALTER TABLE runs DROP COLUMN heartbeat_at;
             ALTER TABLE runs DROP COLUMN taken_over_at;
             ALTER TABLE runs DROP COLUMN taken_over_by;
             ALTER TABLE journal DROP COLUMN intent_tick;
             ALTER TABLE journal DROP COLUMN outcome_tick;
             DROP TABLE store_clock;
             DROP TABLE poll_memory;
             PRAGMA user_version = 7",
        )
        .unwrap();
}

#[test]
fn the_journal_keeps_each_write_as_data_not_its_words() {
    let test = Test::new(|world| {
        world.open_issue(2, 74); // idle: marked
        world.stale_issue(3, 8, VIEWER); // stale long enough: closed
        world.stale_issue(4, 9, VIEWER);
        world.comment(4, "alice", 2, "still happening on 1.2"); // unmarked
    });
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(0);
    test.expect_writes(&[
        format!("POST {}/labels", issue(2)),
        format!("POST {}/comments", issue(2)),
        format!("POST {}/comments", issue(3)),
        format!("PATCH {}", issue(3)),
        format!("DELETE {}/labels/Stale", issue(4)),
    ]);
    let stored = stored_actions(&test);
    let values: Vec<Value> = stored
        .iter()
        .map(|text| serde_json::from_str(text).unwrap_or_else(|_| panic!("not JSON: {text}")))
        .collect();
    assert_eq!(
        values,
        vec![
            json!({"kind": "add-labels", "labels": ["Stale"]}),
            json!({"kind": "comment", "marker": "<!-- gh-sweep:mark-stale -->"}),
            json!({"kind": "comment", "marker": "<!-- gh-sweep:close -->"}),
            json!({"kind": "close", "reason": "not_planned"}),
            json!({"kind": "remove-label", "label": "Stale"}),
        ]
    );
    for (text, words) in stored.iter().zip([
        "label +Stale",
        "comment <!--",
        "comment <!--",
        "close (not_planned)",
        "label -Stale",
    ]) {
        assert!(!text.contains(words), "{text} holds the words {words}");
    }
}

#[test]
fn a_comment_journaled_as_text_before_the_upgrade_is_found_not_sent_again() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 74);
    });
    test.fail("POST", "/issues/1/comments", Fault::ApplyThenDrop, 1);
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(11);
    as_text_schema(
        &test,
        &["label +Stale", "comment <!-- gh-sweep:mark-stale -->"],
    );
    test.clear_log();
    let next = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    next.expect_code(0);
    let recap = next.json();
    assert_eq!(
        recap["notes"][0],
        "octo/demo#1: `comment <!-- gh-sweep:mark-stale -->` of run 1 had an unknown outcome; found on GitHub that it happened; recorded, not sent again"
    );
    test.expect_writes(&[
        format!("POST {}/labels", issue(2)),
        format!("POST {}/comments", issue(2)),
    ]);
    assert_eq!(test.world().world.issue(1).comments.len(), 1);
}

#[test]
fn a_mark_journaled_as_text_before_the_upgrade_is_finished_with_its_comment_alone() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    test.fail("POST", "/issues/1/comments", Fault::Status(502), 1);
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(11);
    as_text_schema(
        &test,
        &["label +Stale", "comment <!-- gh-sweep:mark-stale -->"],
    );
    test.clear_log();
    let next = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    next.expect_code(0);
    let recap = next.json();
    assert_eq!(items(&recap["completed"]), numbers(1..=1), "{recap}");
    assert_eq!(
        recap["completed"][0]["detail"],
        "finishing an interrupted mark: its comment was never posted"
    );
    test.expect_writes(&[format!("POST {}/comments", issue(1))]);
}

#[test]
fn a_write_journaled_as_text_that_nobody_can_check_is_named_in_its_words() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
    });
    test.fail("POST", "/issues/1/comments", Fault::Status(502), 1);
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(11);
    as_text_schema(
        &test,
        &["label +Stale", "comment <!-- gh-sweep:mark-stale -->"],
    );
    test.fail("GET", "/issues/1", Fault::Status(404), 10);
    test.clear_log();
    let next = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    next.expect_code(11);
    let recap = next.json();
    assert_eq!(
        recap["failed"][0]["reason"],
        "outcome unknown: check by hand (comment <!-- gh-sweep:mark-stale --> in run 1), then run `gh-sweep recap --acknowledge octo/demo#1`"
    );
    test.expect_no_writes();
}

#[test]
fn a_merge_journaled_as_text_before_the_upgrade_is_reconciled_not_resent() {
    let test = Test::new(|world| {
        world.green_pr(7);
        world.green_pr(8);
    });
    test.run(&["poll", "--repo", REPO]).expect_code(0);
    test.fail("PUT", "/pulls/7/merge", Fault::ApplyThenDrop, 1);
    test.run(&["sweep", "--repo", REPO, "--yes"])
        .expect_code(11);
    as_text_schema(&test, &["merge pr-7-head (merge)"]);
    test.clear_log();
    let next = test.run(&["sweep", "--repo", REPO, "--yes", "--json"]);
    next.expect_code(0);
    assert!(
        next.stderr.contains(
            "octo/demo#7: `merge pr-7-head (merge)` of run 2 had an unknown outcome; GitHub shows it merged; recorded, not sent again"
        ),
        "{}",
        next.stderr
    );
    assert_eq!(items(&next.json()["completed"]), numbers(8..=8));
    test.expect_writes(&["PUT /repos/octo/demo/pulls/8/merge"]);
}

#[test]
fn a_request_for_changes_seen_by_poll_blocks_the_merge_gate() {
    let test = Test::new(|world| {
        world.green_pr(7);
        world.green_pr(8);
        let now = world.now;
        world.issue(7).review("bob", "CHANGES_REQUESTED", now);
        // #8 is not approved at its head for another reason: it blocks nothing.
        world.issue(8).reviews.clear();
    });
    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    outcome.expect_code(0);
    let connection = rusqlite::Connection::open(test.db_path()).unwrap();
    let mut statement = connection
        .prepare("SELECT pr, blocked FROM merge_gate ORDER BY pr")
        .unwrap();
    let gates: Vec<(i64, Option<String>)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        gates,
        vec![(7, Some("bob requested changes".to_string())), (8, None)],
        "{}",
        outcome.json()
    );
}

/// Rows of `table` in the store.
fn count(test: &Test, table: &str) -> i64 {
    rusqlite::Connection::open(test.db_path())
        .unwrap()
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
            row.get(0)
        })
        .unwrap()
}

/// Each run ends by pruning what no decision needs any more (issue 13, point 8): a finished
/// mark's journal rows once they are a day old, and a cached answer nobody renewed for a week,
/// while a write of unknown outcome stays until a run settles it.
#[test]
fn a_run_prunes_old_settled_writes_and_answers_but_keeps_an_unknown_write() {
    let test = Test::new(|world| {
        world.open_issue(1, 90);
        world.open_issue(2, 90);
    });
    test.config("read_api = \"rest\"");
    test.fail("POST", "/issues/2/comments", Fault::ApplyThenDrop, 1);
    test.run(&["stale-sweep", "--repo", REPO, "--yes"]);
    test.expect_writes(&[
        "POST /repos/octo/demo/issues/1/labels",
        "POST /repos/octo/demo/issues/1/comments",
        "POST /repos/octo/demo/issues/2/labels",
        "POST /repos/octo/demo/issues/2/comments",
    ]);
    assert_eq!(count(&test, "journal"), 4);
    // A week and a day later, as far as the store's stamps go.
    let connection = rusqlite::Connection::open(test.db_path()).unwrap();
    connection
        .execute_batch(
            "UPDATE journal SET intent_at = '2026-01-01T00:00:00+00:00';
             UPDATE runs SET started_at = '2026-01-01T00:00:00+00:00';
             INSERT INTO http_cache (url, etag, body, stored_at)
               VALUES ('http://gone/repos/octo/demo/issues/9/events', 'W/\"9\"', '[]', '2026-01-01T00:00:00+00:00');",
        )
        .unwrap();
    let cached = count(&test, "http_cache");
    test.run(&["classify", "stale", "--repo", REPO]);
    // #1's finished mark went; #2's comment of unknown outcome and its label stay.
    assert_eq!(count(&test, "journal"), 2);
    assert_eq!(count(&test, "http_cache"), cached - 1);
    // The next sweep still settles #2's comment: GitHub has it, so it is not posted again.
    test.clear_log();
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    test.expect_no_writes();
    let json = outcome.json();
    assert_eq!(json["failed"], json!([]), "{json}");
    // Settled now, and as old as the rest: gone at the end of that run.
    assert_eq!(count(&test, "journal"), 0);
}

/// Issue 22, point 12: `recap` and `store status` read the store the config names. With
/// `db = "…"` in the config file, a run stores its recap there; `recap` and `store status`
/// resolve the store the same way, never the default file (where they would say "no runs
/// recorded yet", or show another store's older run, and `recap --acknowledge` would act on the
/// wrong store).
#[test]
fn recap_and_store_status_read_the_store_the_config_names() {
    let test = crate::support::Test::new(|world| {
        world.open_issue(1, 100);
    });
    test.config("db = 'elsewhere/runs.db'\n");
    std::fs::create_dir_all(test.dir.path().join("elsewhere")).unwrap();
    let run = test.run(&[
        "stale-sweep",
        "--repo",
        crate::support::REPO,
        "--yes",
        "--json",
    ]);
    run.expect_code(0);
    let run_id = run.json()["run_id"].clone();
    assert!(test.dir.path().join("elsewhere/runs.db").exists());
    assert!(!test.db_path().exists(), "nothing in the default store");
    let recap = test.run(&["recap", "--json"]);
    recap.expect_code(0);
    assert_eq!(recap.json()["run_id"], run_id, "{}", recap.stdout);
    let status = test.run(&["store", "status", "--json"]);
    status.expect_code(0);
    assert!(
        status.stdout.contains("runs.db"),
        "store status names the configured store: {}",
        status.stdout
    );
    test.expect_writes(&crate::support::marked(1));
}

/// `recap --config PATH` and `store status --config PATH` find the store that file's `db`
/// names, as a run given `--config PATH` does; without it they would look at the default
/// store, which here holds nothing.
#[test]
fn recap_and_store_status_take_config_like_a_run() {
    let test = crate::support::Test::new(|world| {
        world.open_issue(1, 100);
    });
    test.config("db = 'kept/runs.db'\n");
    std::fs::create_dir_all(test.dir.path().join("kept")).unwrap();
    // The config file is not where a run would find it by itself.
    let moved = test.dir.path().join("sweeps.toml");
    std::fs::rename(test.config_path(), &moved).unwrap();
    let moved = moved.display().to_string();
    let run = test.run(&[
        "stale-sweep",
        "--repo",
        crate::support::REPO,
        "--yes",
        "--json",
        "--config",
        &moved,
    ]);
    run.expect_code(0);
    let run_id = run.json()["run_id"].clone();
    assert!(test.dir.path().join("kept/runs.db").exists());
    let without = test.run(&["recap", "--json"]);
    assert_eq!(
        without.code, 2,
        "no store where nothing says to look: {}",
        without.stderr
    );
    let recap = test.run(&["recap", "--json", "--config", &moved]);
    recap.expect_code(0);
    assert_eq!(recap.json()["run_id"], run_id, "{}", recap.stdout);
    let status = test.run(&["store", "status", "--json", "--config", &moved]);
    status.expect_code(0);
    assert!(status.stdout.contains("kept/runs.db"), "{}", status.stdout);
    // A --config that is not there is named, never taken for "no config".
    let missing = test.run(&["recap", "--config", "nope.toml"]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    assert!(missing.stderr.contains("nope.toml"), "{}", missing.stderr);
    test.expect_writes(&crate::support::marked(1));
}

/// Issue 22, point 9: `recap --acknowledge` of an item with no write of unknown outcome says so
/// and exits 2, naming it: acknowledging nothing is a mistyped item, not a success.
#[test]
fn acknowledging_an_item_with_nothing_to_acknowledge_is_a_usage_error() {
    let test = crate::support::Test::new(|world| {
        world.open_issue(1, 100);
    });
    test.run(&["stale-sweep", "--repo", crate::support::REPO, "--yes"])
        .expect_code(0);
    let outcome = test.run(&["recap", "--acknowledge", "octo/demo#7"]);
    assert_eq!(outcome.code, 2, "{}", outcome.stderr);
    assert!(
        outcome
            .stderr
            .contains("nothing to acknowledge on octo/demo#7: it has no write of unknown outcome"),
        "{}",
        outcome.stderr
    );
    test.expect_writes(&crate::support::marked(1));
}

/// Issue 22, point 9: a write whose answer was lost says what happens next, not "check by
/// hand": the next run settles it by asking GitHub, and says after when.
#[test]
fn a_lost_answer_says_the_next_run_settles_it() {
    let test = crate::support::Test::new(|world| {
        world.open_issue(1, 100);
    });
    test.fail(
        "POST",
        "/issues/1/comments",
        crate::support::Fault::ApplyThenDrop,
        1,
    );
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        crate::support::REPO,
        "--yes",
        "--json",
    ]);
    outcome.expect_code(11);
    let reason = outcome.json()["failed"][0]["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        reason.contains("outcome unknown: the next run settles it by asking GitHub (after 20"),
        "{reason}"
    );
    assert!(!reason.contains("by hand"), "{reason}");
    test.expect_writes(&crate::support::marked(1));
}

/// `store status` shows the writes of unknown outcome (what blocks their items, and what
/// settles them) and the last finished run with its exit, in text and in its JSON line.
#[test]
fn store_status_shows_unknown_writes_and_the_last_run() {
    let test = crate::support::Test::new(|world| {
        world.open_issue(1, 100);
    });
    let before = test.run(&["store", "status", "--json"]);
    assert_eq!(before.code, 2, "no store yet: {}", before.stderr);
    test.fail(
        "POST",
        "/issues/1/comments",
        crate::support::Fault::ApplyThenDrop,
        1,
    );
    let run = test.run(&[
        "stale-sweep",
        "--repo",
        crate::support::REPO,
        "--yes",
        "--json",
    ]);
    run.expect_code(11);
    let run_id = run.json()["run_id"].clone();
    let status = test.run(&["store", "status", "--json"]);
    status.expect_code(0);
    assert_eq!(status.stdout.trim().lines().count(), 1, "{}", status.stdout);
    let json: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    let unknown = json["unknown_writes"].as_array().unwrap();
    assert_eq!(unknown.len(), 1, "{json}");
    assert_eq!(unknown[0]["item"], "octo/demo#1");
    assert_eq!(unknown[0]["write"], "comment <!-- gh-sweep:mark-stale -->");
    assert_eq!(unknown[0]["settled_by"], "stale-sweep");
    assert_eq!(unknown[0]["run_id"], run_id);
    assert_eq!(json["last_run"]["id"], run_id, "{json}");
    assert_eq!(json["last_run"]["exit_code"], 11, "{json}");
    let text = test.run(&["store", "status"]);
    text.expect_code(0);
    assert!(
        text.stdout.contains(
            "writes of unknown outcome: 1\n  octo/demo#1 comment <!-- gh-sweep:mark-stale -->"
        ) && text
            .stdout
            .contains("the next `gh-sweep stale-sweep` settles it")
            && text.stdout.contains(&format!("last run: {run_id} at "))
            && text.stdout.contains(", exit 11"),
        "{}",
        text.stdout
    );
    // Acknowledged, it is no longer unknown.
    test.run(&["recap", "--acknowledge", "octo/demo#1"])
        .expect_code(0);
    let after = test.run(&["store", "status", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&after.stdout).unwrap();
    assert_eq!(json["unknown_writes"], serde_json::json!([]), "{json}");
    test.expect_writes(&crate::support::marked(1));
}
