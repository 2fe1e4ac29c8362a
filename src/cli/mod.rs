//! The command line, as clap definitions. Only shapes and help text live here; values are
//! validated when settings are resolved (`settings/`), before anything is read.
//!
//! - `global`: the options every subcommand takes, before or after its name;
//! - `groups`: option groups several subcommands share;
//! - `subcommands`: each subcommand's own arguments;
//! - `examples`: each subcommand's help epilogue.
//!
//! A flag a subcommand does not take is a usage error; `misplaced_flag` says why in words.

mod examples;
pub mod global;
pub mod groups;
pub mod subcommands;

use clap::{CommandFactory, Parser, Subcommand};

use crate::exit::HELP as AFTER_HELP;
use examples::*;
pub use global::{ColorChoice, GlobalArgs};
pub use groups::{
    DbArgs, DryRunArgs, LookArgs, OrgArgs, ReadArgs, ScopeArgs, StaleArgs, WriteArgs,
};
pub use subcommands::{
    ClassifyMergeArgs, ClassifyStaleArgs, ManArgs, PollArgs, RecapArgs, Shell, StaleSweepArgs,
    StoreCopyArgs, StoreStatusArgs, SweepArgs,
};

/// Batch sweeps over GitHub issues and pull requests: classify a pool, confirm, write each
/// thing at most once, and end with a recap and a command line that reruns what is left.
#[derive(Debug, Parser)]
#[command(name = "gh-sweep", version = VERSION, after_help = AFTER_HELP, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    #[command(flatten)]
    pub global: GlobalArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Mark idle issues and PRs stale, close those stale long enough, unmark updated ones
    ///
    /// Rules and option names follow actions/stale (in a [stale] config table, snake_case).
    /// Oldest items first; bots and gh-sweep's own writes never count as activity, the token
    /// user's own words do; locked items are left alone; the close clock starts when the stale
    /// label was put on.
    #[command(after_help = examples(STALE_SWEEP_EXAMPLES))]
    StaleSweep(StaleSweepArgs),

    /// One merge-on-green tick: enqueue open, non-draft PRs that are eligible to merge
    ///
    /// Guards run in a fixed order, each cheaper than the next: held ((HELD) in the title or a
    /// held label), a merge already in flight, the backoff after a failed merge of the same
    /// head; only then the eligibility rules of [poll] (docs-only, green, approved at the
    /// head), failing closed. An eligible PR is enqueued once per head. Made for cron.
    #[command(after_help = examples(POLL_EXAMPLES))]
    Poll(PollArgs),

    /// Merge what poll queued, and recover approved PRs whose trigger was lost
    ///
    /// Claims due queue rows under a lease (the sweep budget decides what is due), re-checks
    /// the guard from fresh reads (open, head unchanged, checks green, approved at the head, not
    /// held, mergeable), asks, then merges with `sha` = the checked head. A refused merge (405,
    /// 409) is that PR's failed attempt; an unknown outcome stops the run and is settled by
    /// reading the PR on the next sweep, never by merging again blindly.
    #[command(after_help = examples(SWEEP_EXAMPLES))]
    Sweep(SweepArgs),

    /// The read phase alone: print every item's disposition and why. Writes nothing
    #[command(subcommand, after_help = examples(CLASSIFY_EXAMPLES))]
    Classify(ClassifyCommand),

    /// Print a stored run's recap (default: the latest)
    #[command(after_help = examples(RECAP_EXAMPLES))]
    Recap(RecapArgs),

    /// Look at the state store, or move it between SQLite and PostgreSQL
    #[command(subcommand, after_help = examples_only(STORE_EXAMPLES))]
    Store(StoreCommand),

    /// Print shell completions for SHELL
    #[command(after_help = examples_only(COMPLETIONS_EXAMPLES))]
    Completions {
        #[arg(value_enum)]
        shell: Shell,
    },

    /// Print the man page (roff), e.g. `gh-sweep man > ~/.local/share/man/man1/gh-sweep.1`;
    /// `gh-sweep man stale-sweep` prints a subcommand's page, `--out-dir DIR` writes them all
    #[command(after_help = examples_only(MAN_EXAMPLES))]
    Man(ManArgs),
}

#[derive(Debug, Subcommand)]
pub enum ClassifyCommand {
    /// Classify issues and PRs by the stale rules: mark-stale, close, unmark, keep, exempt
    #[command(after_help = examples(CLASSIFY_STALE_EXAMPLES))]
    Stale(ClassifyStaleArgs),

