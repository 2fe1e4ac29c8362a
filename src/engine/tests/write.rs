//! The write phase: the rerun file, the rate limit, the cap, re-reads and refusals.

use super::*;

#[test]
fn a_long_rerun_selector_goes_to_a_file_beside_the_store() {
    assert_eq!(
        crate::engine::recap::rerun_file_path(std::path::Path::new("/x/state.db"), 7),
        "/x/rerun/run-7.txt"
    );
    assert_eq!(
        crate::engine::recap::rerun_file_path(std::path::Path::new("state.db"), 7),
        "./rerun/run-7.txt"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rerun/run-3.txt").display().to_string();
    let mut recap: Recap = serde_json::from_value(serde_json::json!({
        "run_id": 3, "command": "stale-sweep", "dry_run": false, "stopped": null,
        "stop_detail": null, "completed": [], "failed": [], "unfinished": [],
        "unfinished_reason": null, "budget": null, "planned": [], "rerun": "x", "exit_code": 0
    }))
    .unwrap();
    recap.rerun_file = Some(crate::policy::recap::RerunFile {
        path: path.clone(),
        selector: "o/r#1-3,o/r#9".into(),
    });
    crate::engine::recap::write_rerun_file(&mut recap, "gh-sweep stale-sweep");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "o/r#1-3\no/r#9\n");
    assert!(recap.rerun_file.is_some());
}

fn refusal(status: u16, message: &str) -> WriteError {
    WriteError {
        status: Some(status),
        message: message.into(),
        outcome_unknown: false,
        refusal: crate::github::Refusal::Other,
    }
}

#[test]
fn the_rate_limit_pays_for_the_oldest_items_and_holds_the_rest_until_its_reset() {
    // A pool bigger than what the rate limit has left is not stuck at zero
    // writes. Six writes planned, three requests left until the reset: the first item's two
    // are sent, the rest wait for the reset, unfinished (not failed), for the rerun.
    let items = || vec![Ok(issue(1, 100)), Ok(issue(2, 100)), Ok(issue(3, 100))];
    let reset = crate::clock::wall() + chrono::Duration::hours(1);
    let github = Scripted::new(items());
    github.remaining.set(Some((3, reset)));
    let recap = Harness::new().run(&github, &mut all());
    assert_eq!(github.take_sent(), [1, 1]);
    assert_eq!(recap.stopped, Some(Stop::WriteLimit));
    assert_eq!(recap.exit_code, crate::exit::WRITE_CAP);
    assert!(recap.failed.is_empty(), "{:?}", recap.failed);
    assert_eq!(recap.unfinished, ["o/r#2", "o/r#3"]);
    let reason = format!(
        "GitHub's rate limit has 1 requests left until {}: the rest can go on after that",
        crate::policy::recap::time_text(reset)
    );
    assert_eq!(recap.unfinished_reason.as_deref(), Some(&reason[..]));
    assert_eq!(recap.stop_detail.as_deref(), Some(&reason[..]));
    assert_eq!(
        recap.rerun.as_deref(),
        Some("gh-sweep stale-sweep --repo o/r --yes --only 'o/r#2,#3'")
    );
    // Exactly enough: all sent.
    let github = Scripted::new(items());
    github.remaining.set(Some((6, reset)));
    let recap = Harness::new().run(&github, &mut all());
    assert_eq!(
        (recap.stopped, github.take_sent()),
        (None, vec![1, 1, 2, 2, 3, 3])
    );
    // A reset already past: the limit is whole again.
    let github = Scripted::new(items());
    github.remaining.set(Some((
        0,
        crate::clock::wall() - chrono::Duration::minutes(1),
    )));
    let recap = Harness::new().run(&github, &mut all());
    assert_eq!(
        (recap.stopped, github.take_sent()),
        (None, vec![1, 1, 2, 2, 3, 3])
    );
}

#[test]
fn the_cap_and_the_rate_limit_hold_together() {
    // `--max-writes` is part of the reckoning: whichever holds first stops the run there.
    let items = || vec![Ok(issue(1, 100)), Ok(issue(2, 100)), Ok(issue(3, 100))];
    let reset = crate::clock::wall() + chrono::Duration::hours(1);
    let github = Scripted::new(items());
    github.remaining.set(Some((100, reset)));
    let mut harness = Harness::new();
    harness.options.max_writes = Some(3);
    let recap = harness.run(&github, &mut all());
    assert_eq!(github.take_sent(), [1, 1]);
    assert_eq!(recap.stopped, Some(Stop::WriteCap));
    assert_eq!(
        recap.unfinished_reason.as_deref(),
        Some("write cap reached")
    );
    let github = Scripted::new(items());
    github.remaining.set(Some((4, reset)));
    let mut harness = Harness::new();
    harness.options.max_writes = Some(6);
    let recap = harness.run(&github, &mut all());
    assert_eq!(github.take_sent(), [1, 1, 2, 2]);
    assert_eq!(recap.stopped, Some(Stop::WriteLimit));
    assert_eq!(recap.unfinished, ["o/r#3"]);
}

