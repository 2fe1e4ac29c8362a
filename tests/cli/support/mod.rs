//! The harness: a fresh world, server, home, database and config per test; the real binary run
//! in a pinned environment; and an audit at the end that every write was expected.

// The fake GitHub: its server (requests, faults, conditional answers) and its routes, by
// resource; the world they read and change.
mod branches;
mod checks;
mod collaborators;
pub mod graphql;
pub mod graphql_world;
mod issues;
/// The throwaway PostgreSQL the store's unit tests use too.
#[cfg(feature = "postgres")]
#[path = "../../../src/store/postgres/test_server.rs"]
pub mod pg;
mod pulls;
mod rate_limit;
mod repos;
pub mod runs;
pub mod schema;
mod search;
pub mod server;
mod users;
pub mod world;

use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::MutexGuard;

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

pub use runs::{attempts, db, later, merge, operations, sweep, sweep_at, two_idle_issues};
pub use server::{Fault, Request, Server, Shared};
pub use world::{WorldState, REPO, VIEWER};

/// A token nobody should ever see: every test output is searched for it.
pub const TOKEN: &str = "ghp_SENTINELtoken0123456789SECRET";

/// Config every test starts with: no pacing, no retry sleeps.
/// `settle_after_seconds = 0`: a write not found on GitHub is settled at once (the tests of
/// the grace period set it).
const BASE_CONFIG: &str = "write_interval = 0\nretry_backoff_ms = 0\nmax_retry_wait_seconds = 0\nsearch_interval_ms = 0\nsettle_after_seconds = 0\n";

pub struct Test {
    pub server: Server,
    pub dir: TempDir,
    audited: Cell<bool>,
    /// The config line that picks the read API, when a test pins one.
    read_api: Cell<&'static str>,
    /// The verdicts of every JSON recap a run printed, in order (see [`Test::each_api`]).
    recaps: Rc<RefCell<Vec<Value>>>,
}

