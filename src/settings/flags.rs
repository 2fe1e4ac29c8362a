//! What a subcommand is ([`CommandKind`], [`CommandAccess`]), its own options ([`Spec`]), and
//! which of its values clap took from the environment ([`Sources`]). Plain data, below both the
//! pool and the rest of resolution.

use std::collections::BTreeMap;
use std::path::Path;

/// What the subcommand does with GitHub.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandAccess {
    /// Reads and classifies, or only looks at the store; never writes (classify, recap, store).
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
    /// `recap`: a stored run, read back from the store.
    Recap,
    /// `store status`: what the store holds.
    StoreStatus,
}

impl CommandKind {
    pub const ALL: [CommandKind; 7] = [
        CommandKind::StaleSweep,
        CommandKind::ClassifyStale,
        CommandKind::ClassifyMerge,
        CommandKind::Poll,
        CommandKind::Sweep,
        CommandKind::Recap,
        CommandKind::StoreStatus,
    ];

    /// The words that name it on the command line (and in a rerun line, and in a snapshot).
    pub fn words(self) -> &'static str {
        match self {
            CommandKind::StaleSweep => "stale-sweep",
            CommandKind::ClassifyStale => "classify stale",
            CommandKind::ClassifyMerge => "classify merge",
            CommandKind::Poll => "poll",
            CommandKind::Sweep => "sweep",
            CommandKind::Recap => "recap",
            CommandKind::StoreStatus => "store status",
        }
    }

    /// What it does with GitHub.
    pub fn access(self) -> CommandAccess {
        match self {
            CommandKind::StaleSweep | CommandKind::Sweep => CommandAccess::Writes,
            CommandKind::Poll => CommandAccess::LocalWrites,
            CommandKind::ClassifyStale
            | CommandKind::ClassifyMerge
            | CommandKind::Recap
            | CommandKind::StoreStatus => CommandAccess::ReadOnly,
        }
    }

    /// Whether it reads GitHub (a run), rather than only looking at the store: only a run
    /// resolves the API, the clock, the budget and the limits on writes, and checks the config
    /// file's values as well as its shape.
    pub fn reads_github(self) -> bool {
        !matches!(self, CommandKind::Recap | CommandKind::StoreStatus)
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

/// Which options clap took from an environment variable rather than the command line (clap's
/// `ValueSource::EnvVariable`), by the option's id, with the variable's name: an error about
/// the value names the variable, and a rerun line leaves the value to the environment.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    from_env: BTreeMap<String, String>,
}

impl Sources {
    /// From `(option id, variable)` pairs, as `cli::from_environment` finds them.
    pub fn new(pairs: impl IntoIterator<Item = (String, String)>) -> Self {
        Sources {
            from_env: pairs.into_iter().collect(),
        }
    }

    /// The variable the option's value came from, when it came from one.
    pub fn variable(&self, id: &str) -> Option<&str> {
        self.from_env.get(id).map(String::as_str)
    }

    /// `flag` when the option's value was given on the command line, else its variable.
    pub fn name<'a>(&'a self, id: &str, flag: &'a str) -> &'a str {
        self.variable(id).unwrap_or(flag)
    }
}
