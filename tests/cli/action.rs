//! gh-sweep's GitHub Action (`action.yml` at the repository root) as the runner runs a
//! composite action: its inputs are actions/stale's with the same defaults, its sweep step is
//! given each input from `${{ inputs.NAME }}` (the runner sets no `INPUT_*` variables for a
//! composite action, actions/runner#665), and its outputs and job summary are what a workflow
//! reads. The step runs against the fake GitHub with the test's gh-sweep on `PATH`, standing in
//! for the build step.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use yaml_rust2::{Yaml, YamlLoader};

use crate::support::{issue, Test, REPO, TOKEN};

/// actions/stale's inputs and defaults, as its `action.yml` (v10) has them; `ascending` is the
/// one deliberate difference (`false` there: newest first).
const ACTIONS_STALE: &[(&str, &str)] = &[
    ("repo-token", "${{ github.token }}"),
    ("stale-issue-message", ""),
    ("stale-pr-message", ""),
    ("close-issue-message", ""),
    ("close-pr-message", ""),
    ("days-before-stale", "60"),
    ("days-before-issue-stale", ""),
    ("days-before-pr-stale", ""),
    ("days-before-close", "7"),
    ("days-before-issue-close", ""),
    ("days-before-pr-close", ""),
    ("stale-issue-label", "Stale"),
    ("close-issue-label", ""),
    ("exempt-issue-labels", ""),
    ("close-issue-reason", "not_planned"),
    ("stale-pr-label", "Stale"),
    ("close-pr-label", ""),
    ("exempt-pr-labels", ""),
    ("exempt-milestones", ""),
    ("exempt-issue-milestones", ""),
    ("exempt-pr-milestones", ""),
    ("exempt-all-milestones", "false"),
    ("exempt-all-issue-milestones", ""),
    ("exempt-all-pr-milestones", ""),
    ("only-labels", ""),
    ("any-of-labels", ""),
    ("any-of-issue-labels", ""),
    ("any-of-pr-labels", ""),
    ("only-issue-labels", ""),
    ("only-pr-labels", ""),
    ("operations-per-run", "30"),
    ("remove-stale-when-updated", "true"),
    ("remove-issue-stale-when-updated", ""),
    ("remove-pr-stale-when-updated", ""),
    ("debug-only", "false"),
    ("ascending", "true"),
    ("sort-by", "created"),
    ("delete-branch", "false"),
    ("start-date", ""),
    ("exempt-assignees", ""),
    ("exempt-issue-assignees", ""),
    ("exempt-pr-assignees", ""),
    ("exempt-all-assignees", "false"),
    ("exempt-all-issue-assignees", ""),
    ("exempt-all-pr-assignees", ""),
    ("exempt-draft-pr", "false"),
    ("enable-statistics", "true"),
    ("labels-to-add-when-unstale", ""),
    ("labels-to-remove-when-stale", ""),
    ("labels-to-remove-when-unstale", ""),
    ("ignore-updates", "false"),
    ("ignore-issue-updates", ""),
    ("ignore-pr-updates", ""),
    ("include-only-assigned", "false"),
    ("only-issue-types", ""),
];

fn action() -> Yaml {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml");
    let text = std::fs::read_to_string(path).expect("action.yml at the repository root");
    YamlLoader::load_from_str(&text).unwrap().remove(0)
}

fn steps(action: &Yaml) -> Vec<Yaml> {
    action["runs"]["steps"].as_vec().unwrap().clone()
}

fn sweep_step(action: &Yaml) -> Yaml {
    steps(action)
        .into_iter()
        .find(|step| step["id"].as_str() == Some("sweep"))
        .expect("a step with id sweep")
}

fn variable(name: &str) -> String {
    format!(
        "GH_SWEEP_INPUT_{}",
        name.replace('-', "_").to_ascii_uppercase()
    )
}

