//! The decision for one item: mark it stale, close it, unmark it or keep it, with the reason in
//! words and the writes that carry it out.

use chrono::{DateTime, Utc};

use super::activity::counts_as_activity;
use super::{exemption, ActivityKind, CloseReason, History, ItemFacts, StaleRules};
use crate::policy::write::{self, Write};
use crate::policy::RuleError;

/// Why an item could not be decided.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DecideError {
    /// The item carries the stale label, but the label's history was not given.
    #[error("the \"{label}\" label's history was not read")]
    HistoryNotRead { label: String },
    /// `close_issue_reason` is not one GitHub knows.
    #[error(transparent)]
    Rule(#[from] RuleError),
}

/// What the stale rules decided; its words are rendered in `policy::disposition`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    MarkStale,
    Close,
    Unmark,
    Keep,
    Exempt(String),
    Skip(String),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Decision {
    pub disposition: Verdict,
    pub reason: String,
    pub writes: Vec<Write>,
}

impl Decision {
    /// Whether the decision writes because the item looks idle (a mark or a close), so the
    /// stamp it was judged by must be the one the rules are defined on: the issue's.
    pub(crate) fn rests_on_idleness(&self) -> bool {
        matches!(self.disposition, Verdict::MarkStale | Verdict::Close)
    }

    fn without_writes(disposition: Verdict, reason: impl Into<String>) -> Self {
        Decision {
            disposition,
            reason: reason.into(),
            writes: Vec::new(),
        }
    }
}

/// The decision for an item carrying the stale label when no `labeled` event names it: GitHub's
/// events keep a label's name as it was when they happened, so after a rename (say "wontfix" to
/// "Stale") the label's date is unknown. The item is kept: never closed on a guessed date, and
/// not the item's failure either.
pub(crate) fn label_date_unknown(facts: &ItemFacts, rules: &StaleRules) -> Decision {
    let label = rules.stale_label(facts.is_pr);
    Decision::without_writes(
        Verdict::Keep,
        format!(
            "the \"{label}\" label's date is unknown: no event says `labeled \"{label}\"` (a renamed label keeps its old name in the events); kept, never closed on a guessed date"
        ),
    )
}

fn days_between(from: DateTime<Utc>, to: DateTime<Utc>) -> i64 {
    (to - from).num_days()
}

/// Decides one item. `history` is required when [`needs_history`] says so; `viewer` is the
/// token's own login, whose label events at gh-sweep's own writes are not activity.
///
/// [`needs_history`]: super::needs_history
pub(crate) fn decide(
    facts: &ItemFacts,
    history: Option<&History>,
    rules: &StaleRules,
    viewer: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Decision, DecideError> {
    if !facts.open {
        return Ok(Decision::without_writes(
            Verdict::Skip("not open".into()),
            "closed since it was selected",
        ));
    }
    if let Some((why, option)) = exemption(facts, rules) {
        return Ok(Decision::without_writes(
            Verdict::Exempt(why),
            format!("by {option}"),
        ));
    }
    let label = rules.stale_label(facts.is_pr).to_string();
    if facts.has_label(&label) {
        let history = history.ok_or_else(|| DecideError::HistoryNotRead {
            label: label.clone(),
        })?;
        // Issues close with a reason, PRs without (GitHub's `state_reason` is for issues).
        let reason = if facts.is_pr {
            None
        } else {
            Some(rules.close_reason()?)
        };
        return Ok(decide_stale(
            facts, history, rules, viewer, now, &label, reason,
        ));
    }
    Ok(decide_unmarked(facts, rules, now, label))
}

/// An item without the stale label: marked once it has been idle (or, with `ignore_updates`,
/// open) for its kind's `days_before_stale`.
fn decide_unmarked(
    facts: &ItemFacts,
    rules: &StaleRules,
    now: DateTime<Utc>,
    label: String,
) -> Decision {
    let kind = if facts.is_pr { "PR" } else { "issue" };
    let stale_days = rules.stale_days(facts.is_pr);
    if stale_days < 0 {
        return Decision::without_writes(
            Verdict::Keep,
            format!("{kind}s are never marked stale (days_before_stale = -1)"),
        );
    }
    let ignore_updates = rules.ignore_updates_for(facts.is_pr);
    let last = if ignore_updates {
        facts.created_at
    } else {
        facts.updated_at
    };
    let what = if ignore_updates { "open" } else { "idle" };
    if last > now {
        return Decision::without_writes(
            Verdict::Keep,
            format!(
                "last update {} is in the future; the clocks disagree",
                last.to_rfc3339()
            ),
        );
    }
    let idle = days_between(last, now);
    if idle < stale_days {
        return Decision::without_writes(
            Verdict::Keep,
            format!("{what} {} < {stale_days}", days(idle)),
        );
    }
    Decision {
        disposition: Verdict::MarkStale,
        reason: format!("{what} {} >= {stale_days}", days(idle)),
        writes: mark_writes(facts, rules, label),
    }
}

/// Marking: the stale label, the labels to remove when stale (those the item has), and the
/// stale message unless it is blank.
fn mark_writes(facts: &ItemFacts, rules: &StaleRules, label: String) -> Vec<Write> {
    let mut writes = vec![Write::AddLabels {
        labels: vec![label],
    }];
    for remove in &rules.labels_to_remove_when_stale {
        if facts.has_label(remove) {
            writes.push(Write::RemoveLabel {
                label: remove.clone(),
            });
        }
    }
    let message = stale_message(facts, rules);
    if !message.trim().is_empty() {
        writes.push(write::comment(message, "mark-stale"));
    }
    writes
}

fn stale_message<'a>(facts: &ItemFacts, rules: &'a StaleRules) -> &'a str {
    if facts.is_pr {
        &rules.stale_pr_message
    } else {
        &rules.stale_issue_message
    }
}

