//! Issue 21, points 5, 8, 9, 12 and 13: limits where runs really live. An item another run
//! wrote since this run read it is unfinished work (exit 9), `recap` reads a store it cannot
//! write, the account's pacing holds across concurrent processes, and a signal cuts every
//! wait short.

use std::process::{Child, Command, Stdio};

use crate::support::server::Parking;
use crate::support::{issue, items, marked, numbers, Fault, Outcome, Test, REPO};

fn finished(child: Child) -> Outcome {
    let output = child.wait_with_output().unwrap();
    let outcome = Outcome {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).to_string(),
        stderr: String::from_utf8_lossy(&output.stderr).to_string(),
    };
    assert!(!outcome.stderr.contains("panicked"), "{}", outcome.stderr);
    outcome
}

const OVERTAKEN: &str = "written by another run since it was read";

/// Point 13: run A is parked on its first write (#1); run B, started meanwhile, finds #1 in
/// A's hands and writes #2; A, let go, finds #2 written by B since A read it. Each leaves one
/// item unfinished for that reason, and each exits 9 (the README: unfinished items, the
/// rerun line carries on with them), not 0.
#[test]
fn an_item_written_by_another_run_since_it_was_read_is_unfinished_work_exit_9() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 74);
    });
    let parking = Parking::default();
    test.fail(
        "POST",
        &format!("{}/labels", issue(1)),
        Fault::Park(parking.clone()),
        1,
    );
    let args = ["stale-sweep", "--repo", REPO, "--yes", "--json"];
    let first = test
        .std_command(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    parking.wait_parked();
    let second = test.run(&args);
    parking.release();
    let first = finished(first);

    for (outcome, left, done) in [(&second, 1, 2), (&first, 2, 1)] {
        outcome.expect_code(9);
        let recap = outcome.json();
        assert_eq!(recap["exit_code"], 9, "{recap}");
        assert_eq!(items(&recap["unfinished"]), numbers(left..=left), "{recap}");
        assert_eq!(recap["unfinished_reason"], OVERTAKEN, "{recap}");
        assert_eq!(items(&recap["completed"]), numbers(done..=done), "{recap}");
        assert_eq!(recap["failed"], serde_json::json!([]), "{recap}");
        let rerun = recap["rerun"].as_str().unwrap();
        assert!(
            rerun.ends_with(&format!("--only 'octo/demo#{left}'")),
            "{rerun}"
        );
    }
    let mut expected = marked(1);
    expected.extend(marked(2));
    test.expect_writes_in_any_order(&expected);
}

/// Point 13: `recap --db` on a read-only mount (a bind mount remounted `ro` in a mount
/// namespace of its own, so root's permissions cannot write through it) reads the store.
#[test]
fn recap_reads_a_store_on_a_read_only_mount() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"])
        .expect_code(0);
    test.expect_writes(&marked(1));
    let stored = test.run(&["recap", "--json"]);
    stored.expect_code(0);
    let folder = test.db_path().parent().unwrap().to_path_buf();
    let probe = Command::new("unshare")
        .args(["-m", "true"])
        .status()
        .map(|status| status.success())
        .unwrap_or(false);
    if !probe {
        eprintln!("skipped: `unshare -m` (a mount namespace, as root) is not allowed here");
        return;
    }
    let template = test.std_command(&[]);
    let mut command = Command::new("unshare");
    command.env_clear();
    for (key, value) in template.get_envs() {
        if let Some(value) = value {
            command.env(key, value);
        }
    }
    let script = r#"mount --bind "$2" "$2" && mount -o remount,ro,bind "$2" || exit 97
touch "$2/probe" 2>/dev/null && exit 98
exec "$1" recap --db "$3" --json"#;
    command
        .args(["-m", "sh", "-c", script, "sh"])
        .arg(template.get_program())
        .arg(&folder)
        .arg(test.db_path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let outcome = finished(command.spawn().unwrap());
    assert_ne!(outcome.code, 97, "the mount failed: {}", outcome.stderr);
    assert_ne!(outcome.code, 98, "the mount is not read-only");
    outcome.expect_code(0);
    let recap = outcome.json();
    assert_eq!(recap["run_id"], stored.json()["run_id"], "{recap}");
    assert_eq!(items(&recap["completed"]), numbers(1..=1));
    assert!(
        !outcome.stderr.contains("unable to open"),
        "{}",
        outcome.stderr
    );
}