#[test]
fn the_action_has_every_actions_stale_input_with_its_default_and_passes_each_one() {
    let action = action();
    assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
    let inputs = action["inputs"].as_hash().unwrap();
    assert_eq!(inputs.len(), ACTIONS_STALE.len(), "no input more or less");
    let env = sweep_step(&action)["env"].clone();
    for (name, default) in ACTIONS_STALE {
        let input = &action["inputs"][*name];
        assert_eq!(
            input["default"].as_str(),
            Some(*default),
            "{name}'s default"
        );
        assert!(
            input["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{name} has a description"
        );
        assert_eq!(
            env[variable(name).as_str()].as_str(),
            Some(format!("${{{{ inputs.{name} }}}}").as_str()),
            "the sweep step passes {name}"
        );
    }
    for output in ["staled-issues-prs", "closed-issues-prs"] {
        assert!(
            action["outputs"][output]["value"]
                .as_str()
                .is_some_and(|value| value.contains("steps.sweep.outputs")),
            "{output}"
        );
    }
    // The store is restored and saved around the sweep, saved even when the job fails, under
    // a key per run and attempt.
    let uses: Vec<(String, Yaml)> = steps(&action)
        .into_iter()
        .filter_map(|step| {
            step["uses"]
                .as_str()
                .map(|uses| (uses.to_string(), step.clone()))
        })
        .collect();
    let restore = uses
        .iter()
        .position(|(uses, _)| uses.starts_with("actions/cache/restore@"))
        .expect("a restore step");
    let save = uses
        .iter()
        .position(|(uses, _)| uses.starts_with("actions/cache/save@"))
        .expect("a save step");
    assert!(restore < save);
    let save = &uses[save].1;
    assert_eq!(save["if"].as_str(), Some("always()"));
    let key = save["with"]["key"].as_str().unwrap();
    assert!(
        key.contains("${{ github.run_id }}-${{ github.run_attempt }}"),
        "{key}"
    );
    assert_eq!(
        save["with"]["path"].as_str(),
        uses[restore].1["with"]["path"].as_str(),
        "the whole state folder, both ways"
    );
}

/// The runner's `${{ … }}` expressions of a step, for what the sweep step uses.
fn resolve(text: &str, inputs: &BTreeMap<String, String>, github: &[(&str, &str)]) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").unwrap() + start;
        let expression = rest[start + 3..end].trim();
        let value = if let Some(name) = expression.strip_prefix("inputs.") {
            inputs.get(name).cloned().unwrap_or_default()
        } else {
            github
                .iter()
                .find(|(name, _)| *name == expression)
                .map(|(_, value)| value.to_string())
                .unwrap_or_else(|| panic!("no value for {expression}"))
        };
        out.push_str(&value);
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

pub(crate) struct ActionRun {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) outputs: String,
    pub(crate) summary: String,
    pub(crate) state: PathBuf,
}

