//! Several hosts on one PostgreSQL store: `--db postgres://...` (and `GH_SWEEP_DB`, the
//! config's `db`) selects it, its password never shows, and separate processes standing for
//! separate hosts (`GH_SWEEP_HOST`) share one database and one fake GitHub without writing
//! anything twice. The server is the tests' throwaway one (`support::pg`), never a mock. A
//! build without the `postgres` feature runs only the tests that need no server: what `--db`
//! refuses, and how.

#[cfg(feature = "postgres")]
use std::process::{Command, Stdio};

#[cfg(feature = "postgres")]
use super::support::pg::{fresh_database, PASSWORD};
#[cfg(feature = "postgres")]
use super::support::{marked, merge, Outcome};
use super::support::{Test, REPO};

#[cfg(feature = "postgres")]
/// Everything a run printed, searched for the database's password.
#[cfg(feature = "postgres")]
#[track_caller]
fn no_password(outcome: &Outcome) {
    for (stream, text) in [("stdout", &outcome.stdout), ("stderr", &outcome.stderr)] {
        assert!(
            !text.contains(PASSWORD),
            "the password is in {stream}:\n{text}"
        );
    }
}

#[cfg(feature = "postgres")]
fn output(command: &mut Command) -> Outcome {
    let output = command.output().unwrap();
    let outcome = Outcome {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).to_string(),
        stderr: String::from_utf8_lossy(&output.stderr).to_string(),
    };
    no_password(&outcome);
    assert!(!outcome.stderr.contains("panicked"), "{}", outcome.stderr);
    outcome
}

/// The URL without its password, as a maintainer writes it when the password is elsewhere.
#[cfg(feature = "postgres")]
fn bare(url: &str) -> String {
    url.replace(&format!(":{PASSWORD}@"), "@")
}

#[cfg(feature = "postgres")]
fn rows(url: &str, sql: &str) -> i64 {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    client.query_one(sql, &[]).unwrap().get(0)
}

#[cfg(feature = "postgres")]
#[test]
fn a_postgres_url_keeps_the_runs_in_postgres_and_its_password_never_shows() {
    let test = Test::new(|world| {
        world.open_issue(1, 100);
    });
    let url = fresh_database();
    let outcome = output(
        test.std_command(&[
            "stale-sweep",
            "--repo",
            REPO,
            "--db",
            &url,
            "--yes",
            "--json",
        ])
        .env("GH_SWEEP_HOST", "host-a"),
    );
    outcome.expect_code(0);
    test.expect_writes(&marked(1));
    let recap = outcome.json();
    assert!(!recap.to_string().contains(PASSWORD));
    // A run with something left to do prints a rerun line: it names the database, without
    // the password.
    test.world().world.open_issue(2, 100);
    let dry = output(
        test.std_command(&[
            "stale-sweep",
            "--repo",
            REPO,
            "--db",
            &url,
            "--dry-run",
            "--json",
        ])
        .env("GH_SWEEP_HOST", "host-a"),
    );
    let dry = dry.json();
    let rerun = dry["rerun"].as_str().unwrap_or_default().to_string();
    assert!(rerun.contains(&format!("--db '{}'", bare(&url))), "{rerun}");
    assert_eq!(
        rows(&url, "SELECT count(*) FROM journal WHERE outcome = 'done'"),
        2
    );
    assert_eq!(
        rows(&url, "SELECT count(*) FROM runs WHERE host = 'host-a'"),
        2
    );
    // Nothing of the password in the database either.
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    for (table, column) in [("runs", "argv"), ("runs", "recap"), ("journal", "detail")] {
        let leaked: i64 = client
            .query_one(
                &format!("SELECT count(*) FROM {table} WHERE {column} LIKE '%' || $1 || '%'"),
                &[&PASSWORD],
            )
            .unwrap()
            .get(0);
        assert_eq!(leaked, 0, "{table}.{column}");
    }
    // The stored recap reads back from PostgreSQL; no SQLite file was made.
    let again = output(&mut test.std_command(&["recap", "--db", &url, "--json"]));
    again.expect_code(0);
    assert_eq!(again.json()["run_id"], dry["run_id"]);
    assert_ne!(dry["run_id"], recap["run_id"]);
    assert!(!test.db_path().exists());
}

