//! Unit tests of the checks on the rules and of the per-kind options.

use super::*;
use crate::policy::stale::rules::{MAX_COMMENT_CHARS, MAX_DAYS};

fn refusal(rules: &StaleRules) -> Option<String> {
    rules.validate().err().map(|e| e.to_string())
}

#[test]
fn day_counts_take_minus_one_for_never_zero_and_the_most_days() {
    for days in [-1, 0, 1, MAX_DAYS] {
        let rules = StaleRules {
            days_before_stale: days,
            days_before_pr_close: Some(days),
            ..StaleRules::default()
        };
        assert_eq!(refusal(&rules), None, "{days}");
    }
    for days in [-2, MAX_DAYS + 1] {
        let rules = StaleRules {
            days_before_pr_close: Some(days),
            ..StaleRules::default()
        };
        let refused = refusal(&rules).unwrap();
        assert!(
            refused.contains(&format!("days_before_pr_close = {days}")),
            "{refused}"
        );
    }
}

#[test]
fn a_cap_of_zero_operations_is_refused_and_one_is_taken() {
    let capped = |cap| StaleRules {
        operations_per_run: Some(cap),
        ..StaleRules::default()
    };
    assert!(refusal(&capped(0))
        .unwrap()
        .contains("operations_per_run = 0"));
    assert_eq!(refusal(&capped(1)), None);
    assert_eq!(refusal(&StaleRules::default()), None);
}

/// GitHub refuses a comment past 65,536 characters (422 "Body is too long (maximum is 65536
/// characters)"); the message is checked with the marker gh-sweep adds, to the character.
#[test]
fn a_message_that_fits_with_its_marker_is_taken_and_one_character_more_is_refused() {
    let marker = crate::policy::write::marker("close");
    // The body is the message, a blank line, then the marker.
    let room = MAX_COMMENT_CHARS - marker.chars().count() - 2;
    // Characters, not bytes: "é" is two bytes and one character.
    let fits = "é".repeat(room);
    type Field = fn(&mut StaleRules) -> &mut String;
    let fields: [(&str, Field); 2] = [
        ("close_issue_message", |rules| {
            &mut rules.close_issue_message
        }),
        ("close_pr_message", |rules| &mut rules.close_pr_message),
    ];
    for (key, field) in fields {
        let mut rules = StaleRules::default();
        *field(&mut rules) = fits.clone();
        assert_eq!(refusal(&rules), None, "{key}");
        field(&mut rules).push('x');
        let refused = refusal(&rules).unwrap();
        assert!(refused.contains(key), "{refused}");
        assert!(refused.contains("shorten it by 1"), "{refused}");
    }
    let rules = StaleRules {
        stale_issue_message: "x".repeat(MAX_COMMENT_CHARS),
        ..StaleRules::default()
    };
    assert!(refusal(&rules).unwrap().contains("stale_issue_message"));
}

#[test]
fn a_label_that_is_a_dot_segment_is_refused() {
    for label in [".", ".."] {
        let rules = StaleRules {
            close_issue_label: label.into(),
            ..StaleRules::default()
        };
        let refused = refusal(&rules).unwrap();
        assert!(refused.contains("close_issue_label"), "{refused}");
    }
    let rules = StaleRules {
        close_issue_label: "...".into(),
        ..StaleRules::default()
    };
    assert_eq!(refusal(&rules), None);
}

#[test]
fn a_per_kind_flag_overrides_the_generic_one_for_its_kind_only() {
    let rules = StaleRules {
        exempt_all_milestones: true,
        exempt_all_pr_milestones: Some(false),
        ignore_updates: false,
        ignore_issue_updates: Some(true),
        ..StaleRules::default()
    };
    assert!(rules.exempt_all_milestones_for(false));
    assert!(!rules.exempt_all_milestones_for(true));
    assert!(rules.ignore_updates_for(false));
    assert!(!rules.ignore_updates_for(true));
    let rules = StaleRules {
        ignore_updates: true,
        ..StaleRules::default()
    };
    assert!(rules.ignore_updates_for(true));
    assert!(!StaleRules::default().exempt_all_milestones_for(false));
}
