//! `--now`, the run's clock for replaying a situation: shown in `--help`, taken by `classify`
//! and dry runs, refused by a run that may write (which always writes on the real clock).

use chrono::{Duration, Utc};

use crate::support::{Test, REPO};

fn days_later(days: i64) -> String {
    (Utc::now() + Duration::days(days)).to_rfc3339()
}

#[test]
fn now_moves_the_clock_of_classify_and_dry_runs_only() {
    let test = Test::new(|world| {
        world.open_issue(1, 50);
    });
    // On the real clock the issue is 50 days idle: kept. Twenty days on, it is stale.
    let today = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
    assert_eq!(today.json()["completed"][0]["disposition"], "keep");
    let later = days_later(20);
    let replayed = test.run(&[
        "classify", "stale", "--repo", REPO, "--json", "--now", &later,
    ]);
    replayed.expect_code(0);
    assert_eq!(replayed.json()["completed"][0]["disposition"], "mark-stale");
    let dry = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--dry-run",
        "--json",
        "--now",
        &later,
    ]);
    dry.expect_code(0);
    assert_eq!(dry.json()["planned"][0]["disposition"], "mark-stale");

    test.clear_log();
    for args in [
        &["stale-sweep", "--repo", REPO, "--yes"][..],
        &["poll", "--repo", REPO],
        &["sweep", "--repo", REPO, "--yes"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--now", later.as_str()]);
        let refused = test.run(&args);
        assert_eq!(refused.code, 2, "{args:?}: {}", refused.stderr);
        assert!(
            refused
                .stderr
                .contains("--now moves the run's clock, which only classify and dry runs may do"),
            "{args:?}: {}",
            refused.stderr
        );
    }
    assert!(test.requests().is_empty(), "nothing read for a refused run");
    test.expect_no_writes();
}

#[test]
fn now_is_in_the_help() {
    let test = Test::new(|_| {});
    for args in [
        &["classify", "stale", "--help"][..],
        &["stale-sweep", "--help"],
    ] {
        let help = test.run(args);
        help.expect_code(0);
        assert!(
            help.stdout.contains("--now <TIME>"),
            "{args:?}:\n{}",
            help.stdout
        );
    }
}
