//! Command lines and config files as data: valid and invalid, with the expected outcome. A bad
//! one exits 2 with an error naming the value, and no request is sent.

use crate::support::{shell_words, Test, REPO};

#[test]
fn bad_command_lines_name_the_value_and_send_nothing() {
    let cases: &[(&[&str], &str)] = &[
        (&["--only", "x#"], "`x#`"),
        (&["--only", "octo/demo#0"], "issue numbers start at 1"),
        (&["--only", "#9-#3"], "is a range backwards (9 > 3)"),
        (
            &["--only", "other/repo#1"],
            "other/repo#1 is not in the repositories given with --repo (octo/demo)",
        ),
        (&["--repo", "nonsense"], "invalid repository `nonsense`"),
        (&["--write-interval", "-1"], "invalid write interval `-1`"),
        (
            &["--api-url", "http://example.com"],
            "plain http:// is allowed only for loopback hosts",
        ),
        (
            &["--config", "missing.toml"],
            "config file missing.toml does not exist",
        ),
        (&["--max-writes", "many"], "invalid value 'many'"),
        (&["--max-wait", "-5"], "use a whole number of seconds"),
        (&["--max-wait", "86401"], "invalid --max-wait 86401"),
        (&["--frobnicate"], "unexpected argument '--frobnicate'"),
        (
            &["--db", "/dev/null/state.db"],
            "invalid --db /dev/null/state.db: /dev/null is not a folder",
        ),
        (
            &["--item-failure-budget", "max(3, 10 %)"],
            "invalid item_failure_budget `max(3, 10 %)`",
        ),
        (&["--now", "yesterday"], "invalid --now `yesterday`"),
    ];
    let test = Test::new(|_| {});
    for (extra, expected) in cases {
        let mut args = vec!["stale-sweep", "--repo", REPO, "--dry-run"];
        args.extend_from_slice(extra);
        let outcome = test.run(&args);
        assert_eq!(outcome.code, 2, "{extra:?}: {}", outcome.stderr);
        assert!(
            outcome.stderr.contains(expected),
            "{extra:?}: expected {expected:?} in\n{}",
            outcome.stderr
        );
    }
    assert!(
        test.requests().is_empty(),
        "no request for a bad command line"
    );
}

/// Issue 21, point 6: a limit no run could ever meet is refused before anything is read. Under
/// `--yes` a write that would wait past `max_wait` is left unfinished; with `max_wait` shorter
/// than the write interval, every run would write one thing at most and exit 9 "can go on 1 s
/// later", forever.
#[test]
fn a_max_wait_shorter_than_the_write_interval_is_refused_up_front() {
    let test = Test::new(|world| {
        world.open_issue(1, 90);
        world.open_issue(2, 90);
    });
    for (config, extra, expected) in [
        (
            "",
            &["--max-wait", "0", "--write-interval", "1"][..],
            "invalid --max-wait 0: shorter than the write interval (1 s)",
        ),
        (
            "max_wait_seconds = 2\nwrite_interval = 3\n",
            &[][..],
            "invalid max_wait_seconds = 2: shorter than the write interval (3 s)",
        ),
    ] {
        test.config(config);
        let mut args = vec!["stale-sweep", "--repo", REPO, "--yes"];
        args.extend_from_slice(extra);
        let outcome = test.run(&args);
        assert_eq!(outcome.code, 2, "{extra:?}: {}", outcome.stderr);
        assert!(outcome.stderr.contains(expected), "{}", outcome.stderr);
    }
    assert!(test.requests().is_empty(), "nothing read");
    // A dry run writes nothing and waits for nothing: the same limits are fine there.
    test.config("");
    test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--dry-run",
        "--max-wait",
        "0",
        "--write-interval",
        "1",
    ])
    .expect_code(0);
    // With no interval to wait, `--max-wait 0` writes everything.
    test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--max-wait",
        "0",
        "--write-interval",
        "0",
    ])
    .expect_code(0);
    let mut writes = crate::support::marked(1);
    writes.extend(crate::support::marked(2));
    test.expect_writes(&writes);
}

