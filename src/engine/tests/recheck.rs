//! The write phase's rechecks by `since`: one list of changes per window
//! instead of one read per item, and only the changed items read again.

use super::*;

/// A maintainer who takes `pause` at the prompt, while someone comments on `changed`.
struct Slow<'a> {
    github: &'a Scripted,
    pause: Duration,
    changed: Option<u64>,
}

impl Confirm for Slow<'_> {
    fn asks(&self) -> bool {
        true
    }
    fn choose(&mut self, _labels: &[String], _writes: usize) -> std::io::Result<Choice> {
        std::thread::sleep(self.pause);
        for facts in self.github.items.borrow_mut().iter_mut().flatten() {
            if Some(facts.number) == self.changed {
                facts.updated_at = now();
            }
        }
        Ok(Choice::All)
    }
}

fn pool(size: u64) -> Vec<Result<ItemFacts, String>> {
    (1..=size).map(|number| Ok(issue(number, 100))).collect()
}

/// A window the whole write phase fits in, and a prompt that outlasts it.
fn harness() -> Harness {
    let mut harness = Harness::new();
    harness.options.recheck_after = Duration::from_millis(400);
    harness
}

#[test]
fn only_the_item_that_changed_is_read_again_after_one_list_of_changes() {
    let github = Scripted::new(pool(5));
    let recap = harness().run(
        &github,
        &mut Slow {
            github: &github,
            pause: Duration::from_millis(500),
            changed: Some(3),
        },
    );
    assert_eq!(github.change_lists.get(), 1, "one list for the window");
    assert_eq!(*github.reads.borrow(), [3], "only #3 read again");
    assert_eq!(github.take_sent(), [1, 1, 2, 2, 4, 4, 5, 5]);
    let third = recap
        .completed
        .iter()
        .find(|entry| entry.item == "o/r#3")
        .unwrap();
    assert!(third.writes.is_empty(), "{third:?}");
    assert_eq!(
        third.disposition,
        crate::policy::disposition::changed_since_read(&Disposition::Stale(
            crate::policy::stale::Verdict::Keep
        ))
    );
}

#[test]
fn with_no_window_each_rechecked_item_asks_again_but_none_is_read_unless_it_changed() {
    let github = Scripted::new(pool(3));
    let mut harness = Harness::new();
    harness.options.recheck_after = Duration::ZERO;
    harness.run(
        &github,
        &mut Slow {
            github: &github,
            pause: Duration::ZERO,
            changed: None,
        },
    );
    assert_eq!(github.change_lists.get(), 3);
    assert!(github.reads.borrow().is_empty());
    assert_eq!(github.take_sent(), [1, 1, 2, 2, 3, 3]);
}

#[test]
fn a_list_of_changes_that_does_not_parse_reads_every_item_again_one_by_one() {
    let mut github = Scripted::new(pool(3));
    github.changes_fail = Some(ApiError::Item {
        status: None,
        message: "an entry of the changes of o/r has no `number`".into(),
    });
    // With no window, every item would ask again.
    let mut harness = Harness::new();
    harness.options.recheck_after = Duration::ZERO;
    let recap = harness.run(
        &github,
        &mut Slow {
            github: &github,
            pause: Duration::ZERO,
            changed: None,
        },
    );
    assert_eq!(recap.stopped, None);
    assert_eq!(github.change_lists.get(), 1, "not asked again in the run");
    assert_eq!(*github.reads.borrow(), [1, 2, 3]);
    assert_eq!(github.take_sent(), [1, 1, 2, 2, 3, 3]);
}

#[test]
fn an_outage_asking_for_the_changes_stops_the_run_before_the_write() {
    let mut github = Scripted::new(pool(2));
    github.changes_fail = Some(ApiError::Harness {
        message: "GET /repos/o/r/issues answered 502".into(),
    });
    let recap = harness().run(
        &github,
        &mut Slow {
            github: &github,
            pause: Duration::from_millis(500),
            changed: None,
        },
    );
    assert_eq!(recap.stopped, Some(Stop::HarnessOutage));
    assert_eq!(github.take_sent(), [] as [u64; 0]);
    assert!(github.reads.borrow().is_empty());
}

#[test]
fn an_item_read_within_the_window_is_written_without_asking() {
    let github = Scripted::new(pool(2));
    harness().run(
        &github,
        &mut Slow {
            github: &github,
            pause: Duration::ZERO,
            changed: Some(2),
        },
    );
    assert_eq!(github.change_lists.get(), 0);
    assert!(github.reads.borrow().is_empty());
    assert_eq!(github.take_sent(), [1, 1, 2, 2]);
}

/// Merges of the listed PRs: plans without an `updated_at` (check results do not move it).
struct Merges(Vec<u64>, u32);

impl Kind for Merges {
    fn list(
        &mut self,
        _github: &dyn crate::github::Reader,
        _store: StoreView<'_>,
        _scope: &Scope,
    ) -> ScopeListing {
        ScopeListing::of(Ok(self
            .0
            .iter()
            .map(|number| {
                (
                    ItemRef::new(&repo(), *number),
                    Listed::Queued { head_sha: None },
                )
            })
            .collect()))
    }

    fn classify(
        &mut self,
        _github: &dyn crate::github::Reader,
        _store: StoreView<'_>,
        item: &ItemRef,
        _listed: Option<&Listed>,
        _now: DateTime<Utc>,
    ) -> Result<Classified, ReadError> {
        self.1 += 1;
        Ok(Plan {
            item: item.clone(),
            title: format!("pr {}", item.number),
            disposition: Disposition::Merge,
            reason: "green".into(),
            remote: vec![Write::Merge {
                sha: "h".into(),
                method: crate::policy::merge::MergeMethod::Squash,
            }],
            local: Vec::new(),
            updated_at: None,
        }
        .into())
    }

    fn reconcile(
        &mut self,
        _github: &dyn crate::github::Reader,
        _store: StoreView<'_>,
        _write: &crate::store::UnknownWrite,
    ) -> Result<Option<Reconciled>, ReadError> {
        Ok(None)
    }

    fn summary(&self, _: &[&Disposition], _: usize, _: bool) -> Summary {
        Summary::default()
    }
}

#[test]
fn a_merge_is_read_again_in_full_never_judged_by_the_list_of_changes() {
    let github = Scripted::new(pool(2));
    let mut harness = Harness::new();
    harness.options.recheck_after = Duration::ZERO;
    let mut merges = Merges(vec![1, 2], 0);
    harness.run_with(&github, &mut merges, Mode::Sweep, &mut all());
    assert_eq!(
        merges.1, 4,
        "each PR classified, then read again before its merge"
    );
    assert_eq!(github.change_lists.get(), 0);
    assert_eq!(github.take_sent(), [1, 2]);
}
