//! What a subcommand hands settings resolution: the options it was given ([`Flags`]) and what
//! it is ([`Spec`], [`Access`]). Plain data, below both the pool and the rest of resolution.

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
pub enum Access {
    /// Reads and classifies; never writes (classify).
    ReadOnly,
    /// Writes only to the store's queue; asks only with --confirm (poll).
    LocalWrites,
    /// May write after confirmation (stale-sweep).
    Writes,
}

/// The subcommand being resolved, and its own flags.
pub struct Spec<'a> {
    /// The words that name it on the command line, e.g. `classify stale`.
    pub words: &'a str,
    pub access: Access,
    pub orgs: &'a [String],
    pub confirm: bool,
    /// An actions/stale workflow whose inputs replace the `[stale]` table.
    pub workflow: Option<&'a Path>,
}

impl<'a> Spec<'a> {
    pub fn new(words: &'a str, access: Access) -> Self {
        Spec {
            workflow: None,
            words,
            access,
            orgs: &[],
            confirm: false,
        }
    }
}
