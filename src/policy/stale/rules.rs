//! The `[stale]` table: every key an actions/stale input in snake_case, with its default, a
//! list given as an array or one comma-separated string, and the checks serde cannot make
//! (day counts, the close reason, labels a URL can address, the start date).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};

use crate::policy::RuleError;

/// The longest number of days a `[stale]` duration may be: a century, far below where a
/// duration in seconds would overflow.
pub(crate) const MAX_DAYS: i64 = 36_500;

/// A label name that stays one path segment in a URL: not `.` or `..`.
pub(crate) fn label_addressable(label: &str) -> bool {
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
    // The issue-only and PR-only variants: a list overrides the generic one when it is not
    // empty, a flag when it is set at all (actions/stale's `_toOptionalBoolean`).
    #[serde(deserialize_with = "string_list")]
    pub only_issue_labels: Vec<String>,
    #[serde(deserialize_with = "string_list")]
    pub only_pr_labels: Vec<String>,
    #[serde(deserialize_with = "string_list")]
    pub any_of_issue_labels: Vec<String>,
    #[serde(deserialize_with = "string_list")]
    pub any_of_pr_labels: Vec<String>,
    #[serde(deserialize_with = "string_list")]
    pub exempt_issue_milestones: Vec<String>,
    #[serde(deserialize_with = "string_list")]
    pub exempt_pr_milestones: Vec<String>,
    pub exempt_all_issue_milestones: Option<bool>,
    pub exempt_all_pr_milestones: Option<bool>,
    #[serde(deserialize_with = "string_list")]
    pub exempt_issue_assignees: Vec<String>,
    #[serde(deserialize_with = "string_list")]
    pub exempt_pr_assignees: Vec<String>,
    pub exempt_all_issue_assignees: Option<bool>,
    pub exempt_all_pr_assignees: Option<bool>,
    pub remove_issue_stale_when_updated: Option<bool>,
    pub remove_pr_stale_when_updated: Option<bool>,
    pub ignore_issue_updates: Option<bool>,
    pub ignore_pr_updates: Option<bool>,
    /// Issue types (GitHub's `type.name`) an issue must have one of to be swept; PRs have none
    /// and are not filtered by it.
    #[serde(deserialize_with = "string_list")]
    pub only_issue_types: Vec<String>,
    /// The order items are swept in: `created`, `updated` or `comments`.
    pub sort_by: String,
    /// Oldest (or least commented) first. actions/stale defaults to newest first; gh-sweep to
    /// oldest first, which a per-run cap cannot starve.
    pub ascending: bool,
    /// A dry run: decide and report, write nothing.
    pub debug_only: bool,
    /// The cap on a run's operations, counted as actions/stale counts them (`operations`).
    /// Unset in a config file; actions/stale's 30 when the inputs come from a workflow.
    pub operations_per_run: Option<u64>,
    /// Delete a closed PR's head branch when it lives in the same repository.
    pub delete_branch: bool,
    /// Print the run's counts at the end.
    pub enable_statistics: bool,
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
            only_issue_labels: Vec::new(),
            only_pr_labels: Vec::new(),
            any_of_issue_labels: Vec::new(),
            any_of_pr_labels: Vec::new(),
            exempt_issue_milestones: Vec::new(),
            exempt_pr_milestones: Vec::new(),
            exempt_all_issue_milestones: None,
            exempt_all_pr_milestones: None,
            exempt_issue_assignees: Vec::new(),
            exempt_pr_assignees: Vec::new(),
            exempt_all_issue_assignees: None,
            exempt_all_pr_assignees: None,
            remove_issue_stale_when_updated: None,
            remove_pr_stale_when_updated: None,
            ignore_issue_updates: None,
            ignore_pr_updates: None,
            only_issue_types: Vec::new(),
            sort_by: "created".into(),
            ascending: true,
            debug_only: false,
            operations_per_run: None,
            delete_branch: false,
            enable_statistics: false,
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

/// The longest comment body GitHub accepts, in Unicode scalar values.
pub(crate) const MAX_COMMENT_CHARS: usize = 65_536;

impl StaleRules {
    /// `close_issue_reason` as a reason; the error names the bad value.
    pub fn close_reason(&self) -> Result<CloseReason, RuleError> {
        CloseReason::from_config(&self.close_issue_reason)
    }

    /// Checks values serde cannot: day counts, the close reason, the start date.
    pub fn validate(&self) -> Result<(), RuleError> {
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
                    return Err(RuleError::value(
                        "stale",
                        key,
                        value,
                        format!("use a number of days (0 to {MAX_DAYS}), or -1 for never"),
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
                return Err(RuleError::value(
                    "stale",
                    key,
                    format!("\"{label}\""),
                    "the stale label cannot be empty",
                ));
            }
        }
        self.labels_addressable()?;
        self.messages_fit()?;
        self.start()?;
        SortBy::from_config(&self.sort_by)?;
        if self.operations_per_run == Some(0) {
            return Err(RuleError::value(
                "stale",
                "operations_per_run",
                0,
                "a run capped at 0 operations reads nothing; use 1 or more",
            ));
        }
        Ok(())
    }

    /// Every message fits in one comment with gh-sweep's marker: GitHub refuses a longer body
    /// with 422 "Body is too long (maximum is 65536 characters)" (danger/danger#424), counted in
    /// Unicode scalar values. Refused before anything is read: a run would label an item, have
    /// its comment refused, and every later run would do the same.
    fn messages_fit(&self) -> Result<(), RuleError> {
        for (key, message, disposition) in [
            (
                "stale_issue_message",
                &self.stale_issue_message,
                "mark-stale",
            ),
            ("stale_pr_message", &self.stale_pr_message, "mark-stale"),
            ("close_issue_message", &self.close_issue_message, "close"),
            ("close_pr_message", &self.close_pr_message, "close"),
        ] {
            if message.is_empty() {
                continue;
            }
            let length = match crate::policy::write::comment(message, disposition) {
                crate::policy::write::Write::Comment { body, .. } => body.chars().count(),
                _ => 0,
            };
            if length > MAX_COMMENT_CHARS {
                return Err(RuleError::key(
                    "stale",
                    key,
                    format!(
                        "{length} characters with gh-sweep's marker, past the {MAX_COMMENT_CHARS} GitHub allows in a comment; shorten it by {}",
                        length - MAX_COMMENT_CHARS
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `sort_by` as an order; checked by [`validate`](Self::validate).
    pub fn sort(&self) -> SortBy {
        SortBy::from_config(&self.sort_by).unwrap_or(SortBy::Created)
    }

    /// The list the item's kind uses: its own when not empty, else the generic one.
    fn per_kind<'a>(
        is_pr: bool,
        issue: &'a [String],
        pr: &'a [String],
        generic: &'a [String],
    ) -> &'a [String] {
        let own = if is_pr { pr } else { issue };
        if own.is_empty() {
            generic
        } else {
            own
        }
    }

    fn per_kind_flag(is_pr: bool, issue: Option<bool>, pr: Option<bool>, generic: bool) -> bool {
        if is_pr { pr } else { issue }.unwrap_or(generic)
    }

    pub fn only_labels_for(&self, is_pr: bool) -> &[String] {
        Self::per_kind(
            is_pr,
            &self.only_issue_labels,
            &self.only_pr_labels,
            &self.only_labels,
        )
    }

    pub fn any_of_labels_for(&self, is_pr: bool) -> &[String] {
        Self::per_kind(
            is_pr,
            &self.any_of_issue_labels,
            &self.any_of_pr_labels,
            &self.any_of_labels,
        )
    }

    pub fn exempt_milestones_for(&self, is_pr: bool) -> &[String] {
        Self::per_kind(
            is_pr,
            &self.exempt_issue_milestones,
            &self.exempt_pr_milestones,
            &self.exempt_milestones,
        )
    }

    pub fn exempt_assignees_for(&self, is_pr: bool) -> &[String] {
        Self::per_kind(
            is_pr,
            &self.exempt_issue_assignees,
            &self.exempt_pr_assignees,
            &self.exempt_assignees,
        )
    }

    pub fn exempt_all_milestones_for(&self, is_pr: bool) -> bool {
        Self::per_kind_flag(
            is_pr,
            self.exempt_all_issue_milestones,
            self.exempt_all_pr_milestones,
            self.exempt_all_milestones,
        )
    }

    pub fn exempt_all_assignees_for(&self, is_pr: bool) -> bool {
        Self::per_kind_flag(
            is_pr,
            self.exempt_all_issue_assignees,
            self.exempt_all_pr_assignees,
            self.exempt_all_assignees,
        )
    }

    pub fn remove_stale_when_updated_for(&self, is_pr: bool) -> bool {
        Self::per_kind_flag(
            is_pr,
            self.remove_issue_stale_when_updated,
            self.remove_pr_stale_when_updated,
            self.remove_stale_when_updated,
        )
    }

    pub fn ignore_updates_for(&self, is_pr: bool) -> bool {
        Self::per_kind_flag(
            is_pr,
            self.ignore_issue_updates,
            self.ignore_pr_updates,
            self.ignore_updates,
        )
    }

    /// Every label gh-sweep may write or remove must survive as one URL path segment: `.` and
    /// `..` are dot segments that a URL library resolves away, percent-encoded or not
    /// (`DELETE …/labels/..` would become `DELETE …/issues/1/`).
    fn labels_addressable(&self) -> Result<(), RuleError> {
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
                return Err(RuleError::key(
                    "stale",
                    key,
                    format!("\"{label}\" is not a label name GitHub can address in a URL; rename the label"),
                ));
            }
        }
        Ok(())
    }

    pub(super) fn start(&self) -> Result<Option<DateTime<Utc>>, RuleError> {
        if self.start_date.is_empty() {
            return Ok(None);
        }
        DateTime::parse_from_rfc3339(&self.start_date)
            .map(|date| Some(date.with_timezone(&Utc)))
            .map_err(|_| {
                RuleError::value(
                    "stale",
                    "start_date",
                    format!("\"{}\"", self.start_date),
                    "use an RFC 3339 time such as 2026-01-31T00:00:00Z",
                )
            })
    }

    pub(super) fn stale_days(&self, is_pr: bool) -> i64 {
        let specific = if is_pr {
            self.days_before_pr_stale
        } else {
            self.days_before_issue_stale
        };
        specific.unwrap_or(self.days_before_stale)
    }

    pub(super) fn close_days(&self, is_pr: bool) -> i64 {
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

/// The order items are swept in (`[stale] sort_by`), as actions/stale asks GitHub's issue list
/// for it: by creation, last update or number of comments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortBy {
    Created,
    Updated,
    Comments,
}

impl SortBy {
    pub fn from_config(word: &str) -> Result<SortBy, RuleError> {
        match word {
            "created" => Ok(SortBy::Created),
            "updated" => Ok(SortBy::Updated),
            "comments" => Ok(SortBy::Comments),
            other => Err(RuleError::value(
                "stale",
                "sort_by",
                format!("\"{other}\""),
                "use \"created\", \"updated\" or \"comments\"",
            )),
        }
    }
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
    pub fn from_config(word: &str) -> Result<CloseReason, RuleError> {
        CloseReason::ALL
            .into_iter()
            .find(|reason| reason.word() == word)
            .ok_or_else(|| {
                RuleError::value(
                    "stale",
                    "close_issue_reason",
                    format!("\"{word}\""),
                    "use \"completed\" or \"not_planned\"",
                )
            })
    }
}

impl Serialize for CloseReason {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.word())
    }
}
