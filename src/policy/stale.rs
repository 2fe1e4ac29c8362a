//! The stale rules: which open issues and PRs to mark stale, close, unmark or keep. The rules and
//! option names follow actions/stale (in snake_case) with the differences listed in the README:
//! bots and gh-sweep's own writes never count as activity (the token's user, often the
//! maintainer, does), locked items are left alone, and the close clock starts when the stale
//! label was put on. Pure: facts, rules and `now` in; a decision out.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Deserializer, Serialize};

use super::write::{self, Write};

/// The longest number of days a `[stale]` duration may be: a century, far below where a
/// duration in seconds would overflow.
pub const MAX_DAYS: i64 = 36_500;

/// A label name that stays one path segment in a URL: not `.` or `..`.
pub fn label_addressable(label: &str) -> bool {
    !matches!(label, "." | "..")
}

/// The `[stale]` table. Every key is an actions/stale input in snake_case, with its default.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct StaleRules {
    pub days_before_stale: i64,
    pub days_before_close: i64,
    pub days_before_issue_stale: Option<i64>,
    pub days_before_pr_stale: Option<i64>,
    pub days_before_issue_close: Option<i64>,
    pub days_before_pr_close: Option<i64>,
    pub stale_issue_label: String,
    pub stale_pr_label: String,
    pub stale_issue_message: String,
    pub stale_pr_message: String,
    pub close_issue_message: String,
    pub close_pr_message: String,
    pub close_issue_reason: String,
    pub close_issue_label: String,
    pub close_pr_label: String,
    #[serde(deserialize_with = "string_list")]
    pub exempt_issue_labels: Vec<String>,
    #[serde(deserialize_with = "string_list")]
    pub exempt_pr_labels: Vec<String>,
    #[serde(deserialize_with = "string_list")]
    pub only_labels: Vec<String>,
    #[serde(deserialize_with = "string_list")]
    pub any_of_labels: Vec<String>,
    #[serde(deserialize_with = "string_list")]
    pub exempt_milestones: Vec<String>,
    pub exempt_all_milestones: bool,
    #[serde(deserialize_with = "string_list")]
    pub exempt_assignees: Vec<String>,
    pub exempt_all_assignees: bool,
    pub exempt_draft_pr: bool,
    pub include_only_assigned: bool,
    pub start_date: String,
    pub ignore_updates: bool,
    pub remove_stale_when_updated: bool,
    #[serde(deserialize_with = "string_list")]
    pub labels_to_add_when_unstale: Vec<String>,
    #[serde(deserialize_with = "string_list")]
    pub labels_to_remove_when_unstale: Vec<String>,
    #[serde(deserialize_with = "string_list")]
    pub labels_to_remove_when_stale: Vec<String>,
}

impl Default for StaleRules {
    fn default() -> Self {
        StaleRules {
            days_before_stale: 60,
            days_before_close: 7,
            days_before_issue_stale: None,
            days_before_pr_stale: None,
            days_before_issue_close: None,
            days_before_pr_close: None,
            stale_issue_label: "Stale".into(),
            stale_pr_label: "Stale".into(),
            stale_issue_message:
                "This issue has had no activity for a while, so it is marked stale. \
                It will be closed if nothing happens; a comment keeps it open."
                    .into(),
            stale_pr_message:
                "This pull request has had no activity for a while, so it is marked stale. \
                It will be closed if nothing happens; a comment or a push keeps it open."
                    .into(),
            close_issue_message:
                "Closed because it stayed stale with no activity. Reopen it if it still matters."
                    .into(),
            close_pr_message:
                "Closed because it stayed stale with no activity. Reopen it if it still matters."
                    .into(),
            close_issue_reason: "not_planned".into(),
            close_issue_label: String::new(),
            close_pr_label: String::new(),
            exempt_issue_labels: Vec::new(),
            exempt_pr_labels: Vec::new(),
            only_labels: Vec::new(),
            any_of_labels: Vec::new(),
            exempt_milestones: Vec::new(),
            exempt_all_milestones: false,
            exempt_assignees: Vec::new(),
            exempt_all_assignees: false,
            exempt_draft_pr: false,
            include_only_assigned: false,
            start_date: String::new(),
            ignore_updates: false,
            remove_stale_when_updated: true,
            labels_to_add_when_unstale: Vec::new(),
            labels_to_remove_when_unstale: Vec::new(),
            labels_to_remove_when_stale: Vec::new(),
        }
    }
}

