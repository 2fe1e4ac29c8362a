//! Unit tests of the stale rules: items, histories and rules in, decisions out; no server.

use super::*;
use chrono::{DateTime, Duration, TimeZone, Utc};

use crate::policy::write::{self, Write};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap()
}

fn days_ago(days: i64) -> DateTime<Utc> {
    now() - Duration::days(days)
}

fn issue(idle_days: i64) -> ItemFacts {
    ItemFacts {
        number: 1,
        is_pr: false,
        draft: false,
        open: true,
        title: "t".into(),
        labels: vec![],
        milestone: None,
        assignees: vec![],
        created_at: days_ago(idle_days + 10),
        updated_at: days_ago(idle_days),
        locked: false,
    }
}

fn stale(mut facts: ItemFacts) -> ItemFacts {
    facts.labels.push("Stale".into());
    facts
}

fn history(label_days_ago: i64, activity: Vec<Activity>) -> History {
    History {
        label_added_at: days_ago(label_days_ago),
        activity,
        mark_unfinished: false,
        own_writes: None,
    }
}

fn comment_by(login: &str, days_ago_: i64, is_bot: bool, marker: Option<&str>) -> Activity {
    Activity {
        kind: ActivityKind::Comment,
        at: days_ago(days_ago_),
        login: login.into(),
        is_bot,
        marker: marker.map(str::to_string),
        what: "comment".into(),
        notification: false,
    }
}

fn decide_default(facts: &ItemFacts, history: Option<&History>) -> Decision {
    decide(
        facts,
        history,
        &StaleRules::default(),
        Some("sweeper"),
        now(),
    )
    .unwrap()
}

#[test]
fn marks_idle_items_and_keeps_fresh_ones() {
    let decision = decide_default(&issue(74), None);
    assert_eq!(decision.disposition, Disposition::MarkStale);
    assert_eq!(decision.reason, "idle 74 days >= 60");
    assert_eq!(
        decision.writes[0],
        Write::AddLabels {
            labels: vec!["Stale".into()]
        }
    );
    assert!(matches!(decision.writes[1], Write::Comment { .. }));
    assert_eq!(
        decide_default(&issue(59), None).disposition,
        Disposition::Keep
    );
}

#[test]
fn minus_one_means_never() {
    let rules = StaleRules {
        days_before_stale: -1,
        ..StaleRules::default()
    };
    let decision = decide(&issue(500), None, &rules, None, now()).unwrap();
    assert_eq!(decision.disposition, Disposition::Keep);
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
    assert_eq!(decision.disposition, Disposition::Keep);
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
        Disposition::MarkStale
    );
    assert_eq!(
        decide(&issue(20), None, &rules, None, now())
            .unwrap()
            .disposition,
        Disposition::Keep
    );
}

#[test]
fn close_clock_starts_at_the_label_not_updated_at() {
    // Updated long ago, but labelled only 3 days ago: not yet closed.
    let facts = stale(issue(100));
    let decision = decide_default(&facts, Some(&history(3, vec![])));
    assert_eq!(decision.disposition, Disposition::Keep);
    assert_eq!(decision.reason, "stale for 3 days; closes after 7");
    let decision = decide_default(&facts, Some(&history(8, vec![])));
    assert_eq!(decision.disposition, Disposition::Close);
    assert_eq!(
        decision.writes.last(),
        Some(&Write::Close {
            reason: Some(CloseReason::NotPlanned)
        })
    );
}

#[test]
fn bots_and_own_comments_are_not_activity() {
    let facts = stale(issue(1));
    let noise = vec![
        comment_by("dependabot[bot]", 2, true, None),
        comment_by("SWEEPER", 2, false, Some("mark-stale")),
        comment_by("someone", 2, false, Some("mark-stale")),
    ];
    let decision = decide_default(&facts, Some(&history(8, noise)));
    assert_eq!(decision.disposition, Disposition::Close);
}

#[test]
fn the_token_users_own_words_are_activity() {
    // With a personal token the viewer is the maintainer: their comment without a marker
    // un-stales, as anyone's would.
    let facts = stale(issue(1));
    let said = history(8, vec![comment_by("SWEEPER", 2, false, None)]);
    let decision = decide_default(&facts, Some(&said));
    assert_eq!(decision.disposition, Disposition::Unmark);
    assert_eq!(
        decision.reason,
        "comment by SWEEPER after it was marked stale"
    );
}

