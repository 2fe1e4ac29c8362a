//! Why an item is left alone whatever its age (locked, a draft, a label, a milestone, an
//! assignee, the start date), and whether deciding needs the stale label's history.

use super::{ItemFacts, StaleRules};

/// Why an item is left alone whatever its age, and the option that says so; or `None`.
pub fn exemption(facts: &ItemFacts, rules: &StaleRules) -> Option<(String, &'static str)> {
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
    if let Some(missing) = rules
        .only_labels
        .iter()
        .find(|label| !facts.has_label(label))
    {
        return Some((format!("lacks label \"{missing}\""), "only_labels"));
    }
    if !rules.any_of_labels.is_empty() && matches_any(&rules.any_of_labels, &facts.labels).is_none()
    {
        return Some(("has none of the labels".into(), "any_of_labels"));
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
    if let Some(milestone) = &facts.milestone {
        if rules.exempt_all_milestones {
            return Some((
                format!("milestone \"{milestone}\""),
                "exempt_all_milestones",
            ));
        }
        if matches_any(&rules.exempt_milestones, std::slice::from_ref(milestone)).is_some() {
            return Some((format!("milestone \"{milestone}\""), "exempt_milestones"));
        }
    }
    if !facts.assignees.is_empty() && rules.exempt_all_assignees {
        return Some((
            format!("assigned to {}", facts.assignees.join(", ")),
            "exempt_all_assignees",
        ));
    }
    if let Some(assignee) = matches_any(&rules.exempt_assignees, &facts.assignees) {
        return Some((format!("assigned to {assignee}"), "exempt_assignees"));
    }
    if rules.include_only_assigned && facts.assignees.is_empty() {
        return Some(("not assigned".into(), "include_only_assigned"));
    }
    None
}

/// Whether deciding needs the stale label's history (events, perhaps comments).
pub fn needs_history(facts: &ItemFacts, rules: &StaleRules) -> bool {
    facts.open
        && facts.has_label(rules.stale_label(facts.is_pr))
        && exemption(facts, rules).is_none()
}
