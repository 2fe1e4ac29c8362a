//! Exit codes: part of the stable interface (README, `--help`). Decided in one place.

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