#[cfg(feature = "postgres")]
#[test]
fn gh_sweep_db_with_pgpassword_and_the_configs_db_with_a_passfile_select_it_too() {
    let test = Test::new(|world| {
        world.open_issue(1, 100);
        world.open_issue(2, 100);
    });
    let url = fresh_database();
    let first = output(
        test.std_command(&[
            "stale-sweep",
            "--repo",
            REPO,
            "--only",
            "1",
            "--yes",
            "--json",
        ])
        .env("GH_SWEEP_DB", bare(&url))
        .env("PGPASSWORD", PASSWORD),
    );
    first.expect_code(0);
    let rerun = first.json()["rerun"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        !rerun.contains("--db"),
        "the variable is left to the environment: {rerun}"
    );
    let passfile = test.dir.path().join("pgpass");
    std::fs::write(&passfile, format!("127.0.0.1:*:*:postgres:{PASSWORD}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&passfile, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    test.config(&format!("db = \"{}\"", bare(&url)));
    let second = output(
        test.std_command(&[
            "stale-sweep",
            "--repo",
            REPO,
            "--only",
            "2",
            "--yes",
            "--json",
        ])
        .env("PGPASSFILE", &passfile),
    );
    second.expect_code(0);
    let mut expected = marked(1);
    expected.extend(marked(2));
    test.expect_writes(&expected);
    assert_eq!(
        rows(
            &url,
            "SELECT count(*) FROM runs WHERE finished_at IS NOT NULL"
        ),
        2
    );
}

#[cfg(feature = "postgres")]
#[test]
fn a_wrong_password_is_a_usage_error_that_names_the_database_without_it() {
    let test = Test::new(|_| {});
    let url = fresh_database().replace(PASSWORD, "WRONG-pw-SENTINEL");
    let outcome =
        output(&mut test.std_command(&["stale-sweep", "--repo", REPO, "--db", &url, "--yes"]));
    assert_ne!(outcome.code, 0);
    assert!(
        !outcome.stderr.contains("WRONG-pw-SENTINEL"),
        "{}",
        outcome.stderr
    );
    assert!(
        outcome.stderr.contains("postgres://postgres@127.0.0.1"),
        "{}",
        outcome.stderr
    );
    test.expect_no_writes();
}

