//! The command line, as clap definitions. Only shapes and help text live here; values are
//! validated when settings are resolved (`config.rs`), before anything is read.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::exit::HELP as AFTER_HELP;

const STALE_SWEEP_EXAMPLES: &str = "  # What the rules would do, and why; nothing is written
  $ gh-sweep stale-sweep --repo octo/demo --dry-run

  # On a terminal: show the planned writes and ask (default: no)
  $ gh-sweep stale-sweep --repo octo/demo

  # From cron: write without asking, one JSON line per run
  $ gh-sweep stale-sweep --repo octo/demo --yes --json

  # Take the rules from an actions/stale workflow
  $ gh-sweep stale-sweep --repo octo/demo --from-workflow .github/workflows/stale.yml --dry-run

  # Again, only the items a recap left: paste its rerun line
  $ gh-sweep stale-sweep --repo octo/demo --only 'octo/demo#12,#15,#40-#44'
";

const POLL_EXAMPLES: &str = "  # One tick over a repository: enqueue what is eligible
  $ gh-sweep poll --repo octo/demo

  # Every repository of an organisation, from cron
  $ gh-sweep poll --org octo --json

  # Ask before enqueueing
  $ gh-sweep poll --repo octo/demo --confirm
";

const SWEEP_EXAMPLES: &str = "  # What would be merged, leasing nothing
  $ gh-sweep sweep --repo octo/demo --dry-run

  # From cron: merge without asking
  $ gh-sweep sweep --repo octo/demo --yes --json
";

const CLASSIFY_STALE_EXAMPLES: &str =
    "  # Every issue and PR's disposition by the stale rules, and why
  $ gh-sweep classify stale --repo octo/demo

  # The same on a saved snapshot, reading nothing from GitHub
  $ gh-sweep classify stale --snapshot fixtures/demo-snapshot.json

  # The [stale] table in effect, from a workflow
  $ gh-sweep classify stale --from-workflow .github/workflows/stale.yml --print-config
";

const CLASSIFY_EXAMPLES: &str = "  $ gh-sweep classify stale --repo octo/demo
  $ gh-sweep classify merge --repo octo/demo
";

const CLASSIFY_MERGE_EXAMPLES: &str = "  # Why is my PR not merging?
  $ gh-sweep classify merge --repo octo/demo --only 7

  # Every open PR of an organisation
  $ gh-sweep classify merge --org octo
";

const RECAP_EXAMPLES: &str = "  # The latest run's recap
  $ gh-sweep recap

  # Recent runs, one line each, then one of them as Markdown
  $ gh-sweep recap --list
  $ gh-sweep recap 12 --markdown

  # A write of unknown outcome, checked by hand
  $ gh-sweep recap --acknowledge 'octo/demo#12'
";

const COMPLETIONS_EXAMPLES: &str =
    "  $ gh-sweep completions bash > ~/.local/share/bash-completion/completions/gh-sweep
  $ gh-sweep completions zsh > ~/.zfunc/_gh-sweep
  $ gh-sweep completions fish > ~/.config/fish/completions/gh-sweep.fish
";

const MAN_EXAMPLES: &str = "  $ gh-sweep man > ~/.local/share/man/man1/gh-sweep.1
  $ gh-sweep man stale-sweep
  $ gh-sweep man --out-dir ~/.local/share/man/man1
";

/// A subcommand's help epilogue: its examples (gh's habit: real command lines, each one
/// accepted as written; a test parses them), then the exit codes.
fn examples(list: &str) -> String {
    format!("Examples:\n{list}\n{AFTER_HELP}")
}

/// The examples alone, for subcommands whose exit is always 0 or 2.
fn examples_only(list: &str) -> String {
    format!("Examples:\n{list}")
}

/// Batch sweeps over GitHub issues and pull requests: classify a pool, confirm, write each
/// thing at most once, and end with a recap and a command line that reruns what is left.
#[derive(Debug, Parser)]
#[command(name = "gh-sweep", version, after_help = AFTER_HELP, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    #[command(flatten)]
    pub global: GlobalArgs,
}

