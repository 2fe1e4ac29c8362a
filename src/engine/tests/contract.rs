//! Seed 004's contract at the engine's level: the budget, the confirmation, each write once.

use super::*;

#[test]
fn a_spent_budget_stops_the_run_before_any_write() {
    let github = Scripted::new(vec![
        Ok(issue(1, 100)),
        Err("the `updated_at` field is missing".into()),
        Ok(issue(3, 100)),
    ]);
    let mut harness = Harness::new();
    // Nobody is asked about writes the run will not send.
    let recap = harness.run(&github, &mut NobodyAsked);
    assert_eq!(recap.stopped, Some(Stop::BudgetExhausted));
    assert_eq!(github.take_sent(), [] as [u64; 0], "a write was sent");
    assert_eq!(recap.failed.len(), 1);
    assert_eq!(recap.failed[0].item, "o/r#101");
    assert_eq!(recap.failed[0].phase, Phase::Read);
    // Read before the budget was spent, but not written: unfinished, with the rerun line.
    assert_eq!(recap.unfinished, ["o/r#1", "o/r#3"]);
    assert!(recap.rerun.as_deref().unwrap().contains("--only"));
}

#[test]
fn within_the_budget_every_confirmed_item_is_written_once() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 1)), Ok(issue(3, 100))]);
    let mut harness = Harness::new();
    let recap = harness.run(&github, &mut all());
    assert_eq!(recap.stopped, None);
    // Each stale item gets its label and its comment, in pool order; the fresh one nothing.
    assert_eq!(github.take_sent(), [1, 1, 3, 3]);
    let completed: Vec<&str> = recap.completed.iter().map(|c| c.item.as_str()).collect();
    assert_eq!(completed, ["o/r#1", "o/r#2", "o/r#3"]);
    assert_eq!(recap.exit_code, 0);
    assert!(recap.unfinished.is_empty());
}

#[test]
fn declined_writes_are_never_sent_and_are_left_for_the_rerun() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let mut harness = Harness::new();
    let recap = harness.run(&github, &mut GivenAnswer(Some(Choice::Some(vec![1]))));
    assert_eq!(recap.stopped, Some(Stop::NotConfirmed));
    assert_eq!(github.take_sent(), [2, 2]);
    assert_eq!(recap.unfinished, ["o/r#1"]);
}

#[test]
fn a_dry_run_sends_nothing_and_asks_nobody() {
    let github = Scripted::new(vec![Ok(issue(1, 100))]);
    let mut harness = Harness::new();
    harness.options.dry_run = true;
    let recap = harness.run(&github, &mut DryRun);
    assert_eq!(github.take_sent(), [] as [u64; 0]);
    assert_eq!(recap.unfinished, ["o/r#1"]);
    assert_eq!(recap.planned.len(), 1);
}

#[test]
fn the_write_cap_leaves_whole_items_unfinished() {
    let github = Scripted::new(vec![
        Ok(issue(1, 100)),
        Ok(issue(2, 100)),
        Ok(issue(3, 100)),
    ]);
    let mut harness = Harness::new();
    // Room for one item's two writes and half of the next: that one is not begun.
    harness.options.max_writes = Some(3);
    let recap = harness.run(&github, &mut all());
    assert_eq!(recap.stopped, Some(Stop::WriteCap));
    assert_eq!(github.take_sent(), [1, 1]);
    assert_eq!(recap.unfinished, ["o/r#2", "o/r#3"]);
}

#[test]
fn a_refused_write_stops_the_run_and_the_next_run_does_not_repeat_what_was_sent() {
    let mut github = Scripted::new(vec![
        Ok(issue(1, 100)),
        Ok(issue(2, 100)),
        Ok(issue(3, 100)),
    ]);
    github.refuse.insert(
        2,
        WriteError {
            status: Some(500),
            message: "POST answered 500".into(),
            outcome_unknown: true,
            refusal: crate::github::Refusal::Other,
        },
    );
    let mut harness = Harness::new();
    let recap = harness.run(&github, &mut all());
    assert_eq!(recap.stopped, Some(Stop::WriteFailed));
    // #2's first write may have happened: nothing more of #2, nothing of #3.
    assert_eq!(github.take_sent(), [1, 1, 2]);
    assert_eq!(recap.failed[0].item, "o/r#2");
    assert_eq!(recap.unfinished, ["o/r#3"]);

    // The next run settles #2's label by reading it (the scripted world shows no label: it did
    // not happen, so #2 is swept again), and #1 was marked by the first run (the store says so).
    github.refuse.clear();
    let recap = harness.run(&github, &mut all());
    assert_eq!(
        github.take_sent(),
        [2, 2, 3, 3],
        "#1 written twice, or #2 not again"
    );
    assert_eq!(recap.stopped, None);
}

