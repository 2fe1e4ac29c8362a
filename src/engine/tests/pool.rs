//! The pool: `--only`, a snapshot's pool, writes of unknown outcome, canonical names.

use super::*;

#[test]
fn only_the_items_given_are_read_and_written() {
    let github = Scripted::new(vec![
        Ok(issue(1, 100)),
        Ok(issue(2, 100)),
        Ok(issue(3, 100)),
    ]);
    let mut harness = Harness::new();
    harness.options.only = Some([ItemRef::new(&repo(), 3)].into_iter().collect());
    let recap = harness.run(&github, &mut all());
    assert_eq!(github.take_sent(), [3, 3]);
    let completed: Vec<&str> = recap.completed.iter().map(|c| c.item.as_str()).collect();
    assert_eq!(completed, ["o/r#3"]);
}

#[test]
fn from_a_snapshot_only_picks_from_its_pool() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let mut harness = Harness::new();
    harness.options.from_snapshot = true;
    harness.options.budget = FailureBudget::Count(5);
    harness.options.only = Some(
        [ItemRef::new(&repo(), 2), ItemRef::new(&repo(), 9)]
            .into_iter()
            .collect(),
    );
    let recap = harness.run(&github, &mut all());
    assert_eq!(github.take_sent(), [2, 2]);
    assert_eq!(recap.failed.len(), 1, "{:?}", recap.failed);
    assert_eq!(recap.failed[0].item, "o/r#9");
    assert!(recap.failed[0]
        .reason
        .starts_with("not in the snapshot's pool"));
    let completed: Vec<&str> = recap.completed.iter().map(|c| c.item.as_str()).collect();
    assert_eq!(completed, ["o/r#2"]);
}

#[test]
fn a_write_github_may_still_be_carrying_out_blocks_its_item_until_it_settles() {
    let mut github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    github.refuse.insert(
        1,
        WriteError {
            status: None,
            message: "timed out".into(),
            outcome_unknown: true,
            refusal: crate::github::Refusal::Other,
        },
    );
    let mut harness = Harness::new();
    harness.run(&github, &mut all());
    assert_eq!(github.take_sent(), [1]);
    github.refuse.clear();

    // Not on GitHub yet, but within `settle_after` of being sent: blocked, not repeated.
    harness.options.settle_after = Duration::from_secs(3600);
    let recap = harness.run(&github, &mut all());
    assert_eq!(github.take_sent(), [2, 2]);
    assert_eq!(recap.failed.len(), 1);
    assert_eq!(recap.failed[0].item, "o/r#1");
    assert_eq!(recap.failed[0].phase, Phase::Write);
    assert!(
        recap.failed[0]
            .reason
            .starts_with("outcome unknown: label +Stale of run 1 is not on GitHub yet"),
        "{}",
        recap.failed[0].reason
    );
    assert!(recap.notes.is_empty(), "{:?}", recap.notes);

    // Past `settle_after`: "not found" is proof, and the item is swept again.
    harness.options.settle_after = Duration::ZERO;
    let recap = harness.run(&github, &mut all());
    assert_eq!(github.take_sent(), [1, 1]);
    assert_eq!(recap.notes.len(), 1, "{:?}", recap.notes);
    assert!(recap.notes[0].starts_with("o/r#1: `label +Stale` of run 1 had an unknown outcome; found on GitHub that it did not happen"), "{:?}", recap.notes);
}

/// A kind of sweep whose every item plans one entry in gh-sweep's own queue; counts its

