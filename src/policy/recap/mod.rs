//! The recap of seed 004: completed, failed, unfinished (with the reason once), then the rerun
//! selector. Built from the run's outcomes by a pure function so that no item can go missing:
//! every pool item lands in exactly one of the three groups. Its JSON form is stable (see the
//! README's "JSON recap" section).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::budget::FailureBudget;
use super::disposition::{self, Disposition};
use super::selector;
use crate::item::ItemRef;

pub use crate::exit::Stop;

/// Where a failure happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Read,
    Write,
}

/// What became of one item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Completed {
        disposition: Disposition,
        detail: String,
    },
    /// Completed without its writes: a re-read before writing found it decided otherwise.
    Changed {
        now: Disposition,
        detail: String,
    },
    Failed {
        phase: Phase,
        reason: String,
    },
    Unfinished {
        reason: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Completed {
    pub item: String,
    pub disposition: String,
    pub detail: String,
    /// The writes sent for it, in order (a run that wrote); absent when none were.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failed {
    pub item: String,
    pub phase: Phase,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetReport {
    pub value: String,
    pub allowed: u64,
    pub failures: u64,
}

/// A write planned by the run, kept in the recap so a dry run shows what it would have done.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Planned {
    pub item: String,
    pub disposition: String,
    pub detail: String,
    pub writes: Vec<String>,
}

/// The version of the JSON recap's shape (README, "JSON recap"): raised when a field changes
/// meaning or goes away; a field added does not break readers that ignore what they do not know.
pub const SCHEMA: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recap {
    /// [`SCHEMA`]. A recap stored before it existed reads as 0.
    #[serde(default)]
    pub schema: u32,
    /// The gh-sweep that ran it (`CARGO_PKG_VERSION`); empty in a recap stored before.
    #[serde(default)]
    pub version: String,
    /// When the run started and finished, by the machine's clock (RFC 3339, UTC, seconds):
    /// when things happened, even for a run whose rules used a snapshot's clock.
    #[serde(default)]
    pub started_at: Option<String>,
    #[serde(default)]
    pub finished_at: Option<String>,
    pub run_id: i64,
    pub command: String,
    /// The web address items link to (`https://github.com`, or an Enterprise host).
    #[serde(default)]
    pub web_url: String,
    pub dry_run: bool,
    pub stopped: Option<Stop>,
    /// A sentence on the stop, for the maintainer (the outage's cause, the failed write).
    pub stop_detail: Option<String>,
    pub completed: Vec<Completed>,
    pub failed: Vec<Failed>,
    pub unfinished: Vec<String>,
    pub unfinished_reason: Option<String>,
    pub budget: Option<BudgetReport>,
    pub planned: Vec<Planned>,
    pub rerun: Option<String>,
    /// When the selector is too long for one shell argument: the file the rerun line reads it
    /// from (`--only @FILE`) and what the engine writes there. Not part of the JSON.
    #[serde(skip)]
    pub rerun_file: Option<RerunFile>,
    pub exit_code: i32,
    /// What the run found before it started: earlier writes of unknown outcome, settled by
    /// asking GitHub.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// A subcommand's own summary (poll's skip counters), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<serde_json::Value>,
    /// A subcommand's outputs for a workflow (`stale-sweep`: `staled-issues-prs` and
    /// `closed-issues-prs`, as actions/stale sets them), when it has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<serde_json::Value>,
    /// Each item's page, as GitHub gave it (`html_url`), for the Markdown recap's links.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub links: BTreeMap<String, String>,
}

/// The longest selector the rerun line carries inline. Linux takes at most 128 KiB in one
/// argument (`MAX_ARG_STRLEN`) and a terminal line of kilobytes is not pasted by anyone; past
/// this the selector goes to a file and the line reads `--only @FILE`.
pub const LONG_SELECTOR: usize = 4096;

/// A rerun selector written to a file, because it is too long for the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RerunFile {
    pub path: String,
    pub selector: String,
}

/// Everything the builder needs, gathered by the engine.
pub struct RunFacts<'a> {
    pub run_id: i64,
    pub command: &'a str,
    pub dry_run: bool,
    pub pool: &'a [ItemRef],
    /// False when the pool itself could not be read (the list failed): the rerun is then the
    /// whole command again.
    pub pool_complete: bool,
    pub outcomes: &'a BTreeMap<ItemRef, Outcome>,
    pub stopped: Option<Stop>,
    pub stop_detail: Option<String>,
    pub budget: FailureBudget,
    pub planned: Vec<Planned>,
    /// The command line without `--only`, e.g. `gh-sweep stale-sweep --repo o/r`.
    pub rerun_prefix: &'a str,
    /// Where a selector too long for the command line is written, for `--only @FILE`.
    pub rerun_file_path: &'a str,
    /// Set when the run ended on an error with its own exit code (authentication: 4).
    pub exit_override: Option<i32>,
    /// Items held back by an earlier write of unknown outcome: a write problem, exit 11.
    pub unknown_writes: bool,
    /// Items left unfinished because another run wrote them since this run read them.
    pub overtaken: bool,
}

