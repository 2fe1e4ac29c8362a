//! The config file: its schema (`FileConfig`) beside the key lists an unknown key is checked
//! against, finding it (`--config`, `.github/gh-sweep.toml`, the XDG config home), parsing it
//! with errors that name the key and line, and the ranges of its numeric settings.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::env::Env;
use super::error::SettingsError;
use crate::policy::budget::FailureBudget;
use crate::policy::merge::PollRules;
use crate::policy::stale::StaleRules;
use crate::policy::sweep::SweepRules;

/// The config file's shape. Keys are checked against these lists before deserializing, so an
/// unknown key is named with the closest known one.
#[derive(Debug, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileConfig {
    pub(super) item_failure_budget: Option<String>,
    pub(super) write_interval: Option<f64>,
    pub(super) max_writes: Option<u64>,
    pub(super) max_wait_seconds: Option<u64>,
    pub(super) recheck_after_seconds: Option<u64>,
    pub(super) settle_after_seconds: Option<u64>,
    pub(super) read_retries: Option<u32>,
    pub(super) retry_backoff_ms: Option<u64>,
    pub(super) max_retry_wait_seconds: Option<u64>,
    pub(super) timeout_seconds: Option<u64>,
    pub(super) search_interval_ms: Option<u64>,
    pub(super) read_api: Option<String>,
    /// The store: a SQLite file's path (or `sqlite:PATH`), or a `postgres://` URL.
    pub(super) db: Option<String>,
    /// How often a run renews its heartbeat in a PostgreSQL store.
    pub(super) db_heartbeat_seconds: Option<u64>,
    /// How old a run's heartbeat grows before other hosts count it dead.
    pub(super) db_dead_after_seconds: Option<u64>,
    #[serde(default)]
    pub(super) stale: StaleRules,
    #[serde(default)]
    pub(super) poll: PollRules,
    #[serde(default)]
    pub(super) sweep: SweepRules,
}

const TOP_KEYS: &[&str] = &[
    "item_failure_budget",
    "write_interval",
    "max_writes",
    "max_wait_seconds",
    "recheck_after_seconds",
    "settle_after_seconds",
    "read_retries",
    "retry_backoff_ms",
    "max_retry_wait_seconds",
    "timeout_seconds",
    "search_interval_ms",
    "read_api",
    "db",
    "db_heartbeat_seconds",
    "db_dead_after_seconds",
    "stale",
    "poll",
    "sweep",
];

pub(crate) const STALE_KEYS: &[&str] = &[
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
    "only_issue_labels",
    "only_pr_labels",
    "any_of_issue_labels",
    "any_of_pr_labels",
    "exempt_issue_milestones",
    "exempt_pr_milestones",
    "exempt_all_issue_milestones",
    "exempt_all_pr_milestones",
    "exempt_issue_assignees",
    "exempt_pr_assignees",
    "exempt_all_issue_assignees",
    "exempt_all_pr_assignees",
    "remove_issue_stale_when_updated",
    "remove_pr_stale_when_updated",
    "ignore_issue_updates",
    "ignore_pr_updates",
    "only_issue_types",
    "sort_by",
    "ascending",
    "debug_only",
    "operations_per_run",
    "delete_branch",
    "enable_statistics",
];

pub(crate) const POLL_KEYS: &[&str] = &[
    "rules",
    "docs_globs",
    "held_labels",
    "skipped_counts_as",
    "failed_backoff_hours",
    "orphan_suite_minutes",
];