/// An answer that must not be asked for.

#[test]
fn who_is_asked() {
    let ui = quiet();
    assert!(Prompt(&ui).asks() && !Prompt(&ui).dry_run());
    assert!(!AssumeYes.asks() && !AssumeYes.dry_run());
    assert!(!DryRun.asks() && DryRun.dry_run());
}

#[test]
fn classify_completes_every_item_with_what_it_would_write() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 1))]);
    let mut harness = Harness::new();
    let rules = StaleRules::default();
    let mut classifier = StaleKind::new(&rules, false);
    let recap = harness.run_with(&github, &mut classifier, Mode::Classify, &mut NobodyAsked);
    assert_eq!(github.take_sent(), [] as [u64; 0]);
    // What it would write is in `planned` too, as a dry run's: only the item with writes.
    let planned: Vec<(&str, &[String])> = recap
        .planned
        .iter()
        .map(|planned| (planned.item.as_str(), planned.writes.as_slice()))
        .collect();
    assert_eq!(
        planned,
        [(
            "o/r#1",
            &["label +Stale".to_string(), "comment".to_string()][..]
        )]
    );
    let details: Vec<&str> = recap.completed.iter().map(|c| c.detail.as_str()).collect();
    assert!(
        details[0] == "idle 100 days >= 60; would write: label +Stale; comment",
        "{details:?}"
    );
    assert!(!details[1].contains("would"), "{details:?}");
}

#[test]
fn the_budget_stop_says_how_many_failed_and_what_the_budget_allows() {
    let github = Scripted::new(vec![Err("bad".into()), Ok(issue(2, 1))]);
    let mut harness = Harness::new();
    let recap = harness.run(&github, &mut all());
    assert_eq!(
        recap.stop_detail.as_deref(),
        Some("1 item failed, more than item_failure_budget = 0 allows for 2 items (0)")
    );
}

#[test]
fn local_writes_are_asked_about_only_with_confirm() {
    let github = Scripted::new(Vec::new());
    let mut harness = Harness::new();
    let recap = harness.run_with(
        &github,
        &mut Enqueues(vec![7], 0),
        Mode::Sweep,
        &mut NobodyAsked,
    );
    assert_eq!(recap.stopped, None);
    assert_eq!(
        github.take_sent(),
        [] as [u64; 0],
        "an enqueue is not sent to GitHub"
    );
    assert_eq!(harness.store.queue_rows(&repo(), 7).unwrap().len(), 1);

    harness.options.confirm_local = true;
    let recap = harness.run_with(
        &github,
        &mut Enqueues(vec![8], 0),
        Mode::Sweep,
        &mut GivenAnswer(Some(Choice::None)),
    );
    assert_eq!(recap.stopped, Some(Stop::NotConfirmed));
    assert!(harness.store.queue_rows(&repo(), 8).unwrap().is_empty());
}

/// Asked to confirm, another host takes this run's work over (as one does after a pause past
/// the heartbeat's bound), then the maintainer says yes to all.
struct TakenOverWhileAsked(std::path::PathBuf);

impl Confirm for TakenOverWhileAsked {
    fn asks(&self) -> bool {
        true
    }
    fn choose(&mut self, _labels: &[String], _writes: usize) -> std::io::Result<Choice> {
        rusqlite::Connection::open(&self.0)
            .unwrap()
            .execute(
                "UPDATE runs SET taken_over_at = '2025-03-04T12:00:00.000000Z', taken_over_by = 'host-b' WHERE finished_at IS NULL",
                [],
            )
            .unwrap();
        Ok(Choice::All)
    }
}

/// A queue entry is part of its item's settlement, so a run that lost its heartbeat between
/// its read and its writes queues nothing: the host that took the run over decides.
#[test]
fn a_run_taken_over_before_its_writes_queues_nothing() {
    let github = Scripted::new(Vec::new());
    let mut harness = Harness::new();
    harness.options.confirm_local = true;
    let db = harness._dir.path().join("state.db");
    let ui = quiet();
    let recap = Run {
        reader: &github,
        writer: &github,
        store: harness.store.as_mut(),
        options: &harness.options,
        ui: &ui,
        clock: crate::clock::Clock::fixed(now()),
        now: now(),
        command: "poll",
        mode: Mode::Sweep,
        argv: "gh-sweep poll --repo o/r".into(),
        notes: Vec::new(),
    }
    .execute(&mut Enqueues(vec![9], 0), &mut TakenOverWhileAsked(db))
    .unwrap();
    assert_eq!(recap.stopped, Some(Stop::HarnessOutage), "{recap:?}");
    assert!(
        recap
            .stop_detail
            .as_deref()
            .is_some_and(|detail| detail.contains("no longer holds its heartbeat")),
        "{recap:?}"
    );
    assert_eq!(recap.unfinished, ["o/r#9"]);
    assert!(
        harness.store.queue_rows(&repo(), 9).unwrap().is_empty(),
        "queued after the run was taken over"
    );
}