/// A time as the recap prints it: RFC 3339 in UTC, to the second (`2026-12-01T10:42:58Z`).
pub fn time_text(time: chrono::DateTime<chrono::Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Quotes a shell word only when it needs it.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The recap of a run: each item of the pool by what became of it, the failure budget's
/// verdict, the rerun line for what is left and the exit code.
pub fn build(facts: RunFacts<'_>) -> Recap {
    let sorted = sort_outcomes(&facts);
    let unfinished_reason = (!sorted.reasons.is_empty())
        .then(|| sorted.reasons.into_iter().collect::<Vec<_>>().join("; "));
    let budget = (sorted.read_failures > 0).then(|| BudgetReport {
        value: facts.budget.to_string(),
        allowed: facts.budget.allowed(facts.pool.len()),
        failures: sorted.read_failures,
    });
    let (rerun, rerun_file) = rerun_line(&facts, &sorted.rerun_items);
    let exit_code = exit_code(&facts, !sorted.failed.is_empty());
    Recap {
        schema: SCHEMA,
        version: env!("CARGO_PKG_VERSION").to_string(),
        started_at: None,
        finished_at: None,
        run_id: facts.run_id,
        command: facts.command.to_string(),
        web_url: String::new(),
        dry_run: facts.dry_run,
        stopped: facts.stopped,
        stop_detail: facts.stop_detail,
        completed: sorted.completed,
        failed: sorted.failed,
        unfinished: sorted.unfinished,
        unfinished_reason,
        budget,
        planned: facts.planned,
        rerun,
        rerun_file,
        exit_code,
        notes: Vec::new(),
        counters: None,
        outputs: None,
        links: BTreeMap::new(),
    }
}

/// The pool's items by what became of them, in the pool's order, with the reasons items were
/// left unfinished and the items a rerun needs (the unfinished and those whose read failed).
struct Sorted {
    completed: Vec<Completed>,
    failed: Vec<Failed>,
    unfinished: Vec<String>,
    reasons: BTreeSet<String>,
    rerun_items: BTreeSet<ItemRef>,
    read_failures: u64,
}

/// An item with no outcome was not reached (or was stopped with the run, for the stop's reason).
fn sort_outcomes(facts: &RunFacts<'_>) -> Sorted {
    let mut sorted = Sorted {
        completed: Vec::new(),
        failed: Vec::new(),
        unfinished: Vec::new(),
        reasons: BTreeSet::new(),
        rerun_items: BTreeSet::new(),
        read_failures: 0,
    };
    let default_reason = facts
        .stopped
        .map(|stop| stop.unfinished_reason().to_string())
        .unwrap_or_else(|| "not reached".to_string());
    for item in facts.pool {
        let outcome = facts
            .outcomes
            .get(item)
            .cloned()
            .unwrap_or(Outcome::Unfinished {
                reason: default_reason.clone(),
            });
        match outcome {
            Outcome::Completed {
                disposition,
                detail,
            } => sorted.completed.push(Completed {
                item: item.to_string(),
                disposition: disposition.to_string(),
                detail,
                writes: Vec::new(),
            }),
            Outcome::Changed { now, detail } => sorted.completed.push(Completed {
                item: item.to_string(),
                disposition: disposition::changed_since_read(&now),
                detail,
                writes: Vec::new(),
            }),
            Outcome::Failed { phase, reason } => {
                if phase == Phase::Read {
                    sorted.read_failures += 1;
                    sorted.rerun_items.insert(item.clone());
                }
                sorted.failed.push(Failed {
                    item: item.to_string(),
                    phase,
                    reason,
                });
            }
            Outcome::Unfinished { reason } => {
                sorted.reasons.insert(reason);
                sorted.rerun_items.insert(item.clone());
                sorted.unfinished.push(item.to_string());
            }
        }
    }
    sorted
}

/// The rerun line: the whole command again when the pool could not be read, else the command
/// with `--only` and the items left (from a file, `--only @FILE`, past [`LONG_SELECTOR`]).
fn rerun_line(
    facts: &RunFacts<'_>,
    items: &BTreeSet<ItemRef>,
) -> (Option<String>, Option<RerunFile>) {
    if !facts.pool_complete {
        return (Some(facts.rerun_prefix.to_string()), None);
    }
    if items.is_empty() {
        return (None, None);
    }
    let selector = selector::format(items);
    if selector.len() > LONG_SELECTOR {
        let line = format!(
            "{} --only {}",
            facts.rerun_prefix,
            shell_quote(&format!("@{}", facts.rerun_file_path))
        );
        let file = RerunFile {
            path: facts.rerun_file_path.to_string(),
            selector,
        };
        (Some(line), Some(file))
    } else {
        let line = format!("{} --only {}", facts.rerun_prefix, shell_quote(&selector));
        (Some(line), None)
    }
}

/// The exit code: an error's own code when the run ended on one, else the stop's, else what
/// the items say.
fn exit_code(facts: &RunFacts<'_>, any_failed: bool) -> i32 {
    facts.exit_override.unwrap_or_else(|| {
        crate::exit::of_run(
            facts.stopped,
            facts.unknown_writes,
            facts.overtaken,
            any_failed,
        )
    })
}

#[cfg(test)]
mod tests;
