//! Settings, resolved once at the top: flags beat environment beat the config file beat
//! defaults. Everything is validated here, before anything is read; a bad value is an error
//! that names it and the fix. Nothing below this layer reads the environment.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use secrecy::SecretString;
use serde::Deserialize;

use crate::cli::GlobalArgs;
use crate::exit::Fatal;
use crate::github::client::RetryPolicy;
use crate::github::snapshot::Snapshot;
use crate::item::{ItemRef, RepoRef};
use crate::policy::budget::Budget;
use crate::policy::merge::{PollRules, POLL_KEYS};
use crate::policy::recap::shell_quote;
use crate::policy::selector;
use crate::policy::stale::StaleRules;
use crate::policy::sweep::{SweepRules, SWEEP_KEYS};

/// The environment variables gh-sweep reads, captured once in `main`.
#[derive(Debug, Default, Clone)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

const ENV_NAMES: &[&str] = &[
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
    "GITHUB_API_URL",
    "GH_HOST",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "HOME",
    "PATH",
    "CI",
    "GH_SWEEP_SWEEP_ENABLED",
    "GITHUB_STEP_SUMMARY",
    // Read by clap for the flags they stand for; captured too, so that an error about a value
    // can say it came from the variable.
    "GH_SWEEP_ITEM_FAILURE_BUDGET",
    "GH_SWEEP_CONFIG",
    "GH_SWEEP_DB",
    "GH_SWEEP_TEST_NOW",
];

impl Env {
    pub fn capture() -> Self {
        let vars = ENV_NAMES
            .iter()
            .filter_map(|name| {
                std::env::var(name)
                    .ok()
                    .map(|value| (name.to_string(), value))
            })
            .collect();
        Env { vars }
    }

    #[cfg(test)]
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Self {
        Env {
            vars: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|value| !value.trim().is_empty())
    }
}

/// The config file's shape. Keys are checked against these lists before deserializing, so an
/// unknown key is named with the closest known one.
#[derive(Debug, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    item_failure_budget: Option<String>,
    write_interval: Option<f64>,
    max_writes: Option<u64>,
    recheck_after_seconds: Option<u64>,
    settle_after_seconds: Option<u64>,
    read_retries: Option<u32>,
    retry_backoff_ms: Option<u64>,
    max_retry_wait_seconds: Option<u64>,
    timeout_seconds: Option<u64>,
    search_interval_ms: Option<u64>,
    read_api: Option<String>,
    #[serde(default)]
    stale: StaleRules,
    #[serde(default)]
    poll: PollRules,
    #[serde(default)]
    sweep: SweepRules,
}

const TOP_KEYS: &[&str] = &[
    "item_failure_budget",
    "write_interval",
    "max_writes",
    "recheck_after_seconds",
    "settle_after_seconds",
    "read_retries",
    "retry_backoff_ms",
    "max_retry_wait_seconds",
    "timeout_seconds",
    "search_interval_ms",
    "read_api",
    "stale",
    "poll",
    "sweep",
];

pub const STALE_KEYS: &[&str] = &[
    "days_before_stale",
    "days_before_close",
    "days_before_issue_stale",
    "days_before_pr_stale",
    "days_before_issue_close",
    "days_before_pr_close",
    "stale_issue_label",
    "stale_pr_label",
    "stale_issue_message",
    "stale_pr_message",
    "close_issue_message",
    "close_pr_message",
    "close_issue_reason",
    "close_issue_label",
    "close_pr_label",
    "exempt_issue_labels",
    "exempt_pr_labels",
    "only_labels",
    "any_of_labels",
    "exempt_milestones",
    "exempt_all_milestones",
    "exempt_assignees",
    "exempt_all_assignees",
    "exempt_draft_pr",
    "include_only_assigned",
    "start_date",
    "ignore_updates",
    "remove_stale_when_updated",
    "labels_to_add_when_unstale",
    "labels_to_remove_when_unstale",
    "labels_to_remove_when_stale",
];

fn closest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|candidate| (strsim::jaro_winkler(key, candidate), *candidate))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

/// The same key (or the closest one) in another section, with that section's prefix: a key put
/// under the wrong table (`[poll] merge_method` is `sweep.merge_method`).
fn in_another_section(key: &str, prefix: &str) -> Option<String> {
    let sections: [(&str, &[&str]); 4] = [
        ("", TOP_KEYS),
        ("stale.", STALE_KEYS),
        ("poll.", POLL_KEYS),
        ("sweep.", SWEEP_KEYS),
    ];
    let others: Vec<&(&str, &[&str])> = sections
        .iter()
        .filter(|(section, _)| *section != prefix)
        .collect();
    others
        .iter()
        .find(|(_, known)| known.contains(&key))
        .map(|(section, _)| format!("{section}{key}"))
        .or_else(|| {
            others.iter().find_map(|(section, known)| {
                closest(key, known).map(|candidate| format!("{section}{candidate}"))
            })
        })
}

fn check_keys(
    table: &toml::Table,
    known: &[&str],
    prefix: &str,
    path: &Path,
) -> Result<(), String> {
    for key in table.keys() {
        if !known.contains(&key.as_str()) {
            let hint = closest(key, known)
                .map(|candidate| format!("{prefix}{candidate}"))
                .or_else(|| in_another_section(key, prefix))
                .map(|candidate| format!("; did you mean `{candidate}`?"))
                .unwrap_or_default();
            return Err(format!(
                "unknown key `{prefix}{key}` in {}{hint}",
                path.display()
            ));
        }
    }
    Ok(())
}

fn parse_file(text: &str, path: &Path) -> Result<FileConfig, String> {
    // The parser's own report (line, column, the line with a caret under the fault) keeps its
    // line breaks: `main` prints a usage error's lines as lines.
    let table: toml::Table = text.parse().map_err(|error: toml::de::Error| {
        format!(
            "{} is not valid TOML: {}",
            path.display(),
            error.to_string().trim_end()
        )
    })?;
    check_keys(&table, TOP_KEYS, "", path)?;
    if let Some(stale) = table.get("stale") {
        let stale = stale.as_table().ok_or_else(|| {
            format!(
                "`stale` in {} must be a table: write `[stale]`",
                path.display()
            )
        })?;
        check_keys(stale, STALE_KEYS, "stale.", path)?;
    }
    if let Some(poll) = table.get("poll") {
        let poll = poll.as_table().ok_or_else(|| {
            format!(
                "`poll` in {} must be a table: write `[poll]`",
                path.display()
            )
        })?;
        check_keys(poll, POLL_KEYS, "poll.", path)?;
    }
    if let Some(sweep) = table.get("sweep") {
        let sweep = sweep.as_table().ok_or_else(|| {
            format!(
                "`sweep` in {} must be a table: write `[sweep]`",
                path.display()
            )
        })?;
        check_keys(sweep, SWEEP_KEYS, "sweep.", path)?;
    }
    FileConfig::deserialize(table).map_err(|error| {
        // Deserialized again from the text, the error knows where it is.
        let located = toml::from_str::<FileConfig>(text)
            .err()
            .and_then(|error| located_type_error(text, &error));
        match located {
            Some(located) => format!("invalid config {}: {located}", path.display()),
            None => format!(
                "invalid config {}: {}",
                path.display(),
                error.message().trim()
            ),
        }
    })
}