/// An earlier run of `account` that journaled `writes` writes to GitHub just now.
fn earlier_run(store: &dyn Store, account: &str, writes: usize) {
    let run = store
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    store.record_account(run, account).unwrap();
    let item = ItemRef::new(&repo(), 99);
    let label = crate::policy::write::JournalWrite::AddLabels {
        labels: vec!["Stale".into()],
    };
    for _ in 0..writes {
        let id = store.journal_intent(run, &item, &label).unwrap();
        store
            .journal_outcome(id, crate::policy::write::WriteOutcome::Done, "")
            .unwrap();
    }
}

#[test]
fn an_earlier_run_of_the_same_account_counts_against_the_hour() {
    // GitHub's 500 writes an hour are the account's. An earlier run of the
    // same account sent 499 in the last hour: one more fits, not an item's two, and the wait
    // for the hour is past max_wait, so nothing is begun.
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let mut harness = Harness::new();
    earlier_run(harness.store.as_ref(), "github.com/maintainer", 499);
    let recap = harness.run(&github, &mut AssumeYes);
    assert_eq!(github.take_sent(), [] as [u64; 0]);
    assert_eq!(recap.stopped, Some(Stop::WriteLimit));
    assert_eq!(recap.unfinished, ["o/r#1", "o/r#2"]);
    let reason = recap.unfinished_reason.unwrap();
    assert!(
        reason.starts_with(
            "GitHub's limit of 500 writes an hour for github.com/maintainer: the rest can go on after "
        ),
        "{reason}"
    );
    assert!(
        recap
            .stop_detail
            .unwrap()
            .contains("longer than max_wait (10 min)"),
        "the stop says why it did not wait"
    );

    // Another account's writes are not this one's: everything is sent, and counted as the
    // account's for the runs after.
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let mut harness = Harness::new();
    earlier_run(harness.store.as_ref(), "github.com/someone-else", 499);
    let since = crate::clock::wall() - chrono::Duration::minutes(1);
    let recap = harness.run(&github, &mut AssumeYes);
    assert_eq!(
        (recap.stopped, github.take_sent()),
        (None, vec![1, 1, 2, 2])
    );
    let counted = harness
        .store
        .account_writes_since("github.com/maintainer", since)
        .unwrap();
    assert_eq!(counted.len(), 4);
}

#[test]
fn a_maintainer_who_said_yes_at_the_prompt_is_not_held_by_max_wait() {
    // A write of the account a moment ago and a max_wait of 0: the wait for the write
    // interval is past it without a prompt, within what a maintainer at the prompt agreed to.
    let github = Scripted::new(vec![Ok(issue(1, 100))]);
    let mut harness = Harness::new();
    harness.options.max_wait = Duration::ZERO;
    harness.options.write_interval = Duration::from_millis(20);
    earlier_run(harness.store.as_ref(), "github.com/maintainer", 1);
    let recap = harness.run(&github, &mut AssumeYes);
    assert_eq!(github.take_sent(), [] as [u64; 0]);
    assert_eq!(recap.stopped, Some(Stop::WriteLimit));
    let github = Scripted::new(vec![Ok(issue(1, 100))]);
    let recap = harness.run(&github, &mut all());
    assert_eq!((recap.stopped, github.take_sent()), (None, vec![1, 1]));
}

#[test]
fn a_write_cap_that_fits_exactly_sends_everything() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let mut harness = Harness::new();
    harness.options.max_writes = Some(4);
    let recap = harness.run(&github, &mut all());
    assert_eq!(
        (recap.stopped, github.take_sent()),
        (None, vec![1, 1, 2, 2])
    );
}

/// Confirms everything, after the world moved on: #1 was commented on meanwhile.
struct MeanwhileCommented<'a>(&'a Scripted);

impl Confirm for MeanwhileCommented<'_> {
    fn asks(&self) -> bool {
        true
    }
    fn choose(&mut self, _labels: &[String], _writes: usize) -> std::io::Result<Choice> {
        for facts in self.0.items.borrow_mut().iter_mut().flatten() {
            if facts.number == 1 {
                facts.updated_at = now();
            }
        }
        Ok(Choice::All)
    }
}

