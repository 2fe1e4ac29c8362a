//! Bad input that used to reach GitHub as a wrong write (issue 10, points 9 to 13): dot
//! segments in repositories and labels, a config that cannot be read, numbers out of range,
//! malformed label lists and bidi controls in titles. Each is refused up front (exit 2, no
//! request) or is that item's own failure.

use serde_json::json;

use crate::support::{items, marked, Test, REPO};

#[test]
fn dot_segments_in_a_repository_are_refused_before_any_request() {
    // GitHub reserves `.` and `..` as repository names ("The repository . is reserved"); an
    // owner is a login, which never holds a dot at all. The URL library would resolve them as
    // dot segments: `--repo ../..` sent its writes to `/issues/1/labels`.
    let test = Test::new(|world| {
        world.open_issue(1, 90);
    });
    for repo in ["../..", "octo/.", "octo/..", "./demo", "../demo"] {
        let outcome = test.run(&["stale-sweep", "--repo", repo, "--yes"]);
        assert_eq!(outcome.code, 2, "{repo}: {}", outcome.stderr);
        assert!(
            outcome
                .stderr
                .contains(&format!("invalid repository `{repo}`")),
            "{repo}: {}",
            outcome.stderr
        );
    }
    for only in ["octo/..#1", "../..#1"] {
        let outcome = test.run(&["stale-sweep", "--only", only, "--yes"]);
        assert_eq!(outcome.code, 2, "{only}: {}", outcome.stderr);
    }
    assert!(test.requests().is_empty(), "no request for a dot segment");
}

#[test]
fn labels_named_dot_or_dot_dot_are_refused_in_the_config() {
    // `DELETE /repos/o/r/issues/1/labels/..` is `DELETE /repos/o/r/issues/1/` once the URL is
    // normalised, and `%2E%2E` is normalised the same way, so no encoding makes it safe.
    let test = Test::new(|world| {
        world.open_issue(1, 90);
    });
    let cases = [
        "[stale]\nstale_issue_label = '..'\n",
        "[stale]\nstale_pr_label = '.'\n",
        "[stale]\nclose_issue_label = '..'\n",
        "[stale]\nlabels_to_remove_when_unstale = ['ok', '..']\n",
        "[stale]\nlabels_to_add_when_unstale = ['.']\n",
        "[stale]\nlabels_to_remove_when_stale = ['..']\n",
    ];
    for config in cases {
        test.config(config);
        let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes"]);
        assert_eq!(outcome.code, 2, "{config:?}: {}", outcome.stderr);
        assert!(
            outcome
                .stderr
                .contains("is not a label name GitHub can address"),
            "{config:?}: {}",
            outcome.stderr
        );
    }
    assert!(test.requests().is_empty());
}

#[test]
fn a_config_that_cannot_be_read_is_an_error_not_the_defaults() {
    // A config file that exists but cannot be read (a permission error, a symlink loop) must
    // not fall back to the defaults: they would write what the config forbids.
    let test = Test::new(|world| {
        world.open_issue(1, 90);
    });
    let config = test.config_path();
    std::fs::remove_file(&config).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&config, &config).unwrap();
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes"]);
    assert_eq!(outcome.code, 2, "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains("cannot read config file")
            && outcome.stderr.contains("gh-sweep.toml"),
        "{}",
        outcome.stderr
    );
    // The same through --config: not "does not exist".
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--config",
        ".github/gh-sweep.toml",
    ]);
    assert_eq!(outcome.code, 2, "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains("cannot read config file")
            && !outcome.stderr.contains("does not exist"),
        "{}",
        outcome.stderr
    );
    assert!(test.requests().is_empty());
}

#[test]
fn numeric_settings_out_of_range_are_refused_naming_the_range() {
    let test = Test::new(|world| {
        world.open_issue(1, 90);
    });
    let cases: &[(&str, &str)] = &[
        (
            "timeout_seconds = 9223372036854775807\n",
            "invalid timeout_seconds = 9223372036854775807: use seconds from 1 to 600",
        ),
        ("timeout_seconds = 0\n", "invalid timeout_seconds = 0"),
        (
            "retry_backoff_ms = 99999999999\n",
            "invalid retry_backoff_ms = 99999999999: use milliseconds from 0 to 60000",
        ),
        (
            "read_retries = 4000000000\n",
            "invalid read_retries = 4000000000: use a count from 0 to 10",
        ),
        (
            "search_interval_ms = 99999999999\n",
            "invalid search_interval_ms = 99999999999",
        ),
        (
            "max_retry_wait_seconds = 99999999\n",
            "invalid max_retry_wait_seconds = 99999999",
        ),
        (
            "max_wait_seconds = 86401\n",
            "invalid max_wait_seconds = 86401: use seconds from 0 to 86400",
        ),
        (
            "recheck_after_seconds = 99999999999\n",
            "invalid recheck_after_seconds = 99999999999",
        ),
        (
            "[stale]\ndays_before_stale = 9223372036854775807\n",
            "invalid [stale] days_before_stale = 9223372036854775807",
        ),
    ];
    for (config, expected) in cases {
        test.config(config);
        let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes"]);
        assert_eq!(outcome.code, 2, "{config:?}: {}", outcome.stderr);
        assert!(
            outcome.stderr.contains(expected),
            "{config:?}: expected {expected:?} in\n{}",
            outcome.stderr
        );
    }
    assert!(test.requests().is_empty());
}

