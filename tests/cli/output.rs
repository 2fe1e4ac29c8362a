//! Issue 11, the maintainer's side of the terminal: the stop reason on stderr, exit codes and
//! `stopped` values that mean what the table says, the JSON recap as one versioned line, and
//! errors that say where a bad value came from.

use crate::support::{items, marked, numbers, Fault, Test, REPO};

/// The lines of stderr that start with `error: `.
fn error_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.starts_with("error: "))
        .collect()
}

#[test]
fn the_stop_reason_goes_to_stderr_whatever_quiet_or_json_say() {
    for flags in [&["-q"][..], &["--json"][..], &["-q", "--json"][..], &[][..]] {
        let test = Test::rest(|world| {
            world.open_issue(1, 74);
        });
        test.fail("GET", "/issues", Fault::Status(401), 5);
        let mut args = vec!["stale-sweep", "--repo", REPO, "--yes"];
        args.extend_from_slice(flags);
        let outcome = test.run(&args);
        outcome.expect_code(4);
        let errors = error_lines(&outcome.stderr);
        assert_eq!(
            errors.len(),
            1,
            "{flags:?}: one error line\n{}",
            outcome.stderr
        );
        assert!(
            errors[0].contains("GitHub refused the token (401)"),
            "{flags:?}: {}",
            errors[0]
        );
        if flags.contains(&"--json") {
            // The recap stays on stdout, and stdout stays JSON.
            assert_eq!(outcome.json()["exit_code"], 4);
        }
    }
}

/// Issue 22, point 10: every non-zero exit says why on stderr, whatever `-q` says, also when
/// the run did not stop: items that failed (exit 8) or a write GitHub refused for one item while
/// the run went on (exit 11). Cron mails stderr; a silent non-zero exit tells nobody anything.
#[test]
fn a_non_zero_exit_without_a_stop_still_says_why_on_stderr_under_quiet() {
    for flags in [&["-q"][..], &["-q", "--json"][..]] {
        let test = Test::new(|world| {
            world.app_token();
            world.open_issue(1, 90);
            world.open_issue(2, 90);
        });
        // #1 gets locked as the first write arrives: its comment is refused (403), nothing was
        // written by that request, and the run goes on with #2.
        let shared = std::sync::Arc::clone(&test.server.shared);
        test.world().on_first_write = Some(Box::new(move || {
            shared.lock().unwrap().world.issue(1).locked = true;
        }));
        let mut args = vec!["stale-sweep", "--repo", REPO, "--yes"];
        args.extend_from_slice(flags);
        let outcome = test.run(&args);
        assert_ne!(outcome.code, 0, "{}", outcome.stdout);
        let errors = error_lines(&outcome.stderr);
        assert_eq!(
            errors.len(),
            1,
            "{flags:?}: one error line\n{}",
            outcome.stderr
        );
        assert!(
            errors[0].contains("octo/demo#1") && errors[0].contains("failed"),
            "{flags:?}: {}",
            errors[0]
        );
        // #1's comment was sent and refused; #2 was marked.
        let mut writes = marked(1);
        writes.extend(marked(2));
        test.expect_writes(&writes);
    }
}

#[test]
fn an_outage_names_its_cause_on_stderr_under_quiet() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
    });
    test.fail("GET", "/issues", Fault::Status(502), 10);
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "-q"]);
    outcome.expect_code(5);
    let errors = error_lines(&outcome.stderr);
    assert_eq!(errors.len(), 1, "{}", outcome.stderr);
    assert!(errors[0].contains("502"), "{}", errors[0]);
    assert!(
        outcome.stdout.starts_with("run "),
        "the counts stay on stdout: {}",
        outcome.stdout
    );
}

#[test]
fn a_clean_run_prints_no_error_line() {
    let test = Test::new(|world| {
        world.open_issue(1, 3);
    });
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    outcome.expect_code(0);
    assert!(
        error_lines(&outcome.stderr).is_empty(),
        "{}",
        outcome.stderr
    );
}

