//! Unit tests of what counts as activity after the stale label, and of the clock slack.

use super::*;

#[test]
fn bots_and_own_comments_are_not_activity() {
    let facts = stale(issue(1));
    let noise = vec![
        comment_by("dependabot[bot]", 2, true, None),
        comment_by("SWEEPER", 2, false, Some("mark-stale")),
        comment_by("someone", 2, false, Some("mark-stale")),
    ];
    let decision = decide_default(&facts, Some(&history(8, noise)));
    assert_eq!(decision.disposition, Verdict::Close);
}

#[test]
fn the_token_users_own_words_are_activity() {
    // With a personal token the viewer is the maintainer: their comment without a marker
    // un-stales, as anyone's would.
    let facts = stale(issue(1));
    let said = history(8, vec![comment_by("SWEEPER", 2, false, None)]);
    let decision = decide_default(&facts, Some(&said));
    assert_eq!(decision.disposition, Verdict::Unmark);
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
        Verdict::Close
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
            Verdict::Unmark,
            "{login} at {at}"
        );
    }
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
    assert_eq!(decision.disposition, Verdict::Unmark);
}

#[test]
fn notifications_are_not_activity() {
    let mut mentioned = comment_by("alice", 1, false, None);
    mentioned.notification = true;
    let decision = decide_default(&stale(issue(1)), Some(&history(8, vec![mentioned])));
    assert_eq!(decision.disposition, Verdict::Close);
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
    assert_eq!(decision.disposition, Verdict::Close);
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
