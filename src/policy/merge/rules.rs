//! The `[poll]` table: which rules a PR must meet, what counts as docs, which labels hold a PR,
//! how skipped checks count, and the backoff and orphan-suite windows; validated before any
//! work starts.

use chrono::Duration;
use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

/// The `[poll]` table.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct PollRules {
    pub rules: Vec<Rule>,
    pub docs_globs: Vec<String>,
    pub held_labels: Vec<String>,
    pub skipped_counts_as: SkippedCountsAs,
    pub failed_backoff_hours: u32,
    /// A check suite queued with no runs is ignored once it is this old (apps such as Codecov
    /// register a suite and never report), unless its workflow run is still waiting.
    pub orphan_suite_minutes: u32,
}

impl Default for PollRules {
    fn default() -> Self {
        PollRules {
            rules: vec![Rule::DocsOnly, Rule::Green, Rule::ApprovedAtHead],
            docs_globs: ["**/*.md", "**/*.rst", "**/*.txt", "docs/**"]
                .map(String::from)
                .to_vec(),
            held_labels: ["do-not-merge", "do-not-merge/hold"]
                .map(String::from)
                .to_vec(),
            skipped_counts_as: SkippedCountsAs::Excluded,
            failed_backoff_hours: 6,
            orphan_suite_minutes: 60,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    DocsOnly,
    Green,
    ApprovedAtHead,
}

impl Rule {
    /// The rule's name, as `[poll] rules` spells it and the recap shows it.
    pub fn name(self) -> &'static str {
        match self {
            Rule::DocsOnly => "docs-only",
            Rule::Green => "green",
            Rule::ApprovedAtHead => "approved-at-head",
        }
    }
}

/// How a skipped or neutral check run counts.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SkippedCountsAs {
    /// Ignored, but at least one check must have run and passed.
    Excluded,
    Success,
    Failure,
}

impl PollRules {
    pub fn validate(&self) -> Result<(), crate::policy::RuleError> {
        self.globs()?;
        if self.failed_backoff_hours > 24 * 30 {
            return Err(crate::policy::RuleError::value(
                "poll",
                "failed_backoff_hours",
                self.failed_backoff_hours,
                "use hours from 0 to 720",
            ));
        }
        if self.orphan_suite_minutes > 7 * 24 * 60 {
            return Err(crate::policy::RuleError::value(
                "poll",
                "orphan_suite_minutes",
                self.orphan_suite_minutes,
                "use minutes from 0 to 10080 (a week)",
            ));
        }
        Ok(())
    }

    pub fn orphan_age(&self) -> Duration {
        Duration::minutes(i64::from(self.orphan_suite_minutes))
    }

    pub fn globs(&self) -> Result<GlobSet, crate::policy::RuleError> {
        let mut builder = GlobSetBuilder::new();
        for pattern in &self.docs_globs {
            let glob = Glob::new(pattern).map_err(|error| {
                crate::policy::RuleError::key(
                    "poll",
                    format!("docs_globs entry `{pattern}`"),
                    error.to_string(),
                )
            })?;
            builder.add(glob);
        }
        builder
            .build()
            .map_err(|error| crate::policy::RuleError::key("poll", "docs_globs", error.to_string()))
    }

    pub fn backoff(&self) -> Duration {
        Duration::hours(i64::from(self.failed_backoff_hours))
    }
}