#[test]
fn a_refused_token_is_stopped_auth_in_the_json() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
    });
    test.fail("GET", "/issues", Fault::Status(401), 5);
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    outcome.expect_code(4);
    let recap = outcome.json();
    assert_eq!(recap["stopped"], "auth", "{recap}");
}

#[test]
fn a_refused_token_while_reading_an_item_is_stopped_auth() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
    });
    test.fail("GET", "/issues/1", Fault::Status(401), 5);
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--json",
        "--only",
        "octo/demo#1",
    ]);
    outcome.expect_code(4);
    assert_eq!(outcome.json()["stopped"], "auth");
}

#[test]
fn a_repository_that_is_not_there_is_stopped_not_found() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    let outcome = test.run(&["stale-sweep", "--repo", "octo/nothere", "--yes", "--json"]);
    outcome.expect_code(4);
    let recap = outcome.json();
    assert_eq!(recap["stopped"], "not_found", "{recap}");
    let errors = error_lines(&outcome.stderr);
    assert_eq!(errors.len(), 1, "{}", outcome.stderr);
    assert!(errors[0].contains("octo/nothere"), "{}", errors[0]);
}

#[test]
fn a_mistyped_org_is_a_usage_error_not_an_outage() {
    let test = Test::new(|world| {
        world.green_pr(1);
    });
    let outcome = test.run(&["poll", "--org", "octp", "--json"]);
    outcome.expect_code(2);
    let recap = outcome.json();
    assert_eq!(recap["stopped"], "not_found", "{recap}");
    let errors = error_lines(&outcome.stderr);
    assert_eq!(errors.len(), 1, "{}", outcome.stderr);
    assert!(errors[0].contains("octp"), "{}", errors[0]);
    assert!(
        errors[0].contains("cannot be searched"),
        "GitHub's own reason is kept: {}",
        errors[0]
    );
    assert_eq!(test.requests().len(), 1, "one search, not retried");
}

#[test]
fn a_run_capped_by_max_writes_exits_with_its_own_code() {
    let test = Test::new(|world| {
        for number in 1..=3 {
            world.open_issue(number, 74);
        }
    });
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--json",
        "--max-writes",
        "3",
    ]);
    outcome.expect_code(9);
    let recap = outcome.json();
    assert_eq!(recap["stopped"], "write_cap", "{recap}");
    assert_eq!(items(&recap["unfinished"]), numbers(2..=3));
    assert_eq!(recap["unfinished_reason"], "write cap reached");
    assert_eq!(recap["exit_code"], 9);
    test.expect_writes(&marked(1));
    // The stop is not an error: nothing went wrong, the cap did what it was asked.
    assert!(
        error_lines(&outcome.stderr).is_empty(),
        "{}",
        outcome.stderr
    );
}

#[test]
fn a_run_under_its_write_cap_still_exits_0() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--max-writes", "2"]);
    outcome.expect_code(0);
    test.expect_writes(&marked(1));
}

#[test]
fn the_exit_code_of_a_capped_run_is_in_the_help_table() {
    let test = Test::new(|_| {});
    let outcome = test.run(&["--help"]);
    assert!(
        outcome
            .stdout
            .lines()
            .any(|line| line.trim_start().starts_with("9 ") && line.contains("--max-writes")),
        "{}",
        outcome.stdout
    );
}

#[test]
fn max_writes_0_is_refused_before_anything_is_read() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    for source in ["flag", "config"] {
        let outcome = if source == "flag" {
            test.run(&["stale-sweep", "--repo", REPO, "--yes", "--max-writes", "0"])
        } else {
            test.config("max_writes = 0\n");
            test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        };
        outcome.expect_code(2);
        assert!(
            outcome.stderr.contains("max_writes") || outcome.stderr.contains("--max-writes"),
            "{source}: {}",
            outcome.stderr
        );
        assert!(test.all_requests().is_empty(), "{source}: nothing read");
    }
}