/// A TOML array of strings, or one comma-separated string as actions/stale takes it.
fn string_list<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum List {
        One(String),
        Many(Vec<String>),
    }
    let list = match List::deserialize(deserializer)? {
        List::One(text) => text.split(',').map(str::to_string).collect(),
        List::Many(items) => items,
    };
    Ok(list
        .into_iter()
        .map(|entry| entry.trim().to_string())
        .filter(|entry| !entry.is_empty())
        .collect())
}

impl StaleRules {
    /// `close_issue_reason` as a reason; the error names the bad value.
    pub fn close_reason(&self) -> Result<CloseReason, String> {
        CloseReason::from_config(&self.close_issue_reason)
    }

    /// Checks values serde cannot: day counts, the close reason, the start date.
    pub fn validate(&self) -> Result<(), String> {
        let days = [
            ("days_before_stale", Some(self.days_before_stale)),
            ("days_before_close", Some(self.days_before_close)),
            ("days_before_issue_stale", self.days_before_issue_stale),
            ("days_before_pr_stale", self.days_before_pr_stale),
            ("days_before_issue_close", self.days_before_issue_close),
            ("days_before_pr_close", self.days_before_pr_close),
        ];
        for (key, value) in days {
            if let Some(value) = value {
                if !(-1..=MAX_DAYS).contains(&value) {
                    return Err(format!(
                        "invalid [stale] {key} = {value}: use a number of days (0 to {MAX_DAYS}), or -1 for never"
                    ));
                }
            }
        }
        self.close_reason()?;
        for (key, label) in [
            ("stale_issue_label", &self.stale_issue_label),
            ("stale_pr_label", &self.stale_pr_label),
        ] {
            if label.trim().is_empty() {
                return Err(format!(
                    "invalid [stale] {key} = \"{label}\": the stale label cannot be empty"
                ));
            }
        }
        self.labels_addressable()?;
        self.start()?;
        Ok(())
    }

    /// Every label gh-sweep may write or remove must survive as one URL path segment: `.` and
    /// `..` are dot segments that a URL library resolves away, percent-encoded or not
    /// (`DELETE …/labels/..` would become `DELETE …/issues/1/`).
    fn labels_addressable(&self) -> Result<(), String> {
        let single = [
            ("stale_issue_label", &self.stale_issue_label),
            ("stale_pr_label", &self.stale_pr_label),
            ("close_issue_label", &self.close_issue_label),
            ("close_pr_label", &self.close_pr_label),
        ];
        let lists = [
            (
                "labels_to_add_when_unstale",
                &self.labels_to_add_when_unstale,
            ),
            (
                "labels_to_remove_when_unstale",
                &self.labels_to_remove_when_unstale,
            ),
            (
                "labels_to_remove_when_stale",
                &self.labels_to_remove_when_stale,
            ),
        ];
        let named =
            single
                .into_iter()
                .map(|(key, label)| (key, label.as_str()))
                .chain(lists.into_iter().flat_map(|(key, labels)| {
                    labels.iter().map(move |label| (key, label.as_str()))
                }));
        for (key, label) in named {
            if !label_addressable(label) {
                return Err(format!(
                    "invalid [stale] {key}: \"{label}\" is not a label name GitHub can address in a URL; rename the label"
                ));
            }
        }
        Ok(())
    }

    fn start(&self) -> Result<Option<DateTime<Utc>>, String> {
        if self.start_date.is_empty() {
            return Ok(None);
        }
        DateTime::parse_from_rfc3339(&self.start_date)
            .map(|date| Some(date.with_timezone(&Utc)))
            .map_err(|_| {
                format!(
                    "invalid [stale] start_date = \"{}\": use an RFC 3339 time such as 2026-01-31T00:00:00Z",
                    self.start_date
                )
            })
    }

    fn stale_days(&self, is_pr: bool) -> i64 {
        let specific = if is_pr {
            self.days_before_pr_stale
        } else {
            self.days_before_issue_stale
        };
        specific.unwrap_or(self.days_before_stale)
    }

    fn close_days(&self, is_pr: bool) -> i64 {
        let specific = if is_pr {
            self.days_before_pr_close
        } else {
            self.days_before_issue_close
        };
        specific.unwrap_or(self.days_before_close)
    }