/// Issue 21, point 6: a message GitHub would refuse as too long is refused before any write.
/// GitHub answers 422 "Body is too long (maximum is 65536 characters)" (danger/danger#424);
/// the body counts gh-sweep's marker too, in Unicode scalar values (`é` is one).
#[test]
fn a_message_too_long_for_one_comment_is_refused_before_anything_is_written() {
    let test = Test::new(|world| {
        world.open_issue(1, 90);
    });
    let marker = "\n\n<!-- gh-sweep:mark-stale -->".chars().count();
    let fits = "é".repeat(65_536 - marker);
    test.config(&format!("[stale]\nstale_issue_message = '{fits}'\n"));
    test.run(&["stale-sweep", "--repo", REPO, "--dry-run"])
        .expect_code(0);
    test.clear_log();
    let over = format!("{fits}é");
    test.config(&format!("[stale]\nstale_issue_message = '{over}'\n"));
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes"]);
    assert_eq!(outcome.code, 2, "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains(
            "invalid [stale] stale_issue_message: 65537 characters with gh-sweep's marker, past the 65536 GitHub allows in a comment; shorten it by 1"
        ),
        "{}",
        outcome.stderr
    );
    assert!(test.requests().is_empty(), "nothing read, nothing written");
}

/// Issue 21, point 7: `--only @FILE` is bounded. An endless file (`/dev/zero`) is refused after
/// the documented 8 MiB, not read until memory runs out; a FIFO nobody writes to ends with a
/// message instead of hanging; a file past the bound is refused. Nothing is read from GitHub.
#[cfg(unix)]
#[test]
fn an_only_file_that_is_endless_huge_or_a_silent_pipe_is_refused() {
    let test = Test::new(|_| {});
    let outcome = test.run(&["classify", "stale", "--repo", REPO, "--only", "@/dev/zero"]);
    assert_eq!(outcome.code, 2, "{}", outcome.stderr);
    assert!(
        outcome
            .stderr
            .contains("invalid --only @/dev/zero: it holds more than 8 MiB"),
        "{}",
        outcome.stderr
    );
    let huge = test.dir.path().join("huge.txt");
    let line = format!("{REPO}#1\n");
    std::fs::write(&huge, line.repeat(9 * 1024 * 1024 / line.len())).unwrap();
    let outcome = test.run(&[
        "classify",
        "stale",
        "--repo",
        REPO,
        "--only",
        &format!("@{}", huge.display()),
    ]);
    assert_eq!(outcome.code, 2, "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains("more than 8 MiB"),
        "{}",
        outcome.stderr
    );
    let fifo = test.dir.path().join("items.fifo");
    let path = std::ffi::CString::new(fifo.display().to_string()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
    let outcome = test.run(&[
        "classify",
        "stale",
        "--repo",
        REPO,
        "--only",
        &format!("@{}", fifo.display()),
    ]);
    assert_eq!(outcome.code, 2, "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains("names no items"),
        "{}",
        outcome.stderr
    );
    assert!(test.requests().is_empty(), "nothing read from GitHub");
}

/// Issue 21, point 10: no store through another user's dangling symlink. A `--db` path that
/// is a link to nothing, planted by someone else or pointing into their folder, would have the
/// store made where they can read it: refused, exit 2, nothing made. The user's own link to
/// their own folder makes the store there, private (0600).
#[cfg(unix)]
#[test]
fn a_dangling_symlink_store_is_made_only_where_the_link_and_its_folder_are_the_users() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let test = Test::new(|world| {
        world.open_issue(1, 90);
    });
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    let foreign = test.dir.path().join("shared");
    std::fs::create_dir(&foreign).unwrap();
    let link = test.dir.path().join("state.db");
    std::os::unix::fs::symlink(foreign.join("stolen.db"), &link).unwrap();
    let path = std::ffi::CString::new(foreign.display().to_string()).unwrap();
    if me == 0 {
        // As root, the folder is made another user's (nobody's); elsewhere the test's own
        // files cannot be given away, and only the owned case below is tried.
        assert_eq!(unsafe { libc::chown(path.as_ptr(), 65534, 65534) }, 0);
        let outcome = test.run(&[
            "classify",
            "stale",
            "--repo",
            REPO,
            "--db",
            &link.display().to_string(),
        ]);
        assert_eq!(outcome.code, 2, "{}", outcome.stderr);
        assert!(
            outcome.stderr.contains("belongs to another user"),
            "{}",
            outcome.stderr
        );
        assert!(!foreign.join("stolen.db").exists());
        assert!(test.requests().is_empty(), "nothing read");
    }
    let own = test.dir.path().join("mine");
    std::fs::create_dir(&own).unwrap();
    let mine = test.dir.path().join("mine.db");
    std::os::unix::fs::symlink(own.join("state.db"), &mine).unwrap();
    test.run(&[
        "classify",
        "stale",
        "--repo",
        REPO,
        "--db",
        &mine.display().to_string(),
    ])
    .expect_code(0);
    let made = std::fs::metadata(own.join("state.db")).unwrap();
    assert_eq!(made.permissions().mode() & 0o777, 0o600);
    assert_eq!(made.uid(), me);
}

