//! actions/stale's inputs as a `[stale]` table (from `--from-workflow` or the action's step),
//! and `--print-config`'s table in effect.

use std::path::Path;

use super::env::Env;
use super::error::SettingsError;
use super::file::{find_config, overlay_stale, parse_file};
use super::workflow;
use crate::policy::stale::StaleRules;

/// actions/stale's inputs as a `[stale]` table, the notes on what was not carried over, and
/// where they came from.
pub(super) type StaleInputs = (toml::Table, Vec<String>, String);

/// [`StaleInputs`] from the workflow or the action's step; `None` without either.
pub(super) fn stale_inputs(
    workflow: Option<&Path>,
    action_inputs: bool,
    env: &Env,
) -> Option<Result<StaleInputs, SettingsError>> {
    if let Some(workflow) = workflow {
        return Some(
            workflow::stale_table(workflow)
                .map(|(table, notes)| (table, notes, workflow.display().to_string())),
        );
    }
    action_inputs.then(|| {
        workflow::action_table(|name| env.raw(name).map(str::to_string))
            .map(|(table, notes)| (table, notes, "the action's inputs".to_string()))
    })
}

/// The `[stale]` table in effect for `--print-config`: from the workflow (or the action's
/// inputs), else the config file (`config`: `--config`, or `GH_SWEEP_CONFIG`).
pub(super) fn stale_table_in_effect(
    config: Option<&Path>,
    workflow: Option<&Path>,
    action_inputs: bool,
    env: &Env,
    cwd: &Path,
) -> Result<(String, Vec<String>), SettingsError> {
    if let Some(found) = stale_inputs(workflow, action_inputs, env) {
        let (table, warnings, source) = found?;
        overlay_stale(&StaleRules::default(), table.clone(), &source).and_then(|rules| {
            rules.validate().map_err(|error| {
                SettingsError::StaleInputs(format!(
                    "invalid actions/stale inputs in {source}: {error}"
                ))
            })
        })?;
        return Ok((
            workflow::print_with_notes(&table, Path::new(&source), &warnings),
            warnings,
        ));
    }
    let rules = match find_config(config, env, cwd)? {
        Some(path) => {
            let text = std::fs::read_to_string(&path).map_err(|error| {
                SettingsError::Config(format!(
                    "cannot read config file {}: {error}",
                    path.display()
                ))
            })?;
            parse_file(&text, &path)?.stale
        }
        None => StaleRules::default(),
    };
    let mut wrapper = toml::Table::new();
    let table =
        toml::Value::try_from(&rules).map_err(|error| SettingsError::Config(error.to_string()))?;
    wrapper.insert("stale".into(), table);
    Ok((
        toml::to_string_pretty(&wrapper).unwrap_or_default(),
        Vec::new(),
    ))
}
