//! Unit tests of the exemptions and of when the label's history is needed.

use super::*;

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
