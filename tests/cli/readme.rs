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