/// Every key path of a JSON value: `a`, `a.b`, `list[].c` (an array's objects merged).
fn key_paths(
    value: &serde_json::Value,
    prefix: &str,
    out: &mut std::collections::BTreeSet<String>,
) {
    match value {
        serde_json::Value::Object(object) => {
            for (key, inner) in object {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                out.insert(path.clone());
                // `links` and `counters` are maps keyed by items and counter names: their keys
                // are data, not schema.
                if key != "links" && key != "counters" {
                    key_paths(inner, &path, out);
                }
            }
        }
        serde_json::Value::Array(values) => {
            for inner in values {
                key_paths(inner, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn the_json_recap_is_one_line() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 3);
    });
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--dry-run", "--json"]);
    outcome.expect_code(0);
    assert_eq!(outcome.stdout.lines().count(), 1, "{}", outcome.stdout);
    assert_eq!(outcome.json()["schema"], 1);
    test.expect_no_writes();

    // `recap --json` and `recap --list --json` too: lines a `.jsonl` log can hold.
    let again = test.run(&["recap", "--json"]);
    assert_eq!(again.stdout.lines().count(), 1, "{}", again.stdout);
    assert_eq!(again.json()["run_id"], outcome.json()["run_id"]);
    let list = test.run(&["recap", "--list", "--json"]);
    assert_eq!(list.stdout.lines().count(), 1, "{}", list.stdout);
}

#[test]
fn the_recap_says_when_it_ran_and_which_gh_sweep_ran_it() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    let before = chrono::Utc::now() - chrono::Duration::seconds(1);
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--dry-run", "--json"]);
    let after = chrono::Utc::now() + chrono::Duration::seconds(1);
    let recap = outcome.json();
    assert_eq!(recap["version"], env!("CARGO_PKG_VERSION"));
    let time = |key: &str| {
        let text = recap[key]
            .as_str()
            .unwrap_or_else(|| panic!("{key}: {recap}"));
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap_or_else(|error| panic!("{key} = {text}: {error}"))
            .with_timezone(&chrono::Utc)
    };
    let (started, finished) = (time("started_at"), time("finished_at"));
    assert!(before <= started && started <= finished && finished <= after);

    let text = test.run(&["recap"]);
    let first = text.stdout.lines().next().unwrap_or_default().to_string();
    assert!(
        first.contains(&format!("gh-sweep {}", env!("CARGO_PKG_VERSION"))),
        "{first}"
    );
    for key in ["started_at", "finished_at"] {
        assert!(
            first.contains(recap[key].as_str().unwrap_or("?")),
            "{key} on the first line: {first}"
        );
    }
}

/// The JSON recap's fields are its stable interface (schema 1). Adding, renaming or removing
/// one is a change of schema: update `tests/cli/recap-schema-1.txt` and the README's "JSON
/// recap" section together, and raise `schema` when an existing field changes meaning.
#[test]
fn the_json_recap_keeps_its_schema() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 3);
        world.open_issue(3, 74);
    });
    test.fail("GET", "/issues/3", Fault::Status(404), 20);
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--dry-run",
        "--json",
        "--only",
        "octo/demo#1-#3",
    ]);
    let recap = outcome.json();
    let mut keys = std::collections::BTreeSet::new();
    key_paths(&recap, "", &mut keys);
    // Present only when they have something to say; listed all the same.
    for optional in [
        "notes",
        "counters",
        "completed[].writes",
        "outputs.truncated",
    ] {
        keys.insert(optional.to_string());
    }
    let expected: std::collections::BTreeSet<String> = include_str!("recap-schema-1.txt")
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_string)
        .collect();
    let added: Vec<_> = keys.difference(&expected).collect();
    let gone: Vec<_> = expected.difference(&keys).collect();
    assert!(
        added.is_empty() && gone.is_empty(),
        "the JSON recap changed: added {added:?}, gone {gone:?}\n{recap}"
    );
    assert_eq!(recap["schema"], 1);
}