#[test]
fn a_repository_is_swept_by_its_canonical_name() {
    let mut github = Scripted::new(Vec::new());
    github
        .repositories
        .insert("o/r".into(), ("o/renamed".into(), 42, true));
    let mut harness = Harness::new();
    let mut options = harness.options.clone();
    options.repos.push("o/other".parse().unwrap());
    options.only = Some([ItemRef::new(&repo(), 5)].into_iter().collect());
    let notes =
        crate::engine::canonicalise_repos(&github, harness.store.as_mut(), &mut options).unwrap();
    assert_eq!(
        options.repos,
        [
            "o/renamed".parse::<RepoRef>().unwrap(),
            "o/other".parse().unwrap()
        ]
    );
    assert_eq!(
        options.only,
        Some(
            [ItemRef::new(&"o/renamed".parse().unwrap(), 5)]
                .into_iter()
                .collect()
        )
    );
    assert_eq!(
        options.rerun_prefix,
        "gh-sweep stale-sweep --repo o/renamed --yes"
    );
    assert_eq!(
        notes,
        ["o/r is now o/renamed (GitHub redirected it; repository id 42): swept as o/renamed"]
    );
    // The next run, under the new name, knows the id already: nothing to say.
    let notes =
        crate::engine::canonicalise_repos(&github, harness.store.as_mut(), &mut options).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
}

#[test]
fn an_organisation_past_the_search_cap_is_said() {
    let mut github = Scripted::new(Vec::new());
    github.org_size = 4000;
    assert_eq!(crate::engine::pool::org_search_note(&github, "big"), None);
    github.org_size = 4001;
    let note = crate::engine::pool::org_search_note(&github, "big").unwrap();
    assert!(
        note.starts_with("organisation big has 4001 repositories"),
        "{note}"
    );
}

#[test]
fn choice_labels_align_their_columns_and_cut_long_titles() {
    let row = |item: &str, title: &str, disposition: &str| crate::report::PlanRow {
        item: item.into(),
        title: title.into(),
        disposition: disposition.into(),
        reason: "idle 74 days >= 60".into(),
        writes: "comment".into(),
    };
    let long = "a title that is much longer than forty characters, cut";
    let labels = crate::engine::confirm::choice_labels(&[
        row("o/r#1", "short", "mark-stale"),
        row("o/r#10", long, "close"),
    ]);
    assert_eq!(
        labels,
        [
            format!("o/r#1   short{}  mark-stale  comment", " ".repeat(35)),
            format!("o/r#10  {}…  close       comment", &long[..39]),
        ]
    );
    // Exactly 40 characters are kept whole.
    let forty = "x".repeat(40);
    let labels = crate::engine::confirm::choice_labels(&[row("o/r#1", &forty, "close")]);
    assert_eq!(labels, [format!("o/r#1  {forty}  close  comment")]);
}

#[test]
fn another_kinds_write_of_unknown_outcome_is_said_and_does_not_block() {
    let mut github = Scripted::new(vec![Ok(issue(1, 100))]);
    github.refuse.insert(
        1,
        WriteError {
            status: None,
            message: "timed out".into(),
            outcome_unknown: true,
            refusal: crate::github::Refusal::Other,
        },
    );
    let mut harness = Harness::new();
    harness.run(&github, &mut all());
    let recap = harness.run_with(
        &github,
        &mut Enqueues(vec![1, 2], 0),
        Mode::Sweep,
        &mut NobodyAsked,
    );
    assert!(recap.failed.is_empty(), "{:?}", recap.failed);
    assert_eq!(harness.store.queue_rows(&repo(), 1).unwrap().len(), 1);
    assert_eq!(
        recap.notes,
        ["o/r#1: `label +Stale` of run 1 has an unknown outcome; `gh-sweep stale-sweep` settles it (or check by hand, then `gh-sweep recap --acknowledge o/r#1`); this run goes on"]
    );
}

