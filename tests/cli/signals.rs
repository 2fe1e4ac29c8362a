//! Ctrl-C (SIGINT) and SIGTERM end a run with its recap: at the prompt and during the writes.
//! The signal point is deterministic: a write parked at the fake GitHub until the test lets it
//! go, or the prompt seen on a real pseudo-terminal.

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::server::Parking as Gate;
use crate::support::{issue, items, marked, numbers, two_idle_issues, Fault, Test, REPO};

/// Everything read from `source`, as it arrives.
/// All a pipe carries, once its writer has closed it: a process that has ended may still have
/// output in the pipe that a reader has not taken yet.
fn collect_to_end(mut source: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = source.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

#[track_caller]
fn wait_for(text: &Arc<Mutex<String>>, wanted: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !text.lock().unwrap().contains(wanted) {
        assert!(
            Instant::now() < deadline,
            "no {wanted:?} in:\n{}",
            text.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn kill(child: &Child, signal: i32) {
    let result = unsafe { libc::kill(child.id() as i32, signal) };
    assert_eq!(result, 0, "kill");
}

/// A run without a terminal (`--yes`), its stdout and stderr collected as they come.
fn spawn(
    test: &Test,
    args: &[&str],
) -> (Child, std::thread::JoinHandle<String>, Arc<Mutex<String>>) {
    let mut child = test
        .std_command(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = collect_to_end(child.stdout.take().unwrap());
    let stderr = crate::support::collect(child.stderr.take().unwrap());
    (child, stdout, stderr)
}

/// What the signal's first delivery prints, once the run knows to stop.
const NOTICED: &str = "finishing what is in flight";

#[test]
fn a_signal_during_the_writes_finishes_the_write_in_flight_prints_the_recap_and_ends_by_it() {
    for (signal, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let test = two_idle_issues();
        let gate = Gate::default();
        test.fail(
            "POST",
            &format!("{}/labels", issue(1)),
            Fault::Park(gate.clone()),
            1,
        );
        let (mut child, stdout, stderr) =
            spawn(&test, &["stale-sweep", "--repo", REPO, "--yes", "--json"]);
        gate.wait_parked();
        kill(&child, signal);
        wait_for(&stderr, NOTICED);
        gate.release();
        let status = child.wait().unwrap();
        assert_eq!(
            status.signal(),
            Some(signal),
            "ended by the signal ({status:?})\nstderr:\n{}",
            stderr.lock().unwrap()
        );
        let stdout = stdout.join().unwrap();
        let recap: serde_json::Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|error| panic!("no JSON recap ({error}):\n{stdout}"));
        assert_eq!(recap["stopped"], "interrupted", "{recap}");
        assert_eq!(recap["exit_code"], code);
        // The item whose write was in flight is finished; the next one is not reached.
        assert_eq!(items(&recap["completed"]), numbers(1..=1));
        assert_eq!(items(&recap["unfinished"]), numbers(2..=2));
        assert_eq!(recap["unfinished_reason"], "interrupted");
        let rerun = recap["rerun"].as_str().unwrap();
        assert!(rerun.ends_with("--only 'octo/demo#2'"), "{rerun}");
        test.expect_writes(&marked(1));

        // The store holds the run as finished, and `recap` shows it.
        let stored = test.run(&["recap", "--json"]);
        stored.expect_code(0);
        let stored = stored.json();
        assert_eq!(stored["run_id"], recap["run_id"]);
        assert_eq!(stored["stopped"], "interrupted");
        assert_eq!(items(&stored["unfinished"]), numbers(2..=2));

        // The rerun line finishes the rest.
        test.clear_log();
        test.run_line(rerun, &["--yes"]).expect_code(0);
        test.expect_writes(&marked(2));
    }
}

#[test]
fn a_second_signal_ends_at_once() {
    let test = two_idle_issues();
    let gate = Gate::default();
    test.fail(
        "POST",
        &format!("{}/labels", issue(1)),
        Fault::Park(gate.clone()),
        1,
    );
    let (mut child, stdout, stderr) =
        spawn(&test, &["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    gate.wait_parked();
    kill(&child, libc::SIGINT);
    wait_for(&stderr, NOTICED);
    kill(&child, libc::SIGINT);
    let status = child.wait().unwrap();
    gate.release();
    assert_eq!(status.signal(), Some(libc::SIGINT), "{status:?}");
    assert_eq!(stdout.join().unwrap(), "", "no recap");
    // The label was parked when the process ended: once let go, GitHub applies it; nothing
    // after it was sent.
    let deadline = Instant::now() + Duration::from_secs(20);
    while test.writes().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    test.expect_writes(&marked(1)[..1]);
}

/// Runs gh-sweep on a pseudo-terminal (stdin and stderr), waits for the prompt, then `act`s.
fn at_the_prompt(
    test: &Test,
    act: impl FnOnce(&Child, &mut std::fs::File),
) -> (i32, String, String) {
    let (mut master, slave) = crate::support::open_pty(120);
    let mut child = test
        .std_command(&["stale-sweep", "--repo", REPO, "--json"])
        .env("TERM", "xterm")
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = collect_to_end(child.stdout.take().unwrap());
    let screen = crate::support::collect(master.try_clone().unwrap());
    wait_for(&screen, "Send these writes?");
    act(&child, &mut master);
    // Bounded, so a lost signal fails this test instead of hanging the suite. A Ctrl-C typed in
    // the instant between the prompt's text and its raw mode is the terminal's SIGINT, which
    // the prompt does not see: a maintainer presses it again, and so does the test, once.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut again = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > again {
            let _ = master.write_all(b"\x03");
            let _ = master.flush();
            again = deadline;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!(
                "gh-sweep did not end at the prompt:\n{}",
                screen.lock().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // What the terminal shows may arrive a moment after the process ends: wait for the cursor
    // to be shown again after the prompt hid it (or 5 s, and the caller's assertion fails).
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        let text = screen.lock().unwrap().clone();
        if text
            .rfind("\x1b[?25l")
            .is_some_and(|hidden| text[hidden..].contains("\x1b[?25h"))
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let screen = screen.lock().unwrap().clone();
    let stdout = stdout.join().unwrap();
    (status.signal().unwrap_or(-1), stdout, screen)
}

#[test]
fn a_signal_at_the_prompt_writes_nothing_and_ends_with_the_recap() {
    let ctrl_c = |_: &Child, terminal: &mut std::fs::File| {
        terminal.write_all(b"\x03").unwrap();
        terminal.flush().unwrap();
    };
    let term = |child: &Child, _: &mut std::fs::File| kill(child, libc::SIGTERM);
    type Act<'a> = &'a dyn Fn(&Child, &mut std::fs::File);
    let cases: [(&str, i32, i64, Act); 2] = [
        ("Ctrl-C", libc::SIGINT, 130, &ctrl_c),
        ("SIGTERM", libc::SIGTERM, 143, &term),
    ];
    for (name, signal, code, act) in cases {
        let test = two_idle_issues();
        let (ended_by, stdout, screen) =
            at_the_prompt(&test, |child, terminal| act(child, terminal));
        assert_eq!(ended_by, signal, "{name}: ended by the signal\n{screen}");
        let recap: serde_json::Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|error| panic!("{name}: no JSON recap ({error}):\n{stdout}\n{screen}"));
        assert_eq!(recap["stopped"], "interrupted", "{name}");
        assert_eq!(recap["exit_code"], code, "{name}");
        assert_eq!(items(&recap["unfinished"]), numbers(1..=2), "{name}");
        assert_eq!(recap["unfinished_reason"], "interrupted", "{name}");
        assert!(
            recap["rerun"]
                .as_str()
                .unwrap()
                .ends_with("--only 'octo/demo#1,#2'"),
            "{name}: {}",
            recap["rerun"]
        );
        test.expect_no_writes();
        // The prompt hid the cursor; it is shown again before the end.
        let hidden = screen
            .rfind("\x1b[?25l")
            .expect("the prompt hides the cursor");
        assert!(
            screen[hidden..].contains("\x1b[?25h"),
            "{name}: the cursor stays hidden:\n{screen:?}"
        );
        let stored = test.run(&["recap", "--json"]).json();
        assert_eq!(stored["stopped"], "interrupted", "{name}");
    }
}

#[test]
fn a_signal_during_the_reads_stops_before_the_next_item_and_writes_nothing() {
    let test = Test::rest(|world| {
        world.green_pr(1);
        world.green_pr(2);
    });
    let gate = Gate::default();
    test.fail("GET", "/pulls/1/files", Fault::Park(gate.clone()), 1);
    let (mut child, stdout, stderr) = spawn(&test, &["poll", "--repo", REPO, "--json"]);
    gate.wait_parked();
    kill(&child, libc::SIGTERM);
    wait_for(&stderr, NOTICED);
    gate.release();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status:?}");
    let stdout = stdout.join().unwrap();
    let recap: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|error| panic!("no JSON recap ({error}):\n{stdout}"));
    assert_eq!(recap["stopped"], "interrupted");
    assert_eq!(recap["exit_code"], 143);
    assert_eq!(items(&recap["unfinished"]), numbers(1..=2));
    // The second PR was never read.
    assert!(
        !test
            .requests()
            .iter()
            .any(|request| request.path.contains("/pulls/2/")),
        "{:?}",
        test.requests()
            .iter()
            .map(|request| request.line())
            .collect::<Vec<_>>()
    );
    // Nothing was enqueued: the next tick finds both to enqueue.
    let next = test.run(&["poll", "--repo", REPO, "--json"]);
    next.expect_code(0);
    let next = next.json();
    assert_eq!(
        next["completed"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|entry| entry["disposition"] == "enqueue-merge")
            .count(),
        2,
        "{next}"
    );
}

#[test]
fn a_signal_during_the_pacing_wait_before_an_item_stops_the_run_there() {
    let test = Test::new(|world| {
        world.green_pr(1);
        world.green_pr(2);
    });
    test.config("write_interval = 11\n");
    test.run(&["poll", "--repo", REPO]).expect_code(0);
    test.clear_log();
    let (mut child, stdout, stderr) = spawn(&test, &["sweep", "--repo", REPO, "--yes", "--json"]);
    // Without a terminal, a wait of 10 s or more is announced before it starts; the
    // signal comes during it.
    wait_for(&stderr, "octo/demo#2: waiting");
    kill(&child, libc::SIGINT);
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGINT), "{status:?}");
    let stdout = stdout.join().unwrap();
    let recap: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|error| panic!("no JSON recap ({error}):\n{stdout}"));
    assert_eq!(recap["stopped"], "interrupted");
    assert_eq!(items(&recap["completed"]), numbers(1..=1));
    assert_eq!(items(&recap["unfinished"]), numbers(2..=2));
    test.expect_writes(&["PUT /repos/octo/demo/pulls/1/merge"]);
}

/// Issue 21 point 9: a wait between one item's writes (a long write interval here) is cut
/// short by SIGINT or SIGTERM: the label was sent, the comment is not; the item is unfinished
/// with what was and was not sent, the recap printed, and the run ends by the signal. The
/// rerun finishes the mark (the comment alone).
#[test]
fn a_signal_during_the_wait_between_an_items_writes_cuts_it_short() {
    for (signal, name, code) in [
        (libc::SIGTERM, "SIGTERM", 143),
        (libc::SIGINT, "SIGINT", 130),
    ] {
        let test = Test::new(|world| {
            world.open_issue(1, 74);
        });
        test.config("write_interval = 30\n");
        let (mut child, stdout, stderr) =
            spawn(&test, &["stale-sweep", "--repo", REPO, "--yes", "--json"]);
        wait_for(&stderr, "octo/demo#1: waiting");
        kill(&child, signal);
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(signal), "{status:?}");
        let stdout = stdout.join().unwrap();
        let recap: serde_json::Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|error| panic!("no JSON recap ({error}):\n{stdout}"));
        assert_eq!(recap["stopped"], "interrupted", "{recap}");
        assert_eq!(recap["exit_code"], code);
        assert_eq!(items(&recap["unfinished"]), numbers(1..=1), "{recap}");
        assert_eq!(
            recap["unfinished_reason"],
            format!(
                "{name} received between its writes: label +Stale sent, comment not sent; the rerun finishes it"
            ),
            "{recap}"
        );
        test.expect_writes(&marked(1)[..1]);
        test.clear_log();
        test.config("write_interval = 0.01\n");
        test.run_line(recap["rerun"].as_str().unwrap(), &["--yes"])
            .expect_code(0);
        test.expect_writes(&marked(1)[1..]);
    }
}