/// The account's writes already in the store: `count` writes of the first run's account
/// journaled `seconds_ago`, on the store at `db` (a SQLite path or a PostgreSQL URL). The
/// first run (`--only octo/demo#1`, two writes just now) made the account known.
fn seed_writes(db: &str, count: usize, seconds_ago: i64) -> String {
    let at = chrono::Utc::now() - chrono::Duration::seconds(seconds_ago);
    let insert = "INSERT INTO journal (run_id, item, repo, action, intent_at, outcome, outcome_at)
                  VALUES ($1, 'octo/demo#1000', 'octo/demo', '{\"kind\":\"close\",\"reason\":null}', $2, 'done', $2)";
    #[cfg(feature = "postgres")]
    if db.starts_with("postgres") {
        let mut client = postgres::Client::connect(db, postgres::NoTls).unwrap();
        let row = client
            .query_one("SELECT id, account FROM runs", &[])
            .unwrap();
        let (run, account): (i64, String) = (row.get(0), row.get(1));
        for _ in 0..count {
            client.execute(insert, &[&run, &at]).unwrap();
        }
        return account;
    }
    let connection = rusqlite::Connection::open(db).unwrap();
    let (run, account): (i64, String) = connection
        .query_row("SELECT id, account FROM runs", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap();
    let insert = insert.replace('$', "?");
    for _ in 0..count {
        connection
            .execute(&insert, rusqlite::params![run, at.to_rfc3339()])
            .unwrap();
    }
    account
}

/// `processes` runs of one account started at once on the store `db` (each its own host
/// on PostgreSQL), every one planning 2 writes on each of issues 2 to 40; what each printed.
/// Every item is in exactly one part of each recap, and no write is sent twice.
fn concurrent_runs(test: &Test, db: Option<&str>, processes: usize, extra: &[&str]) -> usize {
    let children: Vec<Child> = (0..processes)
        .map(|host| {
            let mut args = vec![
                "stale-sweep",
                "--repo",
                REPO,
                "--yes",
                "--json",
                "--read-api",
                "rest",
            ];
            args.extend(extra);
            if let Some(db) = db {
                args.extend(["--db", db]);
            }
            test.std_command(&args)
                .env("GH_SWEEP_HOST", format!("host-{host}"))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut completed = Vec::new();
    for child in children {
        let outcome = finished(child);
        let recap: serde_json::Value = serde_json::from_str(&outcome.stdout)
            .unwrap_or_else(|error| panic!("no recap ({error}): {}", outcome.stderr));
        outcome.expect_code(9);
        let mut seen: Vec<String> = items(&recap["completed"]);
        completed.extend(seen.iter().filter(|item| *item != "octo/demo#1").cloned());
        seen.extend(items(&recap["failed"]));
        seen.extend(items(&recap["unfinished"]));
        seen.sort_by_key(|item| item.rsplit('#').next().unwrap().parse::<u64>().unwrap());
        assert_eq!(seen, numbers(1..=40), "each item in one part: {recap}");
        assert_eq!(recap["failed"], serde_json::json!([]), "{recap}");
    }
    let writes = test.writes();
    let mut unique = writes.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), writes.len(), "a write sent twice: {writes:?}");
    // Only the items some run completed were written, each in full.
    let mut numbers: Vec<u64> = completed
        .iter()
        .map(|item| item.rsplit('#').next().unwrap().parse().unwrap())
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    let expected: Vec<String> = numbers.into_iter().flat_map(marked).collect();
    test.expect_writes_in_any_order(&expected);
    writes.len()
}

fn forty_idle_issues() -> Test {
    let test = Test::new(|world| {
        for number in 1..=40 {
            world.open_issue(number, 74);
        }
    });
    test.config("write_interval = 0.01\n");
    test
}

/// The hour's first run: `octo/demo#1`'s two writes, which make the account known.
fn first_run(test: &Test, db: Option<&str>) {
    let mut args = vec![
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--json",
        "--read-api",
        "rest",
        "--only",
        "octo/demo#1",
    ];
    if let Some(db) = db {
        args.extend(["--db", db]);
    }
    test.run(&args).expect_code(0);
    test.expect_writes(&marked(1));
    test.clear_log();
}

/// Point 5: an hour full but for 5 writes (2 just now, 493 forty minutes ago), and `processes`
/// runs of the account at once: together they send at most 5 writes (4: two whole items of
/// 2), however they interleave; the rest waits 20 minutes, past max_wait, and is unfinished.
fn an_hour_full_but_for_five(processes: usize) {
    let test = forty_idle_issues();
    first_run(&test, None);
    let db = test.db_path().display().to_string();
    let account = seed_writes(&db, 493, 40 * 60);
    let sent = concurrent_runs(&test, None, processes, &[]);
    assert!(
        sent <= 5,
        "{processes} runs sent {sent} writes; the hour had room for 5"
    );
    assert_eq!(sent, 4, "two whole items fit in the hour's 5 writes");
    let in_the_hour: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM journal JOIN runs ON runs.id = journal.run_id
             WHERE runs.account = ?1 AND journal.intent_at >= ?2",
            rusqlite::params![
                account,
                (chrono::Utc::now() - chrono::Duration::hours(1)).to_rfc3339()
            ],
            |row| row.get(0),
        )
        .unwrap();
    assert!(
        in_the_hour <= 500,
        "{in_the_hour} writes in the account's hour"
    );
}