pub(crate) const SWEEP_KEYS: &[&str] = &[
    "attempts_per_trigger",
    "backoff_minutes",
    "settle_minutes",
    "merged_marker_hours",
    "merge_method",
    "enabled",
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

pub(super) fn parse_file(text: &str, path: &Path) -> Result<FileConfig, SettingsError> {
    parse_text(text, path).map_err(SettingsError::Config)
}

fn parse_text(text: &str, path: &Path) -> Result<FileConfig, String> {
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
/// An error names the bad key, and `source`, where the table came from.
pub(crate) fn overlay_stale(
    rules: &StaleRules,
    table: toml::Table,
    source: &str,
) -> Result<StaleRules, SettingsError> {
    let mut merged = match toml::Value::try_from(rules) {
        Ok(toml::Value::Table(merged)) => merged,
        _ => toml::Table::new(),
    };
    merged.extend(table);
    StaleRules::deserialize(merged).map_err(|error| {
        SettingsError::StaleInputs(format!(
            "invalid actions/stale inputs in {source}: {}",
            error.message().trim()
        ))
    })
}

/// Parses and validates a config file's text as a run would, for the fuzz target: any input
/// gives a value or an error message, never a panic.
pub fn check_config_text(text: &str) -> Result<(), SettingsError> {
    let file = parse_file(text, Path::new("config.toml"))?;
    let checked = || -> Result<(), String> {
        file.stale.validate().map_err(|e| e.to_string())?;
        file.poll.validate().map_err(|e| e.to_string())?;
        file.sweep.validate().map_err(|e| e.to_string())?;
        if let Some(budget) = &file.item_failure_budget {
            budget.parse::<FailureBudget>().map_err(|e| e.to_string())?;
        }
        Ok(())
    };
    checked().map_err(SettingsError::Config)
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

/// Where the config file is, if anywhere. An explicit path must exist.
pub(super) fn find_config(
    flag: Option<&Path>,
    env: &Env,
    cwd: &Path,
) -> Result<Option<PathBuf>, SettingsError> {
    locate(flag, env, cwd).map_err(SettingsError::Config)
}

fn locate(flag: Option<&Path>, env: &Env, cwd: &Path) -> Result<Option<PathBuf>, String> {
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

/// The documented range of every numeric top-level setting, as (key, low, high, unit), in the
/// order of [`range_values`].
const RANGES: [(&str, u64, u64, &str); 10] = [
    ("db_heartbeat_seconds", 1, 60, "seconds"),
    ("db_dead_after_seconds", 3, 3600, "seconds"),
    // A day at most: past it the hour's ceiling has long let everything through.
    ("max_wait_seconds", 0, 86_400, "seconds"),
    ("settle_after_seconds", 0, 86_400, "seconds"),
    ("timeout_seconds", 1, 600, "seconds"),
    ("retry_backoff_ms", 0, 60_000, "milliseconds"),
    ("read_retries", 0, 10, "a count"),
    ("max_retry_wait_seconds", 0, 3_600, "seconds"),
    ("search_interval_ms", 0, 60_000, "milliseconds"),
    ("recheck_after_seconds", 0, 86_400, "seconds"),
];

/// The file's values of the keys in [`RANGES`], in its order.
fn range_values(file: &FileConfig) -> [Option<u64>; 10] {
    [
        file.db_heartbeat_seconds,
        file.db_dead_after_seconds,
        file.max_wait_seconds,
        file.settle_after_seconds,
        file.timeout_seconds,
        file.retry_backoff_ms,
        file.read_retries.map(u64::from),
        file.max_retry_wait_seconds,
        file.search_interval_ms,
        file.recheck_after_seconds,
    ]
}

/// Every numeric top-level setting checked against its documented range before anything is
/// read: a huge timeout panics in the HTTP library, huge retries or backoffs hang a run or
/// burn the rate limit.
pub(super) fn check_ranges(file: &FileConfig) -> Result<(), SettingsError> {
    for ((key, low, high, unit), value) in RANGES.into_iter().zip(range_values(file)) {
        if let Some(value) = value.filter(|value| !(low..=high).contains(value)) {
            return Err(SettingsError::OutOfRange {
                key,
                value,
                unit,
                low,
                high,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<FileConfig, String> {
        parse_file(text, Path::new("gh-sweep.toml")).map_err(|error| error.to_string())
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
            max_wait_seconds: Some(1),
            recheck_after_seconds: Some(1),
            settle_after_seconds: Some(1),
            read_retries: Some(1),
            retry_backoff_ms: Some(1),
            max_retry_wait_seconds: Some(1),
            timeout_seconds: Some(1),
            search_interval_ms: Some(1),
            read_api: Some("graphql".into()),
            db: Some("postgres://u@db/q".into()),
            db_heartbeat_seconds: Some(5),
            db_dead_after_seconds: Some(60),
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
            exempt_all_issue_milestones: Some(true),
            exempt_all_pr_milestones: Some(true),
            exempt_all_issue_assignees: Some(true),
            exempt_all_pr_assignees: Some(true),
            remove_issue_stale_when_updated: Some(true),
            remove_pr_stale_when_updated: Some(true),
            ignore_issue_updates: Some(true),
            ignore_pr_updates: Some(true),
            operations_per_run: Some(30),
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
}
