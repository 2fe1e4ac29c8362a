//! The confirmation prompt, on a real pseudo-terminal: stdin and stderr are the terminal, stdout
//! a pipe, and the test answers the prompt with keystrokes once it has appeared.

use std::io::{Read, Write};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::{items, marked, numbers, two_idle_issues, Outcome, Test, REPO};

const ENTER: &[u8] = b"\r";
const UP: &[u8] = b"\x1b[A";
const DOWN: &[u8] = b"\x1b[B";
const SPACE: &[u8] = b" ";

/// Runs gh-sweep on a terminal; each step waits for `prompt` in what the terminal shows, then
/// types `keys`.
pub(crate) fn on_terminal(test: &Test, args: &[&str], steps: &[(&str, &[&[u8]])]) -> Outcome {
    on_terminal_of(120, test, args, steps)
}

/// [`on_terminal`] on a terminal `columns` wide.
pub(crate) fn on_terminal_of(
    columns: u16,
    test: &Test,
    args: &[&str],
    steps: &[(&str, &[&[u8]])],
) -> Outcome {
    on_terminal_with(columns, test, args, &[], steps)
}

/// [`on_terminal_of`] with these variables in the environment too.
pub(crate) fn on_terminal_with(
    columns: u16,
    test: &Test,
    args: &[&str],
    env: &[(&str, &str)],
    steps: &[(&str, &[&[u8]])],
) -> Outcome {
    let (mut master, slave) = crate::support::open_pty(columns);
    let mut command = test.std_command(args);
    command.envs(env.iter().copied());
    let child = command
        .env("TERM", "xterm")
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let screen = Arc::new(Mutex::new(String::new()));
    let mut reader = master.try_clone().unwrap();
    let sink = Arc::clone(&screen);
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(count) = reader.read(&mut buffer) {
            if count == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buffer[..count]));
        }
    });
    let mut seen = 0;
    for (prompt, keys) in steps {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let text = screen.lock().unwrap().clone();
            if let Some(position) = text[seen..].find(prompt) {
                seen += position + prompt.len();
                break;
            }
            assert!(
                Instant::now() < deadline,
                "no {prompt:?} on the terminal:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        for key in *keys {
            master.write_all(key).unwrap();
            master.flush().unwrap();
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let output = child.wait_with_output().unwrap();
    let stderr = screen.lock().unwrap().clone();
    Outcome {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).to_string(),
        stderr,
    }
}

#[test]
fn the_prompt_defaults_to_writing_nothing() {
    let test = two_idle_issues();
    let outcome = on_terminal(
        &test,
        &["stale-sweep", "--repo", REPO, "--json"],
        &[("Send these writes?", &[ENTER])],
    );
    outcome.expect_code(3);
    let recap = outcome.json();
    assert_eq!(recap["stopped"], "not_confirmed");
    assert_eq!(items(&recap["unfinished"]), numbers(1..=2));
    assert_eq!(recap["unfinished_reason"], "not confirmed");
    assert!(
        outcome.stderr.contains("Planned writes (4 on 2 items)"),
        "{}",
        outcome.stderr
    );
    test.expect_no_writes();
}

#[test]
fn confirming_all_sends_every_planned_write() {
    let test = two_idle_issues();
    let outcome = on_terminal(
        &test,
        &["stale-sweep", "--repo", REPO, "--json"],
        &[("Send these writes?", &[UP, ENTER])],
    );
    outcome.expect_code(0);
    test.expect_writes(&[marked(1), marked(2)].concat());
}

#[test]
fn a_chosen_subset_is_written_and_the_rest_is_left_for_the_rerun() {
    let test = two_idle_issues();
    let outcome = on_terminal(
        &test,
        &["stale-sweep", "--repo", REPO, "--json"],
        &[
            ("Send these writes?", &[DOWN, ENTER]),
            ("Space selects", &[SPACE, ENTER]),
        ],
    );
    outcome.expect_code(3);
    let recap = outcome.json();
    assert_eq!(items(&recap["completed"]), numbers(1..=1));
    assert_eq!(items(&recap["unfinished"]), numbers(2..=2));
    assert_eq!(
        recap["rerun"],
        "gh-sweep stale-sweep --repo octo/demo --json --only 'octo/demo#2'"
    );
    test.expect_writes(&marked(1));
}