/// A type error as a maintainer reads it: `` `[stale] days_before_stale` at line 3: expected a
/// number, found the string "30" ``. None when the error has no place in the text.
fn located_type_error(text: &str, error: &toml::de::Error) -> Option<String> {
    let span = error.span()?;
    let before = text.get(..span.start)?;
    let line = before.matches('\n').count() + 1;
    let line_text = text.lines().nth(line - 1)?;
    let key = line_text.split_once('=')?.0.trim().trim_matches('"');
    let section = before
        .lines()
        .rev()
        .map(str::trim)
        .find(|line| line.starts_with('['))
        .map(|header| format!("{} ", header.split('#').next().unwrap_or(header).trim()))
        .unwrap_or_default();
    Some(format!(
        "`{section}{key}` at line {line}: {}",
        plain_type_error(error.message().trim())
    ))
}

/// serde's `invalid type: string "30", expected i64` as `expected a number, found the string
/// "30"`; any other message as it is.
fn plain_type_error(message: &str) -> String {
    let Some((found, expected)) = message
        .strip_prefix("invalid type: ")
        .and_then(|rest| rest.rsplit_once(", expected "))
    else {
        return message.to_string();
    };
    let expected = match expected {
        "i64" | "u64" | "i32" | "u32" | "u16" | "u8" | "usize" | "an integer" => "a whole number",
        "f64" | "f32" => "a number",
        "a boolean" => "true or false",
        "a sequence" => "a list",
        other => other,
    };
    let found = if let Some(value) = found.strip_prefix("string ") {
        format!("the string {value}")
    } else if let Some(value) = found.strip_prefix("integer ") {
        format!("the number {}", value.trim_matches('`'))
    } else if let Some(value) = found.strip_prefix("floating point ") {
        format!("the number {}", value.trim_matches('`'))
    } else if let Some(value) = found.strip_prefix("boolean ") {
        value.trim_matches('`').to_string()
    } else {
        found.to_string()
    };
    format!("expected {expected}, found {found}")
}

/// The `[stale]` table with `table`'s keys put over `rules`.
pub fn overlay_stale(rules: &StaleRules, table: toml::Table) -> Result<StaleRules, String> {
    let mut merged = match toml::Value::try_from(rules) {
        Ok(toml::Value::Table(merged)) => merged,
        _ => toml::Table::new(),
    };
    merged.extend(table);
    StaleRules::deserialize(merged).map_err(|error| error.message().trim().to_string())
}

/// The `[stale]` table in effect for `--print-config`: from the workflow, else the config file.
pub fn stale_table_in_effect(
    args: &GlobalArgs,
    workflow: Option<&Path>,
    env: &Env,
    cwd: &Path,
) -> Result<(String, Vec<String>), Fatal> {
    let usage = Fatal::Usage;
    if let Some(workflow) = workflow {
        let (table, warnings) = crate::workflow::stale_table(workflow).map_err(usage)?;
        overlay_stale(&StaleRules::default(), table.clone())
            .and_then(|rules| rules.validate())
            .map_err(|error| {
                Fatal::Usage(format!(
                    "invalid actions/stale inputs in {}: {error}",
                    workflow.display()
                ))
            })?;
        return Ok((
            crate::workflow::print_with_notes(&table, workflow, &warnings),
            warnings,
        ));
    }
    let path = find_config(args.config.as_deref(), env, cwd).map_err(usage)?;
    let rules = match &path {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|error| {
                Fatal::Usage(format!(
                    "cannot read config file {}: {error}",
                    path.display()
                ))
            })?;
            parse_file(&text, path).map_err(usage)?.stale
        }
        None => StaleRules::default(),
    };
    let mut wrapper = toml::Table::new();
    let table = toml::Value::try_from(&rules).map_err(|error| Fatal::Usage(error.to_string()))?;
    wrapper.insert("stale".into(), table);
    Ok((
        toml::to_string_pretty(&wrapper).unwrap_or_default(),
        Vec::new(),
    ))
}

/// Parses and validates a config file's text as a run would, for the fuzz target: any input
/// gives a value or an error message, never a panic.
pub fn check_config_text(text: &str) -> Result<(), String> {
    let file = parse_file(text, Path::new("config.toml"))?;
    file.stale.validate()?;
    file.poll.validate()?;
    file.sweep.validate()?;
    if let Some(budget) = &file.item_failure_budget {
        budget.parse::<Budget>()?;
    }
    Ok(())
}

/// Where the config file is, if anywhere. An explicit path must exist.
/// The `--only` list as given, or read from `@FILE` or `-` (standard input). A file may put
/// its items on lines, as the rerun file gh-sweep writes does; they are joined with commas.
fn only_list(text: &str) -> Result<String, String> {
    let (read, source) = if text == "-" {
        let mut read = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut read)
            .map_err(|error| format!("invalid --only -: cannot read standard input: {error}"))?;
        (read, "standard input".to_string())
    } else if let Some(path) = text.strip_prefix('@') {
        let read = std::fs::read_to_string(path)
            .map_err(|error| format!("invalid --only @{path}: cannot read {path}: {error}"))?;
        (read, path.to_string())
    } else {
        return Ok(text.to_string());
    };
    let joined = read
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(",");
    if joined.is_empty() {
        return Err(format!("invalid --only {text}: {source} names no items"));
    }
    Ok(joined)
}

/// Whether a config file is there. Only "not found" means no config: any other error (a folder
/// that cannot be searched, a symlink loop) is an error naming the path, never the defaults,
/// which could write what the unread config forbids.
fn config_present(path: &Path) -> Result<bool, String> {
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_file() => Ok(true),
        Ok(_) => Err(format!(
            "cannot read config file {}: it is not a file",
            path.display()
        )),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(format!(
            "cannot read config file {}: {error}",
            path.display()
        )),
    }
}