/// `count` processes at once, each a host of its own, all on `url`; their outcomes.
#[cfg(feature = "postgres")]
fn on_hosts(test: &Test, url: &str, count: usize, args: &[&str]) -> Vec<Outcome> {
    let children: Vec<_> = (0..count)
        .map(|host| {
            let mut words = args.to_vec();
            words.extend(["--db", url]);
            test.std_command(&words)
                .env("GH_SWEEP_HOST", format!("host-{host}"))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|child| {
            let output = child.wait_with_output().unwrap();
            let outcome = Outcome {
                code: output.status.code().unwrap_or(-1),
                stdout: String::from_utf8_lossy(&output.stdout).to_string(),
                stderr: String::from_utf8_lossy(&output.stderr).to_string(),
            };
            no_password(&outcome);
            assert!(!outcome.stderr.contains("panicked"), "{}", outcome.stderr);
            outcome
        })
        .collect()
}

#[cfg(feature = "postgres")]
#[test]
fn four_overlapping_stale_sweeps_on_four_hosts_mark_each_issue_once() {
    let test = Test::new(|world| {
        for number in 1..=12 {
            world.open_issue(number, 100);
        }
    });
    let url = fresh_database();
    let outcomes = on_hosts(
        &test,
        &url,
        4,
        &["stale-sweep", "--repo", REPO, "--yes", "--json"],
    );
    for outcome in &outcomes {
        // A run that found an item written by another host leaves it to that host: unfinished
        // work, exit 9 (issue 21 point 13), and for that reason only.
        assert!(matches!(outcome.code, 0 | 1 | 9), "{}", outcome.stderr);
        if outcome.code == 9 {
            let recap = outcome.json();
            assert_eq!(
                recap["unfinished_reason"], "written by another run since it was read",
                "{recap}"
            );
        }
    }
    // Nothing twice, nothing lost: every issue marked, once.
    let expected: Vec<String> = (1..=12).flat_map(marked).collect();
    test.expect_writes_in_any_order(&expected);
    assert_eq!(rows(&url, "SELECT count(DISTINCT host) FROM runs"), 4);
}

#[cfg(feature = "postgres")]
#[test]
fn four_overlapping_sweeps_on_four_hosts_merge_each_pr_once() {
    let test = Test::new(|world| {
        for number in 1..=8 {
            world.green_pr(number);
        }
    });
    let url = fresh_database();
    output(&mut test.std_command(&["poll", "--repo", REPO, "--db", &url])).expect_code(0);
    let outcomes = on_hosts(
        &test,
        &url,
        4,
        &["sweep", "--repo", REPO, "--yes", "--json"],
    );
    for outcome in &outcomes {
        outcome.expect_code(0);
    }
    let expected: Vec<String> = (1..=8).map(merge).collect();
    test.expect_writes_in_any_order(&expected);
    assert_eq!(
        rows(&url, "SELECT count(*) FROM queue WHERE status = 'done'"),
        8
    );
}

#[cfg(feature = "postgres")]
#[test]
fn poll_on_two_hosts_keeps_one_queue_row_per_pr_and_head() {
    let test = Test::new(|world| {
        for number in 1..=6 {
            world.green_pr(number);
        }
    });
    let url = fresh_database();
    for outcome in on_hosts(&test, &url, 2, &["poll", "--repo", REPO]) {
        outcome.expect_code(0);
    }
    test.expect_no_writes();
    assert_eq!(rows(&url, "SELECT count(*) FROM queue"), 6);
    assert_eq!(
        rows(&url, "SELECT count(DISTINCT (pr, head_sha)) FROM queue"),
        6
    );
}

#[cfg(feature = "postgres")]
#[test]
fn store_copy_moves_a_sqlite_store_into_postgres_and_back_and_refuses_a_target_with_rows() {
    let test = Test::new(|world| {
        world.open_issue(1, 100);
        world.green_pr(2);
    });
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(0);
    test.run(&["poll", "--repo", REPO]).expect_code(0);
    let sqlite = test.db_path().display().to_string();
    let url = fresh_database();
    let copied = output(&mut test.std_command(&["store", "copy", "--from", &sqlite, "--to", &url]));
    copied.expect_code(0);
    assert!(copied.stderr.contains("2 runs"), "{}", copied.stderr);
    assert_eq!(
        rows(&url, "SELECT count(*) FROM queue WHERE status = 'pending'"),
        1
    );
    assert_eq!(rows(&url, "SELECT count(*) FROM journal"), 2);
    // The copied runs' recaps read back from PostgreSQL, and a new run there goes on after them.
    let latest = output(&mut test.std_command(&["recap", "--db", &url, "--json"]));
    assert_eq!(latest.json()["command"], "poll");
    // A target with rows is refused, naming them, unless --force.
    let again = output(&mut test.std_command(&["store", "copy", "--from", &sqlite, "--to", &url]));
    assert_eq!(again.code, 2, "{}", again.stderr);
    assert!(again.stderr.contains("--force"), "{}", again.stderr);
    output(&mut test.std_command(&["store", "copy", "--from", &sqlite, "--to", &url, "--force"]))
        .expect_code(0);
    assert_eq!(rows(&url, "SELECT count(*) FROM runs"), 2);
    // And back into a new SQLite file.
    let back = test.dir.path().join("back.db").display().to_string();
    output(&mut test.std_command(&["store", "copy", "--from", &url, "--to", &back])).expect_code(0);
    let listed = output(&mut test.std_command(&["recap", "--db", &back, "--list", "--json"]));
    assert_eq!(listed.json().as_array().map(Vec::len), Some(2));
    let next = output(&mut test.std_command(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--db",
        &url,
        "--yes",
        "--json",
    ]));
    next.expect_code(0);
    assert_eq!(next.json()["run_id"], 3);
    test.expect_writes(&marked(1));
}

