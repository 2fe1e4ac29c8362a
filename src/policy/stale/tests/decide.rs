//! Unit tests of the decision: mark, close, unmark or keep, with the exact writes.

use super::*;

#[test]
fn marks_idle_items_and_keeps_fresh_ones() {
    let decision = decide_default(&issue(74), None);
    assert_eq!(decision.disposition, Verdict::MarkStale);
    assert_eq!(decision.reason, "idle 74 days >= 60");
    assert_eq!(
        decision.writes[0],
        Write::AddLabels {
            labels: vec!["Stale".into()]
        }
    );
    assert!(matches!(decision.writes[1], Write::Comment { .. }));
    assert_eq!(decide_default(&issue(59), None).disposition, Verdict::Keep);
}

#[test]
fn minus_one_means_never() {
    let rules = StaleRules {
        days_before_stale: -1,
        ..StaleRules::default()
    };
    let decision = decide(&issue(500), None, &rules, None, now()).unwrap();
    assert_eq!(decision.disposition, Verdict::Keep);
    let rules = StaleRules {
        days_before_close: -1,
        ..StaleRules::default()
    };
    let decision = decide(
        &stale(issue(90)),
        Some(&history(80, vec![])),
        &rules,
        None,
        now(),
    )
    .unwrap();
    assert_eq!(decision.disposition, Verdict::Keep);
}

#[test]
fn pr_and_issue_overrides_apply_to_their_kind_only() {
    let rules = StaleRules {
        days_before_pr_stale: Some(10),
        ..StaleRules::default()
    };
    let mut pr = issue(20);
    pr.is_pr = true;
    assert_eq!(
        decide(&pr, None, &rules, None, now()).unwrap().disposition,
        Verdict::MarkStale
    );
    assert_eq!(
        decide(&issue(20), None, &rules, None, now())
            .unwrap()
            .disposition,
        Verdict::Keep
    );
}

#[test]
fn close_clock_starts_at_the_label_not_updated_at() {
    // Updated long ago, but labelled only 3 days ago: not yet closed.
    let facts = stale(issue(100));
    let decision = decide_default(&facts, Some(&history(3, vec![])));
    assert_eq!(decision.disposition, Verdict::Keep);
    assert_eq!(decision.reason, "stale for 3 days; closes after 7");
    let decision = decide_default(&facts, Some(&history(8, vec![])));
    assert_eq!(decision.disposition, Verdict::Close);
    assert_eq!(
        decision.writes.last(),
        Some(&Write::Close {
            reason: Some(CloseReason::NotPlanned)
        })
    );
}

#[test]
fn a_human_comment_after_the_label_unmarks() {
    let rules = StaleRules {
        labels_to_add_when_unstale: vec!["triage".into()],
        ..StaleRules::default()
    };
    let facts = stale(issue(1));
    let decision = decide(
        &facts,
        Some(&history(8, vec![comment_by("alice", 1, false, None)])),
        &rules,
        None,
        now(),
    )
    .unwrap();
    assert_eq!(decision.disposition, Verdict::Unmark);
    assert_eq!(
        decision.reason,
        "comment by alice after it was marked stale"
    );
    assert_eq!(
        decision.writes,
        vec![
            Write::RemoveLabel {
                label: "Stale".into()
            },
            Write::AddLabels {
                labels: vec!["triage".into()]
            }
        ]
    );
    // A comment from before the label is not activity since it.
    let old = history(8, vec![comment_by("alice", 9, false, None)]);
    assert_eq!(
        decide(&facts, Some(&old), &rules, None, now())
            .unwrap()
            .disposition,
        Verdict::Close
    );
}

#[test]
fn remove_stale_when_updated_false_keeps_the_label() {
    let rules = StaleRules {
        remove_stale_when_updated: false,
        ..StaleRules::default()
    };
    let facts = stale(issue(1));
    let decision = decide(
        &facts,
        Some(&history(8, vec![comment_by("alice", 1, false, None)])),
        &rules,
        None,
        now(),
    )
    .unwrap();
    assert_eq!(decision.disposition, Verdict::Close);
}