/// A TOML line without its comment (a `#` outside a string starts one), trimmed.
fn without_comment(line: &str) -> &str {
    let mut quoted = false;
    for (at, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => return line[..at].trim_end(),
            _ => {}
        }
    }
    line.trim_end()
}

/// The README's `[stale]` table says it shows the defaults: it is what `--print-config` prints
/// with no config file, key for key and in the same order (the README's comments aside).
#[test]
fn the_readme_stale_table_is_what_print_config_prints_with_no_config() {
    let test = Test::new(|_| {});
    std::fs::remove_file(test.config_path()).unwrap();
    let outcome = test.run(&["stale-sweep", "--print-config"]);
    outcome.expect_code(0);
    assert!(test.all_requests().is_empty());
    let printed: Vec<&str> = outcome.stdout.lines().collect();

    let readme = crate::readme::documentation();
    let documented: Vec<&str> = readme
        .lines()
        .skip_while(|line| !line.starts_with("[stale]"))
        .take_while(|line| !line.starts_with("```"))
        .map(without_comment)
        .filter(|line| !line.is_empty())
        .collect();
    assert!(!documented.is_empty(), "the README has a [stale] table");
    assert_eq!(
        documented, printed,
        "the README's [stale] table is not what `gh-sweep stale-sweep --print-config` prints with no config: paste its output into the README"
    );
}

#[test]
fn a_snapshot_path_in_a_missing_folder_is_refused_before_anything_is_read() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    let path = test.dir.path().join("nowhere/snap.json");
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--save-snapshot",
        path.to_str().unwrap(),
    ]);
    outcome.expect_code(2);
    assert!(
        outcome.stderr.contains("--save-snapshot") && outcome.stderr.contains("nowhere"),
        "{}",
        outcome.stderr
    );
    assert!(test.all_requests().is_empty(), "nothing read");
    test.expect_no_writes();
}

#[test]
fn a_summary_path_in_a_missing_folder_is_refused_before_anything_is_read() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    let path = test.dir.path().join("nowhere/summary.md");
    let output = test
        .command(&["stale-sweep", "--repo", REPO, "--yes"])
        .env("GITHUB_STEP_SUMMARY", &path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("GITHUB_STEP_SUMMARY") && stderr.contains("nowhere"),
        "{stderr}"
    );
    assert!(test.all_requests().is_empty(), "nothing read");
    test.expect_no_writes();
}

#[test]
fn a_db_in_a_missing_folder_is_an_error_naming_it() {
    let test = Test::new(|world| {
        world.open_issue(1, 3);
    });
    let folder = test.dir.path().join("typo");
    let db = folder.join("state.db");
    let outcome = test.run(&[
        "classify",
        "stale",
        "--repo",
        REPO,
        "--db",
        db.to_str().unwrap(),
    ]);
    outcome.expect_code(2);
    assert!(
        outcome.stderr.contains("--db") && outcome.stderr.contains(folder.to_str().unwrap()),
        "{}",
        outcome.stderr
    );
    assert!(!folder.exists(), "no folder made up");
    assert!(test.all_requests().is_empty(), "nothing read");

    // The default place is gh-sweep's own: its folder is created.
    let outcome = test.run(&["classify", "stale", "--repo", REPO]);
    outcome.expect_code(0);
    assert!(test.db_path().exists());
}

#[test]
fn a_bad_budget_from_the_environment_names_the_variable() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    let output = test
        .command(&["classify", "stale", "--repo", REPO])
        .env("GH_SWEEP_ITEM_FAILURE_BUDGET", "abc")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("invalid GH_SWEEP_ITEM_FAILURE_BUDGET `abc`"),
        "{stderr}"
    );
    // Given as a flag, the flag's value is the one named (flags beat the environment).
    let output = test
        .command(&[
            "classify",
            "stale",
            "--repo",
            REPO,
            "--item-failure-budget",
            "xyz",
        ])
        .env("GH_SWEEP_ITEM_FAILURE_BUDGET", "3")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`xyz`") && !stderr.contains("GH_SWEEP_ITEM_FAILURE_BUDGET"),
        "{stderr}"
    );
    assert!(test.all_requests().is_empty());
}

