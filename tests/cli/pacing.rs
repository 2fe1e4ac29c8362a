//! Issue 13, points 5 and 6: GitHub's write ceilings are the account's, counted across runs
//! from the store's journal, and a run is never stuck behind a limit: it writes what the limits
//! allow now, oldest first, and leaves the rest unfinished with when it can go on, for the
//! rerun. These tests assert REST request counts and spend the core limit on REST reads, so
//! they pass `--read-api rest`.

use chrono::{Duration, Utc};

use crate::support::{db, issue, marked, numbers, Test, REPO, VIEWER};

const SWEEP: &[&str] = &[
    "stale-sweep",
    "--repo",
    REPO,
    "--yes",
    "--json",
    "--read-api",
    "rest",
];

/// Moves every journaled write back by `minutes`: that much time passed since they were sent.
fn time_passes(test: &Test, minutes: i64) {
    let connection = db(test);
    let stamps: Vec<(i64, String)> = connection
        .prepare("SELECT id, intent_at FROM journal")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (id, stamp) in stamps {
        let moved =
            chrono::DateTime::parse_from_rfc3339(&stamp).unwrap() - Duration::minutes(minutes);
        connection
            .execute(
                "UPDATE journal SET intent_at = ?2 WHERE id = ?1",
                rusqlite::params![id, moved.to_rfc3339()],
            )
            .unwrap();
    }
}

/// The writes the recap's rerun line names: its `--only` selector, as the items it expands to.
fn rerun_items(recap: &serde_json::Value) -> String {
    let line = recap["rerun"].as_str().unwrap();
    line.rsplit("--only ")
        .next()
        .unwrap()
        .trim_matches('\'')
        .to_string()
}

#[test]
fn two_runs_in_one_hour_send_at_most_five_hundred_writes_for_the_account() {
    let test = Test::new(|world| {
        for number in 1..=350 {
            world.open_issue(number, 74);
        }
    });
    // The hour's first run of the account: its first item here, the rest of its 470 writes
    // journaled 40 minutes ago (the run itself took its minutes at 80 writes a minute).
    let mut first = SWEEP.to_vec();
    first.extend(["--only", "octo/demo#1"]);
    test.run(&first).expect_code(0);
    let connection = db(&test);
    let (run, account): (i64, String) = connection
        .query_row("SELECT id, account FROM runs", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap();
    assert!(account.ends_with(&format!("/{VIEWER}")), "{account}");
    let earlier = (Utc::now() - Duration::minutes(40)).to_rfc3339();
    for _ in 0..468 {
        connection
            .execute(
                "INSERT INTO journal (run_id, item, repo, action, intent_at, outcome, outcome_at)
                 VALUES (?1, 'octo/demo#1000', 'octo/demo', '{\"kind\":\"close\",\"reason\":null}', ?2, 'done', ?2)",
                rusqlite::params![run, earlier],
            )
            .unwrap();
    }
    time_passes(&test, 0);
    connection
        .execute(
            "UPDATE journal SET intent_at = ?1 WHERE item = 'octo/demo#1'",
            rusqlite::params![earlier],
        )
        .unwrap();
    test.clear_log();

    // The second run plans 698 writes; 30 fit in the account's hour (470 + 30 = 500), and the
    // next must wait 20 minutes, past the default max_wait of 10: the rest is unfinished.
    let outcome = test.run(SWEEP);
    outcome.expect_code(9);
    assert!(
        outcome.stderr.contains("698 writes: about 1 h ")
            && outcome
                .stderr
                .contains("at GitHub's limit of 500 writes an hour (for ")
            && outcome
                .stderr
                .contains("with 470 of its writes in the last hour)."),
        "the plan says how long the writes take, counting the hour's earlier writes: {}",
        outcome.stderr
    );
    assert!(
        outcome
            .stderr
            .contains("Without a prompt, a wait longer than max_wait (10 min) stops the run there"),
        "{}",
        outcome.stderr
    );
    let recap = outcome.json();
    assert_eq!(recap["stopped"], "write_limit");
    assert_eq!(recap["failed"], serde_json::json!([]));
    let unfinished: Vec<String> = crate::support::items(&recap["unfinished"]);
    assert_eq!(unfinished, numbers(17..=350));
    let reason = recap["unfinished_reason"].as_str().unwrap();
    assert!(
        reason.starts_with(&format!(
            "GitHub's limit of 500 writes an hour for {account}: the rest can go on after "
        )),
        "{reason}"
    );
    let expected: Vec<String> = (2..=16).flat_map(marked).collect();
    test.expect_writes(&expected);
    let in_the_hour: i64 = db(&test)
        .query_row(
            "SELECT count(*) FROM journal JOIN runs ON runs.id = journal.run_id
             WHERE runs.account = ?1 AND journal.intent_at >= ?2",
            rusqlite::params![account, (Utc::now() - Duration::hours(1)).to_rfc3339()],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(
        in_the_hour, 500,
        "the account's hour holds GitHub's ceiling, no more"
    );
    assert_eq!(rerun_items(&recap), "octo/demo#17-#350");

    // An hour later the rerun line carries on with exactly the rest, under --max-writes 40.
    time_passes(&test, 61);
    test.clear_log();
    let outcome = test.run_line(
        recap["rerun"].as_str().unwrap(),
        &["--yes", "--max-writes", "40"],
    );
    outcome.expect_code(9);
    let recap = outcome.json();
    assert_eq!(recap["stopped"], "write_cap");
    let expected: Vec<String> = (17..=36).flat_map(marked).collect();
    test.expect_writes(&expected);
    assert_eq!(
        crate::support::items(&recap["unfinished"]),
        numbers(37..=350)
    );
}

#[test]
fn a_pool_bigger_than_the_rate_limit_is_written_by_each_run_as_far_as_the_limit_pays() {
    // Issue 13, point 6: five items, ten writes, and nine requests an hour. Each run pays for
    // its reads first (the repository, the list, the account), then writes the oldest items
    // the rest pays for; the items left wait for the reset, unfinished, for the next run.
    let test = Test::new(|world| {
        for number in 1..=5 {
            world.open_issue(number, 74);
        }
    });
    let mut runs = 0;
    let mut written = Vec::new();
    let mut line: Option<String> = None;
    loop {
        runs += 1;
        assert!(runs <= 5, "the pool is done in a few runs");
        // A new hour: the reset has come.
        test.world().core_limit = Some(9);
        test.clear_log();
        let outcome = match &line {
            None => test.run(SWEEP),
            Some(line) => test.run_line(line, &["--yes"]),
        };
        let recap = outcome.json();
        let sent = test.writes();
        assert!(!sent.is_empty(), "run {runs} wrote nothing: {recap}");
        written.extend(sent.clone());
        test.expect_writes(&sent);
        if outcome.code == 0 {
            break;
        }
        outcome.expect_code(9);
        assert_eq!(recap["stopped"], "write_limit");
        assert_eq!(recap["failed"], serde_json::json!([]));
        let reason = recap["unfinished_reason"].as_str().unwrap();
        assert!(
            reason.starts_with("GitHub's rate limit has ")
                && reason.contains(" requests left until "),
            "{reason}"
        );
        // The account is read once a run, and only by a run that writes.
        let users = test
            .requests()
            .iter()
            .filter(|request| request.path == "/user")
            .count();
        assert_eq!(users, 1);
        line = Some(recap["rerun"].as_str().unwrap().to_string());
    }
    let expected: Vec<String> = (1..=5).flat_map(marked).collect();
    assert_eq!(written, expected, "each item once, oldest first");
    assert!(runs >= 2, "one run could not pay for it all");
}

#[test]
fn a_dry_run_never_asks_for_the_account() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--dry-run",
        "--read-api",
        "rest",
    ])
    .expect_code(0);
    assert!(
        test.requests()
            .iter()
            .all(|request| request.path != "/user"),
        "{:?}",
        test.requests()
    );
}