#[test]
fn only_the_viewers_label_events_at_gh_sweeps_writes_are_its_own() {
    let facts = stale(issue(1));
    let label_event = |login: &str, at: DateTime<Utc>| Activity {
        kind: ActivityKind::LabelEvent,
        at,
        login: login.into(),
        is_bot: false,
        marker: None,
        what: "unlabeled \"needs-triage\"".into(),
        notification: false,
    };
    let marked = days_ago(8);
    let own = History {
        own_writes: Some((marked, marked + Duration::seconds(2))),
        ..history(
            8,
            vec![label_event("sweeper", marked + Duration::seconds(1))],
        )
    };
    assert_eq!(
        decide_default(&facts, Some(&own)).disposition,
        Disposition::Close
    );
    // The same label event by someone else, or by the viewer a day later, is activity.
    for (login, at) in [
        ("alice", marked + Duration::seconds(1)),
        ("sweeper", marked + Duration::days(1)),
    ] {
        let other = History {
            activity: vec![label_event(login, at)],
            ..own.clone()
        };
        assert_eq!(
            decide_default(&facts, Some(&other)).disposition,
            Disposition::Unmark,
            "{login} at {at}"
        );
    }
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
    assert_eq!(decision.disposition, Disposition::Unmark);
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
        Disposition::Close
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
    assert_eq!(decision.disposition, Disposition::Close);
}

#[test]
fn a_close_comment_already_posted_is_not_posted_again() {
    let facts = stale(issue(1));
    let posted = history(8, vec![comment_by("sweeper", 0, false, Some("close"))]);
    let decision = decide_default(&facts, Some(&posted));
    assert_eq!(decision.disposition, Disposition::Close);
    assert!(!decision
        .writes
        .iter()
        .any(|write| matches!(write, Write::Comment { .. })));
}

#[test]
fn exemptions_match_case_insensitively() {
    let rules = StaleRules {
        exempt_issue_labels: vec!["Pinned".into()],
        exempt_milestones: vec!["v2".into()],
        exempt_assignees: vec!["Bob".into()],
        ..StaleRules::default()
    };
    let mut facts = issue(100);
    facts.labels = vec!["pinned".into()];
    assert_eq!(
        exemption(&facts, &rules),
        Some(("label \"Pinned\"".into(), "exempt_issue_labels"))
    );
    let mut facts = issue(100);
    facts.milestone = Some("V2".into());
    assert!(exemption(&facts, &rules).is_some());
    let mut facts = issue(100);
    facts.assignees = vec!["bob".into()];
    assert!(exemption(&facts, &rules).is_some());
    // exempt_pr_labels does not exempt issues.
    let rules = StaleRules {
        exempt_pr_labels: vec!["pinned".into()],
        ..StaleRules::default()
    };
    let mut facts = issue(100);
    facts.labels = vec!["pinned".into()];
    assert_eq!(exemption(&facts, &rules), None);
}

#[test]
fn only_any_of_draft_assigned_and_start_date() {
    let rules = StaleRules {
        only_labels: vec!["bug".into(), "old".into()],
        ..StaleRules::default()
    };
    let mut facts = issue(100);
    facts.labels = vec!["bug".into()];
    assert!(exemption(&facts, &rules).is_some());
    facts.labels.push("OLD".into());
    assert_eq!(exemption(&facts, &rules), None);

    let rules = StaleRules {
        any_of_labels: vec!["a".into(), "b".into()],
        ..StaleRules::default()
    };
    assert!(exemption(&issue(100), &rules).is_some());

    let rules = StaleRules {
        exempt_draft_pr: true,
        ..StaleRules::default()
    };
    let mut pr = issue(100);
    pr.is_pr = true;
    pr.draft = true;
    assert_eq!(
        exemption(&pr, &rules),
        Some(("draft PR".into(), "exempt_draft_pr"))
    );

    let rules = StaleRules {
        include_only_assigned: true,
        ..StaleRules::default()
    };
    assert!(exemption(&issue(100), &rules).is_some());

    let rules = StaleRules {
        start_date: "2026-10-01T00:00:00Z".into(),
        ..StaleRules::default()
    };
    assert!(exemption(&issue(100), &rules).is_some());
}

