//! Snapshots of gh-sweep's wire formats, byte for byte: the recap as a table, as JSON and as
//! Markdown (the job summary and `recap --markdown`), the plan table, and the main error
//! messages. They pin the outside so a restructuring of the inside proves it unchanged.
//!
//! Each snapshot holds one run: its exit code, stdout and stderr (and the summary file when
//! the run wrote one). The world's clock and gh-sweep's are both fixed at [`NOW`]; only what
//! truly varies between two runs of the same test is scrubbed (see [`Scrubber`]).
//!
//! A snapshot that does not match fails the test: insta writes the new output beside it as a
//! `.snap.new` file for review, and never overwrites an accepted snapshot unless asked
//! (`INSTA_UPDATE=always`, or `cargo insta review`).

use chrono::{DateTime, Utc};

use crate::support::{issue, marked, Fault, Outcome, Test, WorldState, REPO, TOKEN, VIEWER};

/// The moment every pinned run happens, on the world's clock and on gh-sweep's
/// (`GH_SWEEP_TEST_NOW`). Far from today on purpose: a decision taken on the machine's clock
/// instead would show in a snapshot as a wrong count of days.
const NOW: &str = "2025-03-04T05:06:07Z";

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(NOW)
        .unwrap()
        .with_timezone(&Utc)
}

/// A test whose world stands at [`NOW`].
fn world(setup: impl FnOnce(&mut WorldState)) -> Test {
    Test::new(|world| {
        world.now = now();
        setup(world);
    })
}

/// [`world`], read through REST when `rest` is set: the recaps and plans are pinned once and
/// must read the same through either API (issue 13: both read paths give identical recaps).
fn world_through(rest: bool, setup: impl FnOnce(&mut WorldState)) -> Test {
    let test = world(setup);
    if rest {
        test.read_with_rest();
    }
    test
}

/// Both read APIs: the default (GraphQL), then REST.
const BOTH_APIS: [bool; 2] = [false, true];

/// What varies between two runs of one test, and nothing else. Plain string replacement,
/// each scrub for one reason:
/// - the test's temp folder (`[TMP]`): a new one per test, in paths the output names;
/// - the fake GitHub's address (`[API]`): a new port per test;
/// - the wall-clock times of the run (`[time]`): `started_at` and `finished_at` are taken
///   from the machine's clock, not the fixed one; every second from two minutes before the
///   command (a recap printed again shows the times of a run earlier in the same test) to
///   just after it is replaced, so a run that crosses a second reads the same;
/// - the version (`[version]`), where the recap names the gh-sweep that ran it: a release
///   changes it and nothing else;
/// - how long the write phase took (`in [duration].`, the closing stderr line): the machine's
///   clock again, and a busy machine's.
struct Scrubber {
    replacements: Vec<(String, String)>,
}

impl Scrubber {
    fn new(test: &Test, before: DateTime<Utc>, after: DateTime<Utc>) -> Scrubber {
        let mut replacements = vec![
            (test.server.base.clone(), "[API]".to_string()),
            (test.dir.path().display().to_string(), "[TMP]".to_string()),
        ];
        let mut second = before.timestamp() - 120;
        while second <= after.timestamp() + 1 {
            if let Some(time) = DateTime::from_timestamp(second, 0) {
                let text = time.format("%Y-%m-%dT%H:%M:%SZ").to_string();
                replacements.push((text, "[time]".to_string()));
            }
            second += 1;
        }
        let version = env!("CARGO_PKG_VERSION");
        for (from, to) in [
            (
                format!("\"version\":\"{version}\""),
                "\"version\":\"[version]\"",
            ),
            (format!("gh-sweep {version},"), "gh-sweep [version],"),
            (format!("gh-sweep {version} "), "gh-sweep [version] "),
        ] {
            replacements.push((from, to.to_string()));
        }
        for seconds in 0..60 {
            replacements.push((format!(" in {seconds} s."), " in [duration].".to_string()));
        }
        for minutes in 1..60 {
            replacements.push((format!(" in {minutes} min."), " in [duration].".to_string()));
        }
        Scrubber { replacements }
    }

    fn scrub(&self, text: &str) -> String {
        self.replacements
            .iter()
            .fold(text.to_string(), |text, (from, to)| text.replace(from, to))
    }
}

/// One run as a snapshot holds it.
struct Pinned {
    outcome: Outcome,
    summary: Option<String>,
    scrubber: Scrubber,
}

impl Pinned {
    fn text(&self) -> String {
        let mut text = format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            self.outcome.code,
            self.scrubber.scrub(&self.outcome.stdout),
            self.scrubber.scrub(&self.outcome.stderr)
        );
        if let Some(summary) = &self.summary {
            text.push_str("--- GITHUB_STEP_SUMMARY\n");
            text.push_str(&self.scrubber.scrub(summary));
        }
        text
    }
}