#[test]
fn the_account_is_read_once_a_run_though_the_stale_rules_ask_too() {
    // The stale rules ask whose label events are the run's own (the viewer), and the write
    // ceilings ask whose writes these are: one `GET /user` answers both.
    let test = Test::new(|world| {
        world.stale_issue(1, 9, VIEWER);
        world.comment(1, "alice", 2, "still happening on 1.2");
        world.open_issue(2, 74);
    });
    test.run(SWEEP).expect_code(0);
    let users = test
        .requests()
        .iter()
        .filter(|request| request.path == "/user")
        .count();
    assert_eq!(users, 1);
    let mut expected = vec![format!("DELETE {}/labels/Stale", issue(1))];
    expected.extend(marked(2));
    test.expect_writes(&expected);
}

#[test]
fn an_installation_token_counts_as_the_installation_on_its_owner() {
    // `GITHUB_TOKEN` changes every job and GitHub refuses it `GET /user`: the account is the
    // installation on the owner of the run's repository, the same for the next job's token
    // and for a job over another repository of the same owner.
    let test = Test::new(|world| {
        world.app_token();
        world.stale_issue(1, 9, "github-actions[bot]");
        world.comment(1, "alice", 2, "still happening on 1.2");
        world.open_issue(2, 74);
    });
    test.run(SWEEP).expect_code(0);
    let users = test
        .requests()
        .iter()
        .filter(|request| request.path == "/user")
        .count();
    assert_eq!(users, 1, "the refusal is kept for the run too");
    let account: String = db(&test)
        .query_row("SELECT account FROM runs", [], |row| row.get(0))
        .unwrap();
    assert!(
        account.ends_with(": an app installation on octo"),
        "{account}"
    );
    let mut expected = vec![format!("DELETE {}/labels/Stale", issue(1))];
    expected.extend(marked(2));
    test.expect_writes(&expected);
}
