//! Moving over from actions/stale: read its inputs, from the `with:` block of the
//! `actions/stale` step of a workflow file or from gh-sweep's own action's step, and turn them
//! into gh-sweep's `[stale]` table (the same names, in snake_case) by one conversion
//! ([`inputs_table`]), with actions/stale's defaults for what is left out. Inputs gh-sweep has
//! no use for are named in warnings, never dropped silently.

use std::path::Path;

use yaml_rust2::{Yaml, YamlLoader};

use super::error::SettingsError;
use crate::policy::stale::StaleRules;

/// Every input of actions/stale with its default (its `action.yml`, v10): a name outside this
/// list is a typo, not an input gh-sweep has yet to learn. An input a workflow leaves out takes
/// this default, so a `with:` block behaves as it did under actions/stale (no stale message
/// unless one is given, 30 operations per run, statistics on). The one deliberate exception:
/// `ascending` defaults to `true` (oldest first), where actions/stale's is `false`: newest first
/// under a per-run cap starves old items whenever the cached state is lost.
pub(crate) const ACTIONS_STALE_INPUTS: &[(&str, &str)] = &[
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

/// Inputs that have no `[stale]` key, and why.
const NOT_CARRIED: &[(&str, &str)] = &[(
    "repo-token",
    "gh-sweep reads GH_TOKEN, GITHUB_TOKEN or `gh auth token`",
)];

/// The issue-only and PR-only flags that override a generic one only when they are literally
/// `true` or `false` (anything else, the empty default included, leaves the generic one).
const OPTIONAL_FLAGS: &[&str] = &[
    "exempt-all-issue-milestones",
    "exempt-all-pr-milestones",
    "exempt-all-issue-assignees",
    "exempt-all-pr-assignees",
    "remove-issue-stale-when-updated",
    "remove-pr-stale-when-updated",
    "ignore-issue-updates",
    "ignore-pr-updates",
];

/// Where the inputs come from, for errors: a workflow file, or the action's step.
pub(crate) struct Source(pub String);

/// The environment variable the action's step passes an input in: `GH_SWEEP_INPUT_` and the
/// name in upper snake case (`days-before-stale` is `GH_SWEEP_INPUT_DAYS_BEFORE_STALE`). A
/// composite action gets no `INPUT_*` variables from the runner, so the step sets these itself.
pub(crate) fn input_variable(name: &str) -> String {
    format!(
        "GH_SWEEP_INPUT_{}",
        name.replace('-', "_").to_ascii_uppercase()
    )
}

/// The `[stale]` table the action's inputs ask for, read from the step's `GH_SWEEP_INPUT_*`
/// variables: the same conversion as a workflow's `with:` block ([`inputs_table`]).
pub(crate) fn action_table(
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<(toml::Table, Vec<String>), SettingsError> {
    let given: Vec<(String, String)> = ACTIONS_STALE_INPUTS
        .iter()
        .filter_map(|(name, _)| {
            lookup(&input_variable(name)).map(|value| (name.to_string(), value))
        })
        .collect();
    inputs_table(&given, &Source("the action's inputs".into())).map_err(SettingsError::StaleInputs)
}

/// A name that is no input of actions/stale, with the closest one that is.
fn unknown_input(name: &str, source: &Source) -> String {
    let hint = ACTIONS_STALE_INPUTS
        .iter()
        .map(|(input, _)| (strsim::jaro_winkler(name, input), *input))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, input)| format!(" (did you mean `{input}`?)"))
        .unwrap_or_default();
    format!(
        "unknown input `{name}` in {}: actions/stale has no such input{hint}",
        source.0
    )
}

/// The `[stale]` table the workflow's actions/stale step asks for, and warnings for what was
/// not carried over.
pub(crate) fn stale_table(path: &Path) -> Result<(toml::Table, Vec<String>), SettingsError> {
    workflow_table(path).map_err(SettingsError::StaleInputs)
}

fn workflow_table(path: &Path) -> Result<(toml::Table, Vec<String>), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read workflow {}: {error}", path.display()))?;
    let documents = YamlLoader::load_from_str(&text)
        .map_err(|error| format!("{} is not valid YAML: {error}", path.display()))?;
    let step = documents
        .iter()
        .flat_map(|document| {
            document["jobs"]
                .as_hash()
                .into_iter()
                .flat_map(|jobs| jobs.values())
        })
        .flat_map(|job| job["steps"].as_vec().into_iter().flatten())
        .find(|step| {
            step["uses"]
                .as_str()
                .is_some_and(|uses| uses.starts_with("actions/stale@"))
        })
        .ok_or_else(|| format!("{} has no step that uses actions/stale", path.display()))?;
    let Some(inputs) = step["with"].as_hash() else {
        return inputs_table(&[], &Source(path.display().to_string()));
    };
    let mut given = Vec::new();
    for (name, value) in inputs {
        let Some(name) = name.as_str() else { continue };
        let text = match value {
            Yaml::String(text) | Yaml::Real(text) => text.clone(),
            Yaml::Integer(number) => number.to_string(),
            Yaml::Boolean(flag) => flag.to_string(),
            Yaml::Null => String::new(),
            _ => {
                return Err(format!(
                    "`{name}` in {} is not a plain value",
                    path.display()
                ))
            }
        };
        given.push((name.to_string(), text));
    }
    inputs_table(&given, &Source(path.display().to_string()))
}