#[test]
fn classify_settles_nothing_and_writes_nothing() {
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
    assert_eq!(github.take_sent(), [1]);
    github.refuse.clear();
    // A sweep would settle the label by reading #1; classify leaves it for the sweep.
    let rules = StaleRules::default();
    let mut classifier = StaleKind::new(&rules, false);
    let recap = harness.run_with(&github, &mut classifier, Mode::Classify, &mut NobodyAsked);
    assert!(recap.notes.is_empty(), "{:?}", recap.notes);
    assert_eq!(recap.failed.len(), 1, "{:?}", recap.failed);
    assert!(recap.failed[0]
        .reason
        .starts_with("outcome unknown: check by hand"));
}

/// A stale sweep's bookkeeping after an item's writes is data the engine applies: the mark with
/// the label's own date (the close clock starts there) and the last write's, or the mark
/// forgotten once the item is un-staled; the kind writes nothing to the store itself.
#[test]
fn a_stale_items_writes_become_effects_the_engine_applies() {
    use crate::engine::{Effect, Written};
    use crate::policy::stale;
    let store = crate::store::open(&crate::store::Location::Memory).unwrap();
    let rules = StaleRules::default();
    let mut classifier = StaleKind::new(&rules, false);
    let item = ItemRef::new(&repo(), 7);
    let at = |seconds: i64| chrono::DateTime::from_timestamp(1_800_000_000 + seconds, 0).unwrap();
    let plan = |disposition, remote| Plan {
        item: item.clone(),
        title: "t".into(),
        disposition: Disposition::Stale(disposition),
        reason: "r".into(),
        remote,
        local: Vec::new(),
        updated_at: None,
    };
    let marked = plan(
        stale::Verdict::MarkStale,
        vec![
            Write::AddLabels {
                labels: vec!["Stale".into()],
            },
            crate::policy::write::comment("stale", "mark-stale"),
        ],
    );
    let view = StoreView::new(store.as_ref());
    let dates = [at(0), at(2)];
    assert_eq!(
        classifier
            .written(view, &marked, Written::All(&dates))
            .unwrap()
            .effects,
        [Effect::RecordStaleMark {
            item: item.clone(),
            label: "Stale".into(),
            labeled_at: at(0),
            last_write_at: at(2),
        }]
    );
    let unmarked = plan(
        stale::Verdict::Unmark,
        vec![Write::RemoveLabel {
            label: "Stale".into(),
        }],
    );
    let dates = [at(5)];
    assert_eq!(
        classifier
            .written(view, &unmarked, Written::All(&dates))
            .unwrap()
            .effects,
        [Effect::ForgetStaleMark { item: item.clone() }]
    );
    assert_eq!(
        store.stale_mark(&item, "Stale").unwrap(),
        None,
        "nothing written by the kind"
    );
}

/// A prompt that cannot be answered: its terminal went away with no signal to say so.
struct PromptFails;

impl Confirm for PromptFails {
    fn asks(&self) -> bool {
        true
    }
    fn choose(&mut self, _labels: &[String], _writes: usize) -> std::io::Result<Choice> {
        Err(std::io::Error::other("the terminal went away"))
    }
}

/// A prompt that fails is no confirmation: nothing is written, and the run still ends with
/// its recap, stored, which says why and leaves every planned item for the rerun.
#[test]
fn a_prompt_that_fails_writes_nothing_and_still_ends_with_a_recap() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let mut harness = Harness::new();
    let recap = harness.run(&github, &mut PromptFails);
    assert_eq!(github.take_sent(), [] as [u64; 0]);
    assert_eq!(recap.stopped, Some(Stop::NotConfirmed), "{recap:?}");
    assert!(
        recap
            .stop_detail
            .as_deref()
            .is_some_and(|detail| detail.contains("the terminal went away")),
        "{recap:?}"
    );
    assert_eq!(recap.unfinished, ["o/r#1", "o/r#2"]);
    let stored = harness.store.recap(Some(recap.run_id)).unwrap();
    assert_eq!(stored.map(|stored| stored.stopped), Some(recap.stopped));
}