#[test]
fn two_concurrent_runs_of_one_account_never_pass_500_writes_an_hour() {
    an_hour_full_but_for_five(2);
}

#[test]
fn four_concurrent_runs_of_one_account_never_pass_500_writes_an_hour() {
    an_hour_full_but_for_five(4);
}

#[test]
fn eight_concurrent_runs_of_one_account_never_pass_500_writes_an_hour() {
    an_hour_full_but_for_five(8);
}

/// Point 5: a minute with room for 5 writes (2 just now, 73 five seconds ago); four runs of
/// the account at once, none willing to wait the 55 s the minute then needs
/// (`--max-wait 30`): together 4 writes (two whole items), never 81 in the minute, and no
/// run starts an item whose second write has no room.
#[test]
fn four_concurrent_runs_of_one_account_never_pass_80_writes_a_minute() {
    let test = forty_idle_issues();
    first_run(&test, None);
    seed_writes(&test.db_path().display().to_string(), 73, 5);
    let sent = concurrent_runs(&test, None, 4, &["--max-wait", "30"]);
    assert_eq!(sent, 4, "the minute had room for 5 writes: two whole items");
}

/// Point 5 on PostgreSQL: eight hosts sharing one account, the minute with room for 5 writes.
#[cfg(feature = "postgres")]
#[test]
fn eight_hosts_of_one_account_on_postgres_never_pass_80_writes_a_minute() {
    let test = forty_idle_issues();
    let url = crate::support::pg::fresh_database();
    first_run(&test, Some(&url));
    seed_writes(&url, 73, 5);
    let sent = concurrent_runs(&test, Some(&url), 8, &["--max-wait", "30"]);
    assert_eq!(sent, 4, "the minute had room for 5 writes: two whole items");
}

/// Point 5 on PostgreSQL: four hosts sharing one account, the hour with room for 5 writes.
#[cfg(feature = "postgres")]
#[test]
fn four_hosts_of_one_account_on_postgres_never_pass_500_writes_an_hour() {
    let test = forty_idle_issues();
    let url = crate::support::pg::fresh_database();
    first_run(&test, Some(&url));
    seed_writes(&url, 493, 40 * 60);
    let sent = concurrent_runs(&test, Some(&url), 4, &[]);
    assert_eq!(sent, 4, "two whole items fit in the hour's 5 writes");
}

