//! The README's scheduling examples, run as written against the fake GitHub: every `gh-sweep`
//! command between the examples markers, with `${{ github.repository }}` standing for the
//! repository and shell redirections left to the shell.

use crate::support::{shell_words, Test, REPO};

fn example_commands() -> Vec<String> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("<!-- examples:start -->")
        .expect("examples start marker");
    let end = readme
        .find("<!-- examples:end -->")
        .expect("examples end marker");
    readme[start..end]
        .lines()
        .filter_map(|line| {
            let at = line.find("gh-sweep ")?;
            let command = &line[at..];
            // Only command lines: "gh-sweep <subcommand> --...", not prose or unit names.
            let second = command.split_whitespace().nth(1)?;
            if !["poll", "sweep", "stale-sweep", "classify", "recap"].contains(&second) {
                return None;
            }
            let command = command.split(" >>").next().unwrap_or(command);
            Some(
                command
                    .replace("${{ github.repository }}", REPO)
                    .trim()
                    .to_string(),
            )
        })
        .collect()
}

#[test]
fn the_scheduling_examples_run_as_written() {
    let commands = example_commands();
    assert_eq!(commands.len(), 5, "{commands:?}");
    let test = Test::new(|world| {
        world.open_issue(1, 74);
        world.green_pr(2);
    });
    for command in &commands {
        let words = shell_words(command);
        let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        let outcome = test.run(&args);
        assert_eq!(
            outcome.code, 0,
            "{command}\n{}\n{}",
            outcome.stdout, outcome.stderr
        );
    }
    // Exactly the stale mark of #1 and the merge of #2: an extra comment or label fails here.
    test.expect_writes_in_any_order(&[
        format!("POST /repos/{REPO}/issues/1/labels"),
        format!("POST /repos/{REPO}/issues/1/comments"),
        format!("PUT /repos/{REPO}/pulls/2/merge"),
    ]);
}

#[test]
fn the_scheduling_examples_find_gh_sweep_where_they_run() {
    // A workflow runs in the swept repository's checkout, not gh-sweep's: `--path .` would
    // build the wrong crate. Cron's PATH is /usr/bin:/bin and a systemd unit wants an absolute
    // ExecStart: both must name where gh-sweep is.
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("<!-- examples:start -->").unwrap();
    let end = readme.find("<!-- examples:end -->").unwrap();
    let examples = &readme[start..end];
    assert!(
        !examples.contains("cargo install --locked --path ."),
        "{examples}"
    );
    assert!(
        examples.contains("cargo install --locked --git "),
        "{examples}"
    );
    let crontab = examples
        .split("```crontab")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap();
    assert!(
        crontab
            .lines()
            .any(|line| line.starts_with("PATH=/") && line.contains("/.cargo/bin")),
        "{crontab}"
    );
    for line in examples
        .lines()
        .filter(|line| line.starts_with("ExecStart="))
    {
        let program = line
            .trim_start_matches("ExecStart=")
            .split(' ')
            .next()
            .unwrap();
        assert!(
            program.starts_with('/') || program.starts_with("%h/"),
            "{line}"
        );
    }
}