#[test]
fn an_item_read_long_ago_is_read_again_and_not_written_if_it_changed() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let mut harness = Harness::new();
    harness.options.recheck_after = Duration::ZERO;
    let recap = harness.run(&github, &mut MeanwhileCommented(&github));
    assert_eq!(github.take_sent(), [2, 2]);
    assert_eq!(recap.stopped, None);
    let first = &recap.completed[0];
    assert_eq!(first.item, "o/r#1");
    assert!(first.writes.is_empty(), "{first:?}");
    assert_eq!(
        first.disposition,
        crate::policy::disposition::changed_since_read(&Disposition::Stale(
            crate::policy::stale::Verdict::Keep
        )),
        "{first:?}"
    );

    // Read a moment ago: not read again, so the change is not seen and the plan stands.
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let mut harness = Harness::new();
    harness.run(&github, &mut MeanwhileCommented(&github));
    assert_eq!(github.take_sent(), [1, 1, 2, 2]);
}

#[test]
fn a_refusal_for_the_items_own_state_fails_that_item_and_the_run_goes_on() {
    // A locked conversation (GitHub's 403 for it), and an item that moved (a redirect, not
    // followed): each is its item's failure, and the next item is written.
    for (status, message, kind) in [
        (
            403,
            "POST answered 403 Forbidden: Unable to create comment because issue is locked.",
            crate::github::Refusal::Locked,
        ),
        (
            301,
            "POST answered 301 Moved Permanently",
            crate::github::Refusal::Other,
        ),
    ] {
        let mut github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
        github.refuse.insert(
            1,
            WriteError {
                refusal: kind,
                ..refusal(status, message)
            },
        );
        let recap = Harness::new().run(&github, &mut all());
        assert_eq!(recap.stopped, None, "{status}");
        assert_eq!(github.take_sent(), [1, 2, 2], "{status}");
        assert_eq!(recap.failed.len(), 1);
        assert_eq!(recap.failed[0].phase, Phase::Write);
    }
    // Any other refusal stops the run there.
    let mut github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    github
        .refuse
        .insert(1, refusal(422, "POST answered 422: Validation Failed"));
    let recap = Harness::new().run(&github, &mut all());
    assert_eq!(recap.stopped, Some(Stop::WriteFailed));
    assert_eq!(github.take_sent(), [1]);
    assert_eq!(recap.unfinished, ["o/r#2"]);
}

#[test]
fn a_local_write_is_never_a_reason_to_read_again() {
    // An entry in gh-sweep's own queue is no GitHub write, so however long
    // ago the PR was read, it is not read again before it is queued.
    let github = Scripted::new(Vec::new());
    let mut harness = Harness::new();
    harness.options.recheck_after = Duration::ZERO;
    let mut classifier = Enqueues(vec![1, 2, 3], 0);
    harness.run_with(&github, &mut classifier, Mode::Sweep, &mut NobodyAsked);
    assert_eq!(classifier.1, 3, "one classification per PR");
    assert_eq!(harness.store.queue_rows(&repo(), 3).unwrap().len(), 1);
}

#[test]
fn a_cap_smaller_than_the_first_items_writes_sends_none_of_them() {
    let github = Scripted::new(vec![Ok(issue(1, 100))]);
    let mut harness = Harness::new();
    harness.options.max_writes = Some(1);
    let recap = harness.run(&github, &mut all());
    assert_eq!(github.take_sent(), [] as [u64; 0]);
    assert_eq!(recap.stopped, Some(Stop::WriteCap));
    assert_eq!(recap.unfinished, ["o/r#1"]);
}

/// The reader is told of each item the read phase is done with, then once that the read
/// phase is over, before the first write: a GraphQL reader drops what it kept of the
/// listing's pages for them.
#[test]
fn the_reader_hears_the_read_phase_end_before_the_writes() {
    let github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
    let mut harness = Harness::new();
    harness.run(&github, &mut all());
    assert_eq!(
        *github.read_phase.borrow(),
        ["done #1", "done #2", "over after 0 writes"]
    );
    assert_eq!(
        github.take_sent().len(),
        4,
        "both items are marked: label and comment"
    );
}

