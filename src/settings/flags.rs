//! What a subcommand hands settings resolution: the options it was given ([`Flags`]) and what
//! it is ([`Spec`], [`CommandKind`], [`CommandAccess`]). Plain data, below both the pool and the
//! rest of resolution.

use std::path::{Path, PathBuf};

/// What the command line gave, as resolution reads it; each subcommand fills in the options
/// it takes and leaves the rest unset.
#[derive(Debug, Default, Clone)]
pub struct Flags {
    pub repos: Vec<String>,
    pub only: Option<String>,
    pub item_failure_budget: Option<String>,
    pub yes: bool,
    pub dry_run: bool,
    pub json: bool,
    pub write_interval: Option<f64>,
    pub max_writes: Option<u64>,
    /// `--max-wait SECONDS`.
    pub max_wait: Option<u64>,
    pub api_url: Option<String>,
    pub read_api: Option<String>,
    pub config: Option<PathBuf>,
    pub db: Option<PathBuf>,
    pub snapshot: Option<PathBuf>,
    pub save_snapshot: Option<PathBuf>,
    pub now: Option<String>,
}

/// What the subcommand does with GitHub.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum CommandAccess {
    /// Reads and classifies; never writes (classify).
    ReadOnly,
    /// Writes only to the store's queue; asks only with --confirm (poll).
    LocalWrites,
    /// May write after confirmation (stale-sweep).
    Writes,
}

/// Which command a run is: what it reads, whether it writes, and the words that name it.
/// Every decision about "which command is this" asks this type, never the words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandKind {
    StaleSweep,
    ClassifyStale,
    ClassifyMerge,
    Poll,
    Sweep,
}

impl CommandKind {
    pub const ALL: [CommandKind; 5] = [
        CommandKind::StaleSweep,
        CommandKind::ClassifyStale,
        CommandKind::ClassifyMerge,
        CommandKind::Poll,
        CommandKind::Sweep,
    ];

    /// The words that name it on the command line (and in a rerun line, and in a snapshot).
    pub fn words(self) -> &'static str {
        match self {
            CommandKind::StaleSweep => "stale-sweep",
            CommandKind::ClassifyStale => "classify stale",
            CommandKind::ClassifyMerge => "classify merge",
            CommandKind::Poll => "poll",
            CommandKind::Sweep => "sweep",
        }
    }

    /// What it does with GitHub.
    pub fn access(self) -> CommandAccess {
        match self {
            CommandKind::StaleSweep | CommandKind::Sweep => CommandAccess::Writes,
            CommandKind::Poll => CommandAccess::LocalWrites,
            CommandKind::ClassifyStale | CommandKind::ClassifyMerge => CommandAccess::ReadOnly,
        }
    }

    /// Whether the `[stale]` rules decide it (`poll` and `sweep` are not moved by them).
    pub fn stale_rules(self) -> bool {
        matches!(self, CommandKind::StaleSweep | CommandKind::ClassifyStale)
    }

    /// Whether its pool may be an organisation's repositories (`--org`).
    pub fn takes_orgs(self) -> bool {
        matches!(self, CommandKind::Poll | CommandKind::ClassifyMerge)
    }
}

/// The subcommand being resolved, and its own flags.
pub struct Spec<'a> {
    pub kind: CommandKind,
    pub orgs: &'a [String],
    pub confirm: bool,
    /// An actions/stale workflow whose inputs replace the `[stale]` table.
    pub workflow: Option<&'a Path>,
    /// actions/stale's inputs from the action's step (`GH_SWEEP_INPUT_*`), read like a
    /// workflow's.
    pub action_inputs: bool,
}

impl Spec<'_> {
    pub fn new(kind: CommandKind) -> Self {
        Spec {
            workflow: None,
            action_inputs: false,
            kind,
            orgs: &[],
            confirm: false,
        }
    }
}