/// Runs gh-sweep at [`NOW`], with `GITHUB_STEP_SUMMARY` pointing at a file in the test's
/// folder when `summary` is set.
fn pin(test: &Test, args: &[&str], summary: bool) -> Pinned {
    let path = test.dir.path().join("summary.md");
    let _ = std::fs::remove_file(&path);
    let mut command = test.command(args);
    command.env("GH_SWEEP_TEST_NOW", NOW);
    if summary {
        command.env("GITHUB_STEP_SUMMARY", &path);
    }
    let before = Utc::now();
    let output = command.output().unwrap();
    let after = Utc::now();
    let outcome = Outcome {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).to_string(),
        stderr: String::from_utf8_lossy(&output.stderr).to_string(),
    };
    assert!(
        !outcome.stdout.contains(TOKEN) && !outcome.stderr.contains(TOKEN),
        "the token leaked into the output"
    );
    let summary = summary.then(|| std::fs::read_to_string(&path).unwrap_or_default());
    Pinned {
        outcome,
        summary,
        scrubber: Scrubber::new(test, before, after),
    }
}

/// Asserts a snapshot of `tests/cli/snapshots/{name}.snap`. A mismatch, or a snapshot not yet
/// accepted, fails the test with or without `CI` set (insta's default: without `CI` it also
/// leaves the new text in a `.snap.new` file beside it); only `INSTA_UPDATE=always`, given by
/// hand to accept, writes over an accepted snapshot.
macro_rules! pinned {
    ($name:expr, $pinned:expr) => {{
        let text = $pinned.text();
        insta::with_settings!({
            snapshot_path => "snapshots",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!($name, text);
        });
    }};
}

// ---------------------------------------------------------------------------------------------
// The recap, in three formats, for four kinds of run.

/// One issue kept, one marked, one closed.
fn marks_and_closes(world: &mut WorldState) {
    world.open_issue(1, 5);
    world.open_issue(2, 74);
    world.stale_issue(3, 8, VIEWER);
}

/// #2's label and comment, then #3's comment and close.
fn marks_and_closes_writes() -> Vec<String> {
    let mut writes = marked(2);
    writes.push(format!("POST {}/comments", issue(3)));
    writes.push(format!("PATCH {}", issue(3)));
    writes
}

#[test]
fn recap_of_a_stale_sweep_that_marks_and_closes() {
    for rest in BOTH_APIS {
        let test = world_through(rest, marks_and_closes);
        let run = pin(&test, &["stale-sweep", "--repo", REPO, "--yes"], true);
        test.expect_writes(&marks_and_closes_writes());
        pinned!("stale_marks_and_closes.table", run);
        pinned!(
            "stale_marks_and_closes.recap_markdown",
            pin(&test, &["recap", "--markdown"], false)
        );

        let test = world_through(rest, marks_and_closes);
        let run = pin(
            &test,
            &["stale-sweep", "--repo", REPO, "--yes", "--json"],
            false,
        );
        test.expect_writes(&marks_and_closes_writes());
        pinned!("stale_marks_and_closes.json", run);
    }
}

/// A green PR, enqueued by a `poll` tick that is not pinned here.
fn enqueued(rest: bool) -> Test {
    let test = world_through(rest, |world| {
        world.green_pr(1);
    });
    pin(&test, &["poll", "--repo", REPO], false);
    test
}

#[test]
fn recap_of_a_sweep_that_merges() {
    for rest in BOTH_APIS {
        let merge = format!("PUT /repos/{REPO}/pulls/1/merge");
        let test = enqueued(rest);
        let run = pin(&test, &["sweep", "--repo", REPO, "--yes"], true);
        test.expect_writes(&[&merge]);
        pinned!("sweep_merges.table", run);
        pinned!(
            "sweep_merges.recap_markdown",
            pin(&test, &["recap", "--markdown"], false)
        );

        let test = enqueued(rest);
        let run = pin(&test, &["sweep", "--repo", REPO, "--yes", "--json"], false);
        test.expect_writes(&[&merge]);
        pinned!("sweep_merges.json", run);
    }
}

#[test]
fn recap_of_a_poll_that_enqueues() {
    for rest in BOTH_APIS {
        let test = world_through(rest, |world| {
            world.green_pr(1);
        });
        let run = pin(&test, &["poll", "--repo", REPO], true);
        test.expect_no_writes();
        pinned!("poll_enqueues.table", run);

        let test = world_through(rest, |world| {
            world.green_pr(1);
        });
        let run = pin(&test, &["poll", "--repo", REPO, "--json"], false);
        test.expect_no_writes();
        pinned!("poll_enqueues.json", run);
    }
}

/// Seven idle issues of which #2 to #5 cannot be read: the fourth failure is one past the
/// default budget of three, so #6 and #7 are never read. (`--only`: each item is read on its
/// own, where a pool page would carry them all.)
fn over_budget(test: &Test) {
    test.read_with_rest();
    for number in 2..=5 {
        test.fail("GET", &format!("/issues/{number}"), Fault::Status(404), 20);
    }
}

fn seven_idle(world: &mut WorldState) {
    for number in 1..=7 {
        world.open_issue(number, 74);
    }
}