/// Runs the action's `run:` steps but the build (the test's gh-sweep is on `PATH`) with the
/// inputs' defaults under `with`, as the runner would: no `INPUT_*` variables, each step's
/// `env` resolved, `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY` set.
pub(crate) fn run_action(test: &Test, with: &[(&str, &str)]) -> ActionRun {
    let action = action();
    let mut inputs: BTreeMap<String, String> = action["inputs"]
        .as_hash()
        .unwrap()
        .iter()
        .map(|(name, input)| {
            let default = input["default"].as_str().unwrap_or_default().to_string();
            (name.as_str().unwrap().to_string(), default)
        })
        .collect();
    inputs.insert("repo-token".into(), TOKEN.into());
    for (name, value) in with {
        assert!(inputs.contains_key(*name), "{name} is an input");
        inputs.insert(name.to_string(), value.to_string());
    }
    let temp = test.dir.path().join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let outputs = temp.join("github_output");
    let summary = temp.join("step_summary");
    let bin = assert_cmd::cargo::cargo_bin("gh-sweep");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let base = test.server.base.clone();
    let temp_text = temp.display().to_string();
    let action_path = env!("CARGO_MANIFEST_DIR");
    let github = [
        ("github.api_url", base.as_str()),
        ("github.repository", REPO),
        ("runner.temp", temp_text.as_str()),
        ("github.action_path", action_path),
        // Empty, as inside a composite action's run: (actions/runner#2473): the install step
        // falls back to the build, which the test's PATH stands in for.
        ("github.action_repository", ""),
        ("github.server_url", "http://127.0.0.1:9"),
    ];
    let mut last = (0, String::new(), String::new());
    for step in steps(&action) {
        let Some(script) = step["run"].as_str() else {
            continue;
        };
        if script.contains("cargo build") {
            continue;
        }
        let mut command = std::process::Command::new("bash");
        command
            .env_clear()
            .current_dir(test.dir.path())
            .env("HOME", test.dir.path().join("home"))
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .env("GITHUB_OUTPUT", &outputs)
            .env("GITHUB_PATH", temp.join("github_path"))
            .env("RUNNER_TEMP", &temp)
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64")
            .env("GITHUB_STEP_SUMMARY", &summary)
            .arg("-e")
            .arg("-c")
            .arg(script);
        if let Some(env) = step["env"].as_hash() {
            for (name, value) in env {
                let value = match value {
                    Yaml::String(text) => text.clone(),
                    other => panic!("{other:?}"),
                };
                command.env(name.as_str().unwrap(), resolve(&value, &inputs, &github));
            }
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).to_string();
        assert!(!stderr.contains(TOKEN), "the token leaked");
        let stdout = String::from_utf8_lossy(&output.stdout).to_string();
        last = (output.status.code().unwrap_or(-1), stdout, stderr);
    }
    ActionRun {
        code: last.0,
        stdout: last.1,
        stderr: last.2,
        outputs: std::fs::read_to_string(&outputs).unwrap_or_default(),
        summary: std::fs::read_to_string(&summary).unwrap_or_default(),
        state: temp.join("gh-sweep-state"),
    }
}

/// The value of one output in a `GITHUB_OUTPUT` file (`name<<DELIMITER` … `DELIMITER`).
pub(crate) fn output(file: &str, name: &str) -> Value {
    let head = format!("{name}<<");
    let start = file
        .find(&head)
        .unwrap_or_else(|| panic!("{name} in {file}"));
    let rest = &file[start + head.len()..];
    let (delimiter, rest) = rest.split_once('\n').unwrap();
    let end = rest.find(&format!("\n{delimiter}\n")).unwrap();
    serde_json::from_str(&rest[..end]).unwrap()
}

fn pool(world: &mut crate::support::WorldState) {
    world.open_issue(1, 90).title = "Crash on start".into();
    world.open_issue(2, 10);
    world.stale_issue(3, 10, "github-actions[bot]").title = "Old question".into();
    world.open_issue(4, 90).labels.push("pinned".into());
}

const WITH: &[(&str, &str)] = &[
    ("stale-issue-message", "Stale now."),
    ("exempt-issue-labels", "pinned"),
];

#[test]
fn the_action_sweeps_sets_its_outputs_and_the_job_summary() {
    let test = Test::new(pool);
    let run = run_action(&test, WITH);
    assert_eq!(run.code, 0, "{}", run.stderr);
    test.expect_writes(&[
        format!("POST {}/labels", issue(1)),
        format!("POST {}/comments", issue(1)),
        format!("PATCH {}", issue(3)),
    ]);
    let staled = output(&run.outputs, "staled-issues-prs");
    assert_eq!(staled[0]["number"], 1);
    assert_eq!(staled[0]["title"], "Crash on start");
    assert_eq!(staled.as_array().unwrap().len(), 1);
    let closed = output(&run.outputs, "closed-issues-prs");
    assert_eq!(closed[0]["number"], 3);
    assert_eq!(closed[0]["title"], "Old question");
    assert!(run.summary.contains("octo/demo#1"), "{}", run.summary);
    assert!(
        run.state.join("gh-sweep/state.db").exists(),
        "the store is in the cached folder"
    );
}

