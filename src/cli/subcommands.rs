//! Each subcommand's own arguments: the shared groups it uses (see `groups.rs`) and its own
//! flags, so its `--help` lists only what it takes and any other flag is a usage error.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::groups::{DryRunArgs, LookArgs, OrgArgs, ReadArgs, ScopeArgs, StaleArgs, WriteArgs};

/// `stale-sweep`: reads, writes after confirmation.
#[derive(Debug, Args, Clone, Default)]
pub struct StaleSweepArgs {
    #[command(flatten)]
    pub scope: ScopeArgs,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub stale: StaleArgs,
}

/// `classify stale`: reads and classifies; never writes.
#[derive(Debug, Args, Clone, Default)]
pub struct ClassifyStaleArgs {
    #[command(flatten)]
    pub scope: ScopeArgs,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub stale: StaleArgs,
}

/// `classify merge`: reads the PRs and the queue; never writes.
#[derive(Debug, Args, Clone, Default)]
pub struct ClassifyMergeArgs {
    #[command(flatten)]
    pub scope: ScopeArgs,
    #[command(flatten)]
    pub org: OrgArgs,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// `poll`: reads, then writes to the local queue.
#[derive(Debug, Args, Clone, Default)]
pub struct PollArgs {
    #[command(flatten)]
    pub scope: ScopeArgs,
    #[command(flatten)]
    pub org: OrgArgs,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub read: ReadArgs,

    /// Ask before enqueueing (enqueueing is local, so it is not asked by default)
    #[arg(long)]
    pub confirm: bool,
}

/// `sweep`: merges what `poll` queued, after confirmation.
#[derive(Debug, Args, Clone, Default)]
pub struct SweepArgs {
    #[command(flatten)]
    pub scope: ScopeArgs,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Args)]
pub struct RecapArgs {
    /// Run id, as `recap --list` shows it
    pub run: Option<i64>,

    /// List recent runs, one line each
    #[arg(long, conflicts_with = "run")]
    pub list: bool,

    /// Print the recap as Markdown (for an issue comment or a job summary)
    #[arg(long, conflicts_with_all = ["list", "json"])]
    pub markdown: bool,

    /// Mark an item's writes of unknown outcome as checked by hand, so sweeps write to it again
    #[arg(long, value_name = "OWNER/NAME#N", conflicts_with_all = ["run", "list"])]
    pub acknowledge: Option<String>,

    #[command(flatten)]
    pub store: LookArgs,
}

/// `store status`: what the store holds right now.
#[derive(Debug, Args)]
pub struct StoreStatusArgs {
    #[command(flatten)]
    pub store: LookArgs,
}

/// `store copy`: every run, journal row, queue row, gate entry, budget, stale mark and cached
/// answer from one store into another.
#[derive(Debug, Args)]
pub struct StoreCopyArgs {
    /// The store to copy from: a SQLite file's path or a postgres:// URL
    #[arg(long, value_name = "PATH|URL")]
    pub from: String,

    /// The store to copy into (created and migrated if new): a path or a postgres:// URL
    #[arg(long, value_name = "PATH|URL")]
    pub to: String,

    /// Replace what the target already holds (without it, a target with any row is refused)
    #[arg(long)]
    pub force: bool,
}

/// Every word of a subcommand's name, for `man`'s completion (`man <TAB>`); a test checks it
/// against the subcommands there are.
pub const MAN_WORDS: &[&str] = &[
    "stale-sweep",
    "classify",
    "stale",
    "merge",
    "poll",
    "sweep",
    "recap",
    "store",
    "status",
    "copy",
    "completions",
    "man",
];

/// A word of `man`'s SUBCOMMAND: any text is taken (`man` itself says which pages there are,
/// naming the one it has no page for), and the completions offer [`MAN_WORDS`].
#[derive(Clone, Copy, Debug)]
pub struct ManWord;

impl clap::builder::TypedValueParser for ManWord {
    type Value = String;

    fn parse_ref(
        &self,
        _command: &clap::Command,
        _argument: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        Ok(value.to_string_lossy().into_owned())
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            MAN_WORDS
                .iter()
                .map(|word| clap::builder::PossibleValue::new(*word)),
        ))
    }
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print, e.g. `stale-sweep` or `classify stale` [default: the
    /// main page]
    #[arg(
        value_name = "SUBCOMMAND",
        conflicts_with = "out_dir",
        value_parser = ManWord,
        hide_possible_values = true
    )]
    pub subcommand: Vec<String>,

    /// Write every page (gh-sweep.1, gh-sweep-stale-sweep.1, ...) into DIR, e.g.
    /// ~/.local/share/man/man1
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Powershell,
}
