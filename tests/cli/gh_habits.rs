//! gh's habits (issue 11, point 20): `-R` takes `HOST/OWNER/NAME` and GitHub URLs, `--only 12`
//! is an item of the single `--repo`, `o/r#2-10` is a range, and with no `--repo` a run inside
//! a git clone uses the repository gh itself would, saying so, and refuses when that is
//! ambiguous or when a write run has no terminal to show it on.

use crate::support::{items, Test, REPO};

fn world() -> Test {
    Test::new(|world| {
        for number in 1..=3 {
            world.open_issue(number, 5);
        }
    })
}

/// Makes the test's folder (the binary's cwd) a git clone with these remotes and marks.
fn clone_with(test: &Test, config: &[(&str, &str)]) {
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(test.dir.path())
            .env("HOME", test.dir.path().join("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .expect("git runs");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q", "."]);
    for (key, value) in config {
        git(&["config", key, value]);
    }
}

fn classified(outcome: &crate::support::Outcome) -> Vec<String> {
    items(&outcome.json()["completed"])
}

#[test]
fn repo_takes_a_host_and_github_urls_as_gh_does() {
    let test = world();
    for form in [
        "github.com/octo/demo",
        "https://github.com/octo/demo",
        "https://github.com/octo/demo.git",
        "git@github.com:octo/demo.git",
    ] {
        let outcome = test.run(&["classify", "stale", "-R", form, "--json"]);
        outcome.expect_code(0);
        assert_eq!(
            classified(&outcome),
            ["octo/demo#1", "octo/demo#2", "octo/demo#3"],
            "{form}"
        );
    }
}

#[test]
fn a_repo_on_another_host_than_the_api_is_an_error_naming_both() {
    let test = world();
    let outcome = test.run(&["classify", "stale", "-R", "ghe.example.com/octo/demo"]);
    outcome.expect_code(2);
    assert!(
        outcome
            .stderr
            .contains("it is on ghe.example.com, but this run's API is github.com"),
        "{}",
        outcome.stderr
    );
    assert!(test.requests().is_empty(), "nothing read");
}

#[test]
fn only_takes_bare_numbers_and_ranges_of_the_single_repo() {
    let test = world();
    for (only, expected) in [
        ("2", &["octo/demo#2"][..]),
        ("#1,#3", &["octo/demo#1", "octo/demo#3"][..]),
        ("octo/demo#2-3", &["octo/demo#2", "octo/demo#3"][..]),
        ("octo/demo#1-#2", &["octo/demo#1", "octo/demo#2"][..]),
    ] {
        let outcome = test.run(&[
            "classify", "stale", "--repo", REPO, "--only", only, "--json",
        ]);
        outcome.expect_code(0);
        assert_eq!(classified(&outcome), expected, "--only {only}");
    }
}

#[test]
fn the_rerun_line_keeps_printing_ranges_with_both_hashes() {
    // No issue 2 to 10 is there: each is an item failure (404), the budget stops the run, and
    // the rerun line names all nine again, in the recap's own form.
    let test = Test::new(|_| {});
    let outcome = test.run(&["classify", "stale", "--only", "octo/demo#2-10", "--json"]);
    let rerun = outcome.json()["rerun"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(rerun.contains("octo/demo#2-#10"), "{rerun}");
}

#[test]
fn inside_a_clone_the_only_github_remote_is_the_repository() {
    let test = world();
    clone_with(
        &test,
        &[
            ("remote.origin.url", "git@github.com:octo/demo.git"),
            (
                "remote.mirror.url",
                "https://gitlab.example.com/octo/other.git",
            ),
        ],
    );
    let outcome = test.run(&["classify", "stale", "--json"]);
    outcome.expect_code(0);
    assert_eq!(
        classified(&outcome),
        ["octo/demo#1", "octo/demo#2", "octo/demo#3"]
    );
    assert!(
        outcome
            .stderr
            .contains("using octo/demo, the gh default of this clone"),
        "{}",
        outcome.stderr
    );
    // `--only 2` is then an item of that repository.
    let one = test.run(&["classify", "stale", "--only", "2", "--json"]);
    one.expect_code(0);
    assert_eq!(classified(&one), ["octo/demo#2"]);
}

#[test]
fn a_fork_clone_takes_the_remote_gh_repo_set_default_marked() {
    let test = world();
    clone_with(
        &test,
        &[
            ("remote.origin.url", "https://github.com/me/demo.git"),
            ("remote.upstream.url", "https://github.com/octo/demo.git"),
            ("remote.upstream.gh-resolved", "base"),
        ],
    );
    let outcome = test.run(&["classify", "stale", "--json"]);
    outcome.expect_code(0);
    assert_eq!(
        classified(&outcome),
        ["octo/demo#1", "octo/demo#2", "octo/demo#3"]
    );
    assert!(
        outcome
            .stderr
            .contains("using octo/demo, the gh default of this clone (remote `upstream`)"),
        "{}",
        outcome.stderr
    );
}

#[test]
fn a_fork_clone_without_a_gh_default_is_refused_naming_the_remotes_and_the_fix() {
    let test = world();
    clone_with(
        &test,
        &[
            ("remote.origin.url", "https://github.com/me/demo.git"),
            ("remote.upstream.url", "https://github.com/octo/demo.git"),
        ],
    );
    let outcome = test.run(&["classify", "stale"]);
    outcome.expect_code(2);
    for expected in [
        "origin (me/demo)",
        "upstream (octo/demo)",
        "pass --repo OWNER/NAME",
        "gh repo set-default",
    ] {
        assert!(
            outcome.stderr.contains(expected),
            "{expected}: {}",
            outcome.stderr
        );
    }
    assert!(test.requests().is_empty(), "nothing read");
}

#[test]
fn a_write_run_without_a_terminal_must_name_its_repo() {
    let test = world();
    clone_with(
        &test,
        &[("remote.origin.url", "https://github.com/octo/demo")],
    );
    let outcome = test.run(&["stale-sweep", "--yes"]);
    outcome.expect_code(2);
    assert!(
        outcome
            .stderr
            .contains("a run that writes from cron names its repository; pass --repo octo/demo"),
        "{}",
        outcome.stderr
    );
    assert!(test.requests().is_empty(), "nothing read");
    test.expect_no_writes();
    // A dry run may take it: it writes nothing.
    test.run(&["stale-sweep", "--dry-run"]).expect_code(0);
}

#[test]
fn outside_a_clone_there_is_no_default() {
    let test = world();
    let outcome = test.run(&["classify", "stale"]);
    outcome.expect_code(2);
    assert!(
        outcome.stderr.contains("no repository given"),
        "{}",
        outcome.stderr
    );
}