    pub fn stale_label(&self, is_pr: bool) -> &str {
        if is_pr {
            &self.stale_pr_label
        } else {
            &self.stale_issue_label
        }
    }
}

/// What the list payload says about an open issue or PR.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemFacts {
    pub number: u64,
    pub is_pr: bool,
    pub draft: bool,
    pub open: bool,
    pub title: String,
    pub labels: Vec<String>,
    pub milestone: Option<String>,
    pub assignees: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// A locked conversation: GitHub refuses comments on it from anyone who is not a
    /// collaborator.
    pub locked: bool,
}

impl ItemFacts {
    pub fn has_label(&self, name: &str) -> bool {
        self.labels
            .iter()
            .any(|label| label.eq_ignore_ascii_case(name))
    }
}

/// Where an [`Activity`] was read, which decides how it is told apart from gh-sweep's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActivityKind {
    /// A comment: gh-sweep's own carry its marker.
    Comment,
    /// A `labeled` or `unlabeled` event: gh-sweep's own are the token user's, at the times
    /// of its writes.
    LabelEvent,
    /// Any other event, or a review from the timeline.
    Event,
    /// `updated_at` moved and nothing read names who did it (a body edit, a plain push).
    Unattributed,
}

/// Something that happened on an item: a comment or an event, with who did it.
#[derive(Clone, Debug, PartialEq)]
pub struct Activity {
    pub kind: ActivityKind,
    pub at: DateTime<Utc>,
    pub login: String,
    pub is_bot: bool,
    /// The gh-sweep marker in a comment's body, if any.
    pub marker: Option<String>,
    /// "comment" or the event's name.
    pub what: String,
    /// A notification such as `mentioned` or `subscribed`: it happened, but nobody acted.
    pub notification: bool,
}

/// What was read about an item that carries the stale label.
#[derive(Clone, Debug, PartialEq)]
pub struct History {
    pub label_added_at: DateTime<Utc>,
    /// Comments and events after the label was put on, as far as they were read.
    pub activity: Vec<Activity>,
    /// gh-sweep put the label on but its stale comment was never posted: a run stopped (or
    /// was killed) between the two writes.
    pub mark_unfinished: bool,
    /// When gh-sweep's own writes of the mark happened, first and last, on GitHub's clock:
    /// from the store, or (without its record) the label event's own time. The token user's
    /// label events then are gh-sweep's, not the maintainer's activity.
    pub own_writes: Option<(DateTime<Utc>, DateTime<Utc>)>,
}

/// How a stale issue is closed: `[stale] close_issue_reason`, sent as GitHub's `state_reason`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseReason {
    Completed,
    NotPlanned,
}

impl CloseReason {
    pub const ALL: [CloseReason; 2] = [CloseReason::Completed, CloseReason::NotPlanned];

    /// The word the config and GitHub use for it; the one place it is spelled.
    pub fn word(self) -> &'static str {
        match self {
            CloseReason::Completed => "completed",
            CloseReason::NotPlanned => "not_planned",
        }
    }

    /// `[stale] close_issue_reason`'s word as a reason; the error names the bad value.
    pub fn from_config(word: &str) -> Result<CloseReason, String> {
        CloseReason::ALL
            .into_iter()
            .find(|reason| reason.word() == word)
            .ok_or_else(|| {
                format!(
                    "invalid [stale] close_issue_reason = \"{word}\": use \"completed\" or \"not_planned\""
                )
            })
    }
}

impl Serialize for CloseReason {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.word())
    }
}

/// What the stale rules decided; its words are rendered in `policy::disposition`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Disposition {
    MarkStale,
    Close,
    Unmark,
    Keep,
    Exempt(String),
    Skip(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub disposition: Disposition,
    pub reason: String,
    pub writes: Vec<Write>,
}

impl Decision {
    fn without_writes(disposition: Disposition, reason: impl Into<String>) -> Self {
        Decision {
            disposition,
            reason: reason.into(),
            writes: Vec::new(),
        }
    }
}

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

