//! The `[stale]` table: every key an actions/stale input in snake_case, with its default, a
//! list given as an array or one comma-separated string, and the checks serde cannot make
//! (day counts, the close reason, labels a URL can address, the start date).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};

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

    pub(super) fn start(&self) -> Result<Option<DateTime<Utc>>, String> {
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