fn find_config(flag: Option<&Path>, env: &Env, cwd: &Path) -> Result<Option<PathBuf>, String> {
    if let Some(path) = flag {
        if !config_present(path)? {
            return Err(format!("config file {} does not exist", path.display()));
        }
        return Ok(Some(path.to_path_buf()));
    }
    let local = cwd.join(".github/gh-sweep.toml");
    if config_present(&local)? {
        return Ok(Some(local));
    }
    let config_home = env
        .get("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| env.get("HOME").map(|home| Path::new(home).join(".config")));
    match config_home.map(|home| home.join("gh-sweep/config.toml")) {
        Some(path) if config_present(&path)? => Ok(Some(path)),
        _ => Ok(None),
    }
}

/// The documented range of every numeric top-level setting, checked before anything is read:
/// a huge timeout panics in the HTTP library, huge retries or backoffs hang a run or burn the
/// rate limit.
fn check_ranges(file: &FileConfig) -> Result<(), String> {
    let ranges: [(&str, Option<u64>, u64, u64, &str); 7] = [
        (
            "settle_after_seconds",
            file.settle_after_seconds,
            0,
            86_400,
            "seconds",
        ),
        ("timeout_seconds", file.timeout_seconds, 1, 600, "seconds"),
        (
            "retry_backoff_ms",
            file.retry_backoff_ms,
            0,
            60_000,
            "milliseconds",
        ),
        (
            "read_retries",
            file.read_retries.map(u64::from),
            0,
            10,
            "a count",
        ),
        (
            "max_retry_wait_seconds",
            file.max_retry_wait_seconds,
            0,
            3_600,
            "seconds",
        ),
        (
            "search_interval_ms",
            file.search_interval_ms,
            0,
            60_000,
            "milliseconds",
        ),
        (
            "recheck_after_seconds",
            file.recheck_after_seconds,
            0,
            86_400,
            "seconds",
        ),
    ];
    for (key, value, low, high, unit) in ranges {
        if let Some(value) = value {
            if !(low..=high).contains(&value) {
                return Err(format!(
                    "invalid {key} = {value}: use {unit} from {low} to {high}"
                ));
            }
        }
    }
    Ok(())
}

/// Where a value given as a flag that clap also reads from a variable came from: the variable
/// when it holds exactly this value (flags beat the environment, so a flag with another value
/// would have won), else the flag.
pub fn flag_or_variable(flag: &str, variable: &str, value: &str, env: &Env) -> String {
    if env.get(variable) == Some(value) {
        variable.to_string()
    } else {
        flag.to_string()
    }
}

/// An error about the config path, saying when the path came from `GH_SWEEP_CONFIG`.
fn config_source_error(error: String, args: &GlobalArgs, env: &Env) -> String {
    let from_variable = args.config.as_ref().is_some_and(|path| {
        flag_or_variable(
            "--config",
            "GH_SWEEP_CONFIG",
            &path.display().to_string(),
            env,
        ) == "GH_SWEEP_CONFIG"
    });
    if from_variable {
        format!("{error} (the path is GH_SWEEP_CONFIG's: fix or unset it)")
    } else {
        error
    }
}

/// A file gh-sweep will write (the database, a snapshot, the job summary) must have a folder to
/// go in, checked before anything is read: a typo in a path is not found after the writes were
/// sent, and no folder is made up for it. `name` is where the path came from.
fn check_output_folder(path: &Path, name: &str) -> Result<(), String> {
    if path.is_dir() {
        return Err(format!(
            "invalid {name} {}: it is a folder; name a file in it",
            path.display()
        ));
    }
    let Some(folder) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    else {
        return Ok(());
    };
    if folder.is_dir() {
        return Ok(());
    }
    if folder.exists() {
        return Err(format!(
            "invalid {name} {}: {} is not a folder",
            path.display(),
            folder.display()
        ));
    }
    Err(format!(
        "invalid {name} {}: the folder {} does not exist; create it (mkdir -p {}) or name a file in a folder that does",
        path.display(),
        folder.display(),
        shell_quote(&folder.display().to_string())
    ))
}

/// A write cap of 0 would plan every write and send none, and its rerun line would carry the
/// cap again: refused, naming where it came from.
/// Which API the run reads GitHub's facts with: `--read-api`, else the config's `read_api`,
/// else REST.
fn read_api(flag: Option<&str>, file: Option<&str>) -> Result<ReadApi, String> {
    match flag.or(file) {
        None | Some("rest") => Ok(ReadApi::Rest),
        Some("graphql") => Ok(ReadApi::Graphql),
        Some(other) => Err(format!(
            "invalid read_api = \"{other}\" in the config file: use \"graphql\" or \"rest\""
        )),
    }
}

/// The API a run's reads go through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadApi {
    Rest,
    Graphql,
}

fn check_max_writes(flag: Option<u64>, file: Option<u64>) -> Result<(), String> {
    match (flag, file) {
        (Some(0), _) => Err(
            "invalid --max-writes 0: a run capped at 0 writes sends nothing; use --dry-run to preview, or a cap of 1 or more"
                .to_string(),
        ),
        (None, Some(0)) => Err(
            "invalid max_writes = 0 in the config file: a run capped at 0 writes sends nothing; remove the key, or use 1 or more"
                .to_string(),
        ),
        _ => Ok(()),
    }
}

pub fn default_db(env: &Env) -> Result<PathBuf, String> {
    let state_home = env
        .get("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| {
            env.get("HOME")
                .map(|home| Path::new(home).join(".local/state"))
        })
        .ok_or("no place for the state database: set HOME or XDG_STATE_HOME, or pass --db PATH")?;
    Ok(state_home.join("gh-sweep/state.db"))
}

/// The repository a clone's git remotes give, as gh picks it, and the remote that gave it.
#[derive(Debug, PartialEq, Eq)]
pub struct CloneDefault {
    pub repo: RepoRef,
    pub remote: String,
}

