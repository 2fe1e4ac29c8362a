//! Shell completions, tested by running the shells on the scripts `gh-sweep completions SHELL`
//! prints: bash through its completion function (`COMP_WORDS`, `COMP_CWORD`, `COMPREPLY`, as
//! bash's programmable completion calls it), fish through `complete -C`, and zsh at a real
//! pseudo-terminal with `compinit`, pressing Tab. A shell that is not installed is skipped
//! with a note (`apt-get install zsh fish` brings them).

use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::Test;

/// A command line typed so far (ending where Tab is pressed) and words the completion offers.
const CASES: &[(&str, &[&str])] = &[
    ("gh-sweep st", &["stale-sweep"]),
    ("gh-sweep stale-sweep --dr", &["--dry-run"]),
    (
        "gh-sweep stale-sweep --color ",
        &["auto", "always", "never"],
    ),
    ("gh-sweep classify ", &["stale", "merge"]),
    ("gh-sweep classify stale --from-w", &["--from-workflow"]),
    ("gh-sweep poll --or", &["--org"]),
    ("gh-sweep recap --mark", &["--markdown"]),
    (
        "gh-sweep completions ",
        &["bash", "zsh", "fish", "powershell"],
    ),
    ("gh-sweep man cl", &["classify"]),
    ("gh-sweep man classify ", &["stale", "merge"]),
];

fn installed(shell: &str) -> bool {
    let found = std::process::Command::new(shell)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !found {
        eprintln!("skipped: {shell} is not installed");
    }
    found
}

/// The script `gh-sweep completions SHELL` prints, saved under `dir` as `name`.
fn script(test: &Test, shell: &str, dir: &Path, name: &str) -> std::path::PathBuf {
    let outcome = test.run(&["completions", shell]);
    outcome.expect_code(0);
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, &outcome.stdout).unwrap();
    path
}

/// What bash's completion for gh-sweep offers for `line`, called as bash calls it: the
/// function `complete -p gh-sweep` names, with the command, the current and the previous word.
fn bash_offers(script: &Path, line: &str) -> Vec<String> {
    bash_offers_in(script, line, None)
}

