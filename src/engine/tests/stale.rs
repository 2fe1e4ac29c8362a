//! The stale kind's own bookkeeping: its statistics, and the order it lists a repository in.

use super::*;
use crate::engine::stale::StaleCounters;
use crate::engine::Counters;
use crate::policy::stale::Verdict;

/// The items `kind` lists for the repository of `github`, by number, in their order.
fn listed(kind: &mut StaleKind<'_>, github: &Scripted, store: &dyn Store) -> Vec<u64> {
    let listing = kind.list(github, StoreView::new(store), &Scope::Repo(repo()));
    listing
        .entries
        .unwrap()
        .into_iter()
        .map(|(item, _)| item.number)
        .collect()
}

fn issues(numbers: impl IntoIterator<Item = u64>) -> Scripted {
    Scripted::new(numbers.into_iter().map(|n| Ok(issue(n, 1))).collect())
}

/// `enable_statistics`: each verdict counted apart, the failures, and the operations spent
/// (one per page of 100 of the list, as actions/stale counts them).
#[test]
fn the_statistics_count_each_verdict_the_failures_and_the_operations() {
    let rules = StaleRules {
        enable_statistics: true,
        ..StaleRules::default()
    };
    let mut kind = StaleKind::new(&rules, false);
    let harness = Harness::new();
    let github = issues(1..=150);
    assert_eq!(
        listed(&mut kind, &github, harness.store.as_ref()).len(),
        150
    );
    let stale = |verdict| Disposition::Stale(verdict);
    let completed = [
        stale(Verdict::MarkStale),
        stale(Verdict::Close),
        stale(Verdict::Close),
        stale(Verdict::Unmark),
        stale(Verdict::Unmark),
        stale(Verdict::Unmark),
        stale(Verdict::Keep),
        stale(Verdict::Keep),
        stale(Verdict::Keep),
        stale(Verdict::Keep),
        stale(Verdict::Exempt("assigned".into())),
    ];
    let completed: Vec<&Disposition> = completed.iter().collect();
    let summary = kind.summary(&completed, 2, false);
    assert_eq!(
        summary.counters,
        Some(Counters::Stale(StaleCounters {
            processed: 13,
            staled: 1,
            closed: 2,
            unstaled: 3,
            kept: 4,
            exempt: 1,
            failed: 2,
            operations: 2,
        }))
    );
    let quiet = StaleRules::default();
    let kind = StaleKind::new(&quiet, false);
    assert_eq!(kind.summary(&completed, 2, false).counters, None);
}

/// A recap as the store keeps it: `command`, a dry run or not, stopped by the write cap or
/// not, with `unfinished` items.
fn recap(run_id: i64, command: &str, dry_run: bool, capped: bool, unfinished: &[&str]) -> Recap {
    serde_json::from_value(serde_json::json!({
        "schema": 1, "run_id": run_id, "command": command, "dry_run": dry_run,
        "stopped": if capped { serde_json::json!("write_cap") } else { serde_json::Value::Null },
        "stop_detail": null, "completed": [], "failed": [],
        "unfinished": unfinished, "unfinished_reason": null, "budget": null, "planned": [],
        "rerun": null, "exit_code": 0,
    }))
    .unwrap()
}

/// Stores the runs `recaps` describe, in order.
fn finished_runs(store: &mut dyn Store, recaps: &[(&str, bool, bool, &[&str])]) {
    for (command, dry_run, capped, unfinished) in recaps {
        let id = store.start_run(command, "gh-sweep").unwrap();
        store
            .finish_run(&recap(id, command, *dry_run, *capped, unfinished))
            .unwrap();
    }
}

/// The last `stale-sweep` that wrote and was stopped by the write cap left items unfinished:
/// they are listed first, the rest in the rules' order. A later dry run or another command's
/// run does not count, nor do the unfinished items of another repository.
#[test]
fn the_items_a_capped_sweep_left_unfinished_are_listed_first() {
    let mut harness = Harness::new();
    finished_runs(
        harness.store.as_mut(),
        &[
            ("stale-sweep", false, true, &["o/r#3", "o/r#5", "x/y#1"]),
            ("stale-sweep", true, true, &["o/r#6"]),
            ("sweep", false, true, &["o/r#2"]),
        ],
    );
    let rules = StaleRules::default();
    let mut kind = StaleKind::new(&rules, false);
    let github = issues(1..=6);
    assert_eq!(
        listed(&mut kind, &github, harness.store.as_ref()),
        [3, 5, 1, 2, 4, 6]
    );
}

/// A last `stale-sweep` that was not stopped by the write cap carries nothing over.
#[test]
fn a_sweep_that_was_not_capped_carries_nothing_over() {
    let mut harness = Harness::new();
    finished_runs(
        harness.store.as_mut(),
        &[
            ("stale-sweep", false, true, &["o/r#3"]),
            ("stale-sweep", false, false, &["o/r#5"]),
        ],
    );
    let rules = StaleRules::default();
    let mut kind = StaleKind::new(&rules, false);
    let github = issues(1..=6);
    assert_eq!(
        listed(&mut kind, &github, harness.store.as_ref()),
        [1, 2, 3, 4, 5, 6]
    );
}

/// `sort_by = "updated"`: the list is read in the order of each item's own `updated_at`,
/// oldest first, whatever order GitHub's list gave.
#[test]
fn sort_by_updated_lists_the_least_recently_updated_first() {
    let harness = Harness::new();
    let rules = StaleRules {
        sort_by: "updated".into(),
        ..StaleRules::default()
    };
    let mut kind = StaleKind::new(&rules, false);
    // Issue n idle for n days: the highest number is the least recently updated.
    let github = Scripted::new((1..=4).map(|n| Ok(issue(n, n as i64))).collect());
    assert_eq!(
        listed(&mut kind, &github, harness.store.as_ref()),
        [4, 3, 2, 1]
    );
}