#[test]
fn a_close_comment_already_posted_is_not_posted_again() {
    let facts = stale(issue(1));
    let posted = history(8, vec![comment_by("sweeper", 0, false, Some("close"))]);
    let decision = decide_default(&facts, Some(&posted));
    assert_eq!(decision.disposition, Verdict::Close);
    assert!(!decision
        .writes
        .iter()
        .any(|write| matches!(write, Write::Comment { .. })));
}

proptest::proptest! {
    #[test]
    fn exempt_and_closed_items_never_get_a_write(
        idle in -10i64..2000,
        label_days in 0i64..500,
        stale in proptest::bool::ANY,
        open in proptest::bool::ANY,
        is_pr in proptest::bool::ANY,
        exempt in proptest::bool::ANY,
        labels in proptest::collection::vec("[a-zA-Z]{1,6}", 0..4),
    ) {
        let mut facts = issue(idle);
        facts.is_pr = is_pr;
        facts.open = open;
        facts.labels = labels;
        if stale {
            facts.labels.push("Stale".into());
        }
        if exempt {
            facts.labels.push("PINNED".into());
        }
        let rules = StaleRules {
            exempt_issue_labels: vec!["pinned".into()],
            exempt_pr_labels: vec!["pinned".into()],
            ..StaleRules::default()
        };
        let history = history(label_days, vec![]);
        let decision = decide(&facts, Some(&history), &rules, None, now()).unwrap();
        if exempt || !open {
            proptest::prop_assert!(decision.writes.is_empty(), "{:?}", decision);
        }
    }
}

#[test]
fn an_interrupted_mark_gets_its_comment_and_nothing_else() {
    let facts = stale(issue(3));
    let interrupted = History {
        mark_unfinished: true,
        ..history(3, vec![])
    };
    let decision = decide_default(&facts, Some(&interrupted));
    assert_eq!(decision.disposition, Verdict::MarkStale);
    assert_eq!(decision.writes.len(), 1);
    assert!(
        matches!(&decision.writes[0], Write::Comment { marker, .. } if marker == "<!-- gh-sweep:mark-stale -->")
    );
    // Past the close, the close comment says it all.
    let old = History {
        mark_unfinished: true,
        ..history(9, vec![])
    };
    assert_eq!(
        decide_default(&facts, Some(&old)).disposition,
        Verdict::Close
    );
}

#[test]
fn an_unknown_label_date_keeps_the_item_without_writes() {
    let decision = label_date_unknown(&stale(issue(90)), &StaleRules::default());
    assert_eq!(decision.disposition, Verdict::Keep);
    assert!(decision.writes.is_empty());
    assert!(
        decision.reason.contains("date is unknown"),
        "{}",
        decision.reason
    );
}

#[test]
fn future_timestamps_are_kept_and_explained() {
    let mut facts = issue(0);
    facts.updated_at = now() + Duration::days(3);
    let decision = decide_default(&facts, None);
    assert_eq!(decision.disposition, Verdict::Keep);
    assert!(decision.reason.contains("future"));
}

#[test]
fn the_day_counts_are_reached_on_their_day() {
    let decision = decide_default(&issue(60), None);
    assert_eq!(decision.disposition, Verdict::MarkStale);
    assert_eq!(decision.reason, "idle 60 days >= 60");
    // Updated this very moment: not in the future, just fresh.
    assert_eq!(decide_default(&issue(0), None).reason, "idle 0 days < 60");
    // 0 days: marked at once, closed at once.
    let at_once = StaleRules {
        days_before_stale: 0,
        days_before_close: 0,
        ..StaleRules::default()
    };
    assert_eq!(
        decide(&issue(0), None, &at_once, None, now())
            .unwrap()
            .disposition,
        Verdict::MarkStale
    );
    let decision = decide(
        &stale(issue(0)),
        Some(&history(0, vec![])),
        &at_once,
        None,
        now(),
    )
    .unwrap();
    assert_eq!(decision.disposition, Verdict::Close);
    assert_eq!(decision.reason, "stale for 0 days >= 0");
    let decision = decide_default(&stale(issue(7)), Some(&history(7, vec![])));
    assert_eq!(decision.disposition, Verdict::Close);
    assert_eq!(decision.reason, "stale for 7 days >= 7");
}