#[test]
fn the_action_and_from_workflow_give_the_same_recap() {
    let by_action = Test::new(pool);
    let run = run_action(&by_action, WITH);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let recap = |test: &Test, state: &Path| -> Value {
        let output = test
            .command(&["recap", "--json"])
            .env("XDG_STATE_HOME", state)
            .output()
            .unwrap();
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let from_action = recap(&by_action, &run.state);
    let writes = [
        format!("POST {}/labels", issue(1)),
        format!("POST {}/comments", issue(1)),
        format!("PATCH {}", issue(3)),
    ];
    by_action.expect_writes(&writes);

    let by_workflow = Test::new(pool);
    let lines: String = WITH
        .iter()
        .map(|(name, value)| format!("          {name}: '{value}'\n"))
        .collect();
    let path = by_workflow.dir.path().join(".github/workflows/stale.yml");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        format!(
            "jobs:\n  stale:\n    steps:\n      - uses: actions/stale@v10\n        with:\n{lines}"
        ),
    )
    .unwrap();
    let outcome = by_workflow.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--json",
        "--from-workflow",
        ".github/workflows/stale.yml",
    ]);
    outcome.expect_code(0);
    let from_workflow = outcome.json();
    by_workflow.expect_writes(&writes);
    for field in ["completed", "failed", "unfinished", "counters", "outputs"] {
        assert_eq!(from_action[field], from_workflow[field], "{field}");
    }
    assert!(from_action["outputs"]["staled-issues-prs"].is_string());
}

#[test]
fn a_failed_write_fails_the_job_and_the_state_is_kept() {
    let test = Test::new(pool);
    test.fail(
        "POST",
        "/issues/1/labels",
        crate::support::Fault::Status(422),
        1,
    );
    let run = run_action(&test, WITH);
    assert_ne!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.code, 11, "a failed write: {}", run.stderr);
    assert!(
        run.stdout
            .contains("::error::gh-sweep stopped with exit code 11"),
        "{}",
        run.stdout
    );
    test.expect_writes(&[format!("POST {}/labels", issue(1))]);
    assert!(run.state.join("gh-sweep/state.db").exists());
}

/// actionlint reads workflows, not `action.yml`: each of the action's `run:` scripts is checked
/// by `shellcheck` instead (a runner's expression stands in as a plain word), and no script
/// pastes an expression that can carry anyone's text (`inputs.*`, `github.event.*`, a step's
/// outputs) into its own body: those reach it through `env:`. Without shellcheck the lint is
/// skipped, saying so; the expression check always runs.
#[test]
fn the_actions_scripts_pass_shellcheck_and_take_user_text_only_through_env() {
    let action = action();
    let shellcheck = std::process::Command::new("shellcheck")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !shellcheck {
        eprintln!("skipped: `shellcheck` is not installed (apt-get install shellcheck); the action's scripts are not linted");
    }
    let mut checked = 0;
    for step in steps(&action) {
        let Some(script) = step["run"].as_str() else {
            continue;
        };
        for expression in script.split("${{").skip(1) {
            let expression = expression.split("}}").next().unwrap().trim();
            assert!(
                !["inputs.", "github.event", "steps.", "env."]
                    .iter()
                    .any(|taint| expression.starts_with(taint)),
                "`${{{{ {expression} }}}}` is pasted into a script; pass it through env:\n{script}"
            );
        }
        if !shellcheck {
            continue;
        }
        let mut plain = String::new();
        let mut rest = script;
        while let Some(start) = rest.find("${{") {
            plain.push_str(&rest[..start]);
            let end = rest[start..].find("}}").unwrap() + start + 2;
            plain.push_str("expression");
            rest = &rest[end..];
        }
        plain.push_str(rest);
        let mut child = std::process::Command::new("shellcheck")
            .args(["--shell=bash", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(child.stdin.as_mut().unwrap(), plain.as_bytes()).unwrap();
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "shellcheck on the action's step {:?}:\n{}",
            step["name"].as_str(),
            String::from_utf8_lossy(&output.stdout)
        );
        checked += 1;
    }
    assert!(!shellcheck || checked >= 2, "{checked} scripts checked");
}

/// A stand-in for `github.server_url`'s release downloads: serves `files` by path, answers 404
/// for anything else, and records each path asked. It stops by itself after 30 s.
fn release_server(
    files: Vec<(String, Vec<u8>)>,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = std::sync::Arc::clone(&asked);
    std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::time::Instant::now() < deadline {
            let Ok((stream, _)) = listener.accept() else {
                std::thread::sleep(std::time::Duration::from_millis(10));
                continue;
            };
            stream.set_nonblocking(false).unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) <= 2 {
                    break;
                }
            }
            log.lock().unwrap().push(path.clone());
            let mut stream = stream;
            match files.iter().find(|(name, _)| *name == path) {
                Some((_, body)) => {
                    let head = format!(
                        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.write_all(body);
                }
                None => {
                    let _ = stream.write_all(
                        b"HTTP/1.1 404 Not Found\r\ncontent-length: 9\r\nconnection: close\r\n\r\nNot Found",
                    );
                }
            }
        }
    });
    (base, asked)
}