/// The decision for an item carrying the stale label when no `labeled` event names it: GitHub's
/// events keep a label's name as it was when they happened, so after a rename (say "wontfix" to
/// "Stale") the label's date is unknown. The item is kept: never closed on a guessed date, and
/// not the item's failure either.
pub fn label_date_unknown(facts: &ItemFacts, rules: &StaleRules) -> Decision {
    let label = rules.stale_label(facts.is_pr);
    Decision::without_writes(
        Disposition::Keep,
        format!(
            "the \"{label}\" label's date is unknown: no event says `labeled \"{label}\"` (a renamed label keeps its old name in the events); kept, never closed on a guessed date"
        ),
    )
}

/// How far GitHub's own stamps of one moment may differ and still mean "nothing since": the
/// label event and the issue's `updated_at`, a write's `Date` header and the stamps it leaves,
/// a comment's `created_at` and the journal's time of sending it. Seconds apart in practice;
/// at least 15 s, and only ever GitHub's times against GitHub's (or the journal's with it).
pub const QUIET_SLACK_SECONDS: i64 = 15;

/// From when to look for gh-sweep's comment whose answer was lost, on GitHub's clock: the
/// journal's local time of sending it, moved by how far our clock is ahead of GitHub's (`skew`,
/// from a `Date` header, when known), less the clock slack.
pub fn reconcile_since(intent_at: DateTime<Utc>, skew: Option<Duration>) -> DateTime<Utc> {
    intent_at - skew.unwrap_or_else(Duration::zero) - Duration::seconds(QUIET_SLACK_SECONDS)
}

/// Whether anything may have happened after the label (and after gh-sweep's own writes),
/// judged from `updated_at` alone. When false, no comment needs to be read.
pub fn activity_possible(
    updated_at: DateTime<Utc>,
    label_added_at: DateTime<Utc>,
    own_last_write: Option<DateTime<Utc>>,
) -> bool {
    let quiet_until = own_last_write.map_or(label_added_at, |own| own.max(label_added_at));
    updated_at > quiet_until + Duration::seconds(QUIET_SLACK_SECONDS)
}

fn days_between(from: DateTime<Utc>, to: DateTime<Utc>) -> i64 {
    (to - from).num_days()
}