#[test]
fn a_config_path_from_the_environment_names_the_variable() {
    let test = Test::new(|_| {});
    let output = test
        .command(&["classify", "stale", "--repo", REPO])
        .env("GH_SWEEP_CONFIG", "nope.toml")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("nope.toml") && stderr.contains("GH_SWEEP_CONFIG"),
        "{stderr}"
    );
}

#[test]
fn a_toml_type_error_names_the_key_and_the_line() {
    let test = Test::new(|_| {});
    std::fs::write(
        test.config_path(),
        "write_interval = 0\n[stale]\n\ndays_before_stale = \"30\"\n",
    )
    .unwrap();
    let outcome = test.run(&["classify", "stale", "--repo", REPO]);
    outcome.expect_code(2);
    assert!(
        outcome.stderr.contains(
            "`[stale] days_before_stale` at line 4: expected a whole number, found the string \"30\""
        ),
        "{}",
        outcome.stderr
    );
}

#[test]
fn a_toml_syntax_error_prints_real_line_breaks() {
    let test = Test::new(|_| {});
    std::fs::write(test.config_path(), "[stale]\ndays_before_stale = \n").unwrap();
    let outcome = test.run(&["classify", "stale", "--repo", REPO]);
    outcome.expect_code(2);
    assert!(!outcome.stderr.contains("\\n"), "{}", outcome.stderr);
    assert!(outcome.stderr.contains("line 2"), "{}", outcome.stderr);
    assert!(
        outcome.stderr.lines().count() > 1,
        "the parser's own lines: {}",
        outcome.stderr
    );
}

#[test]
fn an_unknown_key_gets_a_did_you_mean_across_sections() {
    let test = Test::new(|_| {});
    for (text, expected) in [
        (
            "[poll]\nmerge_method = \"squash\"\n",
            "unknown key `poll.merge_method` in .github/gh-sweep.toml; did you mean `sweep.merge_method`?",
        ),
        (
            "days_before_stale = 3\n",
            "did you mean `stale.days_before_stale`?",
        ),
        ("[stale]\nmax_writes = 3\n", "did you mean `max_writes`?"),
    ] {
        std::fs::write(test.config_path(), text).unwrap();
        let outcome = test.run(&["classify", "stale", "--repo", REPO]);
        outcome.expect_code(2);
        assert!(outcome.stderr.contains(expected), "{text}: {}", outcome.stderr);
    }
}

#[test]
fn a_negative_max_writes_names_the_flag() {
    let test = Test::new(|_| {});
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--dry-run",
        "--max-writes",
        "-3",
    ]);
    outcome.expect_code(2);
    assert!(
        outcome.stderr.contains("--max-writes") && outcome.stderr.contains("-3"),
        "{}",
        outcome.stderr
    );
    assert!(test.all_requests().is_empty());
}

/// Writes `.github/workflows/stale.yml` with an actions/stale step taking `inputs`.
fn stale_workflow(test: &Test, inputs: &str) {
    let workflow = test.dir.path().join(".github/workflows/stale.yml");
    std::fs::create_dir_all(workflow.parent().unwrap()).unwrap();
    std::fs::write(
        &workflow,
        format!(
            "on:\n  schedule:\n    - cron: '30 1 * * *'\njobs:\n  stale:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/stale@v9\n        with:\n{inputs}"
        ),
    )
    .unwrap();
}