#[derive(Debug)]
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|error| {
            panic!(
                "stdout is not JSON ({error}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

impl Test {
    pub fn new(setup: impl FnOnce(&mut WorldState)) -> Test {
        let mut world = WorldState::new();
        setup(&mut world);
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".github")).unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        let test = Test {
            server: Server::start(world),
            dir,
            audited: Cell::new(false),
            read_api: Cell::new(""),
            recaps: Rc::default(),
        };
        test.config("");
        test
    }

    /// [`Test::new`] for a test about REST's own requests (their paths, counts and faults):
    /// its config reads with REST, whatever the default read API is.
    pub fn rest(setup: impl FnOnce(&mut WorldState)) -> Test {
        let test = Test::new(setup);
        test.read_with_rest();
        test
    }

    /// Runs one scenario through both read APIs on the same world (issue 13: both read paths
    /// give the same verdicts, recap and writes): builds the world from `setup` twice, once read
    /// with GraphQL (the default, named in the config all the same) and once with REST
    /// ([`Test::rest`]), and hands each test to `check` with its API's name. An assertion about
    /// REST's own requests (their paths and counts) goes under `api == "rest"`; every other
    /// assertion holds for both. Then the JSON recaps of the two are compared, run by run: the
    /// same verdicts through each API.
    pub fn each_api(setup: impl Fn(&mut WorldState), check: impl Fn(Test, &str)) {
        let mut recaps = Vec::new();
        for api in ["graphql", "rest"] {
            let test = Test::new(&setup);
            test.read_api.set(if api == "rest" {
                "read_api = \"rest\"\n"
            } else {
                "read_api = \"graphql\"\n"
            });
            test.config("");
            // Printed with a failure's output: which read path failed.
            eprintln!("the scenario read with {api}");
            let recorded = Rc::clone(&test.recaps);
            check(test, api);
            recaps.push(recorded.take());
        }
        assert_eq!(
            recaps[0], recaps[1],
            "the recaps read with GraphQL (left) and REST (right)"
        );
    }

    /// Keeps a JSON recap's verdicts for [`Test::each_api`]: all of it but its times (each
    /// world is built at its own moment, so a stamp in a detail is masked), the fake's address,
    /// and a failed item's reason, which quotes GitHub's answer as each API words it.
    fn record(&self, outcome: &Outcome) {
        let stdout = mask_times(&outcome.stdout.replace(&self.server.base, "{github}"));
        let Ok(Value::Object(mut recap)) = serde_json::from_str::<Value>(&stdout) else {
            return;
        };
        for key in ["started_at", "finished_at"] {
            recap.remove(key);
        }
        if let Some(Value::Array(failed)) = recap.get_mut("failed") {
            for item in failed.iter_mut().filter_map(Value::as_object_mut) {
                item.remove("reason");
            }
        }
        self.recaps.borrow_mut().push(Value::Object(recap));
    }

    /// Makes a test built by a shared helper one about REST's own requests (see [`Test::rest`]);
    /// the config goes back to the base config.
    pub fn read_with_rest(&self) {
        self.read_api.set("read_api = \"rest\"\n");
        self.config("");
    }

    /// Replaces the config file with the base config plus `extra`.
    pub fn config(&self, extra: &str) {
        // A key in `extra` replaces the base config's line for it.
        let key = |line: &str| {
            line.split('=')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        let base: String = format!("{BASE_CONFIG}read_retries = 2\n{}", self.read_api.get())
            .lines()
            .filter(|line| !extra.lines().any(|extra| key(extra) == key(line)))
            .map(|line| format!("{line}\n"))
            .collect();
        std::fs::write(self.config_path(), format!("{base}{extra}")).unwrap();
    }

    pub fn config_path(&self) -> PathBuf {
        self.dir.path().join(".github/gh-sweep.toml")
    }

    pub fn db_path(&self) -> PathBuf {
        self.dir.path().join("state/gh-sweep/state.db")
    }

    pub fn world(&self) -> MutexGuard<'_, Shared> {
        self.server.lock()
    }

    /// The binary in a pinned environment: temp home, state and cwd, the fake GitHub, no
    /// terminal, no colour.
    pub fn command(&self, args: &[&str]) -> Command {
        Command::from_std(self.std_command(args))
    }

    pub fn std_command(&self, args: &[&str]) -> std::process::Command {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("gh-sweep"));
        command
            .env_clear()
            .current_dir(self.dir.path())
            .env("HOME", self.dir.path().join("home"))
            .env("XDG_STATE_HOME", self.dir.path().join("state"))
            .env("XDG_CONFIG_HOME", self.dir.path().join("home/.config"))
            .env("GITHUB_API_URL", &self.server.base)
            .env("GH_TOKEN", TOKEN)
            .env("COLUMNS", "120")
            .env("NO_COLOR", "1")
            .args(args);
        command
    }

    pub fn run(&self, args: &[&str]) -> Outcome {
        let output = self.command(args).output().unwrap();
        let outcome = Outcome {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).to_string(),
        };
        assert!(
            !outcome.stdout.contains(TOKEN) && !outcome.stderr.contains(TOKEN),
            "the token leaked into the output"
        );
        assert!(
            !outcome.stderr.contains("panicked"),
            "gh-sweep panicked:\n{}",
            outcome.stderr
        );
        self.record(&outcome);
        outcome
    }

    /// The requests gh-sweep sent, but for its once-a-run read of each repository's canonical
    /// name (`GET /repos/{owner}/{repo}`, issue 9 rule 6), which tests of that rule count with
    /// [`Test::all_requests`]. Every other count stays what the run's own reads cost.
    pub fn requests(&self) -> Vec<Request> {
        self.all_requests()
            .into_iter()
            .filter(|request| !request.is_repository_name_read())
            .collect()
    }

    /// Every request gh-sweep sent, in order.
    pub fn all_requests(&self) -> Vec<Request> {
        self.world().log.clone()
    }

    pub fn writes(&self) -> Vec<String> {
        self.requests()
            .iter()
            .filter(|r| r.is_write())
            .map(Request::line)
            .collect()
    }

    pub fn clear_log(&self) {
        self.world().log.clear();
    }

    /// Asserts the exact writes sent since the log was last cleared, in order.
    #[track_caller]
    pub fn expect_writes<S: AsRef<str>>(&self, expected: &[S]) {
        let expected: Vec<&str> = expected.iter().map(AsRef::as_ref).collect();
        assert_eq!(self.writes(), expected, "writes sent to GitHub");
        self.audited.set(true);
    }

    /// Asserts the writes sent since the log was last cleared, in any order: for overlapping
    /// or killed runs, whose interleaving is not the test's to fix.
    #[track_caller]
    pub fn expect_writes_in_any_order<S: AsRef<str>>(&self, expected: &[S]) {
        let mut expected: Vec<&str> = expected.iter().map(AsRef::as_ref).collect();
        expected.sort_unstable();
        let mut sent = self.writes();
        sent.sort_unstable();
        assert_eq!(sent, expected, "writes sent to GitHub, in any order");
        self.audited.set(true);
    }

    #[track_caller]
    pub fn expect_no_writes(&self) {
        self.expect_writes::<&str>(&[]);
    }

    pub fn fail(&self, method: &str, path_contains: &str, fault: Fault, times: u32) {
        self.server.fail(method, path_contains, fault, times);
    }
}

impl Drop for Test {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let shared = self.server.lock();
        assert!(
            shared.unknown_routes.is_empty(),
            "gh-sweep called routes the fake GitHub does not know: {:?}",
            shared.unknown_routes
        );
        let writes: Vec<String> = shared
            .log
            .iter()
            .filter(|r| r.is_write())
            .map(Request::line)
            .collect();
        assert!(
            self.audited.get() || writes.is_empty(),
            "writes nobody expected (audit with expect_writes): {writes:?}"
        );
    }
}

