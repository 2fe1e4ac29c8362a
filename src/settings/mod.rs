//! Settings, resolved once per command at the top: flags beat environment beat the config file
//! beat defaults. Nothing below this layer reads the environment or the config file.
//!
//! - `env`: the environment, captured once;
//! - `file`: the config file's schema beside its key lists, finding and parsing it;
//! - `workflow`: an actions/stale workflow's inputs as a `[stale]` table;
//! - `auth`: the API base, its host and web URL, and the token for it;
//! - `paths`: the database's place, output folders, a clone's default repository;
//! - `pool`: the repositories and items a run is made from;
//! - `resolve`: all of it into `Settings` for one subcommand, and the rerun line.

pub mod auth;
pub mod env;
pub mod file;
pub mod flags;
pub mod paths;
pub mod pool;
pub mod resolve;
pub mod store;
pub mod workflow;

pub use auth::{token, web_url, Token};
pub use env::Env;
pub use file::check_config_text;
pub use flags::{CommandAccess, CommandKind, Flags, Spec};
pub use paths::default_db;
pub use resolve::{resolve, stale_table_in_effect, ReadApi, Settings};
