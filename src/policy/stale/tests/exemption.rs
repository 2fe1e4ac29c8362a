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

/// The exemption names the option that made it: the issue-only or PR-only one when the
/// item's kind has its own, else the generic one, so a maintainer knows which line to edit.
#[test]
fn an_exemption_names_the_option_of_the_items_kind_that_made_it() {
    let mut pr = issue(100);
    pr.is_pr = true;
    let option = |facts: &ItemFacts, rules: &StaleRules| exemption(facts, rules).map(|e| e.1);

    let only = StaleRules {
        only_labels: vec!["bug".into()],
        only_pr_labels: vec!["docs".into()],
        ..StaleRules::default()
    };
    assert_eq!(option(&issue(100), &only), Some("only_labels"));
    assert_eq!(option(&pr, &only), Some("only_pr_labels"));
    let only = StaleRules {
        only_issue_labels: vec!["bug".into()],
        ..StaleRules::default()
    };
    assert_eq!(option(&issue(100), &only), Some("only_issue_labels"));
    assert_eq!(option(&pr, &only), None);

    let any_of = StaleRules {
        any_of_labels: vec!["a".into()],
        any_of_issue_labels: vec!["b".into()],
        ..StaleRules::default()
    };
    assert_eq!(option(&issue(100), &any_of), Some("any_of_issue_labels"));
    assert_eq!(option(&pr, &any_of), Some("any_of_labels"));
    let any_of = StaleRules {
        any_of_pr_labels: vec!["b".into()],
        ..StaleRules::default()
    };
    assert_eq!(option(&pr, &any_of), Some("any_of_pr_labels"));
    assert_eq!(option(&issue(100), &any_of), None);

    let (mut milestoned, mut milestoned_pr) = (issue(100), pr.clone());
    milestoned.milestone = Some("v2".into());
    milestoned_pr.milestone = Some("v2".into());
    let milestones = StaleRules {
        exempt_milestones: vec!["v2".into()],
        exempt_pr_milestones: vec!["V2".into()],
        ..StaleRules::default()
    };
    assert_eq!(option(&milestoned, &milestones), Some("exempt_milestones"));
    assert_eq!(
        option(&milestoned_pr, &milestones),
        Some("exempt_pr_milestones")
    );
    let milestones = StaleRules {
        exempt_issue_milestones: vec!["v2".into()],
        ..StaleRules::default()
    };
    assert_eq!(
        option(&milestoned, &milestones),
        Some("exempt_issue_milestones")
    );
    assert_eq!(option(&milestoned_pr, &milestones), None);
    let all = StaleRules {
        exempt_all_pr_milestones: Some(true),
        ..StaleRules::default()
    };
    assert_eq!(
        exemption(&milestoned_pr, &all),
        Some(("milestone \"v2\"".into(), "exempt_all_pr_milestones"))
    );
    assert_eq!(option(&milestoned, &all), None);
    assert_eq!(option(&pr, &all), None, "a PR without a milestone");

    let (mut assigned, mut assigned_pr) = (issue(100), pr.clone());
    assigned.assignees = vec!["bob".into()];
    assigned_pr.assignees = vec!["bob".into()];
    let assignees = StaleRules {
        exempt_issue_assignees: vec!["bob".into()],
        exempt_pr_assignees: vec!["bob".into()],
        ..StaleRules::default()
    };
    assert_eq!(
        option(&assigned, &assignees),
        Some("exempt_issue_assignees")
    );
    assert_eq!(
        option(&assigned_pr, &assignees),
        Some("exempt_pr_assignees")
    );
}

/// actions/stale's `only-issue-types`: an issue of another type, or of none, is left alone,
/// types compared without case; PRs have no type and are never left out by it.
#[test]
fn only_issue_types_leaves_issues_of_other_types_alone_and_never_prs() {
    let rules = StaleRules {
        only_issue_types: vec!["Bug".into(), "Task".into()],
        ..StaleRules::default()
    };
    let mut typed = issue(100);
    typed.issue_type = Some("bug".into());
    assert_eq!(exemption(&typed, &rules), None);
    typed.issue_type = Some("Feature".into());
    assert_eq!(
        exemption(&typed, &rules),
        Some((
            "type \"Feature\" is not in only_issue_types".into(),
            "only_issue_types"
        ))
    );
    assert_eq!(
        exemption(&issue(100), &rules),
        Some(("has no issue type".into(), "only_issue_types"))
    );
    let mut pr = issue(100);
    pr.is_pr = true;
    assert_eq!(exemption(&pr, &rules), None);
    assert_eq!(exemption(&typed, &StaleRules::default()), None);
}
