//! Exit codes: part of the stable interface (README, `--help`). Decided in one place: the
//! codes themselves, why a run stopped (`Stop`) and what a finished run exits with (`of_run`,
//! which the recap records as its `exit_code`), what an error and a usage error from clap end
//! with, and how `main` turns a command's result into the process's code. A standard output
//! closed by its reader changes no code: the command ends with its own (`ui.rs`). A run ended by a signal ends by that signal, after its recap (`signals.rs`).

use serde::{Deserialize, Serialize};

pub const SUCCESS: i32 = 0;
pub const UNEXPECTED: i32 = 1;
pub const USAGE: i32 = 2;
pub const CANCELLED: i32 = 3;
pub const AUTH: i32 = 4;
pub const HARNESS_OUTAGE: i32 = 5;
pub const ITEM_FAILURES: i32 = 8;
pub const WRITE_CAP: i32 = 9;
pub const BUDGET_EXHAUSTED: i32 = 10;
pub const WRITE_FAILED: i32 = 11;
/// Not returned but ended by: after its recap, a run stopped by SIGINT ends by SIGINT, which a
/// shell reports as 128 + 2. The recap records this code.
pub const INTERRUPTED: i32 = 130;
/// The same for SIGTERM: 128 + 15.
pub const TERMINATED: i32 = 143;

/// The table printed by `--help` and in the README.
pub const HELP: &str = "\
Exit codes:
  0   every item completed (dry runs too)
  1   unexpected error
  2   usage or configuration error; nothing was read
  3   cancelled: the maintainer declined some or all writes
  4   authentication or permission refused, or a --repo that is not there
  5   harness outage (rate limit, 5xx, timeouts); nothing written after it
  8   finished, with item failures within the budget
  9   stopped at a limit on writes (the --max-writes cap, GitHub's rate limit, or pacing
      past max_wait), or items another run wrote since this run read them: the rest is
      unfinished, and the rerun line carries on with it
  10  item-failure budget exhausted; nothing written
  11  a write failed or its outcome is unknown; the run stopped there
  130 interrupted (Ctrl-C, SIGINT): stopped before the next write, recap printed and stored,
      then ended by the signal
  143 terminated (SIGTERM): the same

Token: GH_TOKEN, else GITHUB_TOKEN for github.com and *.ghe.com; GH_ENTERPRISE_TOKEN,
else GITHUB_ENTERPRISE_TOKEN for Enterprise Server; else `gh auth token --hostname HOST`.
gh-sweep says where its token came from, never what it is.";

/// Why a run stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    BudgetExhausted,
    WriteFailed,
    HarnessOutage,
    NotConfirmed,
    /// GitHub refused the token (401) or the permission (403): exit 4.
    Auth,
    /// A `--repo` that is not there (or that the token cannot see), or an `--org` search
    /// GitHub cannot run for the same reason.
    NotFound,
    /// `--max-writes` was reached with items left: not an error, but not finished either.
    WriteCap,
    /// GitHub's limits left the rest for later: the core rate limit had too few requests
    /// left, or the pacing at GitHub's write ceilings would wait past `max_wait`. Like the
    /// cap: unfinished, not failed; the stop's detail says when the rest can go on.
    WriteLimit,
    /// SIGINT or SIGTERM: the run stopped at the next safe point.
    Interrupted,
}

impl Stop {
    /// The reason printed once for the items a stop left unfinished.
    pub fn unfinished_reason(self) -> &'static str {
        match self {
            Stop::BudgetExhausted => "budget exhausted",
            Stop::WriteFailed => "a write stopped the run",
            Stop::HarnessOutage => "harness outage",
            Stop::NotConfirmed => "not confirmed",
            Stop::Auth => "authentication refused",
            Stop::NotFound => "not found",
            Stop::WriteCap => "write cap reached",
            Stop::WriteLimit => "held by GitHub's limits",
            Stop::Interrupted => "interrupted",
        }
    }

    /// A stop that is a failure: its reason also goes to stderr as `error: …`. Declining
    /// writes and reaching the write cap are what the maintainer asked for.
    pub fn is_error(self) -> bool {
        !matches!(self, Stop::NotConfirmed | Stop::WriteCap | Stop::WriteLimit)
    }
}

