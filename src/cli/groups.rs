//! Groups of options that several subcommands share, each flattened into the subcommands that
//! use it: the pool (`--repo`, `--only`), how a run reads (GitHub or a snapshot, the config
//! file, the database, the failure budget, the clock), `--dry-run`, how it writes (`--yes`, the
//! pacing and the cap), `--org`, and the stale rules' own options.

use std::path::PathBuf;

use clap::Args;

/// Which repositories and items a run is over.
#[derive(Debug, Args, Clone, Default)]
pub struct ScopeArgs {
    /// Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh's -R takes it (repeatable)
    /// [default: inside a git clone, the repository gh would use]
    #[arg(long = "repo", short = 'R', value_name = "[HOST/]OWNER/NAME")]
    pub repos: Vec<String>,

    /// Only these items, as the recap prints them: 'o/r#12,#15,#40-#44'; '@FILE' reads them
    /// from a file (commas or line breaks between them), '-' from standard input
    #[arg(long, value_name = "ITEMS", allow_hyphen_values = true)]
    pub only: Option<String>,
}

/// Where a run reads from and keeps its state, and what it tolerates.
#[derive(Debug, Args, Clone, Default)]
pub struct ReadArgs {
    /// Item failures tolerated in the read phase: N, P% of the pool, or 'max(N, P%)' [default: max(3, 10%)]
    #[arg(
        long,
        value_name = "BUDGET",
        env = "GH_SWEEP_ITEM_FAILURE_BUDGET",
        hide_env_values = true,
        allow_hyphen_values = true
    )]
    pub item_failure_budget: Option<String>,

    /// GitHub API base URL [default: GITHUB_API_URL, GH_HOST, or https://api.github.com]
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,

    /// Which API GitHub's facts are read with: graphql or rest (writes are always REST's)
    /// [default: read_api in the config, or graphql]
    #[arg(long, value_name = "API", value_parser = ["graphql", "rest"])]
    pub read_api: Option<String>,

    /// Config file [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]
    #[arg(
        long,
        value_name = "PATH",
        env = "GH_SWEEP_CONFIG",
        hide_env_values = true
    )]
    pub config: Option<PathBuf>,

    #[command(flatten)]
    pub db: DbArgs,

    /// Read from a saved snapshot instead of GitHub; implies --dry-run
    #[arg(long, value_name = "FILE", conflicts_with = "save_snapshot")]
    pub snapshot: Option<PathBuf>,

    /// Save every GitHub answer this run read to FILE, for --snapshot later
    #[arg(long, value_name = "FILE")]
    pub save_snapshot: Option<PathBuf>,

    /// The run's clock, as RFC 3339, to replay a situation: classify and dry runs only (a run
    /// that may write uses the real clock) [default: now]
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
}

/// The state database.
#[derive(Debug, Args, Clone, Default)]
pub struct DbArgs {
    /// State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store
    /// several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]
    #[arg(
        long,
        value_name = "PATH|URL",
        env = "GH_SWEEP_DB",
        hide_env_values = true
    )]
    pub db: Option<PathBuf>,
}

/// Where a command that only looks at stores (`recap`, `store status`) finds the store: as a
/// run does, `--db`, else the config file's `db`, else the default file.
#[derive(Debug, Args, Clone, Default)]
pub struct LookArgs {
    /// Config file whose `db` names the store [default: .github/gh-sweep.toml, then
    /// $XDG_CONFIG_HOME/gh-sweep/config.toml]
    #[arg(
        long,
        value_name = "PATH",
        env = "GH_SWEEP_CONFIG",
        hide_env_values = true
    )]
    pub config: Option<PathBuf>,

    #[command(flatten)]
    pub db: DbArgs,
}

impl LookArgs {
    /// The same options as a run's, for the common layer: `--config` and `--db`, nothing else.
    pub fn as_read(&self) -> ReadArgs {
        ReadArgs {
            config: self.config.clone(),
            db: self.db.clone(),
            ..ReadArgs::default()
        }
    }
}

/// `--dry-run`.
#[derive(Debug, Args, Clone, Default)]
pub struct DryRunArgs {
    /// Read, classify and show the planned writes; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// How a run that may write asks, paces and caps its writes.
#[derive(Debug, Args, Clone, Default)]
pub struct WriteArgs {
    /// Write without asking (needed when not on a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Seconds between two writes [default: 1]
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true)]
    pub write_interval: Option<f64>,

    /// Send at most this many writes; items past the cap stay unfinished
    #[arg(
        long,
        value_name = "N",
        allow_hyphen_values = true,
        value_parser = write_cap
    )]
    pub max_writes: Option<u64>,

    /// With --yes, the longest wait for GitHub's write ceilings (80 a minute, 500 an hour per
    /// account); past it the rest stays unfinished for the next run [default: 600]
    #[arg(
        long,
        value_name = "SECONDS",
        allow_hyphen_values = true,
        value_parser = wait_seconds
    )]
    pub max_wait: Option<u64>,
}

#[derive(Debug, Args, Clone, Default)]
pub struct OrgArgs {
    /// Every repository of this organisation (repeatable), found with the search API
    #[arg(long = "org", value_name = "ORG")]
    pub orgs: Vec<String>,
}

/// Options of the stale rules' subcommands.
#[derive(Debug, Args, Clone, Default)]
pub struct StaleArgs {
    /// Take the [stale] rules from the actions/stale step of this workflow file (its `with:`
    /// inputs, in snake_case), over the config file's
    #[arg(long, value_name = "WORKFLOW.yml")]
    pub from_workflow: Option<PathBuf>,

    /// Take the [stale] rules from actions/stale's inputs as gh-sweep's action passes them
    /// (GH_SWEEP_INPUT_DAYS_BEFORE_STALE, ...), read the same way as --from-workflow
    #[arg(long, conflicts_with = "from_workflow")]
    pub from_action_inputs: bool,

    /// Print the [stale] table in effect (from --from-workflow, else the config) and exit,
    /// reading nothing from GitHub
    #[arg(long)]
    pub print_config: bool,
}

/// `--max-wait SECONDS`: a whole number of seconds.
fn wait_seconds(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| "use a whole number of seconds, 0 or more".to_string())
}

/// `--max-writes N`: a whole number of writes. A negative one is named as this flag's bad
/// value, not taken for an unknown flag (`-3`).
fn write_cap(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| "use a whole number of writes, 1 or more".to_string())
}