/// The one conversion of actions/stale's inputs (a workflow's `with:` block, or the action's
/// step) into a `[stale]` table: every input, given or at actions/stale's default, typed as
/// actions/stale reads it. Returns the table and notes on what was not carried over.
fn inputs_table(
    given: &[(String, String)],
    source: &Source,
) -> Result<(toml::Table, Vec<String>), String> {
    let mut table = toml::Table::new();
    let mut warnings = Vec::new();
    for (name, _) in given {
        if !ACTIONS_STALE_INPUTS.iter().any(|(input, _)| input == name) {
            return Err(unknown_input(name, source));
        }
    }
    for (name, default) in ACTIONS_STALE_INPUTS {
        let value = given.iter().rev().find(|(input, _)| input == name);
        if let Some((_, why)) = NOT_CARRIED.iter().find(|(input, _)| input == name) {
            if value.is_some() {
                warnings.push(format!("`{name}` is not carried over: {why}"));
            }
            continue;
        }
        let text = value.map_or(*default, |(_, text)| text.as_str());
        if let Some(typed) = typed_input(name, text, source)? {
            table.insert(name.replace('-', "_"), typed);
        }
    }
    Ok((table, warnings))
}

/// One input's value as actions/stale reads it, or `None` when it leaves the setting alone.
fn typed_input(name: &str, text: &str, source: &Source) -> Result<Option<toml::Value>, String> {
    let key = name.replace('-', "_");
    let trimmed = text.trim();
    if OPTIONAL_FLAGS.contains(&name) {
        return Ok(match trimmed {
            "true" => Some(toml::Value::Boolean(true)),
            "false" => Some(toml::Value::Boolean(false)),
            _ => None,
        });
    }
    let defaults =
        toml::Value::try_from(StaleRules::default()).map_err(|error| error.to_string())?;
    let typed = match defaults.get(&key) {
        Some(toml::Value::Boolean(_)) => match trimmed {
            "true" => toml::Value::Boolean(true),
            "false" => toml::Value::Boolean(false),
            // actions/stale reads a flag as `== 'true'` (`remove-stale-when-updated` as
            // `!= 'false'`); an empty `ascending` is gh-sweep's oldest first.
            "" if name == "ascending" => return Ok(None),
            "" => toml::Value::Boolean(name == "remove-stale-when-updated"),
            other => {
                return Err(format!(
                    "`{name}: {other}` in {}: use true or false",
                    source.0
                ))
            }
        },
        // The per-kind day counts: an empty one leaves the generic count (actions/stale's NaN).
        None if key.starts_with("days_") && trimmed.is_empty() => return Ok(None),
        None | Some(toml::Value::Integer(_)) if key.starts_with("days_") => {
            let days = trimmed.parse::<i64>().map_err(|_| {
                format!(
                    "`{name}: {text}` in {}: gh-sweep counts whole days (or -1 for never)",
                    source.0
                )
            })?;
            toml::Value::Integer(days)
        }
        None if key == "operations_per_run" => {
            let count = trimmed
                .parse::<i64>()
                .ok()
                .filter(|count| *count > 0)
                .ok_or_else(|| {
                    format!(
                        "`{name}: {text}` in {}: use a whole number of operations, 1 or more",
                        source.0
                    )
                })?;
            toml::Value::Integer(count)
        }
        // A list, comma-separated as actions/stale's `wordsToList` reads it.
        Some(toml::Value::Array(_)) => toml::Value::Array(
            text.split(',')
                .map(str::trim)
                .filter(|entry| !entry.is_empty())
                .map(|entry| toml::Value::String(entry.to_string()))
                .collect(),
        ),
        // actions/stale sends no `state_reason` for an empty reason: GitHub then closes as
        // completed.
        _ if key == "close_issue_reason" && trimmed.is_empty() => {
            toml::Value::String("completed".into())
        }
        _ => toml::Value::String(text.to_string()),
    };
    Ok(Some(typed))
}

/// [`print`], with a comment line for each input that was not carried over, so that the kept
/// config still says what the workflow asked for and gh-sweep does not do.
pub(crate) fn print_with_notes(table: &toml::Table, from: &Path, not_carried: &[String]) -> String {
    let printed = print(table, from);
    let Some((header, rest)) = printed.split_once('\n') else {
        return printed;
    };
    let notes: String = not_carried
        .iter()
        .map(|note| format!("# {}\n", note.replace('\n', " ")))
        .collect();
    format!("{header}\n{notes}{rest}")
}

/// The table as the maintainer would paste it into `.github/gh-sweep.toml`.
pub(crate) fn print(table: &toml::Table, from: &Path) -> String {
    let defaults =
        toml::Value::try_from(StaleRules::default()).unwrap_or(toml::Value::Boolean(false));
    let differs: toml::Table = table
        .iter()
        .filter(|(key, value)| defaults.get(key.as_str()) != Some(value))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let mut wrapper = toml::Table::new();
    wrapper.insert("stale".into(), toml::Value::Table(differs));
    format!(
        "# From the actions/stale step of {} (its inputs, in snake_case).\n{}",
        from.display(),
        toml::to_string_pretty(&wrapper).unwrap_or_default()
    )
}
