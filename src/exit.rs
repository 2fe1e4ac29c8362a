//! Exit codes: part of the stable interface (README, `--help`). Decided in one place: the
//! codes themselves, what an error, a usage error from clap and a closed standard output end
//! with, and how `main` turns a command's result into the process's code. (What a finished
//! run's outcome exits with is its recap's `exit_code`, built by `policy::recap` from these
//! codes; a run ended by a signal ends by that signal, see `signals.rs`.)

use std::sync::atomic::{AtomicBool, Ordering};

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
  9   stopped at the --max-writes cap; the rerun line carries on with the rest
  10  item-failure budget exhausted; nothing written
  11  a write failed or its outcome is unknown; the run stopped there
  130 interrupted (Ctrl-C, SIGINT): stopped before the next write, recap printed and stored,
      then ended by the signal
  143 terminated (SIGTERM): the same

Token: GH_TOKEN, else GITHUB_TOKEN for github.com and *.ghe.com; GH_ENTERPRISE_TOKEN,
else GITHUB_ENTERPRISE_TOKEN for Enterprise Server; else `gh auth token --hostname HOST`.
gh-sweep says where its token came from, never what it is.";

/// An error whose kind decides the exit code. Everything else exits 1.
#[derive(Debug, thiserror::Error)]
pub enum Fatal {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Auth(String),
}

/// The code an error that ended a command exits with: its kind decides, anything else is
/// unexpected.
pub fn of_error(error: &anyhow::Error) -> i32 {
    match error.downcast_ref::<Fatal>() {
        Some(Fatal::Usage(_)) => USAGE,
        Some(Fatal::Auth(_)) => AUTH,
        None => UNEXPECTED,
    }
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

/// Set once standard output is found closed (`gh-sweep recap | head -0`).
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Standard output was closed by its reader: nothing more is printed there, no error is
/// reported for it, and the command still ends with its own code (a run that stopped on a
/// failed write still exits 11; `recap` exits 0). What the run does after printing (the job
/// summary, the end by a signal) still happens.
pub fn stdout_closed() {
    STDOUT_CLOSED.store(true, Ordering::SeqCst);
}

/// Whether standard output is closed; see [`stdout_closed`].
pub fn is_stdout_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::SeqCst)
}

/// The process's code for what a command returned, as a byte (a code past 255 is 255).
pub fn process_code(code: i32) -> u8 {
    u8::try_from(code.clamp(0, 255)).unwrap_or(u8::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        use clap::CommandFactory;
        let help = crate::cli::Cli::command()
            .try_get_matches_from(["gh-sweep", "--help"])
            .unwrap_err();
        assert_eq!(of_clap(&help), SUCCESS);
        let unknown = crate::cli::Cli::command()
            .try_get_matches_from(["gh-sweep", "recap", "--frobnicate"])
            .unwrap_err();
        assert_eq!(of_clap(&unknown), USAGE);
    }
}