/// Issue 25, point 2: the action's install step takes its own version's release binary for the
/// runner's OS and architecture from `github.server_url`, verifies its SHA-256 and puts it on
/// `PATH`; a wrong checksum, a missing release or an unknown action repository falls back to
/// the build and says so. The server stands in for github.com's release downloads
/// (`/OWNER/REPO/releases/download/vX.Y.Z/ASSET`).
#[test]
fn the_install_step_downloads_its_own_versions_binary_or_falls_back_to_the_build() {
    let binary = std::fs::read(assert_cmd::cargo::cargo_bin("gh-sweep")).unwrap();
    let digest = ring::digest::digest(&ring::digest::SHA256, &binary);
    let hex: String = digest
        .as_ref()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let version = format!("v{}", env!("CARGO_PKG_VERSION"));
    let asset = |arch: &str| format!("gh-sweep_{version}_linux-{arch}");
    let path = |arch: &str| {
        format!(
            "/OWNER/gh-sweep/releases/download/{version}/{}",
            asset(arch)
        )
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(".github/scripts/install.sh");
    let run = |server: &str, arch: &str, repository: &str| -> (String, String, String) {
        let temp = tempfile::tempdir().unwrap();
        let output = std::process::Command::new("bash")
            .arg(&script)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("ACTION_PATH", env!("CARGO_MANIFEST_DIR"))
            .env("ACTION_REPOSITORY", repository)
            .env("SERVER_URL", server)
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", arch)
            .env("RUNNER_TEMP", temp.path())
            .env("GITHUB_PATH", temp.path().join("path"))
            .env("GITHUB_OUTPUT", temp.path().join("output"))
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let on_path = std::fs::read_to_string(temp.path().join("path")).unwrap_or_default();
        if let Some(dir) = on_path.lines().next() {
            let version = std::process::Command::new(Path::new(dir).join("gh-sweep"))
                .arg("--version")
                .output()
                .unwrap();
            assert!(version.status.success(), "the downloaded gh-sweep runs");
        }
        (
            String::from_utf8_lossy(&output.stdout).to_string(),
            std::fs::read_to_string(temp.path().join("output")).unwrap_or_default(),
            on_path,
        )
    };
    // The release is there: the ARM64 runner gets the arm64 asset, verified.
    let (server, asked) = release_server(vec![
        (path("arm64"), binary.clone()),
        (
            format!("{}.sha256", path("arm64")),
            format!("{hex}  {}\n", asset("arm64")).into_bytes(),
        ),
    ]);
    let (said, output, on_path) = run(&server, "ARM64", "OWNER/gh-sweep");
    assert!(
        said.contains("downloaded release") && said.contains("checksum verified"),
        "{said}"
    );
    assert_eq!(output.trim(), "installed=true");
    assert_eq!(on_path.lines().count(), 1);
    assert_eq!(asked.lock().unwrap()[0], path("arm64"));
    // A checksum that does not match: not installed, the build instead, and said.
    let (server, _) = release_server(vec![
        (path("amd64"), binary.clone()),
        (
            format!("{}.sha256", path("amd64")),
            format!("{}  {}\n", "0".repeat(64), asset("amd64")).into_bytes(),
        ),
    ]);
    let (said, output, on_path) = run(&server, "X64", "OWNER/gh-sweep");
    assert!(
        said.contains("checksum") && said.contains("does not match") && said.contains("building"),
        "{said}"
    );
    assert_eq!(output.trim(), "installed=false");
    assert!(on_path.is_empty());
    // No such release (a development branch, a GitHub Enterprise Server without it).
    let (server, _) = release_server(Vec::new());
    let (said, output, _) = run(&server, "X64", "OWNER/gh-sweep");
    assert!(
        said.contains("no release") && said.contains("building"),
        "{said}"
    );
    assert_eq!(output.trim(), "installed=false");
    // The action's repository unknown (empty, as in a composite action's run:).
    let (said, output, _) = run(&server, "X64", "");
    assert!(
        said.contains("not known") && said.contains("building"),
        "{said}"
    );
    assert_eq!(output.trim(), "installed=false");
}

/// Issue 25, point 1: the release packaging, run on this machine with the test's binary (the
/// other targets need their toolchains): the archive holds `gh-sweep-vX.Y.Z-OS-ARCH/` with the
/// executable, the README and the completions; each file has a `.sha256` that `sha256sum -c`
/// accepts; the raw executable is named as `gh extension install` picks assets
/// (`gh-sweep_vX.Y.Z_linux-amd64`, cli/cli's pkg/cmd/extension/manager.go).
#[test]
fn the_release_packaging_makes_archives_checksums_and_extension_assets() {
    let out = tempfile::tempdir().unwrap();
    let binary = assert_cmd::cargo::cargo_bin("gh-sweep");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(".github/scripts/package.sh");
    let made = std::process::Command::new("bash")
        .arg(&script)
        .arg(&binary)
        .args(["v9.8.7", "linux", "amd64"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let mut names: Vec<String> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "gh-sweep-v9.8.7-linux-amd64.tar.gz",
            "gh-sweep-v9.8.7-linux-amd64.tar.gz.sha256",
            "gh-sweep_v9.8.7_linux-amd64",
            "gh-sweep_v9.8.7_linux-amd64.sha256",
        ]
    );
    let checked = std::process::Command::new("sha256sum")
        .arg("-c")
        .args([
            "gh-sweep-v9.8.7-linux-amd64.tar.gz.sha256",
            "gh-sweep_v9.8.7_linux-amd64.sha256",
        ])
        .current_dir(out.path())
        .output()
        .unwrap();
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stdout)
    );
    let listed = std::process::Command::new("tar")
        .arg("-tzf")
        .arg(out.path().join("gh-sweep-v9.8.7-linux-amd64.tar.gz"))
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    for wanted in [
        "gh-sweep-v9.8.7-linux-amd64/gh-sweep",
        "gh-sweep-v9.8.7-linux-amd64/README.md",
        "gh-sweep-v9.8.7-linux-amd64/completions/",
    ] {
        assert!(
            listed.lines().any(|line| line == wanted),
            "{wanted} in\n{listed}"
        );
    }
    let raw = out.path().join("gh-sweep_v9.8.7_linux-amd64");
    let version = std::process::Command::new(&raw)
        .arg("--version")
        .output()
        .unwrap();
    assert!(version.status.success());
}
