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

/// The order the stale kind lists issues 1 to 6 in, with the default rules, after the runs
/// `recaps` describe (command, dry run, stopped by the write cap, unfinished items), in order.
fn listed_after(recaps: &[(&str, bool, bool, &[&str])]) -> Vec<u64> {
    let mut harness = Harness::new();
    for (command, dry_run, capped, unfinished) in recaps {
        let store = harness.store.as_mut();
        let id = store.start_run(command, "gh-sweep").unwrap();
        store
            .finish_run(&recap(id, command, *dry_run, *capped, unfinished))
            .unwrap();
    }
    let rules = StaleRules::default();
    let mut kind = StaleKind::new(&rules, false);
    listed(&mut kind, &issues(1..=6), harness.store.as_ref())
}

/// The last `stale-sweep` that wrote and was stopped by the write cap left items unfinished:
/// they are listed first, the rest in the rules' order. A later dry run or another command's
/// run does not count, nor do the unfinished items of another repository.
#[test]
fn the_items_a_capped_sweep_left_unfinished_are_listed_first() {
    let order = listed_after(&[
        ("stale-sweep", false, true, &["o/r#3", "o/r#5", "x/y#1"]),
        ("stale-sweep", true, true, &["o/r#6"]),
        ("sweep", false, true, &["o/r#2"]),
    ]);
    assert_eq!(order, [3, 5, 1, 2, 4, 6]);
}

/// A last `stale-sweep` that was not stopped by the write cap carries nothing over.
#[test]
fn a_sweep_that_was_not_capped_carries_nothing_over() {
    let order = listed_after(&[
        ("stale-sweep", false, true, &["o/r#3"]),
        ("stale-sweep", false, false, &["o/r#5"]),
    ]);
    assert_eq!(order, [1, 2, 3, 4, 5, 6]);
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

/// A stale write whose answer was lost, as the journal holds it.
fn unknown(number: u64, action: crate::policy::write::JournalWrite) -> crate::store::UnknownWrite {
    crate::store::UnknownWrite {
        id: 1,
        run_id: 1,
        item: format!("o/r#{number}"),
        action,
        intent_at: now(),
    }
}

/// A lost label removal happened when the label is gone, and a lost close when the item is
/// closed; while GitHub still shows the label, or the item open, neither did.
#[test]
fn a_lost_label_removal_or_close_is_found_by_the_items_state() {
    use crate::policy::write::{JournalWrite, Settled};
    let mut labelled = issue(1, 100);
    labelled.labels = vec!["Stale".into()];
    let mut closed = issue(2, 100);
    closed.open = false;
    let github = Scripted::new(vec![Ok(labelled), Ok(closed)]);
    let harness = Harness::new();
    let rules = StaleRules::default();
    let mut kind = StaleKind::new(&rules, false);
    let mut settled = |number, action| {
        kind.reconcile(
            &github,
            StoreView::new(harness.store.as_ref()),
            &unknown(number, action),
        )
        .unwrap()
        .unwrap()
        .settled
    };
    let removal = |label: &str| JournalWrite::RemoveLabel {
        label: label.into(),
    };
    let close = || JournalWrite::Close {
        reason: Some("not_planned".into()),
    };
    assert_eq!(settled(1, removal("Stale")), Settled::DidNotHappen);
    assert_eq!(settled(2, removal("Stale")), Settled::Happened);
    assert_eq!(settled(1, close()), Settled::DidNotHappen);
    assert_eq!(settled(2, close()), Settled::Happened);
}

/// actions/stale's `staled-issues-prs` output lists the items whose writes went through, each
/// as itself: of two items of one repository planned stale, only the one written is listed,
/// and a written item that is not stale (un-staled) keeps nothing of a stale mark.
#[test]
fn the_outputs_list_each_written_item_as_itself() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let harness = Harness::new();
    let rules = StaleRules::default();
    let mut kind = StaleKind::new(&rules, false);
    let view = StoreView::new(harness.store.as_ref());
    let mut plans = Vec::new();
    for number in [1, 2] {
        let item = ItemRef::new(&repo(), number);
        let listed = Listed::Issue(Ok(issue(number, 100)));
        let classified = kind
            .classify(&github, view, &item, Some(&listed), now())
            .unwrap();
        assert_eq!(
            classified.plan.disposition,
            Disposition::Stale(Verdict::MarkStale)
        );
        plans.push(classified.plan);
    }
    let dates = vec![now(); plans[1].remote.len()];
    kind.written(view, &plans[1], crate::engine::Written::All(&dates))
        .unwrap();
    let outputs = kind.summary(&[], 0, false).outputs.unwrap();
    let staled: Vec<serde_json::Value> = serde_json::from_str(&outputs.staled).unwrap();
    let numbers: Vec<u64> = staled
        .iter()
        .map(|entry| entry["number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [2]);
}

/// A written plan that neither marks, un-marks nor closes (here a kept item's comment) leaves
/// the store's stale mark alone; un-marking forgets it.
#[test]
fn only_an_unmark_or_a_close_forgets_the_stale_mark() {
    let harness = Harness::new();
    let rules = StaleRules::default();
    let mut kind = StaleKind::new(&rules, false);
    let view = StoreView::new(harness.store.as_ref());
    let item = ItemRef::new(&repo(), 3);
    let plan = |verdict| Plan {
        item: item.clone(),
        title: "issue 3".into(),
        disposition: Disposition::Stale(verdict),
        reason: "scripted".into(),
        remote: vec![Write::Comment {
            body: "a comment".into(),
            marker: "<!-- m -->".into(),
        }],
        local: Vec::new(),
        updated_at: None,
    };
    let written = |kind: &mut StaleKind<'_>, verdict| {
        kind.written(view, &plan(verdict), crate::engine::Written::All(&[now()]))
            .unwrap()
            .effects
    };
    assert_eq!(written(&mut kind, Verdict::Keep), []);
    assert_eq!(
        written(&mut kind, Verdict::Unmark),
        [crate::engine::Effect::ForgetStaleMark { item: item.clone() }]
    );
}