/// An item carrying the stale label: unmarked after activity, its mark finished when its
/// comment was never posted, else kept or closed by how long it has been stale.
fn decide_stale(
    facts: &ItemFacts,
    history: &History,
    rules: &StaleRules,
    viewer: Option<&str>,
    now: DateTime<Utc>,
    label: &str,
    reason: Option<CloseReason>,
) -> Decision {
    if let Some(unmark) = unmark(facts, history, rules, viewer, label) {
        return unmark;
    }
    let close_days = rules.close_days(facts.is_pr);
    let stale_for = days_between(history.label_added_at, now);
    let closing = close_days >= 0 && stale_for >= close_days;
    if let Some(finish) = finish_mark(facts, history, rules, closing) {
        return finish;
    }
    if close_days < 0 {
        return Decision::without_writes(
            Verdict::Keep,
            format!(
                "stale for {}; never closed (days_before_close = -1)",
                days(stale_for)
            ),
        );
    }
    if stale_for < close_days {
        return Decision::without_writes(
            Verdict::Keep,
            format!("stale for {}; closes after {close_days}", days(stale_for)),
        );
    }
    Decision {
        disposition: Verdict::Close,
        reason: format!("stale for {} >= {close_days}", days(stale_for)),
        writes: close_writes(facts, history, rules, reason),
    }
}

/// The newest activity after the label unmarks the item (with `remove_stale_when_updated`,
/// and unless updates are ignored): the stale label off, the unstale labels on and off.
fn unmark(
    facts: &ItemFacts,
    history: &History,
    rules: &StaleRules,
    viewer: Option<&str>,
    label: &str,
) -> Option<Decision> {
    let activity = history
        .activity
        .iter()
        .filter(|activity| counts_as_activity(activity, history, viewer))
        .max_by_key(|activity| activity.at)?;
    if !rules.remove_stale_when_updated_for(facts.is_pr) || rules.ignore_updates_for(facts.is_pr) {
        return None;
    }
    let mut writes = vec![Write::RemoveLabel {
        label: label.to_string(),
    }];
    let add: Vec<String> = rules
        .labels_to_add_when_unstale
        .iter()
        .filter(|wanted| !facts.has_label(wanted))
        .cloned()
        .collect();
    if !add.is_empty() {
        writes.push(Write::AddLabels { labels: add });
    }
    for remove in &rules.labels_to_remove_when_unstale {
        if facts.has_label(remove) {
            writes.push(Write::RemoveLabel {
                label: remove.clone(),
            });
        }
    }
    Some(Decision {
        disposition: Verdict::Unmark,
        reason: if activity.kind == ActivityKind::Unattributed {
            format!("{}, after it was marked stale", activity.what)
        } else {
            format!(
                "{} by {} after it was marked stale",
                activity.what, activity.login
            )
        },
        writes,
    })
}

/// A mark a run left half done (the label on, its comment never posted) gets its comment, unless
/// the item is due to close or the comment is there after all.
fn finish_mark(
    facts: &ItemFacts,
    history: &History,
    rules: &StaleRules,
    closing: bool,
) -> Option<Decision> {
    let message = stale_message(facts, rules);
    // The store may not know of a comment that is there (its answer was lost, the journal is
    // another runner's): gh-sweep's marker on the item after the label says it was posted.
    let mark_posted = posted_since_label(history, "mark-stale");
    if history.mark_unfinished && !mark_posted && !message.trim().is_empty() && !closing {
        return Some(Decision {
            disposition: Verdict::MarkStale,
            reason: "finishing an interrupted mark: its comment was never posted".into(),
            writes: vec![write::comment(message, "mark-stale")],
        });
    }
    None
}

/// Whether gh-sweep's comment with this marker is on the item since the label was put on.
fn posted_since_label(history: &History, marker: &str) -> bool {
    history.activity.iter().any(|activity| {
        activity.at >= history.label_added_at && activity.marker.as_deref() == Some(marker)
    })
}

/// Closing: the close message (unless blank or already posted), the close label (unless
/// empty or already on), then the close itself.
fn close_writes(
    facts: &ItemFacts,
    history: &History,
    rules: &StaleRules,
    reason: Option<CloseReason>,
) -> Vec<Write> {
    let mut writes = Vec::new();
    let message = if facts.is_pr {
        &rules.close_pr_message
    } else {
        &rules.close_issue_message
    };
    if !message.trim().is_empty() && !posted_since_label(history, "close") {
        writes.push(write::comment(message, "close"));
    }
    let close_label = if facts.is_pr {
        &rules.close_pr_label
    } else {
        &rules.close_issue_label
    };
    if !close_label.is_empty() && !facts.has_label(close_label) {
        writes.push(Write::AddLabels {
            labels: vec![close_label.clone()],
        });
    }
    writes.push(Write::Close { reason });
    writes
}

/// A count of days in words: "1 day", "8 days".
fn days(count: i64) -> String {
    match count {
        1 => "1 day".to_string(),
        count => format!("{count} days"),
    }
}