#[cfg(feature = "postgres")]
#[test]
fn store_status_names_the_backend_its_schema_the_queue_and_no_password() {
    let test = Test::new(|world| {
        for number in 1..=3 {
            world.green_pr(number);
        }
    });
    let url = fresh_database();
    output(&mut test.std_command(&["poll", "--repo", REPO, "--db", &url])).expect_code(0);
    let status = output(&mut test.std_command(&["store", "status", "--db", &url, "--json"]));
    status.expect_code(0);
    let status = status.json();
    assert_eq!(status["backend"], "postgres");
    assert_eq!(
        status["schema_version"], 6,
        "the PostgreSQL schema: 2 since runs record their account, 3 since an item's first write reserves room for its later ones, 4 since runs record who they are and the journal its ticks, 5 since poll remembers its last tick, 6 since the journal is indexed by item and outcome tick"
    );
    assert_eq!(status["location"], bare(&url));
    assert_eq!(status["queue"], serde_json::json!([["pending", 3]]));
    assert_eq!(status["live_runs"], serde_json::json!([]));
    let text = output(&mut test.std_command(&["store", "status", "--db", &url]));
    assert!(text.stdout.contains("queue: pending 3"), "{}", text.stdout);
    test.expect_no_writes();
}

/// Runs whose heartbeat stopped on `host` (killed) are aged past the bound and the write
/// timeout, as if that much time had passed: the clock is an input, no test sleeps for it.
#[cfg(feature = "postgres")]
fn age_heartbeats(url: &str, host: &str) {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    client
        .execute(
            "UPDATE runs SET heartbeat_at = now() - interval '1 hour' WHERE host = $1",
            &[&host],
        )
        .unwrap();
}

#[cfg(feature = "postgres")]
#[test]
fn a_host_killed_in_its_write_phase_is_settled_and_finished_by_another_20_times_without_a_duplicate(
) {
    use super::support::server::Parking;
    use super::support::Fault;
    let mut took_over = 0;
    for round in 0..20 {
        let test = Test::new(|world| {
            world.green_pr(1);
            world.green_pr(2);
        });
        let url = fresh_database();
        output(&mut test.std_command(&["poll", "--repo", REPO, "--db", &url])).expect_code(0);
        // Host A's merge of #1 leaves, journaled; A is killed while GitHub works on it.
        let parking = Parking::default();
        test.fail(
            "PUT",
            &format!("/repos/{REPO}/pulls/1/merge"),
            Fault::Park(parking.clone()),
            1,
        );
        let mut host_a = test
            .std_command(&["sweep", "--repo", REPO, "--yes", "--json", "--db", &url])
            .env("GH_SWEEP_HOST", "host-a")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        parking.wait_parked();
        host_a.kill().unwrap();
        host_a.wait().unwrap();
        // GitHub carries the merge out all the same; its answer reaches nobody.
        parking.release();
        age_heartbeats(&url, "host-a");
        let host_b = output(
            test.std_command(&["sweep", "--repo", REPO, "--yes", "--json", "--db", &url])
                .env("GH_SWEEP_HOST", "host-b"),
        );
        assert!(
            matches!(host_b.code, 0 | 11),
            "round {round}: {}",
            host_b.stderr
        );
        let recap = host_b.json();
        if recap["notes"]
            .to_string()
            .contains("took over run 2 of host host-a")
        {
            took_over += 1;
        }
        // #1 merged once (by A, found on GitHub by B), #2 merged by B: nothing twice.
        test.expect_writes_in_any_order(&[merge(1), merge(2)]);
        assert_eq!(
            rows(
                &url,
                "SELECT count(*) FROM journal WHERE outcome IS NULL OR outcome = 'unknown'"
            ),
            0,
            "round {round}: every write settled"
        );
    }
    assert_eq!(took_over, 20, "each recap of host B says it took over");
}