/// The remotes' URLs and gh marks of the clone in `cwd`, as
/// `git config --get-regexp` prints them (`remote.origin.url https://...`). `None` when git is
/// not there or `cwd` is not in a clone with remotes: then there is no default.
fn git_remote_config(cwd: &Path, env: &Env) -> Option<String> {
    let mut command = std::process::Command::new("git");
    command
        .args(["config", "--get-regexp", r"^remote\..*\.(url|gh-resolved)$"])
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if let Some(path) = env.get("PATH") {
        command.env("PATH", path);
    }
    let output = command.output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Picks the repository gh would use from a clone's remotes (pure). gh's rule (cli/cli
/// context/remote.go, `BaseRepo`): a remote marked by `gh repo set-default`
/// (`remote.NAME.gh-resolved`: `base` for the remote's own repository, or `OWNER/REPO`) wins;
/// else, where gh would ask, we take the only repository the remotes on the API's host name,
/// and refuse when there are several (a fork clone's `origin` and `upstream`), naming them.
/// Remotes on other hosts are not this run's.
pub fn clone_default(git_config: &str, web_host: &str) -> Result<Option<CloneDefault>, String> {
    let mut remotes: Vec<(String, Option<RepoRef>, Option<String>)> = Vec::new();
    for line in git_config.lines() {
        let Some((key, value)) = line.split_once(' ') else {
            continue;
        };
        let Some((name, field)) = key
            .strip_prefix("remote.")
            .and_then(|rest| rest.rsplit_once('.'))
        else {
            continue;
        };
        let index = match remotes.iter().position(|(known, _, _)| known == name) {
            Some(index) => index,
            None => {
                remotes.push((name.to_string(), None, None));
                remotes.len() - 1
            }
        };
        match field {
            "url" => {
                if let Some((host, repo)) = crate::item::repo_of_url(value) {
                    if host == web_host && remotes[index].1.is_none() {
                        remotes[index].1 = Some(repo);
                    }
                }
            }
            "gh-resolved" => remotes[index].2 = Some(value.trim().to_string()),
            _ => {}
        }
    }
    let on_host: Vec<(&String, &RepoRef, &Option<String>)> = remotes
        .iter()
        .filter_map(|(name, repo, mark)| repo.as_ref().map(|repo| (name, repo, mark)))
        .collect();
    let mut marked: Vec<CloneDefault> = Vec::new();
    for (name, repo, mark) in &on_host {
        let Some(mark) = mark else { continue };
        let repo = if mark == "base" {
            (*repo).clone()
        } else {
            mark.parse::<RepoRef>().map_err(|error| {
                format!("remote `{name}`'s gh-resolved `{mark}`: {error}; run `gh repo set-default` again")
            })?
        };
        if !marked.iter().any(|found| found.repo == repo) {
            marked.push(CloneDefault {
                repo,
                remote: (*name).clone(),
            });
        }
    }
    let candidates = if marked.is_empty() {
        let mut found: Vec<CloneDefault> = Vec::new();
        for (name, repo, _) in &on_host {
            if !found.iter().any(|known| &known.repo == *repo) {
                found.push(CloneDefault {
                    repo: (*repo).clone(),
                    remote: (*name).clone(),
                });
            }
        }
        found
    } else {
        marked
    };
    match candidates.len() {
        0 => Ok(None),
        1 => Ok(candidates.into_iter().next()),
        _ => {
            let named: Vec<String> = on_host
                .iter()
                .map(|(name, repo, _)| format!("{name} ({repo})"))
                .collect();
            Err(format!(
                "no repository given, and this clone's remotes on {web_host} name several: {}; pass --repo OWNER/NAME, or run `gh repo set-default` to mark the one gh and gh-sweep use",
                named.join(", ")
            ))
        }
    }
}

/// The API base URL, from the flag, `GITHUB_API_URL`, `GH_HOST`, or github.com.
pub fn api_base(flag: Option<&str>, env: &Env) -> Result<String, String> {
    let (base, source) = if let Some(flag) = flag {
        (flag.to_string(), "--api-url")
    } else if let Some(url) = env.get("GITHUB_API_URL") {
        (url.to_string(), "GITHUB_API_URL")
    } else if let Some(host) = env.get("GH_HOST") {
        (api_base_for_host(host), "GH_HOST")
    } else {
        return Ok("https://api.github.com".to_string());
    };
    let url = reqwest::Url::parse(&base)
        .map_err(|error| format!("invalid {source} `{base}`: {error}; write a URL such as https://ghe.example.com/api/v3"))?;
    match (url.scheme(), url.host_str()) {
        ("https", Some(_)) => {}
        ("http", Some(host)) if is_loopback(host) => {}
        ("http", Some(_)) => {
            return Err(format!(
                "invalid {source} `{base}`: plain http:// is allowed only for loopback hosts; use https://"
            ))
        }
        _ => return Err(format!("invalid {source} `{base}`: use an https:// URL")),
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "invalid {source} `{base}`: a base URL has no query or fragment"
        ));
    }
    Ok(base.trim_end_matches('/').to_string())
}

/// The API base of a web host, as gh maps them: `github.com` → `https://api.github.com`,
/// `SUB.ghe.com` → `https://api.SUB.ghe.com`, any other host → `https://HOST/api/v3`.
pub fn api_base_for_host(host: &str) -> String {
    let host = host.trim().trim_end_matches('/').to_ascii_lowercase();
    if host == "github.com" {
        "https://api.github.com".to_string()
    } else if is_tenancy(&host) {
        format!("https://api.{host}")
    } else {
        format!("https://{host}/api/v3")
    }
}

/// A subdomain of ghe.com (GitHub Enterprise Cloud with data residency).
fn is_tenancy(host: &str) -> bool {
    host.strip_suffix(".ghe.com")
        .is_some_and(|sub| !sub.is_empty() && !sub.contains('.'))
}

/// Which kind of GitHub an API base is, for choosing a token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Host {
    /// github.com, or a subdomain of ghe.com: `GH_TOKEN` / `GITHUB_TOKEN`.
    Cloud { web_host: String },
    /// GitHub Enterprise Server: `GH_ENTERPRISE_TOKEN` / `GITHUB_ENTERPRISE_TOKEN`.
    Server { web_host: String },
}

impl Host {
    /// The web host, as `gh auth token --hostname` names it.
    pub fn web_host(&self) -> &str {
        match self {
            Host::Cloud { web_host } | Host::Server { web_host } => web_host,
        }
    }

    fn token_variables(&self) -> [&'static str; 2] {
        match self {
            Host::Cloud { .. } => ["GH_TOKEN", "GITHUB_TOKEN"],
            Host::Server { .. } => ["GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"],
        }
    }
}