/// The token's account (for GitHub's write ceilings) is asked only by a run that writes: not
/// by a dry run, nor by a classification.
#[test]
fn only_a_run_that_writes_asks_whose_token_it_is() {
    let asked = |dry_run: bool, mode: Mode| {
        let github = Scripted::new(vec![Ok(issue(1, 100))]);
        let mut harness = Harness::new();
        harness.options.dry_run = dry_run;
        let rules = StaleRules::default();
        let mut kind = StaleKind::new(&rules, mode == Mode::Classify);
        harness.run_with(&github, &mut kind, mode, &mut all());
        github.viewer_asked.get()
    };
    assert_eq!(
        asked(false, Mode::Sweep),
        1,
        "a sweep that writes asks once"
    );
    assert_eq!(asked(true, Mode::Sweep), 0, "a dry run writes nothing");
    assert_eq!(
        asked(false, Mode::Classify),
        0,
        "a classification writes nothing"
    );
}

/// A kind like `sweep`'s: a refusal for the item's own state is that item's failed attempt,
/// the run goes on, and the store keeps the attempt (here, a queue row of the item's).
struct AttemptAfterRefusal(StaleKind<'static>);

impl Kind for AttemptAfterRefusal {
    fn list(
        &mut self,
        github: &dyn crate::github::Reader,
        store: StoreView<'_>,
        scope: &Scope,
    ) -> crate::engine::kind::ScopeListing {
        self.0.list(github, store, scope)
    }

    fn classify(
        &mut self,
        github: &dyn crate::github::Reader,
        store: StoreView<'_>,
        item: &ItemRef,
        listed: Option<&crate::engine::Listed>,
        now: DateTime<Utc>,
    ) -> Result<crate::engine::plan::Classified, crate::engine::ReadError> {
        self.0.classify(github, store, item, listed, now)
    }

    fn reconcile(
        &mut self,
        github: &dyn crate::github::Reader,
        store: StoreView<'_>,
        write: &crate::store::UnknownWrite,
    ) -> Result<Option<crate::engine::kind::Reconciled>, crate::engine::ReadError> {
        self.0.reconcile(github, store, write)
    }

    fn summary(
        &self,
        completed: &[&Disposition],
        failed: usize,
        dry_run: bool,
    ) -> crate::engine::kind::Summary {
        self.0.summary(completed, failed, dry_run)
    }

    fn written(
        &mut self,
        _store: StoreView<'_>,
        plan: &Plan,
        _written: crate::engine::kind::Written<'_>,
    ) -> anyhow::Result<crate::engine::kind::AfterWrite> {
        Ok(crate::engine::kind::AfterWrite {
            effects: vec![crate::engine::settle::Effect::Enqueue {
                key: format!("attempt-{}", plan.item.number),
                repo: plan.item.repo.clone(),
                pr: plan.item.number,
                head_sha: "h".into(),
                max_attempts: 5,
                now: now(),
            }],
            goes_on: true,
            meaning: Some("its failed attempt".into()),
        })
    }
}

/// A write whose outcome is unknown (GitHub may have done it) is no refusal, whatever the
/// kind makes of refusals: the run stops there, and the kind's bookkeeping of a failed
/// attempt is not kept. A refusal proper is the item's failed attempt and the run goes on.
#[test]
fn an_unknown_outcome_stops_the_run_even_where_a_refusal_would_go_on() {
    static RULES: std::sync::OnceLock<StaleRules> = std::sync::OnceLock::new();
    let rules = RULES.get_or_init(StaleRules::default);
    let timed_out = WriteError {
        status: None,
        message: "timed out".into(),
        outcome_unknown: true,
        refusal: crate::github::Refusal::Other,
    };
    for (error, goes_on) in [
        (
            refusal(405, "PUT answered 405: Pull Request is not mergeable"),
            true,
        ),
        (timed_out, false),
    ] {
        let mut github = Scripted::new(vec![Ok(issue(1, 100)), Ok(issue(2, 100))]);
        github.refuse.insert(1, error);
        let mut harness = Harness::new();
        let mut kind = AttemptAfterRefusal(StaleKind::new(rules, false));
        let recap = harness.run_with(&github, &mut kind, Mode::Sweep, &mut all());
        let attempts = harness.store.queue_rows(&repo(), 1).unwrap().len();
        if goes_on {
            assert_eq!(recap.stopped, None, "{recap:?}");
            assert_eq!(github.take_sent(), [1, 2, 2]);
            assert_eq!(attempts, 1, "the failed attempt is kept");
        } else {
            assert_eq!(recap.stopped, Some(Stop::WriteFailed), "{recap:?}");
            assert_eq!(github.take_sent(), [1]);
            assert_eq!(recap.unfinished, ["o/r#2"]);
            assert_eq!(
                attempts, 0,
                "no failed attempt of a write that may have happened"
            );
        }
    }
}