#[cfg(feature = "postgres")]
#[test]
fn a_host_whose_database_connection_drops_mid_run_stops_as_an_outage_with_nothing_half_written() {
    use super::support::server::Parking;
    use super::support::Fault;
    let test = Test::new(|world| {
        world.green_pr(1);
    });
    let url = fresh_database();
    output(&mut test.std_command(&["poll", "--repo", REPO, "--db", &url])).expect_code(0);
    let parking = Parking::default();
    test.fail(
        "GET",
        &format!("/repos/{REPO}/pulls/1?"),
        Fault::Park(parking.clone()),
        1,
    );
    let child = test
        .std_command(&[
            "sweep",
            "--repo",
            REPO,
            "--yes",
            "--json",
            "--db",
            &url,
            "--read-api",
            "rest",
        ])
        .env("GH_SWEEP_HOST", "host-a")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    parking.wait_parked();
    // Every connection of that run is cut, as a network partition would.
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .unwrap();
    parking.release();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(
        !stderr.contains(PASSWORD) && !stderr.contains("panicked"),
        "{stderr}"
    );
    assert_eq!(output.status.code(), Some(5), "{stderr}");
    test.expect_no_writes();
    assert_eq!(
        rows(&url, "SELECT count(*) FROM journal"),
        0,
        "no intent without its write"
    );
}

/// A `--db` URL of a scheme gh-sweep does not know is refused by its scheme alone (exit 2):
/// its password is never printed, and no SQLite file is made under the URL's name. Looking at
/// a store never makes one either: `store status` on a missing file says so.
#[test]
fn an_unknown_db_scheme_is_refused_without_its_password_and_status_makes_no_store() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    for args in [
        &[
            "stale-sweep",
            "--repo",
            REPO,
            "--db",
            "mysql://u:SECRETPW@h/db",
        ][..],
        &["store", "status", "--db", "postgress://u:SECRETPW@h/db"][..],
        &["recap", "--db", "mysql://u:SECRETPW@h/db"][..],
    ] {
        let outcome = test.run(args);
        outcome.expect_code(2);
        assert!(
            outcome.stderr.contains("is not a store gh-sweep knows"),
            "{args:?}: {}",
            outcome.stderr
        );
        assert!(
            !outcome.stdout.contains("SECRETPW") && !outcome.stderr.contains("SECRETPW"),
            "{args:?}: the password was printed"
        );
    }
    assert!(!test.dir.path().join("mysql:").exists());
    assert!(!test.dir.path().join("postgress:").exists());
    let missing = test.dir.path().join("nothere/state.db");
    let outcome = test.run(&["store", "status", "--db", missing.to_str().unwrap()]);
    outcome.expect_code(2);
    assert!(
        outcome.stderr.contains("no such file"),
        "{}",
        outcome.stderr
    );
    assert!(!missing.parent().unwrap().exists());
    assert!(test.all_requests().is_empty());
}

