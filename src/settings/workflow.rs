//! Moving over from actions/stale: read the `with:` inputs of the `actions/stale` step of a
//! workflow file and turn them into gh-sweep's `[stale]` table (the same names, in snake_case).
//! Inputs gh-sweep has no use for are named in warnings, never dropped silently.

use std::path::Path;

use yaml_rust2::{Yaml, YamlLoader};

use super::file::STALE_KEYS;
use crate::policy::stale::StaleRules;

/// Inputs that have no `[stale]` key, and why.
const NOT_CARRIED: &[(&str, &str)] = &[
    (
        "repo-token",
        "gh-sweep reads GH_TOKEN, GITHUB_TOKEN or `gh auth token`",
    ),
    (
        "operations-per-run",
        "use max_writes (or --max-writes) to cap writes",
    ),
    ("debug-only", "use --dry-run"),
    ("ascending", "gh-sweep always sweeps oldest first"),
    ("enable-statistics", "the recap is the statistics"),
    ("delete-branch", "gh-sweep never deletes branches"),
];

/// Every input of actions/stale (its `action.yml`, v10.2.0): a name outside this list is a typo,
/// not an input gh-sweep has yet to learn.
const ACTIONS_STALE_INPUTS: &[&str] = &[
    "repo-token",
    "stale-issue-message",
    "stale-pr-message",
    "close-issue-message",
    "close-pr-message",
    "days-before-stale",
    "days-before-issue-stale",
    "days-before-pr-stale",
    "days-before-close",
    "days-before-issue-close",
    "days-before-pr-close",
    "stale-issue-label",
    "close-issue-label",
    "exempt-issue-labels",
    "close-issue-reason",
    "stale-pr-label",
    "close-pr-label",
    "exempt-pr-labels",
    "exempt-milestones",
    "exempt-issue-milestones",
    "exempt-pr-milestones",
    "exempt-all-milestones",
    "exempt-all-issue-milestones",
    "exempt-all-pr-milestones",
    "only-labels",
    "any-of-labels",
    "any-of-issue-labels",
    "any-of-pr-labels",
    "only-issue-labels",
    "only-pr-labels",
    "operations-per-run",
    "remove-stale-when-updated",
    "remove-issue-stale-when-updated",
    "remove-pr-stale-when-updated",
    "debug-only",
    "ascending",
    "sort-by",
    "delete-branch",
    "start-date",
    "exempt-assignees",
    "exempt-issue-assignees",
    "exempt-pr-assignees",
    "exempt-all-assignees",
    "exempt-all-issue-assignees",
    "exempt-all-pr-assignees",
    "exempt-draft-pr",
    "enable-statistics",
    "labels-to-add-when-unstale",
    "labels-to-remove-when-stale",
    "labels-to-remove-when-unstale",
    "ignore-updates",
    "ignore-issue-updates",
    "ignore-pr-updates",
    "include-only-assigned",
    "only-issue-types",
];

/// A name that is no input of actions/stale, with the closest one that is.
fn unknown_input(name: &str, path: &Path) -> String {
    let hint = ACTIONS_STALE_INPUTS
        .iter()
        .map(|input| (strsim::jaro_winkler(name, input), *input))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, input)| format!(" (did you mean `{input}`?)"))
        .unwrap_or_default();
    format!(
        "unknown input `{name}` in {}: actions/stale has no such input{hint}",
        path.display()
    )
}

/// The `[stale]` table the workflow's actions/stale step asks for, and warnings for what was
/// not carried over.
pub fn stale_table(path: &Path) -> Result<(toml::Table, Vec<String>), String> {
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
    let defaults =
        toml::Value::try_from(StaleRules::default()).map_err(|error| error.to_string())?;
    let mut table = toml::Table::new();
    let mut warnings = Vec::new();
    let Some(inputs) = step["with"].as_hash() else {
        return Ok((table, warnings));
    };
    for (name, value) in inputs {
        let Some(name) = name.as_str() else { continue };
        let key = name.replace('-', "_");
        if let Some((_, why)) = NOT_CARRIED.iter().find(|(input, _)| *input == name) {
            warnings.push(format!("`{name}` is not carried over: {why}"));
            continue;
        }
        if !ACTIONS_STALE_INPUTS.contains(&name) {
            return Err(unknown_input(name, path));
        }
        if !STALE_KEYS.contains(&key.as_str()) {
            warnings.push(format!(
                "`{name}` is not supported by gh-sweep yet and was ignored"
            ));
            continue;
        }
        let text = match value {
            Yaml::String(text) | Yaml::Real(text) => text.clone(),
            Yaml::Integer(number) => number.to_string(),
            Yaml::Boolean(flag) => flag.to_string(),
            _ => {
                return Err(format!(
                    "`{name}` in {} is not a plain value",
                    path.display()
                ))
            }
        };
        let typed = match defaults.get(&key) {
            Some(toml::Value::Boolean(_)) => match text.trim() {
                "true" => toml::Value::Boolean(true),
                "false" => toml::Value::Boolean(false),
                other => {
                    return Err(format!(
                        "`{name}: {other}` in {}: use true or false",
                        path.display()
                    ))
                }
            },
            // Day counts, including the per-kind ones that default to unset.
            None | Some(toml::Value::Integer(_)) if key.starts_with("days_") => {
                let days = text.trim().parse::<i64>().map_err(|_| {
                    format!(
                        "`{name}: {text}` in {}: gh-sweep counts whole days (or -1 for never)",
                        path.display()
                    )
                })?;
                toml::Value::Integer(days)
            }
            _ => toml::Value::String(text),
        };
        table.insert(key, typed);
    }
    Ok((table, warnings))
}

/// [`print`], with a comment line for each input that was not carried over, so that the kept
/// config still says what the workflow asked for and gh-sweep does not do.
pub fn print_with_notes(table: &toml::Table, from: &Path, not_carried: &[String]) -> String {
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
pub fn print(table: &toml::Table, from: &Path) -> String {
    let mut wrapper = toml::Table::new();
    wrapper.insert("stale".into(), toml::Value::Table(table.clone()));
    format!(
        "# From the actions/stale step of {} (its inputs, in snake_case).\n{}",
        from.display(),
        toml::to_string_pretty(&wrapper).unwrap_or_default()
    )
}