#[test]
fn a_name_that_is_no_input_of_actions_stale_is_unknown_with_a_did_you_mean() {
    let test = Test::new(|_| {});
    stale_workflow(&test, "          exempt-issue-label: pinned\n");
    let outcome = test.run(&[
        "stale-sweep",
        "--from-workflow",
        ".github/workflows/stale.yml",
        "--print-config",
    ]);
    outcome.expect_code(2);
    assert!(
        outcome
            .stderr
            .contains("unknown input `exempt-issue-label`")
            && outcome
                .stderr
                .contains("(did you mean `exempt-issue-labels`?)"),
        "{}",
        outcome.stderr
    );
    assert!(
        !outcome.stderr.contains("not supported"),
        "{}",
        outcome.stderr
    );

    // An input actions/stale has and gh-sweep takes elsewhere is still named as such.
    stale_workflow(&test, "          repo-token: ${{ github.token }}\n");
    let outcome = test.run(&[
        "stale-sweep",
        "--from-workflow",
        ".github/workflows/stale.yml",
        "--print-config",
    ]);
    outcome.expect_code(0);
    assert!(
        outcome.stderr.contains("`repo-token`"),
        "{}",
        outcome.stderr
    );
    assert!(
        !outcome.stderr.contains("unknown input"),
        "{}",
        outcome.stderr
    );
}

#[test]
fn the_generated_config_carries_a_comment_for_each_input_it_could_not_carry() {
    let test = Test::new(|_| {});
    stale_workflow(
        &test,
        "          days-before-stale: 30\n          repo-token: ${{ github.token }}\n          operations-per-run: 100\n          sort-by: updated\n",
    );
    let outcome = test.run(&[
        "stale-sweep",
        "--from-workflow",
        ".github/workflows/stale.yml",
        "--print-config",
    ]);
    outcome.expect_code(0);
    let comments: Vec<&str> = outcome
        .stdout
        .lines()
        .filter(|line| line.starts_with('#'))
        .collect();
    assert!(
        comments.iter().any(|line| line.contains("`repo-token`")),
        "{}",
        outcome.stdout
    );
    // Inputs gh-sweep now honours are carried, not commented on.
    for input in ["operations-per-run", "sort-by"] {
        assert!(
            !comments
                .iter()
                .any(|line| line.contains(&format!("`{input}`"))),
            "{input}: {}",
            outcome.stdout
        );
    }
    assert!(outcome.stdout.contains("days_before_stale = 30"));
    assert!(outcome.stdout.contains("operations_per_run = 100"));
    assert!(outcome.stdout.contains("sort_by = \"updated\""));
    // Still a config file gh-sweep reads.
    std::fs::write(test.config_path(), &outcome.stdout).unwrap();
    test.run(&["classify", "stale", "--repo", REPO, "--dry-run"])
        .expect_code(0);
}

#[cfg(unix)]
#[test]
fn the_progress_bar_shows_its_label_once() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 74);
        world.open_issue(3, 74);
    });
    // Slow reads, so the bar (shown once the work has taken 250 ms) appears.
    for number in 1..=3 {
        test.fail(
            "GET",
            &format!("/issues/{number}"),
            Fault::Slow(std::time::Duration::from_millis(300)),
            1,
        );
    }
    let outcome = crate::terminal::on_terminal(
        &test,
        &[
            "stale-sweep",
            "--repo",
            REPO,
            "--dry-run",
            "--only",
            "#1-#3",
        ],
        &[],
    );
    outcome.expect_code(0);
    assert!(outcome.stderr.contains("/3"), "a bar: {:?}", outcome.stderr);
    assert!(outcome.stderr.contains("reading ["), "{:?}", outcome.stderr);
    for number in 1..=3 {
        assert!(
            !outcome.stderr.contains(&format!("#{number} [")),
            "the item is the bar's detail, not its label too: {:?}",
            outcome.stderr
        );
    }
}

#[test]
fn counts_read_as_english() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 74);
    });
    test.fail("GET", "/issues/2", Fault::Status(404), 20);
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--dry-run",
        "--only",
        "#1,#2",
    ]);
    outcome.expect_code(8);
    assert!(
        outcome
            .stdout
            .contains("Within budget: 1 item failure, 3 allowed"),
        "{}",
        outcome.stdout
    );
    assert!(
        outcome
            .stderr
            .contains("Dry run: 2 writes on 1 item planned, none sent."),
        "{}",
        outcome.stderr
    );
}