/// The host an API base belongs to: `api.github.com` is github.com, `api.SUB.ghe.com` is
/// SUB.ghe.com, `HOST/api/v3` (or any other host) is an Enterprise Server. A loopback base
/// without `/api/v3` is a local stand-in for github.com (a test server or a local proxy).
pub fn host_of(api_base: &str) -> Host {
    let url = reqwest::Url::parse(api_base).ok();
    let host = url
        .as_ref()
        .and_then(|url| url.host_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let enterprise_path = url
        .as_ref()
        .is_some_and(|url| url.path().trim_end_matches('/').ends_with("/api/v3"));
    if host == "api.github.com" || (is_loopback(&host) && !enterprise_path) {
        return Host::Cloud {
            web_host: "github.com".to_string(),
        };
    }
    if let Some(tenant) = host.strip_prefix("api.").filter(|rest| is_tenancy(rest)) {
        return Host::Cloud {
            web_host: tenant.to_string(),
        };
    }
    Host::Server { web_host: host }
}

/// Where a human opens what the API serves: `https://github.com` for `api.github.com`,
/// `https://SUB.ghe.com` for `api.SUB.ghe.com`, the host itself for an Enterprise
/// `https://HOST/api/v3`.
pub fn web_url(api_base: &str) -> String {
    if api_base == "https://api.github.com" {
        return "https://github.com".to_string();
    }
    if let Some(tenant) = api_base
        .strip_prefix("https://api.")
        .filter(|rest| is_tenancy(rest))
    {
        return format!("https://{tenant}");
    }
    api_base
        .strip_suffix("/api/v3")
        .unwrap_or(api_base)
        .to_string()
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A token and where it came from (never what it is).
pub struct Token {
    pub secret: SecretString,
    pub source: String,
}

/// The token for the API base's host, as gh chooses it (`gh help environment`): `GH_TOKEN`,
/// `GITHUB_TOKEN` only for github.com and `*.ghe.com`; `GH_ENTERPRISE_TOKEN`,
/// `GITHUB_ENTERPRISE_TOKEN` only for an Enterprise Server; else `gh auth token --hostname`
/// of the web host. A token meant for one host is never sent to another.
pub fn token(env: &Env, base: &str) -> Result<Token, String> {
    let host = host_of(base);
    let names = host.token_variables();
    for name in &names {
        if let Some(value) = env.get(name) {
            let value = value.trim();
            // Never echo the value: name the variable and what is wrong with it.
            if !value.chars().all(|c| c.is_ascii_graphic()) {
                return Err(format!(
                    "{name} holds characters a GitHub token never has (a space, a line break or a non-ASCII letter): set it to the token alone"
                ));
            }
            return Ok(Token {
                secret: SecretString::from(value.to_string()),
                source: name.to_string(),
            });
        }
    }
    let gh = env.get("PATH").and_then(|path| {
        std::env::split_paths(path)
            .map(|dir| dir.join("gh"))
            .find(|candidate| candidate.is_file())
    });
    if let Some(gh) = gh {
        let mut command = std::process::Command::new(&gh);
        command.args(gh_auth_token_args(&host));
        if let Ok(output) = command.stderr(std::process::Stdio::null()).output() {
            let value = String::from_utf8_lossy(&output.stdout).trim().to_string();
            if output.status.success() && !value.is_empty() {
                return Ok(Token {
                    secret: SecretString::from(value),
                    source: "`gh auth token`".to_string(),
                });
            }
        }
    }
    let looked = names.join(", ");
    let web_host = host.web_host();
    Err(format!(
        "no GitHub token for {web_host}: looked in {looked} and `gh auth token --hostname {web_host}`; set {} or run `gh auth login --hostname {web_host}`",
        names[0]
    ))
}

/// `gh auth token` for the web host's own token: always by name, so gh never answers with
/// the token of whatever host it was logged in to last.
fn gh_auth_token_args(host: &Host) -> [&str; 4] {
    ["auth", "token", "--hostname", host.web_host()]
}

/// Everything a command needs, resolved and validated.
pub struct Settings {
    pub repos: Vec<RepoRef>,
    pub only: Option<BTreeSet<ItemRef>>,
    pub budget: Budget,
    pub yes: bool,
    pub dry_run: bool,
    pub write_interval: Duration,
    pub max_writes: Option<u64>,
    pub recheck_after: Duration,
    /// How long after a write of unknown outcome was sent "not found on GitHub" proves it did
    /// not happen: until then GitHub may still be carrying it out.
    pub settle_after: Duration,
    pub retry: RetryPolicy,
    pub timeout: Duration,
    /// Spacing of search requests (GitHub allows 30 a minute).
    pub search_interval: Duration,
    /// Which API reads go through.
    pub read_api: ReadApi,
    pub api_base: String,
    pub db: PathBuf,
    /// Whether `--db` (or `GH_SWEEP_DB`) named the database, rather than the default.
    pub db_given: bool,
    /// The snapshot to replay, loaded and checked.
    pub snapshot: Option<(PathBuf, Snapshot)>,
    pub save_snapshot: Option<PathBuf>,
    pub config_path: Option<PathBuf>,
    pub stale: StaleRules,
    pub poll: PollRules,
    pub sweep: SweepRules,
    /// Organisations whose repositories make the pool (`poll`, `classify merge`).
    pub orgs: Vec<String>,
    /// Ask before local writes too (`poll --confirm`).
    pub confirm: bool,
    /// The run's clock.
    pub now: chrono::DateTime<chrono::Utc>,
    /// Whether `--now` set the clock (then it is taken as it is, not put on GitHub's).
    pub now_given: bool,
    /// What the maintainer should know about the settings (workflow inputs not carried over).
    pub warnings: Vec<String>,
    /// The command line a rerun starts with (everything but `--only`).
    pub rerun_prefix: String,
}

/// What the subcommand does with GitHub.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads and classifies; never writes (classify).
    ReadOnly,
    /// Writes only to the store's queue; asks only with --confirm (poll).
    LocalWrites,
    /// May write after confirmation (stale-sweep).
    Writes,
}

/// The subcommand being resolved, and its own flags.
pub struct Spec<'a> {
    /// The words that name it on the command line, e.g. `classify stale`.
    pub words: &'a str,
    pub access: Access,
    pub orgs: &'a [String],
    pub confirm: bool,
    /// An actions/stale workflow whose inputs replace the `[stale]` table.
    pub workflow: Option<&'a Path>,
}

impl<'a> Spec<'a> {
    pub fn new(words: &'a str, access: Access) -> Self {
        Spec {
            workflow: None,
            words,
            access,
            orgs: &[],
            confirm: false,
        }
    }
}

/// The clock gh-sweep's own tests move between two sweeps (a backoff window passing), from
/// `GH_SWEEP_TEST_NOW`: honoured only by debug builds, which the tests run; a release build
/// refuses it, so an installed gh-sweep has no clock but the real one and `--now`.
fn test_clock(env: &Env) -> Result<Option<chrono::DateTime<chrono::Utc>>, String> {
    let Some(text) = env.get("GH_SWEEP_TEST_NOW") else {
        return Ok(None);
    };
    if !cfg!(debug_assertions) {
        return Err(
            "GH_SWEEP_TEST_NOW is for gh-sweep's own tests (debug builds): unset it, and pass --now to classify or a dry run".to_string(),
        );
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|time| Some(time.with_timezone(&chrono::Utc)))
        .map_err(|_| format!("invalid GH_SWEEP_TEST_NOW `{text}`: use an RFC 3339 time"))
}

/// Resolves and validates all settings. `interactive` is whether a maintainer can answer a
/// prompt (stdin and stderr are terminals).
pub fn resolve(
    args: &GlobalArgs,
    spec: &Spec<'_>,
    interactive: bool,
    env: &Env,
    cwd: &Path,
) -> Result<Settings, Fatal> {
    resolve_inner(args, spec, interactive, env, cwd).map_err(Fatal::Usage)
}