/// Options every subcommand takes, before or after its name.
#[derive(Debug, Args, Clone, Default)]
pub struct GlobalArgs {
    /// Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh's -R takes it (repeatable)
    /// [default: inside a git clone, the repository gh would use]
    #[arg(
        long = "repo",
        short = 'R',
        value_name = "[HOST/]OWNER/NAME",
        global = true
    )]
    pub repos: Vec<String>,

    /// Only these items, as the recap prints them: 'o/r#12,#15,#40-#44'; '@FILE' reads them
    /// from a file (commas or line breaks between them), '-' from standard input
    #[arg(long, value_name = "ITEMS", global = true, allow_hyphen_values = true)]
    pub only: Option<String>,

    /// Item failures tolerated in the read phase: N, P% of the pool, or 'max(N, P%)' [default: max(3, 10%)]
    #[arg(
        long,
        value_name = "BUDGET",
        env = "GH_SWEEP_ITEM_FAILURE_BUDGET",
        hide_env_values = true,
        global = true,
        allow_hyphen_values = true
    )]
    pub item_failure_budget: Option<String>,

    /// Write without asking (needed when not on a terminal)
    #[arg(long, short = 'y', global = true)]
    pub yes: bool,

    /// Read, classify and show the planned writes; write nothing
    #[arg(long, global = true)]
    pub dry_run: bool,

    /// Print the recap as one JSON object
    #[arg(long, global = true)]
    pub json: bool,

    /// Seconds between two writes [default: 1]
    #[arg(
        long,
        value_name = "SECONDS",
        global = true,
        allow_hyphen_values = true
    )]
    pub write_interval: Option<f64>,

    /// Send at most this many writes; items past the cap stay unfinished
    #[arg(
        long,
        value_name = "N",
        global = true,
        allow_hyphen_values = true,
        value_parser = write_cap
    )]
    pub max_writes: Option<u64>,

    /// Which API GitHub's facts are read with: graphql or rest (writes are always REST's)
    /// [default: read_api in the config, or rest]
    #[arg(long, value_name = "API", global = true, value_parser = ["graphql", "rest"])]
    pub read_api: Option<String>,

    /// GitHub API base URL [default: GITHUB_API_URL, GH_HOST, or https://api.github.com]
    #[arg(long, value_name = "URL", global = true)]
    pub api_url: Option<String>,

    /// Config file [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]
    #[arg(
        long,
        value_name = "PATH",
        env = "GH_SWEEP_CONFIG",
        hide_env_values = true,
        global = true
    )]
    pub config: Option<PathBuf>,

    /// State database [default: $XDG_STATE_HOME/gh-sweep/state.db]
    #[arg(
        long,
        value_name = "PATH",
        env = "GH_SWEEP_DB",
        hide_env_values = true,
        global = true
    )]
    pub db: Option<PathBuf>,

    /// Read from a saved snapshot instead of GitHub; implies --dry-run
    #[arg(
        long,
        value_name = "FILE",
        global = true,
        conflicts_with = "save_snapshot"
    )]
    pub snapshot: Option<PathBuf>,

    /// Save every GitHub answer this run read to FILE, for --snapshot later
    #[arg(long, value_name = "FILE", global = true)]
    pub save_snapshot: Option<PathBuf>,

    /// Log each request to stderr (never the token)
    #[arg(long, short = 'v', global = true, conflicts_with = "quiet")]
    pub verbose: bool,

    /// Print only the recap's counts
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,

    /// Colour: auto (on a terminal, unless NO_COLOR is set), always or never
    #[arg(long, value_name = "WHEN", global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// The run's clock, as RFC 3339, to replay a situation: classify and dry runs only (a run
    /// that may write uses the real clock) [default: now]
    #[arg(long, value_name = "TIME", global = true)]
    pub now: Option<String>,
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
    StaleSweep(StaleArgs),

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
    Sweep,

    /// The read phase alone: print every item's disposition and why. Writes nothing
    #[command(subcommand, after_help = examples(CLASSIFY_EXAMPLES))]
    Classify(ClassifyCommand),

    /// Print a stored run's recap (default: the latest)
    #[command(after_help = examples(RECAP_EXAMPLES))]
    Recap(RecapArgs),

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

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print, e.g. `stale-sweep` or `classify stale` [default: the
    /// main page]
    #[arg(value_name = "SUBCOMMAND", conflicts_with = "out_dir")]
    pub subcommand: Vec<String>,

    /// Write every page (gh-sweep.1, gh-sweep-stale-sweep.1, ...) into DIR, e.g.
    /// ~/.local/share/man/man1
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum ClassifyCommand {
    /// Classify issues and PRs by the stale rules: mark-stale, close, unmark, keep, exempt
    #[command(after_help = examples(CLASSIFY_STALE_EXAMPLES))]
    Stale(StaleArgs),

    /// Explain for every open PR why `poll` would or would not enqueue its merge: the first
    /// unmet condition, in words. Reads the queue, never changes it
    #[command(after_help = examples(CLASSIFY_MERGE_EXAMPLES))]
    Merge(OrgArgs),
}

/// Options of the stale rules' subcommands.
#[derive(Debug, Args, Clone, Default)]
pub struct StaleArgs {
    /// Take the [stale] rules from the actions/stale step of this workflow file (its `with:`
    /// inputs, in snake_case), over the config file's
    #[arg(long, value_name = "WORKFLOW.yml")]
    pub from_workflow: Option<PathBuf>,

    /// Print the [stale] table in effect (from --from-workflow, else the config) and exit,
    /// reading nothing from GitHub
    #[arg(long)]
    pub print_config: bool,
}

#[derive(Debug, Args, Clone, Default)]
pub struct OrgArgs {
    /// Every repository of this organisation (repeatable), found with the search API
    #[arg(long = "org", value_name = "ORG")]
    pub orgs: Vec<String>,
}

#[derive(Debug, Args)]
pub struct PollArgs {
    #[command(flatten)]
    pub scope: OrgArgs,

    /// Ask before enqueueing (enqueueing is local, so it is not asked by default)
    #[arg(long)]
    pub confirm: bool,
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
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Powershell,
}

/// `--max-writes N`: a whole number of writes. A negative one is named as this flag's bad
/// value, not taken for an unknown flag (`-3`).
fn write_cap(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| "use a whole number of writes, 1 or more".to_string())
}