#[test]
fn classify_merge_says_it_would_enqueue_not_write() {
    let test = Test::new(|world| {
        world.green_pr(1);
    });
    let outcome = test.run(&["classify", "merge", "--repo", REPO, "--json"]);
    outcome.expect_code(0);
    let detail = outcome.json()["completed"][0]["detail"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(detail.contains("would enqueue merge of"), "{detail}");
    assert!(!detail.contains("would write"), "{detail}");
}

#[test]
fn poll_counts_a_candidate_found_by_org_and_repo_once() {
    let test = Test::new(|world| {
        world.green_pr(1);
    });
    let outcome = test.run(&["poll", "--org", "octo", "--repo", REPO, "--json"]);
    outcome.expect_code(0);
    let recap = outcome.json();
    assert_eq!(items(&recap["completed"]), vec![format!("{REPO}#1")]);
    assert_eq!(recap["counters"]["candidates"], 1, "{recap}");
}

#[test]
fn the_rerun_line_of_poll_keeps_confirm() {
    let test = Test::new(|world| {
        world.green_pr(1);
    });
    test.fail("GET", "/pulls/1", Fault::Status(502), 20);
    let outcome = test.run(&["poll", "--repo", REPO, "--confirm", "--dry-run", "--json"]);
    let recap = outcome.json();
    let rerun = recap["rerun"].as_str().unwrap_or_default();
    assert!(
        crate::support::shell_words(rerun).contains(&"--confirm".to_string()),
        "{recap}"
    );
}

#[test]
fn the_rerun_line_leaves_values_from_the_environment_to_the_environment() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    let config = test.config_path();
    let db = test.dir.path().join("elsewhere.db");
    let output = test
        .command(&["stale-sweep", "--repo", REPO, "--dry-run", "--json"])
        .env("GH_SWEEP_ITEM_FAILURE_BUDGET", "5")
        .env("GH_SWEEP_CONFIG", &config)
        .env("GH_SWEEP_DB", &db)
        .output()
        .unwrap();
    let recap: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        recap["rerun"],
        "gh-sweep stale-sweep --repo octo/demo --json --only 'octo/demo#1'"
    );
    // Given as flags, they are carried.
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--dry-run",
        "--json",
        "--item-failure-budget",
        "5",
    ]);
    assert_eq!(
        outcome.json()["rerun"],
        "gh-sweep stale-sweep --repo octo/demo --item-failure-budget 5 --json --only 'octo/demo#1'"
    );
}

#[test]
fn recap_list_shows_times_to_the_second_and_commands_that_paste() {
    let test = Test::new(|world| {
        world.open_issue(1, 3);
    });
    test.run(&[
        "classify",
        "stale",
        "--repo",
        REPO,
        "--item-failure-budget",
        "max(3, 10%)",
    ])
    .expect_code(0);
    let outcome = test.run(&["recap", "--list"]);
    outcome.expect_code(0);
    let row = outcome
        .stdout
        .lines()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    let started = row.split_whitespace().nth(1).unwrap_or_default();
    assert!(
        started.len() == 20
            && started.ends_with('Z')
            && chrono::DateTime::parse_from_rfc3339(started).is_ok(),
        "RFC 3339 to the second, UTC: {row}"
    );
    assert!(row.contains("'max(3, 10%)'"), "quoted for the shell: {row}");
}

#[test]
fn the_text_recap_shows_the_writes_sent_for_each_completed_item() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 3);
    });
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes"]);
    outcome.expect_code(0);
    test.expect_writes(&marked(1));
    let line = outcome
        .stdout
        .lines()
        .find(|line| line.contains("octo/demo#1 "))
        .unwrap_or_default()
        .to_string();
    assert!(line.contains("label +Stale; comment"), "{}", outcome.stdout);
    let json = test.run(&["recap", "--json"]).json();
    assert_eq!(
        json["completed"][0]["writes"],
        serde_json::json!(["label +Stale", "comment"]),
        "{json}"
    );
}