#[test]
fn the_plan_ends_with_its_totals_and_the_least_time_its_writes_take() {
    use std::time::Duration;
    let dispositions: Vec<String> = ["mark-stale", "close", "mark-stale", "unmark"]
        .iter()
        .map(|name| name.to_string())
        .collect();
    // 452 writes at 1 s each: 7 min 32 s, more than 452 / 80 minutes (5 min 39 s).
    assert_eq!(
        crate::report::plan_totals(
            &dispositions,
            452,
            257,
            Some(crate::policy::pacing::least_duration(
                452,
                Duration::from_secs(1),
                None
            ))
        ),
        "Plan: 2 mark-stale, 1 close, 1 unmark — 452 writes on 257 items, at least 7 min 32 s"
    );
    // With no interval, GitHub's 80 a minute; an hour already full, its windows.
    assert_eq!(
        crate::policy::pacing::least_duration(160, Duration::ZERO, None),
        Duration::from_secs(120)
    );
    assert_eq!(
        crate::policy::pacing::least_duration(10, Duration::ZERO, Some(Duration::from_secs(3000))),
        Duration::from_secs(3000)
    );
    assert_eq!(
        crate::report::plan_totals(&dispositions[..1], 1, 1, None),
        "Plan: 1 mark-stale — 1 write on 1 item"
    );
}

/// An organisation's run holds back the items of its repositories whose merge is of unknown
/// outcome, as a repository's run does: the store is asked about every repository its
/// listing found, not only those named on the command line.
#[test]
fn an_org_run_blocks_an_item_whose_merge_is_of_unknown_outcome() {
    let github = Scripted::new(Vec::new());
    let mut harness = Harness::new();
    unknown_merge(&harness, 9);
    harness.options.repos = Vec::new();
    harness.options.orgs = vec!["o".into()];
    let recap = harness.run_with(
        &github,
        &mut Enqueues(vec![8, 9], 0),
        Mode::Sweep,
        &mut NobodyAsked,
    );
    let failed: Vec<&str> = recap.failed.iter().map(|f| f.item.as_str()).collect();
    assert_eq!(failed, ["o/r#9"], "{recap:?}");
    assert!(harness.store.queue_rows(&repo(), 9).unwrap().is_empty());
    assert_eq!(harness.store.queue_rows(&repo(), 8).unwrap().len(), 1);
}

/// With `--only`, a merge of unknown outcome holds back the item it names when the item is
/// asked for, and says nothing of an item that is not.
#[test]
fn with_only_an_unknown_merge_holds_back_just_the_items_asked_for() {
    let github = Scripted::new(Vec::new());
    let mut harness = Harness::new();
    for number in [7, 9] {
        unknown_merge(&harness, number);
    }
    harness.options.only = Some([ItemRef::new(&repo(), 9)].into_iter().collect());
    let recap = harness.run_with(
        &github,
        &mut Enqueues(Vec::new(), 0),
        Mode::Sweep,
        &mut NobodyAsked,
    );
    let failed: Vec<&str> = recap.failed.iter().map(|f| f.item.as_str()).collect();
    assert_eq!(failed, ["o/r#9"], "{recap:?}");
    assert!(recap.completed.is_empty(), "{recap:?}");
    assert!(harness.store.queue_rows(&repo(), 9).unwrap().is_empty());
}

/// A merge of `o/r#number` by a run that is over, whose outcome is unknown.
fn unknown_merge(harness: &Harness, number: u64) {
    use crate::policy::write::{JournalWrite, WriteOutcome};
    let store = harness.store.as_ref();
    let run = store
        .start_run("sweep", "gh-sweep sweep --repo o/r")
        .unwrap();
    let merge = JournalWrite::Merge {
        sha: "h".into(),
        method: "squash".into(),
    };
    let id = store
        .journal_intent(run, &ItemRef::new(&repo(), number), &merge)
        .unwrap();
    store
        .journal_outcome(id, WriteOutcome::Unknown, "timed out")
        .unwrap();
    // That run is over: its write is no run's at work to settle.
    rusqlite::Connection::open(harness._dir.path().join("state.db"))
        .unwrap()
        .execute(
            "UPDATE runs SET finished_at = '2025-03-04T12:00:00.000000Z' WHERE id = ?1",
            [run],
        )
        .unwrap();
}