/// `text` with every RFC 3339 time (`2026-12-04T17:08:26+00:00`, `...Z`, with or without
/// fractions) replaced by `{time}`.
fn mask_times(text: &str) -> String {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:dd";
    let bytes = text.as_bytes();
    let fits = |at: usize| {
        bytes.len() >= at + SHAPE.len()
            && SHAPE
                .iter()
                .zip(&bytes[at..])
                .all(|(shape, byte)| match shape {
                    b'd' => byte.is_ascii_digit(),
                    other => other == byte,
                })
    };
    let mut masked = String::with_capacity(text.len());
    let mut at = 0;
    let mut copied = 0;
    while at < bytes.len() {
        if !fits(at) {
            at += 1;
            continue;
        }
        masked.push_str(&text[copied..at]);
        masked.push_str("{time}");
        at += SHAPE.len();
        let zone = |byte: &u8| byte.is_ascii_digit() || b".:+-Z".contains(byte);
        while at < bytes.len() && zone(&bytes[at]) {
            at += 1;
        }
        copied = at;
    }
    masked.push_str(&text[copied..]);
    masked
}

/// The two writes that mark `octo/demo#N` stale: the label, then the comment.
pub fn marked(number: u64) -> Vec<String> {
    vec![
        format!("POST {}/labels", issue(number)),
        format!("POST {}/comments", issue(number)),
    ]
}

/// The issue path of `octo/demo#N`.
pub fn issue(number: u64) -> String {
    format!("/repos/{REPO}/issues/{number}")
}

impl Test {
    /// Runs a command line as the recap printed it (`gh-sweep stale-sweep --repo o/r --only '...'`).
    pub fn run_line(&self, line: &str, extra: &[&str]) -> Outcome {
        let words = shell_words(line);
        assert_eq!(words[0], "gh-sweep", "{line}");
        let mut args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        args.extend_from_slice(extra);
        self.run(&args)
    }

    pub fn run_without_token(&self, args: &[&str]) -> Outcome {
        let output = self
            .command(args)
            .env_remove("GH_TOKEN")
            .env("PATH", "/nonexistent")
            .output()
            .unwrap();
        Outcome {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).to_string(),
        }
    }
}

/// Splits a command line the way a POSIX shell would for the quoting gh-sweep prints.
pub fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                in_word = true;
            }
            ' ' if !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            _ => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

/// The `item` fields of a recap group.
pub fn items(group: &Value) -> Vec<String> {
    group
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            entry
                .get("item")
                .unwrap_or(entry)
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

pub fn numbers(range: std::ops::RangeInclusive<u64>) -> Vec<String> {
    range.map(|n| format!("{REPO}#{n}")).collect()
}

impl Test {
    /// Runs gh-sweep with its clock at `now` (`GH_SWEEP_TEST_NOW`, which only debug builds
    /// honour): time passing between two runs that write, where `--now` is refused.
    pub fn run_at(&self, now: &str, args: &[&str]) -> Outcome {
        let output = self
            .command(args)
            .env("GH_SWEEP_TEST_NOW", now)
            .output()
            .unwrap();
        let outcome = Outcome {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).to_string(),
        };
        assert!(
            !outcome.stdout.contains(TOKEN) && !outcome.stderr.contains(TOKEN),
            "the token leaked into the output"
        );
        assert!(
            !outcome.stderr.contains("panicked"),
            "gh-sweep panicked:\n{}",
            outcome.stderr
        );
        self.record(&outcome);
        outcome
    }
}

/// Everything a reader gives, as it comes, for a test to look at while the process still runs.
pub fn collect(
    mut source: impl std::io::Read + Send + 'static,
) -> std::sync::Arc<std::sync::Mutex<String>> {
    let text = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let sink = std::sync::Arc::clone(&text);
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(count) = source.read(&mut buffer) {
            if count == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buffer[..count]));
        }
    });
    text
}

/// Makes the terminal on the child's stdin its controlling terminal, as a shell's is: its own
/// session, so `/dev/tty` is that terminal.
#[cfg(unix)]
pub fn with_controlling_terminal(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// A pseudo-terminal `columns` wide and 40 rows high: the master end the test reads and types
/// on, and the slave end a child process gets as its terminal.
#[cfg(unix)]
pub fn open_pty(columns: u16) -> (std::fs::File, std::os::fd::OwnedFd) {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut master = 0;
    let mut slave = 0;
    let size = libc::winsize {
        ws_row: 40,
        ws_col: columns,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two fresh descriptors into `master` and `slave`, which are owned
    // from here on and by nothing else.
    unsafe {
        let result = libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        );
        assert_eq!(result, 0, "openpty");
        (
            std::fs::File::from(OwnedFd::from_raw_fd(master)),
            OwnedFd::from_raw_fd(slave),
        )
    }
}
