//! Unit tests of the stale rules: items, histories and rules in, decisions out; no server.

use super::*;
use chrono::{DateTime, Duration, TimeZone, Utc};

use crate::policy::write::{self, Write};

mod activity;
mod decide;
mod exemption;
mod order;
mod rules;

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
        updated_at_of: crate::policy::stale::StampOf::Issue,
        locked: false,
        issue_type: None,
        comments: 0,
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
        rules.validate().map_err(|e| e.to_string()),
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
        .to_string()
        .contains("days_before_stale = -2"));
    let rules = StaleRules {
        close_issue_reason: "wontfix".into(),
        ..StaleRules::default()
    };
    assert!(rules
        .validate()
        .unwrap_err()
        .to_string()
        .contains("\"wontfix\""));
    let rules = StaleRules {
        start_date: "yesterday".into(),
        ..StaleRules::default()
    };
    assert!(rules
        .validate()
        .unwrap_err()
        .to_string()
        .contains("\"yesterday\""));
}
