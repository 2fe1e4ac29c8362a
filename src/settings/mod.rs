//! Settings, resolved once per command at the top: flags beat environment beat the config file
//! beat defaults. Nothing below this layer reads the environment or the config file.
//!
//! - `env`: the environment, captured once;
//! - `flags`: what a command is (`CommandKind`), its own options, and which values clap took
//!   from the environment (`Sources`);
//! - `file`: the config file's schema beside its key lists, finding and parsing it;
//! - `common`: the common layer every command resolves first (`CommonSettings`);
//! - `run`: a run's own settings, resolved from the common layer (`Settings`);
//! - `rerun`: the rerun line's start;
//! - `workflow`, `stale_config`: an actions/stale workflow's inputs as a `[stale]` table;
//! - `auth`: the API base, its host and web URL, and the token for it;
//! - `paths`: the database's place, output folders, a clone's default repository;
//! - `pool`: the repositories and items a run is made from;
//! - `store`: which store, and how a run or a look at it opens it;
//! - `error`: what can be wrong, by concern (`SettingsError`).
//!
//! The functions here are the layer's face to the commands: their errors are
//! [`ExpectedError`]s, which exit with the code their kind calls for.

pub(crate) mod auth;
pub(crate) mod common;
pub(crate) mod env;
pub(crate) mod error;
pub(crate) mod file;
pub(crate) mod flags;
pub(crate) mod paths;
pub(crate) mod pool;
mod rerun;
pub(crate) mod run;
mod stale_config;
pub(crate) mod store;
pub(crate) mod workflow;

use std::path::Path;

pub use auth::{web_url, Token};
pub use common::{CommonArgs, CommonSettings, ReadApi};
pub use env::Env;
pub use error::SettingsError;
pub use file::check_config_text;
pub use flags::{CommandAccess, CommandKind, Sources, Spec};
pub use paths::default_db;
pub use run::{RunArgs, Settings};

use crate::exit::ExpectedError;
use crate::store::Location;

/// A run's settings: the common layer, then the run's own from it.
pub fn resolve(
    args: &RunArgs<'_>,
    interactive: bool,
    env: &Env,
    cwd: &Path,
) -> Result<Settings, ExpectedError> {
    let common = CommonSettings::resolve(&args.common, env, cwd)?;
    Ok(Settings::resolve(args, common, interactive, env, cwd)?)
}

/// The store a command that only looks at stores (`recap`, `store status`) opens, resolved
/// through the common layer as a run resolves its own: `--db` (or `GH_SWEEP_DB`), else the
/// config file's `db` (the file `--config` or `GH_SWEEP_CONFIG` names, else
/// `.github/gh-sweep.toml`, else `$XDG_CONFIG_HOME/gh-sweep/config.toml`), else the default
/// SQLite file. With it, where the store came from, for messages.
pub fn looked_at(
    args: &CommonArgs<'_>,
    env: &Env,
    cwd: &Path,
) -> Result<(Location, String), ExpectedError> {
    let common = CommonSettings::resolve(args, env, cwd)?;
    Ok(common.store.looked_at(env)?)
}

/// The store `text` names (a path, `sqlite:PATH`, a `postgres://` URL or a libpq string);
/// `what` is the option it came from.
pub fn store_named(text: &str, env: &Env, what: &str) -> Result<Location, ExpectedError> {
    Ok(store::named(text, env, what)?.location())
}

/// The token for the API base's host (exit 4 without one).
pub fn token(env: &Env, base: &str) -> Result<Token, ExpectedError> {
    Ok(auth::token(env, base)?)
}

/// `--print-config`'s `[stale]` table in effect, and the notes on what was not carried over.
pub fn stale_table_in_effect(
    config: Option<&Path>,
    workflow: Option<&Path>,
    action_inputs: bool,
    env: &Env,
    cwd: &Path,
) -> Result<(String, Vec<String>), ExpectedError> {
    Ok(stale_config::stale_table_in_effect(
        config,
        workflow,
        action_inputs,
        env,
        cwd,
    )?)
}