#[test]
fn recap_of_a_run_that_stops_on_the_item_failure_budget() {
    let test = world(seven_idle);
    over_budget(&test);
    let run = pin(
        &test,
        &["stale-sweep", "--repo", REPO, "--yes", "--only", "#1-#7"],
        true,
    );
    test.expect_no_writes();
    pinned!("budget_exhausted.table", run);
    pinned!(
        "budget_exhausted.recap_markdown",
        pin(&test, &["recap", "--markdown"], false)
    );

    let test = world(seven_idle);
    over_budget(&test);
    let run = pin(
        &test,
        &[
            "stale-sweep",
            "--repo",
            REPO,
            "--yes",
            "--json",
            "--only",
            "#1-#7",
        ],
        false,
    );
    test.expect_no_writes();
    pinned!("budget_exhausted.json", run);
}

#[test]
fn recap_of_a_dry_run() {
    for rest in BOTH_APIS {
        let test = world_through(rest, marks_and_closes);
        let run = pin(&test, &["stale-sweep", "--repo", REPO, "--dry-run"], true);
        test.expect_no_writes();
        pinned!("dry_run.table", run);
        pinned!(
            "dry_run.recap_markdown",
            pin(&test, &["recap", "--markdown"], false)
        );

        let test = world_through(rest, marks_and_closes);
        let run = pin(
            &test,
            &["stale-sweep", "--repo", REPO, "--dry-run", "--json"],
            false,
        );
        test.expect_no_writes();
        pinned!("dry_run.json", run);
    }
}

// ---------------------------------------------------------------------------------------------
// The plan table.

#[test]
fn plan_of_classify_stale() {
    for rest in BOTH_APIS {
        let test = world_through(rest, marks_and_closes);
        pinned!(
            "plan.classify_stale",
            pin(&test, &["classify", "stale", "--repo", REPO], false)
        );
    }
}

#[test]
fn plan_of_classify_merge() {
    for rest in BOTH_APIS {
        let test = world_through(rest, |world| {
            world.green_pr(1);
            world.open_pr(2, 1).files = vec![("src/main.rs".into(), None)];
        });
        pinned!(
            "plan.classify_merge",
            pin(&test, &["classify", "merge", "--repo", REPO], false)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The main error messages.

fn one_idle(world: &mut WorldState) {
    world.open_issue(1, 74);
}

#[test]
fn error_for_a_bad_option_value() {
    let test = world(one_idle);
    let run = pin(
        &test,
        &[
            "classify",
            "stale",
            "--repo",
            REPO,
            "--item-failure-budget",
            "10 %",
        ],
        false,
    );
    assert!(test.all_requests().is_empty());
    pinned!("error.bad_option_value", run);
}

#[test]
fn error_for_an_unknown_option() {
    let test = world(one_idle);
    let run = pin(&test, &["stale-sweep", "--repo", REPO, "--dry-rn"], false);
    assert!(test.all_requests().is_empty());
    pinned!("error.unknown_option", run);
}

#[test]
fn error_for_a_bad_config_key() {
    let test = world(one_idle);
    std::fs::write(test.config_path(), "[poll]\nmerge_method = \"squash\"\n").unwrap();
    let run = pin(&test, &["classify", "stale", "--repo", REPO], false);
    assert!(test.all_requests().is_empty());
    pinned!("error.bad_config_key", run);
}

#[test]
fn error_for_a_refused_token() {
    let test = world(one_idle);
    test.read_with_rest();
    test.fail("GET", "/issues", Fault::Status(401), 5);
    let run = pin(&test, &["stale-sweep", "--repo", REPO, "--yes"], false);
    test.expect_no_writes();
    pinned!("error.auth_401", run);
}

#[test]
fn error_for_a_missing_repository() {
    let test = world(one_idle);
    let run = pin(
        &test,
        &["stale-sweep", "--repo", "octo/nothere", "--yes"],
        false,
    );
    test.expect_no_writes();
    pinned!("error.repository_404", run);
}

#[test]
fn error_for_an_outage() {
    let test = world(one_idle);
    test.read_with_rest();
    test.fail("GET", "/issues", Fault::Status(502), 10);
    let run = pin(&test, &["stale-sweep", "--repo", REPO, "--yes"], false);
    test.expect_no_writes();
    pinned!("error.outage_5xx", run);
}

#[test]
fn error_for_a_bad_selector() {
    let test = world(one_idle);
    let run = pin(
        &test,
        &[
            "stale-sweep",
            "--repo",
            REPO,
            "--dry-run",
            "--only",
            "#3-#1",
        ],
        false,
    );
    assert!(test.all_requests().is_empty());
    pinned!("error.bad_selector", run);
}

#[test]
fn error_for_a_db_in_a_missing_folder() {
    let test = world(one_idle);
    let db = test.dir.path().join("typo/state.db");
    let run = pin(
        &test,
        &[
            "classify",
            "stale",
            "--repo",
            REPO,
            "--db",
            db.to_str().unwrap(),
        ],
        false,
    );
    assert!(test.all_requests().is_empty());
    assert!(!db.exists());
    pinned!("error.db_in_missing_folder", run);
}