#[test]
fn each_kind_gets_its_own_messages_and_labels() {
    let rules = StaleRules {
        stale_issue_message: "issue idle".into(),
        stale_pr_message: "pr idle".into(),
        close_issue_message: "issue closed".into(),
        close_pr_message: "pr closed".into(),
        close_issue_label: "wontfix".into(),
        close_pr_label: "abandoned".into(),
        labels_to_remove_when_stale: vec!["triage".into(), "absent".into()],
        ..StaleRules::default()
    };
    let decide_with = |facts: &ItemFacts, history: Option<&History>| {
        decide(facts, history, &rules, None, now()).unwrap().writes
    };
    let mut idle = issue(70);
    idle.labels = vec!["triage".into()];
    assert_eq!(
        decide_with(&idle, None),
        vec![
            Write::AddLabels {
                labels: vec!["Stale".into()]
            },
            Write::RemoveLabel {
                label: "triage".into()
            },
            write::comment("issue idle", "mark-stale"),
        ]
    );
    let mut pr = issue(70);
    pr.is_pr = true;
    assert_eq!(
        decide_with(&pr, None)[1],
        write::comment("pr idle", "mark-stale")
    );
    let old = history(8, vec![]);
    assert_eq!(
        decide_with(&stale(issue(10)), Some(&old)),
        vec![
            write::comment("issue closed", "close"),
            Write::AddLabels {
                labels: vec!["wontfix".into()]
            },
            Write::Close {
                reason: Some(CloseReason::NotPlanned)
            },
        ]
    );
    // A close label already on is not added again; a PR closes without a reason.
    let mut pr = stale(issue(10));
    pr.is_pr = true;
    pr.labels.push("Abandoned".into());
    assert_eq!(
        decide_with(&pr, Some(&old)),
        vec![
            write::comment("pr closed", "close"),
            Write::Close { reason: None },
        ]
    );
    // An interrupted mark is finished with its kind's message.
    let interrupted = History {
        mark_unfinished: true,
        ..history(3, vec![])
    };
    let mut pr = stale(issue(3));
    pr.is_pr = true;
    assert_eq!(
        decide_with(&pr, Some(&interrupted)),
        vec![write::comment("pr idle", "mark-stale")]
    );
}

#[test]
fn a_close_is_commented_and_labelled_once() {
    // gh-sweep's own mark comment after the label is not its close comment.
    let marked = history(8, vec![comment_by("sweeper", 7, false, Some("mark-stale"))]);
    assert_eq!(
        decide_default(&stale(issue(1)), Some(&marked)).writes,
        vec![
            write::comment(&StaleRules::default().close_issue_message, "close"),
            Write::Close {
                reason: Some(CloseReason::NotPlanned)
            },
        ]
    );
    // A close comment from before the label is an earlier close's: this close gets its own.
    let earlier = history(8, vec![comment_by("sweeper", 30, false, Some("close"))]);
    assert_eq!(
        decide_default(&stale(issue(1)), Some(&earlier))
            .writes
            .len(),
        2
    );
    // An interrupted mark whose comment is there after all is not posted again.
    let posted = History {
        mark_unfinished: true,
        ..history(3, vec![comment_by("sweeper", 3, false, Some("mark-stale"))])
    };
    let decision = decide_default(&stale(issue(1)), Some(&posted));
    assert_eq!(decision.disposition, Verdict::Keep);
    assert!(decision.writes.is_empty());
}

/// Only a mark or a close rests on how long the item looks idle: those are the decisions a
/// PR's GraphQL stamp must be checked against its issue's before they are written.
#[test]
fn only_a_mark_or_a_close_rests_on_idleness() {
    let decision = |disposition| Decision {
        disposition,
        reason: String::new(),
        writes: Vec::new(),
    };
    assert!(decision(Verdict::MarkStale).rests_on_idleness());
    assert!(decision(Verdict::Close).rests_on_idleness());
    for other in [
        Verdict::Unmark,
        Verdict::Keep,
        Verdict::Exempt("label".into()),
        Verdict::Skip("unreadable".into()),
    ] {
        assert!(!decision(other).rests_on_idleness());
    }
}