#[test]
fn poll_asks_before_enqueueing_only_with_confirm() {
    let test = Test::new(|world| {
        world.green_pr(1);
    });
    let outcome = on_terminal(
        &test,
        &["poll", "--repo", REPO, "--confirm", "--json"],
        &[("Send these writes?", &[ENTER])],
    );
    outcome.expect_code(3);
    assert_eq!(outcome.json()["unfinished_reason"], "not confirmed");
    // A queue entry is gh-sweep's own: no ceiling of GitHub's makes it wait.
    let totals = outcome
        .stderr
        .lines()
        .find(|line| line.contains("Plan: "))
        .unwrap_or_else(|| panic!("no totals line:\n{}", outcome.stderr));
    assert!(
        totals.contains("1 write on 1 item") && !totals.contains("at least"),
        "{totals}"
    );
    let outcome = on_terminal(&test, &["poll", "--repo", REPO, "--json"], &[]);
    outcome.expect_code(0);
    assert_eq!(
        outcome.json()["completed"][0]["disposition"],
        "enqueue-merge"
    );
    assert!(!outcome.stderr.contains("Send these writes?"));
}

/// Runs gh-sweep with stdout (and stdin, stderr) on a terminal and returns what it showed.
fn shown_on_terminal(mut command: std::process::Command) -> String {
    let (master, slave) = crate::support::open_pty(80);
    if !command.get_envs().any(|(name, _)| name == "TERM") {
        command.env("TERM", "xterm");
    }
    let mut child = command
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave))
        .spawn()
        .unwrap();
    let mut reader = master;
    let screen = std::thread::spawn(move || {
        let mut text = String::new();
        let mut buffer = [0u8; 4096];
        // Reading the master fails with EIO once the child and every copy of the slave end.
        while let Ok(count) = reader.read(&mut buffer) {
            if count == 0 {
                break;
            }
            text.push_str(&String::from_utf8_lossy(&buffer[..count]));
        }
        text
    });
    child.wait().unwrap();
    // The command keeps its copy of the terminal's slave end: closed, the reader sees the end.
    drop(command);
    screen.join().unwrap()
}

#[test]
fn colour_at_a_terminal_follows_no_color_below_the_flag() {
    // Only at a terminal does `--color auto` colour, so only here can NO_COLOR be told apart.
    let test = Test::new(|world| {
        world.open_issue(1, 5);
    });
    let heading = "\u{1b}[32m\u{1b}[1mCompleted (1)";
    let args = ["classify", "stale", "--repo", REPO];
    let mut command = test.std_command(&args);
    command.env_remove("NO_COLOR");
    let coloured = shown_on_terminal(command);
    assert!(
        coloured.contains(heading),
        "colour at a terminal: {coloured:?}"
    );
    let plain = shown_on_terminal(test.std_command(&args));
    assert!(
        plain.contains("Completed (1)") && !plain.contains('\u{1b}'),
        "NO_COLOR: {plain:?}"
    );
    // Issue 22, point 11: a `TERM=dumb` terminal gets no escape sequences either.
    let mut command = test.std_command(&args);
    command.env_remove("NO_COLOR").env("TERM", "dumb");
    let dumb = shown_on_terminal(command);
    assert!(
        dumb.contains("Completed (1)") && !dumb.contains('\u{1b}'),
        "TERM=dumb: {dumb:?}"
    );
    let forced = shown_on_terminal(test.std_command(&[&args[..], &["--color", "always"]].concat()));
    assert!(
        forced.contains(heading),
        "--color always over NO_COLOR: {forced:?}"
    );
}

/// Issue 22, points 6 and 8, at 80 columns: the plan ends with one line of totals and the least
/// time the writes take, printed last, right above the prompt; `-q` hides the table but never
/// that line, so nobody confirms what they were not shown.
#[test]
fn the_plan_ends_with_its_totals_above_the_prompt_even_under_quiet() {
    for quiet in [false, true] {
        let test = two_idle_issues();
        let mut args = vec!["stale-sweep", "--repo", REPO, "--json"];
        if quiet {
            args.push("-q");
        }
        let outcome = on_terminal_of(80, &test, &args, &[("Send these writes?", &[ENTER])]);
        outcome.expect_code(3);
        let totals = "Plan: 2 mark-stale — 4 writes on 2 items, at least";
        let at = outcome
            .stderr
            .find(totals)
            .unwrap_or_else(|| panic!("quiet={quiet}: no totals line:\n{}", outcome.stderr));
        let prompt = outcome.stderr.find("Send these writes?").unwrap();
        assert!(
            at < prompt,
            "quiet={quiet}: the totals come before the prompt"
        );
        assert_eq!(
            outcome.stderr.contains("Planned writes"),
            !quiet,
            "quiet={quiet}: the table shows unless -q"
        );
        test.expect_no_writes();
    }
}

