//! Offline snapshots: `--save-snapshot` records what a run read, `--snapshot` replays it with
//! the clock of the capture, writes nothing and sends no request. Also checks the bundled demo
//! snapshot the README's first command runs on.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::support::{items, Test, WorldState, REPO, VIEWER};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// A repository with a bit of everything, for the bundled snapshot.
fn demo_world(world: &mut WorldState) {
    let titles = [
        "Crash when config file is empty",
        "Docs: explain --only ranges",
        "Support GitHub Enterprise hosts",
        "Flaky test in recap ordering",
        "Add fish completions",
        "Typo in README",
        "Progress bar flickers on slow terminals",
        "Windows path handling in --db",
        "Rate limit message could name the reset time",
        "Feature: recap as Markdown",
    ];
    for (index, title) in titles.iter().enumerate() {
        let number = index as u64 + 1;
        let issue = if number % 3 == 0 {
            world.open_pr(number, 2 + number as i64)
        } else {
            world.open_issue(number, 2 + number as i64)
        };
        issue.title = title.to_string();
    }
    for (number, idle, title) in [
        (11, 74, "Old question about proxies"),
        (12, 95, "Proposal: plugin system"),
        (13, 120, "WIP: rewrite the renderer"),
        (14, 61, "Cannot build on FreeBSD"),
        (15, 200, "Support for Mercurial"),
    ] {
        let issue = if number == 13 {
            world.open_pr(number, idle)
        } else {
            world.open_issue(number, idle)
        };
        issue.title = title.into();
    }
    for (number, days, title) in [
        (16, 9, "Investigate memory use"),
        (17, 14, "Old benchmark numbers"),
        (18, 8, "Unclear error on 502"),
    ] {
        world.stale_issue(number, days, "github-actions[bot]").title = title.into();
    }
    world.comment(17, "dependabot[bot]", 5, "Bumps criterion from 0.5 to 0.6.");
    world.stale_issue(19, 10, "github-actions[bot]").title = "Colour output in CI logs".into();
    world.comment(
        19,
        "maintainer-alice",
        2,
        "Still relevant, I will pick this up.",
    );
    world.stale_issue(20, 3, "github-actions[bot]").title = "Retry budget docs".into();
    world.open_issue(21, 300).title = "Tracking: 1.0 release".into();
    world.issue(21).labels.push("pinned".into());
    world.open_issue(22, 150).title = "Security audit follow-ups".into();
    world.issue(22).labels.push("security".into());
    world.open_pr(23, 90).title = "Draft: new config format".into();
    world.issue(23).draft = true;
    world.open_issue(24, 80).title = "Plan the 3.0 API".into();
    world.issue(24).milestone = Some("v3.0".into());
    world.open_issue(25, 70).title = "Imported from the old tracker".into();
    world.issue(25).patch = Some(json!({"updated_at": "2019-13-45 25:61"}));
    for number in 26..=30 {
        world.open_issue(number, 20 + number as i64).title =
            format!("Question #{number} about usage");
    }
}

#[test]
fn the_bundled_snapshot_covers_every_disposition() {
    let path = fixture("demo-snapshot.json");
    if std::env::var_os("GH_SWEEP_REGENERATE_FIXTURES").is_some() {
        let test = Test::new(demo_world);
        test.run(&[
            "classify",
            "stale",
            "--repo",
            REPO,
            "--config",
            fixture("demo.toml").to_str().unwrap(),
            "--save-snapshot",
            path.to_str().unwrap(),
        ]);
    }
    let test = Test::new(|_| {});
    let outcome = test.run(&[
        "stale-sweep",
        "--snapshot",
        path.to_str().unwrap(),
        "--config",
        fixture("demo.toml").to_str().unwrap(),
        "--json",
    ]);
    outcome.expect_code(8);
    assert!(
        test.requests().is_empty(),
        "a snapshot run sends no request"
    );
    let recap = outcome.json();
    let mut kinds: Vec<String> = recap["completed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            c["disposition"]
                .as_str()
                .unwrap()
                .split(':')
                .next()
                .unwrap()
                .to_string()
        })
        .chain(
            recap["planned"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["disposition"].as_str().unwrap().to_string()),
        )
        .collect();
    kinds.sort();
    kinds.dedup();
    assert_eq!(
        kinds,
        vec!["close", "exempt", "keep", "mark-stale", "unmark"]
    );
    assert_eq!(items(&recap["failed"]), vec!["octo/demo#25"]);
    assert_eq!(recap["unfinished_reason"], "dry run");
    assert!(recap["rerun"]
        .as_str()
        .unwrap()
        .starts_with("gh-sweep stale-sweep --repo octo/demo --config "));
    test.expect_no_writes();
}