/// A build without the `postgres` feature refuses every way of naming a PostgreSQL store
/// (`--db`, `GH_SWEEP_DB`, the config's `db`, `store status`, `store copy --from` and `--to`,
/// a URL or libpq's `keyword = value` string) with exit 2 and a message naming the feature:
/// never a panic, never a SQLite file made under the URL's name, nothing asked of GitHub, and
/// never the password.
#[cfg(not(feature = "postgres"))]
#[test]
fn without_the_postgres_feature_a_postgres_db_is_refused_naming_the_feature() {
    const REFUSAL: &str =
        "this gh-sweep was built without PostgreSQL support (cargo feature `postgres`)";
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    // An existing SQLite store, for `store copy` to name as the other side.
    let sqlite = test.db_path();
    std::fs::create_dir_all(sqlite.parent().unwrap()).unwrap();
    drop(gh_sweep::store::open(&gh_sweep::store::Location::File(sqlite.clone())).unwrap());
    let sqlite = sqlite.display().to_string();
    let url = "postgres://u:SECRETPW@127.0.0.1:1/gh_sweep";
    let conninfo = "host=127.0.0.1 port=1 user=u password=SECRETPW dbname=gh_sweep";
    let check = |what: &str, outcome: &crate::support::Outcome, option: &str| {
        outcome.expect_code(2);
        assert!(
            outcome
                .stderr
                .contains(&format!("error: invalid {option}: {REFUSAL}")),
            "{what}: {}",
            outcome.stderr
        );
        assert!(
            !outcome.stdout.contains("SECRETPW") && !outcome.stderr.contains("SECRETPW"),
            "{what}: the password was printed"
        );
    };
    for db in [url, conninfo] {
        for args in [
            &["stale-sweep", "--repo", REPO, "--dry-run", "--db", db][..],
            &["recap", "--db", db][..],
            &["store", "status", "--db", db][..],
        ] {
            check(&format!("{args:?}"), &test.run(args), "--db");
        }
        let copy = ["store", "copy", "--from", db, "--to", &sqlite];
        check(&format!("{copy:?}"), &test.run(&copy), "--from");
        let copy = ["store", "copy", "--from", &sqlite, "--to", db];
        check(&format!("{copy:?}"), &test.run(&copy), "--to");
        let mut command = test.command(&["stale-sweep", "--repo", REPO, "--dry-run"]);
        let output = command.env("GH_SWEEP_DB", db).output().unwrap();
        let outcome = crate::support::Outcome {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).to_string(),
        };
        check("GH_SWEEP_DB", &outcome, "GH_SWEEP_DB");
    }
    test.config(&format!("db = \"{url}\"\n"));
    let sweep = test.run(&["stale-sweep", "--repo", REPO, "--dry-run"]);
    check("the config's db", &sweep, "db in the config");
    let status = test.run(&["store", "status"]);
    check("the config's db", &status, "db in .github/gh-sweep.toml");
    assert!(!test.dir.path().join("postgres:").exists());
    assert!(!test.dir.path().join(conninfo).exists());
    assert!(test.all_requests().is_empty());
}

/// Issue 21, point 4: `--db` takes what PostgreSQL users type. libpq accepts `keyword = value`
/// strings as well as URIs (libpq, "Connection Strings"); such a string selects PostgreSQL,
/// its password never reaches a file name, the stored command line or any output, and no
/// SQLite file is made.
#[cfg(feature = "postgres")]
#[test]
fn a_libpq_keyword_value_string_selects_postgres_without_showing_its_password() {
    let test = Test::new(|world| {
        world.open_issue(1, 100);
    });
    let url = fresh_database();
    // The same database as the URL names, in libpq's keyword/value form.
    let (_, rest) = url.split_once('@').unwrap();
    let (address, tail) = rest.split_once('/').unwrap();
    let (host, port) = address.split_once(':').unwrap();
    let database = tail.split('?').next().unwrap();
    let conninfo = format!(
        "host={host} port = {port} user=postgres password='{PASSWORD}' dbname={database} sslmode=disable"
    );
    let outcome = output(
        test.std_command(&[
            "stale-sweep",
            "--repo",
            REPO,
            "--db",
            &conninfo,
            "--yes",
            "--json",
        ])
        .env("GH_SWEEP_HOST", "host-a"),
    );
    outcome.expect_code(0);
    test.expect_writes(&marked(1));
    assert_eq!(
        rows(&url, "SELECT count(*) FROM runs WHERE host = 'host-a'"),
        1
    );
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let leaked: i64 = client
        .query_one(
            "SELECT count(*) FROM runs WHERE argv LIKE '%' || $1 || '%'",
            &[&PASSWORD],
        )
        .unwrap()
        .get(0);
    assert_eq!(leaked, 0, "runs.argv");
    let listed = output(&mut test.std_command(&["recap", "--db", &conninfo, "--list"]));
    listed.expect_code(0);
    assert!(listed.stdout.contains("stale-sweep"), "{}", listed.stdout);
    // No file anywhere is named after the string, the password or the database.
    let names: Vec<String> = std::fs::read_dir(test.dir.path())
        .unwrap()
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().to_string())
        .collect();
    assert!(!names.iter().any(|name| name.contains('=')), "{names:?}");
    assert!(!test.db_path().exists());
    // A string that is neither form is refused with the form named, its password not.
    let refused = output(&mut test.std_command(&[
        "recap",
        "--db",
        &format!("host={host} password='{PASSWORD}' dbname"),
    ]));
    refused.expect_code(2);
    assert!(
        refused.stderr.contains("keyword = value"),
        "{}",
        refused.stderr
    );
}