/// The options every subcommand takes on its command line that mean something to `recap`,
/// `completions` and `man`; any other given there does nothing, and is refused.
fn options_used_by(subcommand: &str) -> Option<&'static [&'static str]> {
    match subcommand {
        "recap" => Some(&["db", "json", "color", "quiet", "verbose"]),
        "completions" | "man" => Some(&["color", "quiet", "verbose"]),
        _ => None,
    }
}

/// A flag given on the command line that does nothing for the subcommand it was given to
/// (`recap --dry-run`, `completions bash --repo o/r`): the message that names it. Values from
/// the environment are not the command line's and are never refused here.
pub fn unused_option(matches: &clap::ArgMatches) -> Option<String> {
    let (name, sub) = matches.subcommand()?;
    let used = options_used_by(name)?;
    let command = <Cli as clap::CommandFactory>::command();
    for argument in command.get_arguments() {
        let id = argument.get_id().as_str();
        if !argument.is_global_set() || used.contains(&id) {
            continue;
        }
        if sub.value_source(id) == Some(clap::parser::ValueSource::CommandLine) {
            let flag = argument
                .get_long()
                .map_or_else(|| id.to_string(), |long| format!("--{long}"));
            return Some(format!(
                "`{flag}` does nothing with `gh-sweep {name}`: drop it (see `gh-sweep {name} --help`)"
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definitions_are_sound() {
        Cli::command().debug_assert();
    }
}
