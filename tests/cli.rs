//! End-to-end tests: the real binary against a fake GitHub on 127.0.0.1. One test binary with
//! modules (under `tests/cli/`) keeps the build fast.

#[path = "cli/support/mod.rs"]
mod support;

#[path = "cli/args.rs"]
mod args;
#[path = "cli/clock.rs"]
mod clock;
#[cfg(unix)]
#[path = "cli/completion.rs"]
mod completion;
#[path = "cli/contract.rs"]
mod contract;
#[path = "cli/faults.rs"]
mod faults;
#[path = "cli/http_rules.rs"]
mod http_rules;
#[path = "cli/inputs.rs"]
mod inputs;
#[path = "cli/merge_rules.rs"]
mod merge_rules;
#[path = "cli/poll.rs"]
mod poll;
#[path = "cli/readme.rs"]
mod readme;
#[cfg(unix)]
#[path = "cli/signals.rs"]
mod signals;
#[path = "cli/snapshot.rs"]
mod snapshot;
#[path = "cli/stale.rs"]
mod stale;
#[path = "cli/stale_rules.rs"]
mod stale_rules;
#[path = "cli/sweep.rs"]
mod sweep;
#[cfg(unix)]
#[path = "cli/terminal.rs"]
mod terminal;
#[cfg(unix)]
#[path = "cli/tty.rs"]
mod tty;