/// `store status --db url` (a command that only connects and reads), with HOME the test's.
#[cfg(feature = "postgres")]
fn status(test: &Test, url: &str) -> Outcome {
    let mut command = test.std_command(&["store", "status", "--db", url, "--json"]);
    command.stdin(Stdio::null());
    let output = command.output().unwrap();
    let outcome = Outcome {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).to_string(),
        stderr: String::from_utf8_lossy(&output.stderr).to_string(),
    };
    assert!(
        !outcome.stderr.contains(crate::support::pg::PASSWORD),
        "{}",
        outcome.stderr
    );
    assert!(!outcome.stderr.contains("panicked"), "{}", outcome.stderr);
    outcome
}

/// Whether `psql` connects to `url` with the same HOME (no `~/.postgresql/root.crt`); `None`
/// without `psql`.
#[cfg(feature = "postgres")]
fn psql_connects(test: &Test, url: &str) -> Option<bool> {
    let output = Command::new("psql")
        .env_clear()
        .env("HOME", test.dir.path().join("home"))
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("PGCONNECT_TIMEOUT", "10")
        .args([url, "-X", "-A", "-t", "-c", "SELECT 1"])
        .stdin(Stdio::null())
        .output()
        .ok()?;
    Some(output.status.success())
}

/// Point 12: each `sslmode` against the throwaway server's TLS on a self-signed certificate
/// (named `pg-test-server`, reached as 127.0.0.1), as libpq's table in "SSL Support" has it:
/// no sslmode (libpq's `prefer`), `allow`, `prefer` and `require` connect without checking the
/// certificate; `require` with a root certificate file checks the chain and not the name, as
/// `verify-ca` does; `verify-ca` and `verify-full` without one, and `verify-full` on the wrong
/// name, are refused with a TLS message. `psql` on the same URL agrees, case by case.
#[cfg(feature = "postgres")]
#[test]
fn each_sslmode_connects_or_refuses_as_libpq_does_on_a_self_signed_certificate() {
    let test = Test::new(|_| {});
    let server = crate::support::pg::server();
    let Some(cert) = server.certificate() else {
        panic!("the throwaway PostgreSQL has no TLS certificate: is openssl installed?");
    };
    let url = crate::support::pg::fresh_database();
    let name = url
        .rsplit('/')
        .next()
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string();
    let base = server.plain_url(&name);
    let root = format!("sslrootcert={}", cert.display());
    let cases: Vec<(String, bool)> = vec![
        (String::new(), true),
        ("?sslmode=allow".into(), true),
        ("?sslmode=prefer".into(), true),
        ("?sslmode=require".into(), true),
        (format!("?sslmode=require&{root}"), true),
        (format!("?sslmode=verify-ca&{root}"), true),
        ("?sslmode=verify-ca".into(), false),
        ("?sslmode=verify-full".into(), false),
        (format!("?sslmode=verify-full&{root}"), false),
    ];
    for (query, connects) in cases {
        let url = format!("{base}{query}");
        let outcome = status(&test, &url);
        let shown = query.replace(&cert.display().to_string(), "CERT");
        assert_eq!(
            outcome.code == 0,
            connects,
            "{shown}: exit {}\n{}",
            outcome.code,
            outcome.stderr
        );
        if !connects {
            assert!(
                outcome.stderr.contains("TLS handshake"),
                "{shown}: the failure is the handshake's: {}",
                outcome.stderr
            );
        }
        if let Some(psql) = psql_connects(&test, &url) {
            assert_eq!(psql, connects, "{shown}: psql does otherwise");
        }
    }
}