#[test]
fn a_close_reason_is_read_from_its_config_word_and_sent_as_it() {
    for reason in CloseReason::ALL {
        assert_eq!(CloseReason::from_config(reason.word()), Ok(reason));
        assert_eq!(serde_json::to_value(reason).unwrap(), reason.word());
    }
    let words: Vec<&str> = CloseReason::ALL.iter().map(|r| r.word()).collect();
    assert_eq!(words, ["completed", "not_planned"]);
    assert_eq!(
        StaleRules::default().close_reason(),
        Ok(CloseReason::NotPlanned)
    );
    let rules = StaleRules {
        close_issue_reason: "wontfix".into(),
        ..StaleRules::default()
    };
    assert_eq!(
        rules.validate(),
        Err(
            r#"invalid [stale] close_issue_reason = "wontfix": use "completed" or "not_planned""#
                .into()
        )
    );
}

#[test]
fn validation_names_the_bad_value() {
    let rules = StaleRules {
        days_before_stale: -2,
        ..StaleRules::default()
    };
    assert!(rules
        .validate()
        .unwrap_err()
        .contains("days_before_stale = -2"));
    let rules = StaleRules {
        close_issue_reason: "wontfix".into(),
        ..StaleRules::default()
    };
    assert!(rules.validate().unwrap_err().contains("\"wontfix\""));
    let rules = StaleRules {
        start_date: "yesterday".into(),
        ..StaleRules::default()
    };
    assert!(rules.validate().unwrap_err().contains("\"yesterday\""));
}

#[test]
fn activity_possible_uses_the_later_of_label_and_own_write() {
    let label = days_ago(5);
    assert!(!activity_possible(
        label + Duration::seconds(1),
        label,
        None
    ));
    assert!(activity_possible(
        label + Duration::seconds(30),
        label,
        None
    ));
    assert!(!activity_possible(
        label + Duration::seconds(30),
        label,
        Some(label + Duration::seconds(29))
    ));
}

#[test]
fn reconcile_looks_back_on_githubs_clock() {
    let sent = days_ago(1);
    assert_eq!(
        reconcile_since(sent, None),
        sent - Duration::seconds(QUIET_SLACK_SECONDS)
    );
    // Our clock a minute ahead of GitHub's: GitHub stamped the comment a minute earlier.
    assert_eq!(
        reconcile_since(sent, Some(Duration::minutes(1))),
        sent - Duration::minutes(1) - Duration::seconds(QUIET_SLACK_SECONDS)
    );
}

#[test]
fn githubs_stamps_seconds_apart_are_one_moment() {
    let label = days_ago(5);
    assert!(!activity_possible(
        label + Duration::seconds(QUIET_SLACK_SECONDS),
        label,
        None
    ));
    assert!(activity_possible(
        label + Duration::seconds(QUIET_SLACK_SECONDS + 1),
        label,
        None
    ));
    assert_eq!(
        unexplained_update(label + Duration::seconds(10), label, None, &[]),
        None
    );
}

#[test]
fn an_unexplained_update_counts_but_an_explained_one_does_not() {
    let label = days_ago(8);
    let bot = comment_by("ci[bot]", 2, true, None);
    assert_eq!(
        unexplained_update(bot.at, label, None, std::slice::from_ref(&bot)),
        None
    );
    let update = unexplained_update(days_ago(1), label, None, &[bot]).unwrap();
    let facts = stale(issue(1));
    let decision = decide_default(&facts, Some(&history(8, vec![update])));
    assert_eq!(decision.disposition, Disposition::Unmark);
}

#[test]
fn notifications_are_not_activity() {
    let mut mentioned = comment_by("alice", 1, false, None);
    mentioned.notification = true;
    let decision = decide_default(&stale(issue(1)), Some(&history(8, vec![mentioned])));
    assert_eq!(decision.disposition, Disposition::Close);
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
    assert_eq!(decision.disposition, Disposition::MarkStale);
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
        Disposition::Close
    );
}