/// Decides one item. `history` is required when [`needs_history`] says so; `viewer` is the
/// token's own login, whose label events at gh-sweep's own writes are not activity.
pub fn decide(
    facts: &ItemFacts,
    history: Option<&History>,
    rules: &StaleRules,
    viewer: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Decision, String> {
    if !facts.open {
        return Ok(Decision::without_writes(
            Disposition::Skip("not open".into()),
            "closed since it was selected",
        ));
    }
    if let Some((why, option)) = exemption(facts, rules) {
        return Ok(Decision::without_writes(
            Disposition::Exempt(why),
            format!("by {option}"),
        ));
    }
    let label = rules.stale_label(facts.is_pr).to_string();
    let kind = if facts.is_pr { "PR" } else { "issue" };
    if facts.has_label(&label) {
        let history =
            history.ok_or_else(|| format!("the \"{label}\" label's history was not read"))?;
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

    let stale_days = rules.stale_days(facts.is_pr);
    if stale_days < 0 {
        return Ok(Decision::without_writes(
            Disposition::Keep,
            format!("{kind}s are never marked stale (days_before_stale = -1)"),
        ));
    }
    let last = if rules.ignore_updates {
        facts.created_at
    } else {
        facts.updated_at
    };
    let what = if rules.ignore_updates { "open" } else { "idle" };
    if last > now {
        return Ok(Decision::without_writes(
            Disposition::Keep,
            format!(
                "last update {} is in the future; the clocks disagree",
                last.to_rfc3339()
            ),
        ));
    }
    let idle = days_between(last, now);
    if idle < stale_days {
        return Ok(Decision::without_writes(
            Disposition::Keep,
            format!("{what} {idle} days < {stale_days}"),
        ));
    }
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
    let message = if facts.is_pr {
        &rules.stale_pr_message
    } else {
        &rules.stale_issue_message
    };
    if !message.trim().is_empty() {
        writes.push(write::comment(message, "mark-stale"));
    }
    Ok(Decision {
        disposition: Disposition::MarkStale,
        reason: format!("{what} {idle} days >= {stale_days}"),
        writes,
    })
}

/// An update that no comment, event or review read explains (an edit of the body, a plain push:
/// neither names a GitHub account), treated as activity so an item that changed is never closed
/// as idle; its actor is unknown.
pub fn unexplained_update(
    updated_at: DateTime<Utc>,
    label_added_at: DateTime<Utc>,
    own_last_write: Option<DateTime<Utc>>,
    activity: &[Activity],
) -> Option<Activity> {
    let explained = activity
        .iter()
        .map(|activity| activity.at)
        .chain(own_last_write)
        .fold(label_added_at, DateTime::max);
    (updated_at > explained + Duration::seconds(QUIET_SLACK_SECONDS)).then(|| Activity {
        kind: ActivityKind::Unattributed,
        at: updated_at,
        login: String::new(),
        is_bot: false,
        marker: None,
        what: "updated, actor unknown (an edit or a push)".to_string(),
        notification: false,
    })
}

/// Whether an activity is one of gh-sweep's own label writes: a label event by the token's
/// user at the time of the mark's writes (within the clock slack). Nothing else the token's
/// user did is excluded: a maintainer's own comment or label counts.
fn own_label_event(
    activity: &Activity,
    viewer: Option<&str>,
    own_writes: Option<(DateTime<Utc>, DateTime<Utc>)>,
) -> bool {
    let slack = Duration::seconds(QUIET_SLACK_SECONDS);
    activity.kind == ActivityKind::LabelEvent
        && viewer.is_some_and(|viewer| activity.login.eq_ignore_ascii_case(viewer))
        && own_writes.is_some_and(|(first, last)| {
            activity.at >= first - slack && activity.at <= last + slack
        })
}

fn counts_as_activity(activity: &Activity, history: &History, viewer: Option<&str>) -> bool {
    activity.at > history.label_added_at
        && !activity.is_bot
        && !activity.notification
        && activity.marker.is_none()
        && !own_label_event(activity, viewer, history.own_writes)
}

fn decide_stale(
    facts: &ItemFacts,
    history: &History,
    rules: &StaleRules,
    viewer: Option<&str>,
    now: DateTime<Utc>,
    label: &str,
    reason: Option<CloseReason>,
) -> Decision {
    let since = history.label_added_at;
    let human = history
        .activity
        .iter()
        .filter(|activity| counts_as_activity(activity, history, viewer))
        .max_by_key(|activity| activity.at);
    if let Some(activity) = human {
        if rules.remove_stale_when_updated && !rules.ignore_updates {
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
            return Decision {
                disposition: Disposition::Unmark,
                reason: if activity.kind == ActivityKind::Unattributed {
                    format!("{}, after it was marked stale", activity.what)
                } else {
                    format!(
                        "{} by {} after it was marked stale",
                        activity.what, activity.login
                    )
                },
                writes,
            };
        }
    }
    let close_days = rules.close_days(facts.is_pr);
    let stale_for = days_between(since, now);
    let message = if facts.is_pr {
        &rules.stale_pr_message
    } else {
        &rules.stale_issue_message
    };
    let closing = close_days >= 0 && stale_for >= close_days;
    // The store may not know of a comment that is there (its answer was lost, the journal is
    // another runner's): gh-sweep's marker on the item after the label says it was posted.
    let mark_posted = history
        .activity
        .iter()
        .any(|activity| activity.at >= since && activity.marker.as_deref() == Some("mark-stale"));
    if history.mark_unfinished && !mark_posted && !message.trim().is_empty() && !closing {
        return Decision {
            disposition: Disposition::MarkStale,
            reason: "finishing an interrupted mark: its comment was never posted".into(),
            writes: vec![write::comment(message, "mark-stale")],
        };
    }
    if close_days < 0 {
        return Decision::without_writes(
            Disposition::Keep,
            format!("stale for {stale_for} days; never closed (days_before_close = -1)"),
        );
    }
    if stale_for < close_days {
        return Decision::without_writes(
            Disposition::Keep,
            format!("stale for {stale_for} days; closes after {close_days}"),
        );
    }
    let mut writes = Vec::new();
    let message = if facts.is_pr {
        &rules.close_pr_message
    } else {
        &rules.close_issue_message
    };
    let already_posted = history
        .activity
        .iter()
        .any(|activity| activity.at >= since && activity.marker.as_deref() == Some("close"));
    if !message.trim().is_empty() && !already_posted {
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
    Decision {
        disposition: Disposition::Close,
        reason: format!("stale for {stale_for} days >= {close_days}"),
        writes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

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
            Err(r#"invalid [stale] close_issue_reason = "wontfix": use "completed" or "not_planned""#.into())
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
}