    /// Explain for every open PR why `poll` would or would not enqueue its merge: the first
    /// unmet condition, in words. Reads the queue, never changes it
    #[command(after_help = examples(CLASSIFY_MERGE_EXAMPLES))]
    Merge(ClassifyMergeArgs),
}

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Print the backend, its schema version, the runs at work (host, pid, last heartbeat),
    /// the queue by status and the live leases
    ///
    /// With PostgreSQL, a run is at work while its heartbeat (the database's clock, renewed
    /// every few seconds) is fresh; with SQLite, while its process is there.
    #[command(after_help = examples_only(STORE_STATUS_EXAMPLES))]
    Status(StoreStatusArgs),

    /// Copy a store into another: SQLite into PostgreSQL when a second host joins, or back
    ///
    /// Copies every table in one transaction on the target; refuses a target that holds any
    /// row unless --force, which replaces it. Stop the timers first: a run writing to the
    /// source meanwhile is not copied.
    #[command(after_help = examples_only(STORE_COPY_EXAMPLES))]
    Copy(StoreCopyArgs),
}

/// The global options that mean something to `completions` and `man`; any other given there
/// does nothing, and is refused. Every other subcommand uses them all.
fn options_used_by(subcommand: &str) -> Option<&'static [&'static str]> {
    match subcommand {
        "completions" | "man" => Some(&["color", "quiet", "verbose"]),
        _ => None,
    }
}

/// A global flag given on the command line that does nothing for the subcommand it was given
/// to (`completions bash --json`): the message that names it. Values from the environment are
/// not the command line's and are never refused here.
pub fn unused_option(matches: &clap::ArgMatches) -> Option<String> {
    let (name, sub) = matches.subcommand()?;
    let used = options_used_by(name)?;
    let command = Cli::command();
    for argument in command.get_arguments() {
        let id = argument.get_id().as_str();
        if !argument.is_global_set() || used.contains(&id) {
            continue;
        }
        if sub.value_source(id) == Some(clap::parser::ValueSource::CommandLine) {
            let flag = argument
                .get_long()
                .map_or_else(|| id.to_string(), |long| format!("--{long}"));
            return Some(does_nothing(&flag, name));
        }
    }
    None
}

/// The options of the subcommand that was run whose values clap took from an environment
/// variable (`ValueSource::EnvVariable`) rather than the command line, by id, with the
/// variable's name: for the settings layer's `Sources`.
pub fn from_environment(matches: &clap::ArgMatches) -> Vec<(String, String)> {
    let root = Cli::command();
    let (mut command, mut matches) = (&root, matches);
    while let Some((name, sub)) = matches.subcommand() {
        let Some(found) = command.find_subcommand(name) else {
            break;
        };
        (command, matches) = (found, sub);
    }
    command
        .get_arguments()
        .filter_map(|argument| {
            let id = argument.get_id().as_str();
            let variable = argument.get_env()?.to_string_lossy().into_owned();
            let from_env = matches.try_get_raw(id).is_ok_and(|_| {
                matches.value_source(id) == Some(clap::parser::ValueSource::EnvVariable)
            });
            from_env.then(|| (id.to_string(), variable))
        })
        .collect()
}

fn does_nothing(flag: &str, name: &str) -> String {
    format!("`{flag}` does nothing with `gh-sweep {name}`: drop it (see `gh-sweep {name} --help`)")
}

/// A flag clap refused as unknown that gh-sweep knows: one another subcommand takes
/// (`recap --max-writes 3`), or one this subcommand takes after its name but was given before
/// it (`--repo o/r classify stale`). The message names the flag and the fix; `None` for a flag
/// no subcommand takes (clap's own message, with its suggestion, says it best).
pub fn misplaced_flag(error: &clap::Error, argv: &[String]) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if error.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(given)) = error.get(ContextKind::InvalidArg) else {
        return None;
    };
    let flag = given
        .split_once('=')
        .map_or(given.as_str(), |(flag, _)| flag);
    let root = Cli::command();
    let mut words: Vec<&str> = Vec::new();
    let mut leaf = &root;
    for word in argv.iter().skip(1) {
        if let Some(sub) = leaf.find_subcommand(word) {
            words.push(word);
            leaf = sub;
        }
    }
    if words.is_empty() || !taken_anywhere(&root, flag) {
        return None;
    }
    let name = words.join(" ");
    if takes(leaf, flag) {
        return Some(format!(
            "`{flag}` is an option of `gh-sweep {name}`: put it after the subcommand's name (`gh-sweep {name} {flag} ...`)"
        ));
    }
    Some(does_nothing(flag, &name))
}