#[cfg(unix)]
#[test]
fn the_prompt_reads_well_and_its_item_list_is_aligned_with_titles() {
    let test = Test::new(|world| {
        world.open_issue(1, 74).title = "Fix the frobnicator".into();
        world.open_issue(12, 74).title = "Docs".into();
    });
    let outcome = crate::terminal::on_terminal(
        &test,
        &["stale-sweep", "--repo", REPO, "--json"],
        &[
            ("Send these writes?", &[b"\x1b[B", b"\r"]),
            ("Space selects", &[b"\r"]),
        ],
    );
    outcome.expect_code(3);
    test.expect_no_writes();
    assert!(
        !outcome.stderr.contains("writes?:"),
        "a question needs no colon: {:?}",
        outcome.stderr
    );
    let list = outcome
        .stderr
        .split("Space selects")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    for line in [
        format!("octo/demo#1   {:<19}  mark-stale", "Fix the frobnicator"),
        format!("octo/demo#12  {:<19}  mark-stale", "Docs"),
    ] {
        assert!(list.contains(&line), "{line:?} in {list:?}");
    }
}

#[test]
fn a_db_from_the_environment_in_a_missing_folder_names_the_variable() {
    let test = Test::new(|_| {});
    let db = test.dir.path().join("typo/state.db");
    let output = test
        .command(&["classify", "stale", "--repo", REPO])
        .env("GH_SWEEP_DB", &db)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("invalid GH_SWEEP_DB"), "{stderr}");
    assert!(test.all_requests().is_empty());
}

/// Standard output closed by its reader (`gh-sweep recap | head -0`): gh-sweep stops printing,
/// reports nothing, and ends with the command's own code; what a run does after printing its
/// recap (the job summary) still happens. The pipe's reader is closed before gh-sweep starts,
/// so every write to stdout fails.
#[test]
fn a_closed_stdout_ends_quietly_with_the_commands_own_code() {
    let test = Test::rest(|world| {
        world.open_issue(1, 5);
        world.open_issue(2, 74).patch = Some(serde_json::json!({"updated_at": "soon | maybe"}));
    });
    let closed = |args: &[&str], summary: Option<&std::path::Path>| {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let mut command = test.std_command(args);
        if let Some(path) = summary {
            command.env("GITHUB_STEP_SUMMARY", path);
        }
        let output = command
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).to_string(),
        )
    };
    let summary = test.dir.path().join("summary.md");
    // An item failure: exit 8, with or without a reader.
    let (code, stderr) = closed(
        &["stale-sweep", "--repo", REPO, "--dry-run", "-q"],
        Some(&summary),
    );
    assert_eq!(code, Some(8), "{stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
        "{stderr}"
    );
    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(written.contains("gh-sweep stale-sweep: run 1"), "{written}");
    // Printing a stored recap worked as far as anyone read it.
    for args in [&["recap"][..], &["recap", "--json"], &["recap", "--list"]] {
        let (code, stderr) = closed(args, None);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

/// Issue 22, point 10: a `--json` run that cannot start for want of a token still writes its one
/// JSON line, `stopped: "auth"` and exit 4, and says why on stderr: a cron log of JSON lines is
/// never silently empty.
#[test]
fn a_missing_token_still_writes_the_json_line() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
    });
    let mut command = test.std_command(&["stale-sweep", "--repo", REPO, "--yes", "-q", "--json"]);
    command
        .env_remove("GH_TOKEN")
        .env_remove("GITHUB_TOKEN")
        .env("PATH", "/nonexistent");
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(4));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.trim_end().lines().count(), 1, "{stdout}");
    let recap: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(recap["stopped"], "auth");
    assert_eq!(recap["exit_code"], 4);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(error_lines(&stderr).len(), 1, "{stderr}");
    assert!(test.requests().is_empty());
}