#[test]
fn bad_config_files_name_the_key_and_the_fix() {
    let cases: &[(&str, &str)] = &[
        ("[stale]\ndays_befor_stale = 3\n", "unknown key `stale.days_befor_stale` in .github/gh-sweep.toml; did you mean `stale.days_before_stale`?"),
        ("write_intervl = 2\n", "did you mean `write_interval`?"),
        ("[stale]\ndays_before_stale = 'sixty'\n", "`[stale] days_before_stale` at line 8: expected a whole number, found the string \"sixty\""),
        ("[stale]\ndays_before_close = -2\n", "invalid [stale] days_before_close = -2: use a number of days (0 to 36500), or -1 for never"),
        ("[stale]\nclose_issue_reason = 'wontfix'\n", "use \"completed\" or \"not_planned\""),
        ("[stale\n", "is not valid TOML"),
        ("stale = 3\n", "must be a table"),
        ("item_failure_budget = 'max(3)'\n", "invalid item_failure_budget `max(3)`"),
    ];
    let test = Test::new(|_| {});
    for (config, expected) in cases {
        test.config(config);
        let outcome = test.run(&["classify", "stale", "--repo", REPO]);
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
fn common_flags_work_before_and_after_the_subcommand() {
    let test = Test::new(|world| {
        world.open_issue(1, 5);
    });
    test.run(&["--json", "classify", "stale", "--repo", REPO])
        .expect_code(0)
        .json();
    test.run(&["classify", "stale", "--repo", REPO, "--json"])
        .expect_code(0)
        .json();
    // A subcommand's own option goes after its name, and the error says so.
    let sent = test.requests().len();
    let before = test.run(&["--repo", REPO, "--json", "classify", "stale"]);
    assert_eq!(before.code, 2, "{}", before.stderr);
    assert!(
        before
            .stderr
            .contains("`--repo` is an option of `gh-sweep classify stale`: put it after"),
        "{}",
        before.stderr
    );
    assert_eq!(test.requests().len(), sent, "nothing read");
}

/// Each subcommand's `--help` lists the options it takes and no other; any other given to it is
/// a usage error naming the flag, before anything is read.
#[test]
fn each_subcommand_takes_only_its_own_options() {
    let test = Test::new(|world| {
        world.open_issue(1, 5);
    });
    let options = |args: &[&str]| -> Vec<String> {
        let outcome = test.run(args);
        outcome.expect_code(0);
        // The options, not the examples and exit codes after them.
        let (listed, _) = outcome.stdout.split_once("\nExamples:").unwrap();
        listed
            .split_whitespace()
            .filter(|word| word.starts_with("--"))
            .map(|word| word.trim_end_matches([',', '.', ')', '`']).to_string())
            .collect()
    };
    let has = |list: &[String], flag: &str| list.iter().any(|word| word == flag);
    let recap = options(&["recap", "--help"]);
    let poll = options(&["poll", "--help"]);
    let classify = options(&["classify", "stale", "--help"]);
    let completions = options(&["completions", "--help"]);
    assert!(has(&poll, "--max-writes"), "{poll:?}");
    assert!(has(&poll, "--org") && has(&poll, "--confirm"), "{poll:?}");
    assert!(!has(&recap, "--max-writes"), "{recap:?}");
    // The store it reads is found as a run finds its own: --db, else the config's `db`.
    assert!(
        has(&recap, "--db") && has(&recap, "--config") && has(&recap, "--markdown"),
        "{recap:?}"
    );
    for flag in ["--repo", "--yes", "--dry-run", "--snapshot", "--now"] {
        assert!(!has(&recap, flag), "{flag} in recap --help: {recap:?}");
    }
    for flag in [
        "--max-writes",
        "--yes",
        "--write-interval",
        "--org",
        "--confirm",
    ] {
        assert!(!has(&classify, flag), "{flag} in classify stale --help");
    }
    assert!(has(&classify, "--from-workflow") && has(&classify, "--repo"));
    for flag in ["--repo", "--db", "--only"] {
        assert!(!has(&completions, flag), "{flag} in completions --help");
    }
    // The global ones are in every subcommand's help.
    for list in [&recap, &poll, &classify, &completions] {
        assert!(has(list, "--quiet") && has(list, "--color"), "{list:?}");
    }

    let cases: &[(&[&str], &str)] = &[
        (
            &["recap", "--max-writes", "3"],
            "`--max-writes` does nothing with `gh-sweep recap`",
        ),
        (
            &["classify", "stale", "--repo", REPO, "--yes"],
            "`--yes` does nothing with `gh-sweep classify stale`",
        ),
        (
            &["sweep", "--repo", REPO, "--org", "octo"],
            "`--org` does nothing with `gh-sweep sweep`",
        ),
        (
            &["completions", "bash", "--db", "x.db"],
            "`--db` does nothing with `gh-sweep completions`",
        ),
        // Global, for every subcommand that prints a recap, but not for these two.
        (
            &["man", "--json"],
            "`--json` does nothing with `gh-sweep man`",
        ),
    ];
    for (args, expected) in cases {
        let outcome = test.run(args);
        assert_eq!(outcome.code, 2, "{args:?}: {}", outcome.stderr);
        assert!(
            outcome.stderr.contains(expected),
            "{args:?}: {}",
            outcome.stderr
        );
    }
    assert!(test.requests().is_empty());
}

#[test]
fn help_teaches_the_options_and_exit_codes() {
    let test = Test::new(|_| {});
    for args in [
        &["--help"][..],
        &["stale-sweep", "--help"],
        &["classify", "stale", "--help"],
        &["recap", "--help"],
    ] {
        let outcome = test.run(args);
        outcome.expect_code(0);
        assert!(outcome.stdout.contains("Exit codes:"), "{args:?}");
        assert!(
            outcome.stdout.contains("10  item-failure budget exhausted"),
            "{args:?}"
        );
    }
    let sweep = test.run(&["stale-sweep", "--help"]);
    for flag in [
        "--repo",
        "--only",
        "--item-failure-budget",
        "--yes",
        "--dry-run",
        "--json",
        "--max-writes",
        "--snapshot",
    ] {
        assert!(sweep.stdout.contains(flag), "{flag} in stale-sweep --help");
    }
}

#[test]
fn a_database_that_is_not_one_is_named() {
    let test = Test::new(|_| {});
    let db = test.dir.path().join("broken.db");
    std::fs::write(
        &db,
        "this is not sqlite, just text that is long enough to have a header......",
    )
    .unwrap();
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
        outcome.stderr.contains("cannot use the database") && outcome.stderr.contains("broken.db"),
        "{}",
        outcome.stderr
    );
}

#[test]
fn the_committed_man_page_matches_the_definitions() {
    let test = Test::new(|_| {});
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let outcome = test.run(&["man"]);
    outcome.expect_code(0);
    assert!(
        outcome.stdout.starts_with(".ie \\n(.g .ds Aq"),
        "roff: {}",
        &outcome.stdout[..40]
    );
    assert!(
        outcome.stdout.contains("stale\\-sweep"),
        "lists the subcommands"
    );
    let committed =
        std::fs::read_to_string(root.join("completions/gh-sweep.1")).unwrap_or_default();
    assert!(
        committed == outcome.stdout,
        "completions/gh-sweep.1 is stale: run `cargo run -- man > completions/gh-sweep.1`"
    );
}

#[test]
fn committed_completions_match_the_definitions() {
    let test = Test::new(|_| {});
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (shell, file) in [
        ("bash", "gh-sweep.bash"),
        ("zsh", "_gh-sweep"),
        ("fish", "gh-sweep.fish"),
        ("powershell", "_gh-sweep.ps1"),
    ] {
        let outcome = test.run(&["completions", shell]);
        outcome.expect_code(0);
        let committed =
            std::fs::read_to_string(root.join("completions").join(file)).unwrap_or_default();
        assert!(
            committed == outcome.stdout,
            "completions/{file} is stale: run `cargo run -- completions {shell} > completions/{file}`"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_database_others_can_read_is_warned_about() {
    use std::os::unix::fs::PermissionsExt;
    let test = Test::new(|_| {});
    test.run(&["classify", "stale", "--repo", REPO])
        .expect_code(0);
    let mode = std::fs::metadata(test.db_path())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600, "created private");
    assert!(!test.run(&["recap"]).stderr.contains("warning"));
    std::fs::set_permissions(test.db_path(), std::fs::Permissions::from_mode(0o644)).unwrap();
    let outcome = test.run(&["recap"]);
    assert!(
        outcome
            .stderr
            .contains("can be read by other users (mode 644); run `chmod 600"),
        "{}",
        outcome.stderr
    );
}

#[test]
fn a_malformed_token_is_refused_without_echoing_it() {
    let test = Test::new(|_| {});
    for bad in ["ghp_abc def", "ghp_abc\nghp_def", "ghp_ābc"] {
        let output = test
            .command(&["classify", "stale", "--repo", REPO])
            .env("GH_TOKEN", bad)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(4), "{bad:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("GH_TOKEN holds characters a GitHub token never has"),
            "{stderr}"
        );
        assert!(
            !stderr.contains("ghp_"),
            "the token is never echoed: {stderr}"
        );
    }
    assert!(test.requests().is_empty());
}

#[test]
fn colour_follows_the_flag_then_no_color_then_the_terminal() {
    let test = Test::new(|world| {
        world.open_issue(1, 5);
    });
    let plain = test.run(&["classify", "stale", "--repo", REPO]);
    assert!(!plain.stdout.contains('\u{1b}'), "no colour into a pipe");
    let always = test.run(&["classify", "stale", "--repo", REPO, "--color", "always"]);
    assert!(
        always.stdout.contains("\u{1b}[32m\u{1b}[1mCompleted (1)"),
        "{:?}",
        always.stdout
    );
    let never = test.run(&["classify", "stale", "--repo", REPO, "--color", "never"]);
    assert!(!never.stdout.contains('\u{1b}'));
    let bad = test.run(&["classify", "stale", "--repo", REPO, "--color", "sometimes"]);
    bad.expect_code(2);
    assert!(
        bad.stderr
            .contains("invalid value 'sometimes' for '--color <WHEN>'"),
        "{}",
        bad.stderr
    );
}

#[test]
fn recap_json_and_markdown_are_a_usage_conflict() {
    let test = Test::new(|_| {});
    for args in [
        &["recap", "--json", "--markdown"][..],
        &["--json", "recap", "--markdown"],
        &["recap", "--markdown", "--json"],
        &["recap", "--list", "--markdown"],
    ] {
        let outcome = test.run(args);
        assert_eq!(outcome.code, 2, "{args:?}: {}", outcome.stderr);
        assert!(
            outcome.stderr.contains("cannot be used with"),
            "{args:?}: {}",
            outcome.stderr
        );
    }
}

/// Every subcommand's `--help` ends with examples, as gh's do, and each example is a command
/// line gh-sweep accepts, for that subcommand.
#[test]
fn every_subcommand_help_has_examples_that_parse() {
    use clap::Parser;
    let test = Test::new(|_| {});
    for words in [
        &["stale-sweep"][..],
        &["poll"],
        &["sweep"],
        &["classify"],
        &["classify", "stale"],
        &["classify", "merge"],
        &["recap"],
        &["completions"],
        &["man"],
    ] {
        let mut args = words.to_vec();
        args.push("--help");
        let outcome = test.run(&args);
        outcome.expect_code(0);
        let section = outcome
            .stdout
            .split_once("\nExamples:\n")
            .map(|(_, rest)| rest)
            .unwrap_or_else(|| panic!("{words:?} --help has no Examples:\n{}", outcome.stdout));
        let lines: Vec<&str> = section
            .lines()
            .take_while(|line| line.is_empty() || line.starts_with("  "))
            .filter_map(|line| line.trim().strip_prefix("$ "))
            .collect();
        assert!(!lines.is_empty(), "{words:?}: no `$ gh-sweep ...` lines");
        let prefix = format!("gh-sweep {}", words.join(" "));
        for line in lines {
            assert!(line.starts_with(&prefix), "{words:?}: {line}");
            // What the shell does with the output (`> FILE`, `| jq`) is not gh-sweep's.
            let argv: Vec<String> = shell_words(line)
                .into_iter()
                .take_while(|word| !word.starts_with('>') && word != "|")
                .collect();
            if let Err(error) = gh_sweep::cli::Cli::try_parse_from(&argv) {
                panic!("{words:?}: example `{line}` does not parse: {error}");
            }
        }
    }
}

#[test]
fn a_flag_that_does_nothing_for_its_subcommand_is_refused() {
    // An option that means nothing to `recap`, `completions` or `man` (given before or after
    // the subcommand's name) is an error naming it, not silence.
    let test = Test::new(|world| {
        world.open_issue(1, 5);
    });
    test.run(&["classify", "stale", "--repo", REPO])
        .expect_code(0);
    let cases: &[(&[&str], &str)] = &[
        (
            &["recap", "--dry-run", "--snapshot", "/nonexistent"],
            "`--dry-run` does nothing with `gh-sweep recap`",
        ),
        (
            &["--yes", "recap"],
            "`--yes` does nothing with `gh-sweep recap`",
        ),
        (
            &["completions", "bash", "--repo", REPO],
            "`--repo` does nothing with `gh-sweep completions`",
        ),
        (
            &["man", "--only", "o/r#1"],
            "`--only` does nothing with `gh-sweep man`",
        ),
    ];
    for (args, expected) in cases {
        let outcome = test.run(args);
        assert_eq!(outcome.code, 2, "{args:?}: {}", outcome.stderr);
        assert!(
            outcome.stderr.contains(expected),
            "{args:?}: {}",
            outcome.stderr
        );
    }
    // What recap uses is fine, and a value from the environment is not the command line's.
    test.run(&["recap", "--json", "-q"]).expect_code(0);
    let from_env = test
        .command(&["recap"])
        .env("GH_SWEEP_ITEM_FAILURE_BUDGET", "3")
        .output()
        .unwrap();
    assert_eq!(
        from_env.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&from_env.stderr)
    );
}

/// Issue 22, point 11: bare `gh-sweep` prints a short usage (exit 2), not the whole help;
/// `help --help` is a request for help (exit 0); `store status --json` is one line, as
/// `recap --json` is.
#[test]
fn bare_help_and_status_answer_as_people_expect() {
    let test = Test::new(|world| {
        world.open_issue(1, 100);
    });
    let bare = test.run(&[]);
    assert_eq!(bare.code, 2);
    assert!(bare.stderr.lines().count() <= 6, "{}", bare.stderr);
    assert!(bare.stderr.contains("gh-sweep --help"), "{}", bare.stderr);
    // Issue 25, point 6: the version names the commit it was built from.
    let version = test.run(&["--version"]);
    assert_eq!(version.code, 0);
    assert!(
        version
            .stdout
            .starts_with(&format!("gh-sweep {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{}",
        version.stdout
    );
    let help = test.run(&["help", "--help"]);
    assert_eq!(help.code, 0, "{}", help.stderr);
    assert!(help.stdout.contains("Usage: gh-sweep"), "{}", help.stdout);
    test.run(&["stale-sweep", "--repo", REPO, "--yes"])
        .expect_code(0);
    let status = test.run(&["store", "status", "--json"]);
    status.expect_code(0);
    assert_eq!(
        status.stdout.trim_end().lines().count(),
        1,
        "{}",
        status.stdout
    );
    serde_json::from_str::<serde_json::Value>(&status.stdout).unwrap();
    test.expect_writes(&crate::support::marked(1));
}
