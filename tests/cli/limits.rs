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