/// Point 12: a wrong password, a missing database and a `.pgpass` ignored for its
/// permissions each get their own message.
#[cfg(feature = "postgres")]
#[test]
fn a_wrong_password_a_missing_database_and_an_ignored_pgpass_each_say_so() {
    let test = Test::new(|_| {});
    let server = crate::support::pg::server();
    let url = crate::support::pg::fresh_database();
    let wrong = url.replace(crate::support::pg::PASSWORD, "not-the-password");
    let outcome = status(&test, &wrong);
    assert_eq!(outcome.code, 2, "{}", outcome.stderr);
    assert!(
        outcome
            .stderr
            .contains("the server refused the password of user postgres"),
        "{}",
        outcome.stderr
    );
    let missing = server.url("no_such_database");
    let outcome = status(&test, &missing);
    assert_eq!(outcome.code, 2, "{}", outcome.stderr);
    assert!(
        outcome
            .stderr
            .contains("the server has no database no_such_database"),
        "{}",
        outcome.stderr
    );
    // The password only in a passfile others can read: libpq ignores it, and says so.
    let passfile = test.dir.path().join("home/.pgpass");
    std::fs::write(
        &passfile,
        format!("*:*:*:postgres:{}\n", crate::support::pg::PASSWORD),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&passfile, std::fs::Permissions::from_mode(0o644)).unwrap();
    let bare = url.replace(&format!(":{}@", crate::support::pg::PASSWORD), "@");
    let outcome = status(&test, &bare);
    assert_eq!(outcome.code, 2, "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains(&format!(
            "{} was ignored: others can read it (mode 644); run `chmod 600 {}`",
            passfile.display(),
            passfile.display()
        )),
        "{}",
        outcome.stderr
    );
    std::fs::set_permissions(&passfile, std::fs::Permissions::from_mode(0o600)).unwrap();
    status(&test, &bare).expect_code(0);
}

/// Point 12: PgBouncer in transaction pooling mode hands each transaction to whichever server
/// connection is free, so a statement prepared on one is not there on the next: the server's
/// own answer to a missing prepared statement (asked for here on the throwaway server, as
/// PgBouncer's pool would make it happen) is refused with what to change, not shown raw.
#[cfg(feature = "postgres")]
#[test]
fn a_missing_prepared_statement_is_named_as_transaction_pooling() {
    let url = crate::support::pg::fresh_database();
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let error = client.batch_execute("EXECUTE s10").unwrap_err();
    let message = gh_sweep::store::postgres::explain(&error, "the database D")
        .expect("a missing prepared statement is explained");
    assert!(
        message.contains("prepared statement \"s10\" does not exist")
            && message.contains("transaction pooling")
            && message.contains("pool_mode = session"),
        "{message}"
    );
}