/// Issue 22, point 7: the picker works at 80 columns. Every row it draws fits the terminal (a
/// row that wraps makes each keypress redraw below the old page).
#[test]
fn the_picker_rows_fit_an_80_column_terminal() {
    let test = Test::new(|world| {
        for number in 1..=3 {
            world.open_issue(number, 74).title =
                "A title long enough that its picker row would wrap on an 80-column terminal"
                    .into();
        }
    });
    let outcome = on_terminal_of(
        80,
        &test,
        &["stale-sweep", "--repo", REPO, "--json"],
        &[
            ("Send these writes?", &[DOWN, ENTER]),
            ("Space selects", &[ENTER]),
        ],
    );
    outcome.expect_code(3);
    let picker = &outcome.stderr[outcome.stderr.find("Space selects").unwrap()..];
    // The screen as drawn: escape sequences out, each carriage return starting the line over.
    let mut plain = String::new();
    let mut chars = picker.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for next in chars.by_ref() {
                    if next.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        plain.push(c);
    }
    let rows: Vec<&str> = plain
        .split('\n')
        .map(|line| {
            let line = line.trim_end_matches('\r');
            line.rsplit('\r').next().unwrap_or(line)
        })
        .filter(|line| line.contains("octo/demo#"))
        .collect();
    assert!(!rows.is_empty(), "{plain}");
    for row in rows {
        assert!(
            row.chars().count() <= 80,
            "{} columns: {row:?}",
            row.chars().count()
        );
    }
    test.expect_no_writes();
}

/// A plan taller than the terminal (40 rows here) goes through the pager, as gh's output does:
/// `GH_SWEEP_PAGER` (here a shell line that keeps what it was given), with `LESS=FRX` when
/// `LESS` is unset; a plan that fits is printed as it is, and `cat` means no pager.
#[test]
fn a_plan_taller_than_the_terminal_goes_through_the_pager() {
    let test = Test::new(|world| {
        for number in 1..=45 {
            world.open_issue(number, 100);
        }
    });
    let pager = r#"echo "LESS=$LESS" > less.txt; cat > paged.txt"#;
    let args = ["stale-sweep", "--repo", REPO];
    let outcome = on_terminal_with(
        120,
        &test,
        &args,
        &[("GH_SWEEP_PAGER", pager), ("PAGER", "more")],
        &[("Send these writes?", &[ENTER])],
    );
    assert_eq!(outcome.code, 3, "nothing chosen: {}", outcome.stderr);
    let paged = std::fs::read_to_string(test.dir.path().join("paged.txt"))
        .unwrap_or_else(|error| panic!("nothing paged ({error}): {}", outcome.stderr));
    for number in [1, 23, 45] {
        assert!(
            paged.contains(&format!("octo/demo#{number} ")),
            "#{number} paged: {paged}"
        );
    }
    let less = std::fs::read_to_string(test.dir.path().join("less.txt")).unwrap();
    assert_eq!(less.trim(), "LESS=FRX");
    // The totals and the prompt are still on the terminal, after the pager.
    assert!(
        outcome.stderr.contains("Plan: 45 mark-stale"),
        "{}",
        outcome.stderr
    );
    // `cat`, or a plan that fits: no pager.
    std::fs::remove_file(test.dir.path().join("paged.txt")).unwrap();
    let outcome = on_terminal_with(
        120,
        &test,
        &args,
        &[("GH_SWEEP_PAGER", "cat"), ("PAGER", pager)],
        &[("Send these writes?", &[ENTER])],
    );
    assert_eq!(outcome.code, 3, "{}", outcome.stderr);
    assert!(!test.dir.path().join("paged.txt").exists());
    assert!(
        outcome.stderr.contains("octo/demo#45 "),
        "{}",
        outcome.stderr
    );
    test.expect_no_writes();
}