/// Issue 21 point 9: behind GitHub's 80 writes a minute (79 sent by the account a few
/// seconds ago), the wait comes before the item's first write, since the item's two writes
/// need room together, and a signal cuts it short: nothing of the item is sent.
#[test]
fn a_signal_during_a_wait_behind_eighty_writes_a_minute_ends_the_run_with_nothing_half_sent() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 74);
    });
    test.config("write_interval = 0.01\n");
    test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--only",
        "octo/demo#1",
    ])
    .expect_code(0);
    test.expect_writes(&marked(1));
    test.clear_log();
    let connection = rusqlite::Connection::open(test.db_path()).unwrap();
    let at = (chrono::Utc::now() - chrono::Duration::seconds(3)).to_rfc3339();
    for _ in 0..77 {
        connection
            .execute(
                "INSERT INTO journal (run_id, item, repo, action, intent_at, outcome, outcome_at)
                 VALUES (1, 'octo/demo#1000', 'octo/demo', '{\"kind\":\"close\",\"reason\":null}', ?1, 'done', ?1)",
                [&at],
            )
            .unwrap();
    }
    let (mut child, stdout, stderr) = spawn(
        &test,
        &[
            "stale-sweep",
            "--repo",
            REPO,
            "--yes",
            "--json",
            "--only",
            "octo/demo#2",
        ],
    );
    wait_for(&stderr, "octo/demo#2: waiting");
    kill(&child, libc::SIGTERM);
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status:?}");
    let stdout = stdout.join().unwrap();
    let recap: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|error| panic!("no JSON recap ({error}):\n{stdout}"));
    assert_eq!(recap["stopped"], "interrupted", "{recap}");
    assert_eq!(recap["exit_code"], 143);
    assert_eq!(items(&recap["unfinished"]), numbers(2..=2), "{recap}");
    test.expect_no_writes();
}