#[test]
fn only_is_capped_in_total_not_per_range() {
    // 40 adjacent ranges of 99,999 items each passed the per-range cap and took 2.2 GB.
    let test = Test::new(|_| {});
    let ranges: Vec<String> = (0..40u64)
        .map(|index| {
            let start = index * 99_999 + 1;
            format!("#{start}-#{}", start + 99_998)
        })
        .collect();
    let only = format!("{REPO}{}", ranges.join(","));
    let outcome = test.run(&["classify", "stale", "--only", &only]);
    assert_eq!(outcome.code, 2, "{}", outcome.stderr);
    assert!(
        outcome
            .stderr
            .contains("names more than 100000 items in all"),
        "{}",
        outcome.stderr
    );
    assert!(test.requests().is_empty());
}

#[test]
fn a_null_label_list_is_the_items_failure_not_no_labels() {
    // GitHub's issue schema (OpenAPI `issue`) requires `labels` as an array of label objects
    // (or names); `null` or a `null` entry is malformed, and reading it as "no labels" would
    // fail open past an exempt label.
    let test = Test::rest(|world| {
        world.open_issue(1, 90).labels = vec!["pinned".into()];
        world.issue(1).patch = Some(json!({"labels": null}));
        world.open_issue(2, 90).labels = vec!["pinned".into()];
        world.issue(2).patch = Some(json!({"labels": [null]}));
        world.open_issue(3, 90);
        world.issue(3).patch = Some(json!({"labels": ["pinned"]}));
    });
    test.config("[stale]\nexempt_issue_labels = ['pinned']\n");
    let recap = test
        .run(&["classify", "stale", "--repo", REPO, "--json"])
        .json();
    let failed = items(&recap["failed"]);
    assert_eq!(failed, ["octo/demo#1", "octo/demo#2"], "{recap:#}");
    // A label given by name, as the schema allows, is still a label: #3 is exempt.
    let completed = &recap["completed"];
    let third = completed
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["item"] == "octo/demo#3")
        .unwrap_or_else(|| panic!("#3 completed: {recap:#}"));
    assert!(
        third["disposition"]
            .as_str()
            .unwrap_or_default()
            .contains("pinned"),
        "{third:#}"
    );
}

#[test]
fn bidi_controls_in_titles_are_escaped() {
    // U+202E (RIGHT-TO-LEFT OVERRIDE) is a format character, not a control character, but it
    // reorders what a terminal shows just as well.
    let test = Test::new(|world| {
        world.open_issue(1, 90).title = "fix \u{202E}gpj.exe".into();
    });
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes"]);
    outcome.expect_code(0);
    test.expect_writes(&marked(1));
    let shown = format!("{}{}", outcome.stdout, outcome.stderr);
    assert!(
        shown.contains("gpj.exe"),
        "the plan shows the title:\n{shown}"
    );
    assert!(!shown.contains('\u{202E}'), "{shown}");
    assert!(shown.contains("\\u{202e}"), "escaped, visibly:\n{shown}");
}

#[test]
fn a_rerun_line_too_long_for_the_shell_reads_its_items_from_a_file() {
    // Every other issue of 2,000 is stale: 1,000 scattered items, a selector of about 6 KB,
    // which goes to a file beside the database; the rerun line reads it with `--only @FILE`.
    let test = Test::new(|world| {
        for number in 1..=2000 {
            world.open_issue(number, if number % 2 == 1 { 90 } else { 1 });
        }
    });
    let recap = test
        .run(&["stale-sweep", "--repo", REPO, "--dry-run", "--json"])
        .expect_code(0)
        .json();
    let unfinished = items(&recap["unfinished"]);
    assert_eq!(unfinished.len(), 1000);
    let rerun = recap["rerun"].as_str().unwrap();
    let file = test.dir.path().join("state/gh-sweep/rerun/run-1.txt");
    assert_eq!(
        rerun,
        format!(
            "gh-sweep stale-sweep --repo octo/demo --json --only @{}",
            file.display()
        ),
        "{recap:#}"
    );
    assert!(std::fs::read_to_string(&file).unwrap().lines().count() >= 1000);

    // Pasted, it reruns exactly those items.
    test.clear_log();
    let again = test.run_line(rerun, &["--dry-run"]).expect_code(0).json();
    assert_eq!(items(&again["unfinished"]), unfinished);
    assert!(
        again["completed"].as_array().unwrap().is_empty(),
        "{again:#}"
    );
}

#[test]
fn only_reads_items_from_standard_input() {
    let test = Test::new(|world| {
        world.open_issue(1, 90);
        world.open_issue(2, 1);
        world.open_issue(3, 90);
    });
    let output = test
        .command(&["classify", "stale", "--repo", REPO, "--only", "-", "--json"])
        .write_stdin("#1\n#3\n")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let recap: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let pool: Vec<String> = items(&recap["completed"]);
    assert_eq!(pool, ["octo/demo#1", "octo/demo#3"]);

    let empty = test
        .command(&["classify", "stale", "--repo", REPO, "--only", "-"])
        .write_stdin("\n")
        .output()
        .unwrap();
    assert_eq!(empty.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&empty.stderr).contains("standard input names no items"));
}