/// The code a finished run exits with, from how it ended: its stop, else a write of unknown
/// outcome still blocking an item, else items left unfinished because another run wrote them
/// since this run read them (unfinished work, as at the write limits: the rerun line carries
/// on with them), else item failures within the budget, else success. (The engine puts a
/// signal's own code over an interrupted run's.)
pub fn of_run(
    stopped: Option<Stop>,
    unknown_writes: bool,
    overtaken: bool,
    item_failures: bool,
) -> i32 {
    match stopped {
        Some(Stop::BudgetExhausted) => BUDGET_EXHAUSTED,
        Some(Stop::WriteFailed) => WRITE_FAILED,
        Some(Stop::HarnessOutage) => HARNESS_OUTAGE,
        Some(Stop::NotConfirmed) => CANCELLED,
        Some(Stop::Auth) | Some(Stop::NotFound) => AUTH,
        Some(Stop::WriteCap) | Some(Stop::WriteLimit) => WRITE_CAP,
        // The engine sets the signal's own code; SIGINT's when it did not.
        Some(Stop::Interrupted) => INTERRUPTED,
        // A write of unknown outcome from an earlier run still blocks its item.
        None if unknown_writes => WRITE_FAILED,
        // Another run wrote an item since this run read it: that item is not done by this run.
        None if overtaken => WRITE_CAP,
        None if item_failures => ITEM_FAILURES,
        None => SUCCESS,
    }
}

/// An error whose kind decides the exit code (nextest's `ExpectedError`): raised anywhere,
/// carried through `anyhow` (context and all), and mapped to its code here, in
/// [`ExpectedError::exit_code`]. Every other error exits 1.
#[derive(Debug, thiserror::Error)]
pub enum ExpectedError {
    /// What the maintainer wrote (flags, variables, the config file, a store's name) cannot
    /// be used: exit 2, nothing was read.
    #[error("{0}")]
    Usage(String),
    /// GitHub refused the token, or there is none for the host: exit 4.
    #[error("{0}")]
    Auth(String),
}

/// The name most of the code raises an [`ExpectedError`] by.
pub type Fatal = ExpectedError;

impl ExpectedError {
    /// The one place an expected error becomes an exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            ExpectedError::Usage(_) => USAGE,
            ExpectedError::Auth(_) => AUTH,
        }
    }
}

/// The code an error that ended a command exits with: its kind decides, anything else is
/// unexpected.
pub fn of_error(error: &anyhow::Error) -> i32 {
    error
        .downcast_ref::<ExpectedError>()
        .map_or(UNEXPECTED, ExpectedError::exit_code)
}

/// The code of a command line clap did not take: `--help` and `--version` are answers (0),
/// anything else is a usage error.
pub fn of_clap(error: &clap::Error) -> i32 {
    if error.use_stderr() {
        USAGE
    } else {
        SUCCESS
    }
}

/// The process's code for what a command returned, as a byte (a code past 255 is 255).
pub fn process_code(code: i32) -> u8 {
    u8::try_from(code.clamp(0, 255)).unwrap_or(u8::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_exits_by_its_stop_then_its_unknown_writes_then_its_failures() {
        assert_eq!(of_run(None, false, false, false), SUCCESS);
        assert_eq!(of_run(None, false, false, true), ITEM_FAILURES);
        assert_eq!(of_run(None, true, false, true), WRITE_FAILED);
        assert_eq!(of_run(Some(Stop::WriteCap), true, false, true), WRITE_CAP);
        // Items GitHub's limits left for later are unfinished, not failed.
        assert_eq!(
            of_run(Some(Stop::WriteLimit), false, false, false),
            WRITE_CAP
        );
        assert!(!Stop::WriteLimit.is_error());
        assert_eq!(of_run(Some(Stop::NotFound), false, false, false), AUTH);
        assert_eq!(
            of_run(Some(Stop::NotConfirmed), false, false, true),
            CANCELLED
        );
        // An item another run wrote since this run read it is unfinished work, over failures.
        assert_eq!(of_run(None, false, true, false), WRITE_CAP);
        assert_eq!(of_run(None, false, true, true), WRITE_CAP);
        assert_eq!(of_run(None, true, true, false), WRITE_FAILED);
    }

    #[test]
    fn errors_exit_by_their_kind() {
        assert_eq!(of_error(&Fatal::Usage("bad".into()).into()), USAGE);
        assert_eq!(of_error(&Fatal::Auth("no".into()).into()), AUTH);
        let wrapped = anyhow::Error::from(Fatal::Auth("no".into())).context("reading");
        assert_eq!(of_error(&wrapped), AUTH);
        assert_eq!(of_error(&anyhow::anyhow!("disk full")), UNEXPECTED);
        assert_eq!(process_code(INTERRUPTED), 130);
        assert_eq!(process_code(300), 255);
        assert_eq!(process_code(-1), 0);
    }

    #[test]
    fn clap_answers_are_0_and_its_refusals_2() {
        let command = || clap::Command::new("gh-sweep").subcommand(clap::Command::new("recap"));
        let help = command()
            .try_get_matches_from(["gh-sweep", "--help"])
            .unwrap_err();
        assert_eq!(of_clap(&help), SUCCESS);
        let unknown = command()
            .try_get_matches_from(["gh-sweep", "recap", "--frobnicate"])
            .unwrap_err();
        assert_eq!(of_clap(&unknown), USAGE);
    }
}