/// Whether `command` itself takes `flag` (`--long` or `-s`).
fn takes(command: &clap::Command, flag: &str) -> bool {
    command.get_arguments().any(|argument| {
        argument
            .get_long()
            .is_some_and(|long| flag.strip_prefix("--") == Some(long))
            || argument
                .get_short()
                .is_some_and(|short| flag == format!("-{short}"))
    })
}

/// Whether `command` or any subcommand below it takes `flag`.
fn taken_anywhere(command: &clap::Command, flag: &str) -> bool {
    takes(command, flag)
        || command
            .get_subcommands()
            .any(|sub| taken_anywhere(sub, flag))
}

/// `gh-sweep --version`: the version and the commit it was built from (`unknown` for a build
/// from sources that are no git checkout).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("GH_SWEEP_COMMIT"),
    ")"
);

/// What bare `gh-sweep` prints: where to start, in a few lines (exit 2).
pub const SHORT_USAGE: &str = "\
Usage: gh-sweep <COMMAND> [OPTIONS]

Commands: stale-sweep, classify, poll, sweep, recap, store, completions, man
Start with `gh-sweep classify stale --repo OWNER/REPO` (reads, writes nothing).
`gh-sweep --help` lists everything; `gh-sweep COMMAND --help` shows a command's options and examples.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definitions_are_sound() {
        Cli::command().debug_assert();
    }

    /// `man`'s completion offers exactly the words subcommands are named by.
    #[test]
    fn man_completes_every_subcommand_word() {
        fn words(command: &clap::Command, into: &mut std::collections::BTreeSet<String>) {
            for sub in command
                .get_subcommands()
                .filter(|sub| sub.get_name() != "help")
            {
                into.insert(sub.get_name().to_string());
                words(sub, into);
            }
        }
        let mut named = std::collections::BTreeSet::new();
        words(&Cli::command(), &mut named);
        let offered: std::collections::BTreeSet<String> = subcommands::MAN_WORDS
            .iter()
            .map(|w| w.to_string())
            .collect();
        assert_eq!(offered, named);
    }

    /// The words of each command kind name it once, and are what clap calls it: a rerun line
    /// or a snapshot's command parses back to the same command.
    #[test]
    fn every_command_kind_is_named_by_its_own_words() {
        use crate::settings::CommandKind;
        let words: std::collections::BTreeSet<&str> =
            CommandKind::ALL.iter().map(|kind| kind.words()).collect();
        assert_eq!(words.len(), CommandKind::ALL.len());
        for kind in CommandKind::ALL {
            let mut command = Cli::command();
            let mut found = &mut command;
            for word in kind.words().split(' ') {
                found = found
                    .find_subcommand_mut(word)
                    .unwrap_or_else(|| panic!("no subcommand `{}`", kind.words()));
            }
        }
    }

    fn refused(argv: &[&str]) -> Option<String> {
        let argv: Vec<String> = argv.iter().map(|word| word.to_string()).collect();
        let error = Cli::try_parse_from(&argv).err()?;
        misplaced_flag(&error, &argv)
    }

    #[test]
    fn a_flag_another_subcommand_takes_is_named_with_the_fix() {
        assert_eq!(
            refused(&["gh-sweep", "recap", "--max-writes", "3"]).as_deref(),
            Some("`--max-writes` does nothing with `gh-sweep recap`: drop it (see `gh-sweep recap --help`)")
        );
        assert_eq!(
            refused(&["gh-sweep", "classify", "stale", "--max-writes=3"]).as_deref(),
            Some("`--max-writes` does nothing with `gh-sweep classify stale`: drop it (see `gh-sweep classify stale --help`)")
        );
        assert_eq!(
            refused(&["gh-sweep", "-R", "o/r", "poll"]).as_deref(),
            Some("`-R` is an option of `gh-sweep poll`: put it after the subcommand's name (`gh-sweep poll -R ...`)")
        );
        // A flag nobody takes is left to clap's own message.
        assert_eq!(refused(&["gh-sweep", "recap", "--frobnicate"]), None);
        assert!(Cli::try_parse_from(["gh-sweep", "poll", "--max-writes", "3"]).is_ok());
    }
}