#[test]
fn an_unknown_label_date_keeps_the_item_without_writes() {
    let decision = label_date_unknown(&stale(issue(90)), &StaleRules::default());
    assert_eq!(decision.disposition, Disposition::Keep);
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
    assert_eq!(decision.disposition, Disposition::Keep);
    assert!(decision.reason.contains("future"));
}

#[test]
fn the_day_counts_are_reached_on_their_day() {
    let decision = decide_default(&issue(60), None);
    assert_eq!(decision.disposition, Disposition::MarkStale);
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
        Disposition::MarkStale
    );
    let decision = decide(
        &stale(issue(0)),
        Some(&history(0, vec![])),
        &at_once,
        None,
        now(),
    )
    .unwrap();
    assert_eq!(decision.disposition, Disposition::Close);
    assert_eq!(decision.reason, "stale for 0 days >= 0");
    let decision = decide_default(&stale(issue(7)), Some(&history(7, vec![])));
    assert_eq!(decision.disposition, Disposition::Close);
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
    assert_eq!(decision.disposition, Disposition::Keep);
    assert!(decision.writes.is_empty());
}

#[test]
fn the_labelling_itself_is_not_activity() {
    let labelled = Activity {
        kind: ActivityKind::LabelEvent,
        at: days_ago(8),
        login: "alice".into(),
        is_bot: false,
        marker: None,
        what: "labeled \"Stale\"".into(),
        notification: false,
    };
    let decision = decide_default(&stale(issue(1)), Some(&history(8, vec![labelled])));
    assert_eq!(decision.disposition, Disposition::Close);
}

#[test]
fn an_update_is_unexplained_only_past_the_slack() {
    let label = days_ago(5);
    let slack = Duration::seconds(QUIET_SLACK_SECONDS);
    assert_eq!(unexplained_update(label + slack, label, None, &[]), None);
    let update = unexplained_update(label + slack + Duration::seconds(1), label, None, &[]);
    assert_eq!(
        update.map(|update| (update.kind, update.at)),
        Some((
            ActivityKind::Unattributed,
            label + slack + Duration::seconds(1)
        ))
    );
    // gh-sweep's own later write explains it.
    let own = Some(label + Duration::minutes(1));
    assert_eq!(
        unexplained_update(label + Duration::minutes(1), label, own, &[]),
        None
    );
}

#[test]
fn exemptions_apply_only_where_their_option_says() {
    let drafts = StaleRules {
        exempt_draft_pr: true,
        ..StaleRules::default()
    };
    let mut ready = issue(100);
    ready.is_pr = true;
    assert_eq!(exemption(&ready, &drafts), None);
    let mut draft = ready.clone();
    draft.draft = true;
    assert_eq!(exemption(&draft, &StaleRules::default()), None);

    let mut assigned = issue(100);
    assigned.assignees = vec!["carol".into(), "bob".into()];
    let listed = StaleRules {
        exempt_assignees: vec!["Bob".into()],
        ..StaleRules::default()
    };
    assert_eq!(
        exemption(&assigned, &listed),
        Some(("assigned to Bob".into(), "exempt_assignees"))
    );
    assert_eq!(exemption(&assigned, &StaleRules::default()), None);
    let all = StaleRules {
        exempt_all_assignees: true,
        ..StaleRules::default()
    };
    assert_eq!(
        exemption(&assigned, &all),
        Some(("assigned to carol, bob".into(), "exempt_all_assignees"))
    );
    assert_eq!(exemption(&issue(100), &all), None);

    // start_date: an item created at that moment or later is not exempt.
    let facts = issue(100);
    let since = StaleRules {
        start_date: facts.created_at.to_rfc3339(),
        ..StaleRules::default()
    };
    assert_eq!(exemption(&facts, &since), None);
}

#[test]
fn only_an_open_stale_unexempt_item_needs_its_history() {
    let rules = StaleRules {
        exempt_issue_labels: vec!["pinned".into()],
        ..StaleRules::default()
    };
    let marked = stale(issue(10));
    assert!(needs_history(&marked, &rules));
    assert!(!needs_history(&issue(10), &rules));
    let mut closed = marked.clone();
    closed.open = false;
    assert!(!needs_history(&closed, &rules));
    let mut pinned = marked.clone();
    pinned.labels.push("pinned".into());
    assert!(!needs_history(&pinned, &rules));
}