#[test]
fn a_saved_snapshot_replays_the_same_decisions_offline() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
        world.stale_issue(2, 8, VIEWER);
        world.stale_issue(3, 8, "github-actions[bot]");
        world.comment(3, "alice", 1, "no, wait");
    });
    let snapshot = test.dir.path().join("snap.json");
    let live = test.run(&[
        "classify",
        "stale",
        "--repo",
        REPO,
        "--json",
        "--save-snapshot",
        snapshot.to_str().unwrap(),
    ]);
    live.expect_code(0);
    let saved = std::fs::read_to_string(&snapshot).unwrap();
    assert!(
        saved.contains("\"GET /repos/octo/demo/issues/3/comments?since="),
        "{saved}"
    );
    test.clear_log();
    let replay = test.run(&[
        "classify",
        "stale",
        "--json",
        "--snapshot",
        snapshot.to_str().unwrap(),
    ]);
    replay.expect_code(0);
    assert!(test.requests().is_empty());
    assert_eq!(live.json()["completed"], replay.json()["completed"]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&snapshot).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}

#[test]
fn only_selects_from_a_snapshots_pool_and_its_rerun_line_replays() {
    // The bundled demo: the rerun line it prints, pasted as it is, replays those items from
    // the saved pool (a snapshot holds the pool's list, not each item's own read, which
    // `--only` reads live). Issue 22, point 5: the line keeps `--snapshot`, so pasting it
    // stays in the sandbox instead of going to GitHub for `octo/demo`.
    let test = Test::new(|_| {});
    let snapshot = fixture("demo-snapshot.json");
    let config = fixture("demo.toml");
    let args = [
        "stale-sweep",
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "--json",
    ];
    let first = test.run(&args).json();
    let rerun = first["rerun"].as_str().unwrap().to_string();
    assert!(
        rerun.contains(&format!("--snapshot {}", snapshot.display())),
        "{rerun}"
    );
    let again = test.run_line(&rerun, &[]).json();
    assert!(
        test.requests().is_empty(),
        "a replay and its rerun read nothing live"
    );
    let mut left = items(&first["failed"]);
    left.extend(items(&first["unfinished"]));
    let mut replayed = items(&again["failed"]);
    replayed.extend(items(&again["unfinished"]));
    left.sort();
    replayed.sort();
    assert_eq!(replayed, left, "{again:#}");
    assert!(
        again["failed"]
            .as_array()
            .unwrap()
            .iter()
            .all(|failed| !failed["reason"]
                .as_str()
                .unwrap_or_default()
                .contains("holds no answer")),
        "{again:#}"
    );
    // An item the snapshot never listed is that item's failure, named.
    let stranger = test
        .run(&[&args[..], &["--only", "octo/demo#999"]].concat())
        .json();
    assert_eq!(items(&stranger["failed"]), ["octo/demo#999"]);
    assert!(stranger["failed"][0]["reason"]
        .as_str()
        .unwrap()
        .starts_with("not in the snapshot's pool"));
    assert!(test.requests().is_empty(), "a snapshot run sends nothing");
}

#[test]
fn a_snapshot_replay_leaves_the_state_database_alone_unless_one_is_named() {
    let test = Test::new(|_| {});
    let snapshot = fixture("demo-snapshot.json");
    let config = fixture("demo.toml");
    let args = [
        "stale-sweep",
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ];
    test.run(&args).expect_code(8);
    assert!(
        !test.db_path().exists(),
        "the demo wrote nothing to {}",
        test.db_path().display()
    );
    let listed = test.run(&["recap", "--list", "--json"]);
    assert!(!listed.stdout.contains("stale-sweep"), "{}", listed.stdout);
    // Named, the database keeps the run as any other.
    let db = test.dir.path().join("demo.db");
    test.run(&[&args[..], &["--db", db.to_str().unwrap()]].concat())
        .expect_code(8);
    let kept = test.run(&["recap", "--db", db.to_str().unwrap(), "--json"]);
    kept.expect_code(0);
    assert_eq!(kept.json()["command"], "stale-sweep");
}