fn resolve_inner(
    args: &GlobalArgs,
    spec: &Spec<'_>,
    interactive: bool,
    env: &Env,
    cwd: &Path,
) -> Result<Settings, String> {
    let access = spec.access;
    let config_path = find_config(args.config.as_deref(), env, cwd)
        .map_err(|error| config_source_error(error, args, env))?;
    let file = match &config_path {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|error| format!("cannot read config file {}: {error}", path.display()))?;
            parse_file(&text, path.strip_prefix(cwd).unwrap_or(path))?
        }
        None => FileConfig::default(),
    };
    check_ranges(&file)?;
    let mut file = file;
    let mut warnings = Vec::new();
    if let Some(workflow) = spec.workflow {
        let (table, found) = crate::workflow::stale_table(workflow)?;
        warnings.extend(found);
        file.stale = overlay_stale(&file.stale, table).map_err(|error| {
            format!(
                "invalid actions/stale inputs in {}: {error}",
                workflow.display()
            )
        })?;
    }
    file.stale.validate()?;
    file.poll.validate()?;
    let mut sweep = file.sweep;
    if let Some(enabled) = env.get("GH_SWEEP_SWEEP_ENABLED") {
        sweep.enabled = match enabled.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => true,
            "false" | "0" | "no" => false,
            other => {
                return Err(format!(
                    "invalid GH_SWEEP_SWEEP_ENABLED `{other}`: use true or false"
                ))
            }
        };
    }
    sweep.validate()?;
    let mut orgs: Vec<String> = Vec::new();
    for org in spec.orgs {
        let valid = !org.is_empty() && org.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !valid {
            return Err(format!(
                "invalid organisation `{org}`: write its login, e.g. `rust-lang`"
            ));
        }
        if !orgs.contains(org) {
            orgs.push(org.clone());
        }
    }

    let budget = match (&args.item_failure_budget, &file.item_failure_budget) {
        (Some(flag), _) => flag.parse::<Budget>().map_err(|error| {
            let source = flag_or_variable(
                "item_failure_budget",
                "GH_SWEEP_ITEM_FAILURE_BUDGET",
                flag,
                env,
            );
            error.replacen("item_failure_budget", &source, 1)
        })?,
        (None, Some(value)) => value.parse::<Budget>()?,
        (None, None) => Budget::default(),
    };
    check_max_writes(args.max_writes, file.max_writes)?;
    let read_api = read_api(args.read_api.as_deref(), file.read_api.as_deref())?;
    let write_interval = args.write_interval.or(file.write_interval).unwrap_or(1.0);
    if !(0.0..=3600.0).contains(&write_interval) || write_interval.is_nan() {
        return Err(format!(
            "invalid write interval `{write_interval}`: use seconds from 0 to 3600 (0 sends writes back to back)"
        ));
    }

    let api_base = api_base(args.api_url.as_deref(), env)?;
    let api_host = host_of(&api_base).web_host().to_string();
    let mut repos = Vec::new();
    for text in &args.repos {
        let (host, repo) = crate::item::parse_repo_arg(text)?;
        // gh's `-R [HOST/]OWNER/REPO` may name a host; one run talks to one API, so a host
        // that is not that API's is a mistake, not a second place to read from.
        if let Some(host) = host.filter(|host| *host != api_host) {
            return Err(format!(
                "invalid --repo `{text}`: it is on {host}, but this run's API is {api_host} ({api_base}); drop the host, or set GH_HOST={host} (or --api-url) to sweep {host}"
            ));
        }
        if !repos.contains(&repo) {
            repos.push(repo);
        }
    }
    let only_text = match &args.only {
        Some(text) => Some(only_list(text)?),
        None => None,
    };
    // No repository named: inside a git clone, the one gh itself would use.
    let wants_clone_default = repos.is_empty()
        && orgs.is_empty()
        && args.snapshot.is_none()
        && only_text
            .as_deref()
            .is_none_or(selector::needs_default_repo);
    if wants_clone_default {
        let remotes = git_remote_config(cwd, env).unwrap_or_default();
        if let Some(found) = clone_default(&remotes, &api_host)? {
            if access != Access::ReadOnly && !args.dry_run && !interactive {
                return Err(format!(
                    "refusing to take the repository from this clone's git remotes ({}) without a terminal to show it on: a run that writes from cron names its repository; pass --repo {}",
                    found.repo, found.repo
                ));
            }
            warnings.push(format!(
                "using {}, the gh default of this clone (remote `{}`); pass --repo to choose another",
                found.repo, found.remote
            ));
            repos.push(found.repo);
        }
    }
    let only = match &only_text {
        Some(text) => {
            let default_repo = (repos.len() == 1).then(|| &repos[0]);
            let items = selector::parse(text, default_repo)?;
            if !repos.is_empty() {
                if let Some(stranger) = items.iter().find(|item| !repos.contains(&item.repo)) {
                    return Err(format!(
                        "invalid --only: {stranger} is not in the repositories given with --repo ({})",
                        repos.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
                    ));
                }
            }
            for item in &items {
                if !repos.contains(&item.repo) {
                    repos.push(item.repo.clone());
                }
            }
            Some(items)
        }
        None => None,
    };
    let snapshot = match &args.snapshot {
        Some(path) => Some(Snapshot::load(path).map_err(|error| format!("{error:#}"))?),
        None => None,
    };
    if let (Some(path), Some(snapshot)) = (&args.snapshot, &snapshot) {
        snapshot.check_replay(path, spec.words, &repos)?;
    }
    if repos.is_empty() {
        if let Some(snapshot) = &snapshot {
            for repo in &snapshot.repos {
                repos.push(repo.parse()?);
            }
        }
    }
    if repos.is_empty() && orgs.is_empty() {
        let org = if spec.access == Access::LocalWrites || spec.words == "classify merge" {
            ", or --org ORG"
        } else {
            ""
        };
        return Err(format!(
            "no repository given: pass --repo OWNER/NAME{org} (or --only 'OWNER/NAME#N')"
        ));
    }

    let now = match &args.now {
        Some(text) => chrono::DateTime::parse_from_rfc3339(text)
            .map(|time| time.with_timezone(&chrono::Utc))
            .map_err(|_| {
                format!("invalid --now `{text}`: use an RFC 3339 time such as 2026-11-29T12:00:00Z")
            })?,
        None => chrono::Utc::now(),
    };
    let db = match &args.db {
        Some(path) => {
            let name = flag_or_variable("--db", "GH_SWEEP_DB", &path.display().to_string(), env);
            check_output_folder(path, &name)?;
            path.clone()
        }
        None => default_db(env)?,
    };
    if let Some(path) = &args.save_snapshot {
        check_output_folder(path, "--save-snapshot")?;
    }
    if let Some(summary) = env.get("GITHUB_STEP_SUMMARY") {
        check_output_folder(Path::new(summary), "GITHUB_STEP_SUMMARY")?;
    }
    let dry_run = args.dry_run || args.snapshot.is_some();
    // A clock of one's choosing would put wrong dates on real writes (and in the journal that
    // settles them): only runs that write nothing take one.
    if args.now.is_some() && access != Access::ReadOnly && !dry_run {
        return Err(
            "--now moves the run's clock, which only classify and dry runs may do: drop --now, or add --dry-run"
                .to_string(),
        );
    }
    let now = match test_clock(env)? {
        Some(clock) => clock,
        None => now,
    };
    if access == Access::Writes && !dry_run && !args.yes && !interactive {
        return Err(
            "refusing to write without a terminal to confirm on: pass --yes to write, or --dry-run to preview"
                .to_string(),
        );
    }
    if spec.confirm && !interactive && !args.yes && !dry_run {
        return Err("--confirm asks on a terminal, and there is none: drop --confirm, or pass --dry-run to preview".to_string());
    }

    let mut rerun = vec!["gh-sweep".to_string(), spec.words.to_string()];
    for repo in &repos {
        rerun.push("--repo".into());
        rerun.push(repo.to_string());
    }
    for org in &orgs {
        rerun.push("--org".into());
        rerun.push(org.clone());
    }
    let mut flag = |name: &str, value: Option<String>| {
        if let Some(value) = value {
            rerun.push(name.to_string());
            rerun.push(shell_quote(&value));
        }
    };
    // Values that came from the environment are left to it (the rerun runs where this run
    // did, cron's environment included); only what was given as a flag is carried.
    let from_flag = |flag: &str, variable: &str, value: Option<String>| {
        value.filter(|value| flag_or_variable(flag, variable, value, env) == flag)
    };
    let config_flag = from_flag(
        "--config",
        "GH_SWEEP_CONFIG",
        args.config.as_ref().map(|path| path.display().to_string()),
    );
    let db_flag = from_flag(
        "--db",
        "GH_SWEEP_DB",
        args.db.as_ref().map(|path| path.display().to_string()),
    );
    let budget_flag = from_flag(
        "--item-failure-budget",
        "GH_SWEEP_ITEM_FAILURE_BUDGET",
        args.item_failure_budget.clone(),
    );
    flag("--config", config_flag);
    flag(
        "--from-workflow",
        spec.workflow.map(|path| path.display().to_string()),
    );
    flag("--db", db_flag);
    flag("--api-url", args.api_url.clone());
    flag("--item-failure-budget", budget_flag);
    flag(
        "--write-interval",
        args.write_interval.map(|value| value.to_string()),
    );
    flag(
        "--max-writes",
        args.max_writes.map(|value| value.to_string()),
    );
    // Pasted, `poll --confirm`'s rerun line asks again, as the first run did.
    if spec.confirm {
        rerun.push("--confirm".into());
    }
    if args.json {
        rerun.push("--json".into());
    }

    Ok(Settings {
        repos,
        only,
        budget,
        yes: args.yes,
        dry_run,
        write_interval: Duration::from_secs_f64(write_interval),
        max_writes: args.max_writes.or(file.max_writes),
        recheck_after: Duration::from_secs(file.recheck_after_seconds.unwrap_or(120)),
        settle_after: Duration::from_secs(file.settle_after_seconds.unwrap_or(120)),
        retry: RetryPolicy {
            retries: file.read_retries.unwrap_or(3),
            backoff: Duration::from_millis(file.retry_backoff_ms.unwrap_or(1000)),
            max_wait: Duration::from_secs(file.max_retry_wait_seconds.unwrap_or(60)),
        },
        timeout: Duration::from_secs(file.timeout_seconds.unwrap_or(30)),
        search_interval: Duration::from_millis(file.search_interval_ms.unwrap_or(2000)),
        read_api,
        api_base,
        db_given: args.db.is_some(),
        db,
        snapshot: args.snapshot.clone().zip(snapshot),
        save_snapshot: args.save_snapshot.clone(),
        config_path,
        stale: file.stale,
        poll: file.poll,
        sweep,
        orgs,
        confirm: spec.confirm,
        rerun_prefix: rerun.join(" "),
        warnings,
        now,
        now_given: args.now.is_some() || env.get("GH_SWEEP_TEST_NOW").is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<FileConfig, String> {
        parse_file(text, Path::new("gh-sweep.toml"))
    }

    /// The keys of a table as the struct serializes them, sorted.
    fn keys_of(value: impl serde::Serialize) -> Vec<String> {
        let value = toml::Value::try_from(value).unwrap();
        let mut keys: Vec<String> = value.as_table().unwrap().keys().cloned().collect();
        keys.sort_unstable();
        keys
    }

    fn sorted(list: &[&str]) -> Vec<String> {
        let mut list: Vec<String> = list.iter().map(|key| key.to_string()).collect();
        list.sort_unstable();
        list
    }

    #[test]
    fn top_poll_and_sweep_key_lists_match_their_structs() {
        // Every field set, so that none is skipped: a field missing from TOP_KEYS could not be
        // written in a config file, a key in TOP_KEYS without a field would be accepted and
        // then refused by serde.
        let file = FileConfig {
            item_failure_budget: Some("3".into()),
            write_interval: Some(1.0),
            max_writes: Some(1),
            recheck_after_seconds: Some(1),
            settle_after_seconds: Some(1),
            read_retries: Some(1),
            retry_backoff_ms: Some(1),
            max_retry_wait_seconds: Some(1),
            timeout_seconds: Some(1),
            search_interval_ms: Some(1),
            read_api: Some("graphql".into()),
            stale: StaleRules::default(),
            poll: PollRules::default(),
            sweep: SweepRules::default(),
        };
        assert_eq!(keys_of(&file), sorted(TOP_KEYS));
        assert_eq!(keys_of(PollRules::default()), sorted(POLL_KEYS));
        assert_eq!(keys_of(SweepRules::default()), sorted(SWEEP_KEYS));
    }

    #[test]
    fn stale_keys_list_matches_the_struct() {
        let rules = StaleRules {
            days_before_issue_stale: Some(1),
            days_before_pr_stale: Some(1),
            days_before_issue_close: Some(1),
            days_before_pr_close: Some(1),
            ..StaleRules::default()
        };
        let value = toml::Value::try_from(rules).unwrap();
        let mut keys: Vec<&str> = value
            .as_table()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        let mut known = STALE_KEYS.to_vec();
        known.sort_unstable();
        assert_eq!(keys, known);
    }

    #[test]
    fn unknown_keys_suggest_the_closest() {
        let error = parse("[stale]\ndays_befor_stale = 3\n").err().unwrap();
        assert_eq!(
            error,
            "unknown key `stale.days_befor_stale` in gh-sweep.toml; did you mean `stale.days_before_stale`?"
        );
        let error = parse("item_failure_budgt = '3'\n").err().unwrap();
        assert!(
            error.contains("did you mean `item_failure_budget`?"),
            "{error}"
        );
    }

    #[test]
    fn lists_take_arrays_or_comma_strings() {
        let config = parse(
            "[stale]\nexempt_issue_labels = 'pinned, security'\nexempt_pr_labels = ['wip']\n",
        )
        .unwrap();
        assert_eq!(config.stale.exempt_issue_labels, vec!["pinned", "security"]);
        assert_eq!(config.stale.exempt_pr_labels, vec!["wip"]);
    }

    #[test]
    fn wrong_types_and_bad_toml_name_the_problem() {
        let error = parse("[stale]\ndays_before_stale = 'sixty'\n")
            .err()
            .unwrap();
        assert!(error.contains("invalid config gh-sweep.toml"), "{error}");
        let error = parse("item_failure_budget = \n").err().unwrap();
        assert!(error.contains("not valid TOML"), "{error}");
    }

    #[test]
    fn api_base_rules() {
        let env = Env::from_pairs(&[("GH_HOST", "ghe.example.com")]);
        assert_eq!(
            api_base(None, &env).unwrap(),
            "https://ghe.example.com/api/v3"
        );
        assert_eq!(
            api_base(None, &Env::default()).unwrap(),
            "https://api.github.com"
        );
        assert!(api_base(Some("http://127.0.0.1:8080"), &env).is_ok());
        assert!(api_base(Some("http://[::1]:8080/"), &env).is_ok());
        let error = api_base(Some("http://ghe.example.com"), &env).unwrap_err();
        assert!(error.contains("loopback"), "{error}");
        let env = Env::from_pairs(&[("GITHUB_API_URL", "ftp://x")]);
        assert!(api_base(None, &env).unwrap_err().contains("GITHUB_API_URL"));
    }

    #[test]
    fn a_clone_default_is_the_repository_gh_would_use() {
        let pick = |config: &str| clone_default(config, "github.com");
        let repo = |text: &str| text.parse::<RepoRef>().unwrap();
        assert_eq!(pick(""), Ok(None));
        // Remotes on other hosts are not this run's.
        let other_host = "remote.origin.url https://gitlab.example.com/a/b.git\nremote.gh.url git@github.com:octo/demo.git\n";
        assert_eq!(
            pick(other_host),
            Ok(Some(CloneDefault {
                repo: repo("octo/demo"),
                remote: "gh".into()
            }))
        );
        assert_eq!(
            clone_default(other_host, "ghe.example.com"),
            Ok(None),
            "no remote on the API's host"
        );
        // `gh repo set-default` wrote `base`, or an OWNER/REPO of its own.
        let fork = "remote.origin.url https://github.com/me/demo.git\nremote.up.stream.url https://github.com/octo/demo.git\n";
        let error = pick(fork).unwrap_err();
        assert!(
            error.contains("origin (me/demo), up.stream (octo/demo)"),
            "{error}"
        );
        let marked = format!("{fork}remote.up.stream.gh-resolved base\n");
        assert_eq!(pick(&marked).unwrap().unwrap().repo, repo("octo/demo"));
        let named = format!("{fork}remote.origin.gh-resolved octo/demo\n");
        assert_eq!(pick(&named).unwrap().unwrap().repo, repo("octo/demo"));
        // Two remotes of one repository are one repository.
        let twice = "remote.a.url https://github.com/octo/demo\nremote.b.url git@github.com:octo/demo.git\n";
        assert_eq!(pick(twice).unwrap().unwrap().repo, repo("octo/demo"));
    }

    #[test]
    fn hosts_map_as_gh_maps_them() {
        assert_eq!(api_base_for_host("github.com"), "https://api.github.com");
        assert_eq!(
            api_base_for_host("octo.ghe.com"),
            "https://api.octo.ghe.com"
        );
        assert_eq!(
            api_base_for_host("ghe.example.com"),
            "https://ghe.example.com/api/v3"
        );
        let env = Env::from_pairs(&[("GH_HOST", "octo.ghe.com")]);
        assert_eq!(api_base(None, &env).unwrap(), "https://api.octo.ghe.com");
        assert_eq!(
            host_of("https://api.github.com"),
            Host::Cloud {
                web_host: "github.com".into()
            }
        );
        assert_eq!(
            host_of("https://api.octo.ghe.com"),
            Host::Cloud {
                web_host: "octo.ghe.com".into()
            }
        );
        assert_eq!(
            host_of("https://ghe.example.com/api/v3"),
            Host::Server {
                web_host: "ghe.example.com".into()
            }
        );
        // Only a subdomain of ghe.com is ghe.com.
        assert!(matches!(
            host_of("https://api.evilghe.com"),
            Host::Server { .. }
        ));
        assert!(matches!(
            host_of("https://api.a.b.ghe.com"),
            Host::Server { .. }
        ));
        assert_eq!(web_url("https://api.octo.ghe.com"), "https://octo.ghe.com");
        assert_eq!(
            gh_auth_token_args(&host_of("https://api.github.com")),
            ["auth", "token", "--hostname", "github.com"]
        );
        assert_eq!(
            gh_auth_token_args(&host_of("https://api.octo.ghe.com")),
            ["auth", "token", "--hostname", "octo.ghe.com"]
        );
    }

    #[test]
    fn a_token_is_only_for_its_kind_of_host() {
        let env = Env::from_pairs(&[
            ("GH_TOKEN", "cloud"),
            ("GH_ENTERPRISE_TOKEN", "server"),
            ("PATH", "/nonexistent"),
        ]);
        assert_eq!(
            token(&env, "https://ghe.example.com/api/v3")
                .unwrap()
                .source,
            "GH_ENTERPRISE_TOKEN"
        );
        assert_eq!(
            token(&env, "https://api.octo.ghe.com").unwrap().source,
            "GH_TOKEN"
        );
        let cloud_only = Env::from_pairs(&[("GITHUB_TOKEN", "cloud"), ("PATH", "/nonexistent")]);
        let error = token(&cloud_only, "https://ghe.example.com/api/v3")
            .err()
            .unwrap();
        assert!(
            error.contains("GH_ENTERPRISE_TOKEN, GITHUB_ENTERPRISE_TOKEN"),
            "{error}"
        );
        let server_only = Env::from_pairs(&[
            ("GITHUB_ENTERPRISE_TOKEN", "server"),
            ("PATH", "/nonexistent"),
        ]);
        assert!(token(&server_only, "https://api.octo.ghe.com").is_err());
    }

    #[test]
    fn token_order_and_absence() {
        let env = Env::from_pairs(&[("GH_TOKEN", "a"), ("GITHUB_TOKEN", "b")]);
        assert_eq!(
            token(&env, "https://api.github.com").unwrap().source,
            "GH_TOKEN"
        );
        let env = Env::from_pairs(&[("GITHUB_TOKEN", "b")]);
        assert_eq!(
            token(&env, "https://api.github.com").unwrap().source,
            "GITHUB_TOKEN"
        );
        let env = Env::from_pairs(&[("GH_ENTERPRISE_TOKEN", "c")]);
        assert!(token(&env, "https://api.github.com").is_err());
        assert_eq!(
            token(&env, "https://ghe.example.com/api/v3")
                .unwrap()
                .source,
            "GH_ENTERPRISE_TOKEN"
        );
        let error = token(
            &Env::from_pairs(&[("PATH", "/nonexistent")]),
            "https://api.github.com",
        )
        .err()
        .unwrap();
        assert!(
            error.contains("GH_TOKEN, GITHUB_TOKEN") && error.contains("gh auth token"),
            "{error}"
        );
    }
}