/// Point 8: a run under a file size limit (`ulimit -f`, set here with `setrlimit` before the
/// run starts) that its store's file reaches in mid-run. SIGXFSZ is caught, so the write that
/// hit the limit fails with EFBIG instead of killing the process: the run ends with its recap
/// on stdout (a pipe, not limited) and a non-zero code, never killed by the signal; the next
/// run, without the limit, settles what was left and writes nothing twice. Several limits, so
/// the limit falls in different places of the run, at least once after some writes.
#[test]
fn a_file_size_limit_reached_by_the_store_ends_with_the_recap_and_the_next_run_settles_it() {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let mut written_before_the_limit = 0;
    for extra in [0u64, 8, 24, 40, 56, 72] {
        let test = Test::new(|world| {
            for number in 1..=12 {
                world.open_issue(number, 74);
            }
        });
        test.config("write_interval = 0\n");
        // The store made (schema and all) by a dry run, which writes nothing to GitHub.
        test.run(&["stale-sweep", "--repo", REPO, "--dry-run", "--json"])
            .expect_code(0);
        let size = std::fs::metadata(test.db_path()).unwrap().len();
        let limit = size + extra * 1024;
        let mut command = test.std_command(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
        unsafe {
            command.pre_exec(move || {
                let bound = libc::rlimit {
                    rlim_cur: limit,
                    rlim_max: limit,
                };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &bound) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let output = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.signal(),
            None,
            "limit +{extra} KiB: killed by a signal\n{stderr}"
        );
        let code = output.status.code().unwrap();
        let limited_writes = test.writes().len();
        eprintln!("limit +{extra} KiB: exit {code}, {limited_writes} writes sent");
        if code != 0 {
            assert!(
                stderr.contains("File too large") || stdout.contains("File too large"),
                "limit +{extra} KiB: exit {code} does not say why\n{stdout}\n{stderr}"
            );
        }
        if limited_writes > 0 && code != 0 {
            written_before_the_limit += 1;
            let recap: serde_json::Value = serde_json::from_str(&stdout)
                .unwrap_or_else(|error| panic!("limit +{extra} KiB: no recap ({error}): {stderr}"));
            assert_eq!(recap["stopped"], "harness_outage", "{recap}");
            assert_ne!(recap["exit_code"], 0, "{recap}");
        }
        // The next run, without the limit, settles and finishes: every issue marked once.
        let next = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
        assert!(matches!(next.code, 0 | 11), "{}", next.stderr);
        if next.code == 11 {
            // A write whose outcome was left unknown is settled once GitHub is asked: after
            // `settle_after_seconds` at most (the default waits past an in-flight write).
            test.config("write_interval = 0\nsettle_after_seconds = 0\n");
            test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"])
                .expect_code(0);
        }
        let expected: Vec<String> = (1..=12).flat_map(marked).collect();
        test.expect_writes_in_any_order(&expected);
    }
    assert!(
        written_before_the_limit > 0,
        "no limit fell after the first writes"
    );
}

/// Point 8: standard output is a file already at the file size limit: the recap cannot be
/// printed (EFBIG, SIGXFSZ caught), so the run exits non-zero and says so on stderr, while the
/// store, under the limit still, holds the run as finished for `gh-sweep recap`.
#[test]
fn a_file_size_limit_reached_by_stdout_exits_non_zero_with_the_run_stored() {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let test = Test::new(|world| {
        for number in 1..=3 {
            world.open_issue(number, 74);
        }
    });
    let limit: u64 = 64 * 1024 * 1024;
    let out_path = test.dir.path().join("out.json");
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&out_path)
        .unwrap();
    out.set_len(limit - 10).unwrap();
    let mut command = test.std_command(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    unsafe {
        command.pre_exec(move || {
            let bound = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &bound) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let output = command
        .stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.signal(), None, "killed by a signal\n{stderr}");
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("standard output could not be written (File too large"),
        "{stderr}"
    );
    // What fitted below the limit was written (POSIX: a write past it writes what fits),
    // then the rest failed.
    assert_eq!(std::fs::metadata(&out_path).unwrap().len(), limit);
    let expected: Vec<String> = (1..=3).flat_map(marked).collect();
    test.expect_writes_in_any_order(&expected);
    let stored = test.run(&["recap", "--json"]);
    stored.expect_code(0);
    let stored = stored.json();
    assert_eq!(items(&stored["completed"]), numbers(1..=3), "{stored}");
    assert_eq!(stored["exit_code"], 0, "{stored}");
}

/// Point 12: the server's certificate signed by a private CA for 127.0.0.1: with that CA as
/// the root certificate every mode connects, `verify-full` included (the name matches);
/// without it `verify-ca` and `verify-full` are refused, and the modes that check nothing
/// connect. `psql` agrees, case by case.
#[cfg(feature = "postgres")]
#[test]
fn each_sslmode_on_a_ca_signed_certificate_is_as_libpq_has_it() {
    let test = Test::new(|_| {});
    let server = crate::support::pg::ca_signed_server();
    let ca = server.ca_certificate().expect("the server's CA");
    let url = crate::support::pg::fresh_database_on(server);
    let name = url
        .rsplit('/')
        .next()
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string();
    let base = server.plain_url(&name);
    let root = format!("sslrootcert={}", ca.display());
    let cases: Vec<(String, bool)> = vec![
        (String::new(), true),
        ("?sslmode=require".into(), true),
        (format!("?sslmode=require&{root}"), true),
        (format!("?sslmode=verify-ca&{root}"), true),
        (format!("?sslmode=verify-full&{root}"), true),
        ("?sslmode=verify-ca".into(), false),
        ("?sslmode=verify-full".into(), false),
    ];
    for (query, connects) in cases {
        let url = format!("{base}{query}");
        let outcome = status(&test, &url);
        let shown = query.replace(&ca.display().to_string(), "CA");
        assert_eq!(
            outcome.code == 0,
            connects,
            "{shown}: exit {}\n{}",
            outcome.code,
            outcome.stderr
        );
        if !connects {
            assert!(
                outcome.stderr.contains("TLS handshake"),
                "{shown}: {}",
                outcome.stderr
            );
        }
        if let Some(psql) = psql_connects(&test, &url) {
            assert_eq!(psql, connects, "{shown}: psql does otherwise");
        }
    }
}