/// [`bash_offers`] with bash run in `cwd`, where a path's completion looks.
fn bash_offers_in(script: &Path, line: &str, cwd: Option<&Path>) -> Vec<String> {
    const DRIVER: &str = r#"
source "$1"; shift
function=$(complete -p gh-sweep | sed -E 's/.*-F ([^ ]+).*/\1/')
COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
"$function" gh-sweep "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"#;
    let mut words: Vec<String> = line.split(' ').map(str::to_string).collect();
    if line.ends_with(' ') {
        // The empty word being completed.
        words.pop();
        words.push(String::new());
    }
    let mut bash = std::process::Command::new("bash");
    if let Some(dir) = cwd {
        bash.current_dir(dir);
    }
    let output = bash
        .args(["--norc", "--noprofile", "-c", DRIVER, "bash"])
        .arg(script)
        .args(&words)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{line:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completes_subcommands_their_flags_and_flag_values() {
    if !installed("bash") {
        return;
    }
    let test = Test::new(|_| {});
    let script = script(&test, "bash", test.dir.path(), "gh-sweep.bash");
    for (line, expected) in CASES {
        let offers = bash_offers(&script, line);
        for word in *expected {
            assert!(
                offers.iter().any(|offer| offer == word),
                "bash: {line:?}<TAB> offers {offers:?}, not {word:?}"
            );
        }
    }
}

/// A path's completion goes on into folders: `--config .git<TAB>` offers `.github/` (no space
/// after it, so the next Tab lists what is inside), and `.github/<TAB>` the file there.
#[test]
fn bash_completes_paths_into_folders() {
    if !installed("bash") {
        return;
    }
    let test = Test::new(|_| {});
    let script = script(
        &test,
        "bash",
        &test.dir.path().join("home"),
        "gh-sweep.bash",
    );
    let offers = |line: &str| bash_offers_in(&script, line, Some(test.dir.path()));
    assert_eq!(offers("gh-sweep stale-sweep --config .git"), [".github/"]);
    assert_eq!(
        offers("gh-sweep stale-sweep --config .github/"),
        [".github/gh-sweep.toml"]
    );
    assert_eq!(
        offers("gh-sweep recap --db .github/gh"),
        [".github/gh-sweep.toml"]
    );
}

#[test]
fn fish_completes_subcommands_their_flags_and_flag_values() {
    if !installed("fish") {
        return;
    }
    let test = Test::new(|_| {});
    let script = script(&test, "fish", test.dir.path(), "gh-sweep.fish");
    for (line, expected) in CASES {
        let output = std::process::Command::new("fish")
            .args(["--no-config", "-c", "source $argv[1]; complete -C $argv[2]"])
            .arg(&script)
            .arg(line)
            .current_dir(test.dir.path())
            .env("HOME", test.dir.path().join("home"))
            .env("XDG_CONFIG_HOME", test.dir.path().join("home/.config"))
            .env("XDG_DATA_HOME", test.dir.path().join("home/.local/share"))
            .output()
            .unwrap();
        assert!(output.status.success(), "{line:?}: {output:?}");
        let offers: Vec<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(|offer| offer.split('\t').next().unwrap_or_default().to_string())
            .collect();
        for word in *expected {
            assert!(
                offers.iter().any(|offer| offer == word),
                "fish: {line:?}<TAB> offers {offers:?}, not {word:?}"
            );
        }
    }
}

#[test]
fn zsh_completes_subcommands_their_flags_and_flag_values() {
    if !installed("zsh") {
        return;
    }
    let test = Test::new(|_| {});
    let functions = test.dir.path().join("zsh-functions");
    script(&test, "zsh", &functions, "_gh-sweep");
    for (line, expected) in CASES {
        let screen = zsh_tab(&test, &functions, line, expected);
        for word in *expected {
            assert!(
                screen.contains(word),
                "zsh: {line:?}<TAB> shows {screen:?}, not {word:?}"
            );
        }
    }
}

/// Types `line` and Tab into an interactive zsh (no rc files, `compinit` with gh-sweep's
/// function on `fpath`) at a pseudo-terminal, and returns what the terminal showed from then
/// on (the line, completed, or the list of candidates), once every `expected` word is there
/// (or after 10 s).
fn zsh_tab(test: &Test, functions: &Path, line: &str, expected: &[&str]) -> String {
    let (mut master, slave) = crate::support::open_pty(200);
    let mut command = std::process::Command::new("zsh");
    command
        .args(["-f", "-i"])
        .env_clear()
        .env("TERM", "dumb")
        .env("HOME", test.dir.path().join("home"))
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .current_dir(test.dir.path())
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave));
    // The terminal is zsh's controlling terminal, as at a real login.
    crate::support::with_controlling_terminal(&mut command);
    let mut child = command.spawn().unwrap();
    let screen = crate::support::collect(master.try_clone().unwrap());
    let ready = "READY-FOR-TAB";
    // The echoed command spells the word with quotes, so only zsh's output matches.
    let setup = format!(
        "fpath=({} $fpath); autoload -U compinit; compinit -u -D; PS1='> '; print READY-FOR-''TAB\n",
        functions.display()
    );
    master.write_all(setup.as_bytes()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let start = loop {
        let text = screen.lock().unwrap().clone();
        if let Some(position) = text.rfind(ready) {
            break position + ready.len();
        }
        assert!(Instant::now() < deadline, "zsh did not start:\n{text}");
        std::thread::sleep(Duration::from_millis(20));
    };
    master.write_all(line.as_bytes()).unwrap();
    master.write_all(b"\t").unwrap();
    master.flush().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    // No expected word is in the typed line, so seeing it means the completion offered it.
    assert!(expected.iter().all(|word| !line.contains(word)), "{line:?}");
    let shown = loop {
        let shown = screen.lock().unwrap()[start..].to_string();
        if expected.iter().all(|word| shown.contains(word)) || Instant::now() > deadline {
            break shown;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = master.write_all(b"\x03exit\n");
    let _ = child.kill();
    let _ = child.wait();
    shown
}

/// The man pages `gh-sweep man --out-dir DIR` writes: one per subcommand, each naming only pages
/// that exist, each with ENVIRONMENT, FILES and EXIT STATUS, and the same as the committed ones
/// in `completions/` (regenerate with `cargo run -- man --out-dir completions`).
#[test]
fn every_subcommand_has_a_man_page_and_the_committed_pages_match() {
    let test = Test::new(|_| {});
    let out = test.dir.path().join("man1");
    std::fs::create_dir_all(&out).unwrap();
    test.run(&["man", "--out-dir", out.to_str().unwrap()])
        .expect_code(0);
    let read = |dir: &Path| -> std::collections::BTreeMap<String, String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "1"))
            .map(|path| {
                (
                    path.file_name().unwrap().to_string_lossy().to_string(),
                    std::fs::read_to_string(&path).unwrap(),
                )
            })
            .collect()
    };
    let pages = read(&out);
    let names: Vec<&str> = pages.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "gh-sweep-classify-merge.1",
            "gh-sweep-classify-stale.1",
            "gh-sweep-classify.1",
            "gh-sweep-completions.1",
            "gh-sweep-man.1",
            "gh-sweep-poll.1",
            "gh-sweep-recap.1",
            "gh-sweep-stale-sweep.1",
            "gh-sweep-store-copy.1",
            "gh-sweep-store-status.1",
            "gh-sweep-store.1",
            "gh-sweep-sweep.1",
            "gh-sweep.1",
        ]
    );
    for (name, page) in &pages {
        // Every page another page names exists.
        for (at, _) in page.match_indices("(1)") {
            let start = page[..at]
                .rfind(|c: char| c.is_whitespace() || c == '>')
                .map_or(0, |start| start + 1);
            let named = format!(
                "{}.1",
                page[start..at]
                    .replace("\\-", "-")
                    .replace("\\fB", "")
                    .replace("\\fR", "")
            );
            assert!(
                pages.contains_key(&named),
                "{name} names {named}, which is not a page"
            );
        }
        for section in [".SH ENVIRONMENT", ".SH FILES", ".SH \"EXIT STATUS\""] {
            assert!(page.contains(section), "{name} has no {section}");
        }
        assert!(page.contains("GH_TOKEN"), "{name}: the token variables");
        assert!(page.contains("130"), "{name}: the exit codes");
    }
    for (page, option) in [
        ("gh-sweep-stale-sweep.1", "\\-\\-from\\-workflow"),
        ("gh-sweep-stale-sweep.1", "\\-\\-dry\\-run"),
        ("gh-sweep-classify-stale.1", "\\-\\-print\\-config"),
        ("gh-sweep-poll.1", "\\-\\-confirm"),
        ("gh-sweep-classify-merge.1", "\\-\\-org"),
        ("gh-sweep-recap.1", "\\-\\-markdown"),
    ] {
        assert!(pages[page].contains(option), "{page} lists {option}");
    }
    // `gh-sweep man SUBCOMMAND` prints one page.
    let one = test.run(&["man", "classify", "stale"]);
    one.expect_code(0);
    assert_eq!(one.stdout, pages["gh-sweep-classify-stale.1"]);
    let bad = test.run(&["man", "frobnicate"]);
    bad.expect_code(2);
    assert!(
        bad.stderr.contains("no man page for `frobnicate`") && bad.stderr.contains("stale-sweep"),
        "{}",
        bad.stderr
    );

    let committed = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("completions"));
    assert!(
        committed == pages,
        "the man pages in completions/ are stale: run `cargo run -- man --out-dir completions`"
    );
}
