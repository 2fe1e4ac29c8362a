//! Moving over from actions/stale: read the `with:` inputs of the `actions/stale` step of a
//! workflow file and turn them into gh-sweep's `[stale]` table (the same names, in snake_case).
//! Inputs gh-sweep has no use for are named in warnings, never dropped silently.

use std::path::Path;

use yaml_rust2::{Yaml, YamlLoader};

use crate::config::STALE_KEYS;
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
