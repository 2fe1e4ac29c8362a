//! End-to-end tests: the real binary against a fake GitHub on 127.0.0.1. One test binary with
//! modules (under `tests/cli/`) keeps the build fast.

#[path = "cli/support/mod.rs"]
mod support;

#[path = "cli/action.rs"]
mod action;
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
#[path = "cli/fencing.rs"]
mod fencing;
#[path = "cli/gh_habits.rs"]
mod gh_habits;
#[path = "cli/graphql.rs"]
mod graphql;
#[path = "cli/graphql_answers.rs"]
mod graphql_answers;
#[path = "cli/hosts.rs"]
mod hosts;
#[path = "cli/http_rules.rs"]
mod http_rules;
#[path = "cli/inputs.rs"]
mod inputs;
#[path = "cli/journal.rs"]
mod journal;
#[path = "cli/leases.rs"]
mod leases;
#[cfg(unix)]
#[path = "cli/limits.rs"]
mod limits;
#[path = "cli/merge_rules.rs"]
mod merge_rules;
#[path = "cli/output.rs"]
mod output;
#[path = "cli/pacing.rs"]
mod pacing;
#[path = "cli/pinned.rs"]
mod pinned;
#[path = "cli/poll.rs"]
mod poll;
#[path = "cli/poll_ticks.rs"]
mod poll_ticks;
#[path = "cli/readme.rs"]
mod readme;
#[cfg(unix)]
#[path = "cli/signals.rs"]
mod signals;
#[path = "cli/snapshot.rs"]
mod snapshot;
#[path = "cli/stale.rs"]
mod stale;
#[path = "cli/stale_inputs.rs"]
mod stale_inputs;
#[path = "cli/stale_recheck.rs"]
mod stale_recheck;
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

/// A test file under `tests/cli/` that is not named above is never compiled, and its tests
/// never run: every one must be a module here.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = std::fs::read_to_string(root.join("tests/cli.rs")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root.join("tests/cli")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if name.ends_with(".rs") && !listed.contains(&format!("#[path = \"cli/{name}\"]")) {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "not in tests/cli.rs: {missing:?}");
}
