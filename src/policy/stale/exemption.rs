//! Why an item is left alone whatever its age (locked, a draft, a label, a milestone, an
//! assignee, the start date), and whether deciding needs the stale label's history.

use super::{ItemFacts, StaleRules};

/// Why an item is left alone whatever its age, and the option that says so; or `None`.
pub(crate) fn exemption(facts: &ItemFacts, rules: &StaleRules) -> Option<(String, &'static str)> {
    let matches_any = |wanted: &[String], have: &[String]| {
        wanted
            .iter()
            .find(|want| have.iter().any(|has| has.eq_ignore_ascii_case(want)))
            .cloned()
    };
    if facts.locked {
        // As actions/stale, which skips every locked item: a locked conversation takes no
        // comment from a token that is not a collaborator's, so neither mark nor close fits.
        return Some(("locked".into(), "default, as actions/stale"));
    }
    if facts.is_pr && facts.draft && rules.exempt_draft_pr {
        return Some(("draft PR".into(), "exempt_draft_pr"));
    }
    if let Ok(Some(start)) = rules.start() {
        if facts.created_at < start {
            return Some((format!("created before {}", rules.start_date), "start_date"));
        }
    }
    if let Some(why) = not_of_type(facts, rules) {
        return Some((why, "only_issue_types"));
    }
    let only = rules.only_labels_for(facts.is_pr);
    if let Some(missing) = only.iter().find(|label| !facts.has_label(label)) {
        let option = kind_option(
            facts.is_pr,
            !rules.only_issue_labels.is_empty(),
            !rules.only_pr_labels.is_empty(),
            ["only_labels", "only_issue_labels", "only_pr_labels"],
        );
        return Some((format!("lacks label \"{missing}\""), option));
    }
    let any_of = rules.any_of_labels_for(facts.is_pr);
    if !any_of.is_empty() && matches_any(any_of, &facts.labels).is_none() {
        let option = kind_option(
            facts.is_pr,
            !rules.any_of_issue_labels.is_empty(),
            !rules.any_of_pr_labels.is_empty(),
            ["any_of_labels", "any_of_issue_labels", "any_of_pr_labels"],
        );
        return Some(("has none of the labels".into(), option));
    }
    let exempt_labels = if facts.is_pr {
        &rules.exempt_pr_labels
    } else {
        &rules.exempt_issue_labels
    };
    if let Some(label) = matches_any(exempt_labels, &facts.labels) {
        return Some((
            format!("label \"{label}\""),
            if facts.is_pr {
                "exempt_pr_labels"
            } else {
                "exempt_issue_labels"
            },
        ));
    }
    if let Some(exempt) = milestone_exemption(facts, rules) {
        return Some(exempt);
    }
    if let Some(exempt) = assignee_exemption(facts, rules) {
        return Some(exempt);
    }
    if rules.include_only_assigned && facts.assignees.is_empty() {
        return Some(("not assigned".into(), "include_only_assigned"));
    }
    None
}

/// The option a per-kind setting came from: the issue-only or PR-only one when the item's
/// kind has its own (`names`: generic, issue-only, PR-only).
fn kind_option(
    is_pr: bool,
    issue_set: bool,
    pr_set: bool,
    names: [&'static str; 3],
) -> &'static str {
    match (is_pr, issue_set, pr_set) {
        (false, true, _) => names[1],
        (true, _, true) => names[2],
        _ => names[0],
    }
}

/// An issue whose type is not one of `only_issue_types` (compared without case, as
/// actions/stale does); PRs have no type and are never left out by it.
fn not_of_type(facts: &ItemFacts, rules: &StaleRules) -> Option<String> {
    if facts.is_pr || rules.only_issue_types.is_empty() {
        return None;
    }
    let kind = facts.issue_type.as_deref().unwrap_or("");
    let allowed = rules
        .only_issue_types
        .iter()
        .any(|wanted| wanted.eq_ignore_ascii_case(kind));
    (!allowed).then(|| match &facts.issue_type {
        Some(kind) => format!("type \"{kind}\" is not in only_issue_types"),
        None => "has no issue type".to_string(),
    })
}

fn milestone_exemption(facts: &ItemFacts, rules: &StaleRules) -> Option<(String, &'static str)> {
    let milestone = facts.milestone.as_ref()?;
    let is_pr = facts.is_pr;
    if rules.exempt_all_milestones_for(is_pr) {
        let option = kind_option(
            is_pr,
            rules.exempt_all_issue_milestones.is_some(),
            rules.exempt_all_pr_milestones.is_some(),
            [
                "exempt_all_milestones",
                "exempt_all_issue_milestones",
                "exempt_all_pr_milestones",
            ],
        );
        return Some((format!("milestone \"{milestone}\""), option));
    }
    let exempt = rules.exempt_milestones_for(is_pr);
    exempt
        .iter()
        .any(|wanted| wanted.eq_ignore_ascii_case(milestone))
        .then(|| {
            let option = kind_option(
                is_pr,
                !rules.exempt_issue_milestones.is_empty(),
                !rules.exempt_pr_milestones.is_empty(),
                [
                    "exempt_milestones",
                    "exempt_issue_milestones",
                    "exempt_pr_milestones",
                ],
            );
            (format!("milestone \"{milestone}\""), option)
        })
}

fn assignee_exemption(facts: &ItemFacts, rules: &StaleRules) -> Option<(String, &'static str)> {
    if facts.assignees.is_empty() {
        return None;
    }
    let is_pr = facts.is_pr;
    if rules.exempt_all_assignees_for(is_pr) {
        let option = kind_option(
            is_pr,
            rules.exempt_all_issue_assignees.is_some(),
            rules.exempt_all_pr_assignees.is_some(),
            [
                "exempt_all_assignees",
                "exempt_all_issue_assignees",
                "exempt_all_pr_assignees",
            ],
        );
        return Some((
            format!("assigned to {}", facts.assignees.join(", ")),
            option,
        ));
    }
    let exempt = rules.exempt_assignees_for(is_pr);
    let assignee = exempt.iter().find(|wanted| {
        facts
            .assignees
            .iter()
            .any(|has| has.eq_ignore_ascii_case(wanted))
    })?;
    let option = kind_option(
        is_pr,
        !rules.exempt_issue_assignees.is_empty(),
        !rules.exempt_pr_assignees.is_empty(),
        [
            "exempt_assignees",
            "exempt_issue_assignees",
            "exempt_pr_assignees",
        ],
    );
    Some((format!("assigned to {assignee}"), option))
}

/// Whether deciding needs the stale label's history (events, perhaps comments).
pub(crate) fn needs_history(facts: &ItemFacts, rules: &StaleRules) -> bool {
    facts.open
        && facts.has_label(rules.stale_label(facts.is_pr))
        && exemption(facts, rules).is_none()
}
