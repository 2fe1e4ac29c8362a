//! The writes a policy can ask for, and what the journal keeps of each. Plain data: the engine
//! sends them, the store journals them as data, the recap names them in words made here.

use std::fmt;

use chrono::{DateTime, Utc};

use super::stale::CloseReason;

/// One change a run makes on GitHub: journaled before it is sent, paced at GitHub's ceilings.
/// A change to gh-sweep's own store is a [`LocalWrite`], never one of these.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Write {
    AddLabels {
        labels: Vec<String>,
    },
    RemoveLabel {
        label: String,
    },
    /// `body` already carries the invisible marker, see [`marker`].
    Comment {
        body: String,
        marker: String,
    },
    Close {
        reason: Option<CloseReason>,
    },
    /// `DELETE /git/refs/heads/{branch}`: a closed stale PR's head branch (`delete_branch`).
    DeleteBranch {
        branch: String,
    },
    /// `PUT /pulls/{n}/merge` with `sha` = the checked head: GitHub refuses if the head moved.
    Merge {
        sha: String,
        method: crate::policy::merge::MergeMethod,
    },
}

/// One change a run makes to gh-sweep's own store: never sent to GitHub, never journaled or
/// paced, applied after the item's writes to GitHub went out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocalWrite {
    /// An approved merge of this head into the queue (seed 002), for `sweep`.
    Enqueue { key: String, head_sha: String },
}

impl fmt::Display for LocalWrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LocalWrite::Enqueue { head_sha, .. } => write!(
                f,
                "enqueue merge of {}",
                crate::policy::merge::short(head_sha)
            ),
        }
    }
}

/// What the store's journal keeps of a write, as data (JSON of this type), never as its
/// words: enough to check on GitHub later whether it happened (a comment by its marker, a
/// label by its name, a merge by being one). Rewording a message cannot change what a crashed
/// run's next run does with it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum JournalWrite {
    AddLabels {
        labels: Vec<String>,
    },
    RemoveLabel {
        label: String,
    },
    /// A comment by the marker it carries, not its body.
    Comment {
        marker: String,
    },
    Close {
        reason: Option<String>,
    },
    DeleteBranch {
        branch: String,
    },
    /// `sha` is the head merged; in rows of journals kept as text (schema version 7 and
    /// before) only its first 12 characters were kept.
    Merge {
        sha: String,
        method: String,
    },
    /// Kept so that rows of earlier versions still read as what they were; nothing journals
    /// a [`LocalWrite`] now.
    Enqueue {
        key: String,
        head_sha: String,
    },
    /// A row neither this type nor the text of earlier versions describes (damaged, or of a
    /// write no gh-sweep makes): kept as it was, never matched to a write, so its item stays
    /// blocked until checked by hand.
    Unrecognised {
        text: String,
    },
}

/// What asking GitHub found of a write whose outcome was unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// GitHub shows it done: recorded, never sent again.
    Happened,
    /// GitHub shows it not done: the item is swept again like any other.
    DidNotHappen,
}

impl Settled {
    /// The journal's outcome for it: what a write answered at once would have got.
    pub fn outcome(self) -> WriteOutcome {
        match self {
            Settled::Happened => WriteOutcome::Done,
            Settled::DidNotHappen => WriteOutcome::Failed,
        }
    }

    /// The journal's word for it.
    pub fn journal_word(self) -> &'static str {
        self.outcome().journal_word()
    }
}

/// Whether a finding about a write of unknown outcome is proof yet: `Some(when)` while it is
/// not. Finding it on GitHub always is; not finding it is proof only once `settle_after` has
/// passed since it was sent, since GitHub may still be carrying out a request the client gave
/// up on. Times are on the journal's clock.
pub fn pending_until(
    settled: Settled,
    sent_at: DateTime<Utc>,
    now: DateTime<Utc>,
    settle_after: chrono::Duration,
) -> Option<DateTime<Utc>> {
    let proof_at = sent_at + settle_after;
    (settled == Settled::DidNotHappen && now < proof_at).then_some(proof_at)
}

/// What became of a write the journal recorded the intent of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteOutcome {
    /// GitHub answered that it was done.
    Done,
    /// No answer, or a 5xx: it may or may not have happened.
    Unknown,
    /// A redirect: the item moved, and the write was not followed there.
    NotSent,
    /// GitHub refused it: nothing was written by it.
    Failed,
}

impl WriteOutcome {
    /// The word the journal's `outcome` column keeps (and its SQL compares): the one place
    /// each is spelled.
    pub fn journal_word(self) -> &'static str {
        match self {
            WriteOutcome::Done => "done",
            WriteOutcome::Unknown => "unknown",
            WriteOutcome::NotSent => "not sent",
            WriteOutcome::Failed => "failed",
        }
    }
}

impl JournalWrite {
    /// The subcommand that settles it, when its outcome is unknown, by asking GitHub.
    pub fn settled_by(&self) -> &'static str {
        if matches!(self, JournalWrite::Merge { .. }) {
            "sweep"
        } else {
            "stale-sweep"
        }
    }

    /// Reads a journal row: its JSON, or, when that is not this type, the row as it is.
    pub fn from_stored(text: &str) -> JournalWrite {
        serde_json::from_str(text).unwrap_or_else(|_| JournalWrite::Unrecognised {
            text: text.to_string(),
        })
    }
}

/// The words for a journaled write, as the recap and the notes name it (the comment by its
/// marker). The one place these words are made; [`Write`]'s own `Display` uses them too.
impl fmt::Display for JournalWrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalWrite::AddLabels { labels } => write!(f, "label +{}", labels.join(", +")),
            JournalWrite::RemoveLabel { label } => write!(f, "label -{label}"),
            JournalWrite::Comment { marker } => write!(f, "comment {marker}"),
            JournalWrite::Close {
                reason: Some(reason),
            } => write!(f, "close ({reason})"),
            JournalWrite::Close { reason: None } => write!(f, "close"),
            JournalWrite::DeleteBranch { branch } => write!(f, "delete branch {branch}"),
            JournalWrite::Merge { sha, method } => {
                write!(f, "merge {} ({method})", crate::policy::merge::short(sha))
            }
            JournalWrite::Enqueue { head_sha, .. } => write!(
                f,
                "enqueue merge of {}",
                crate::policy::merge::short(head_sha)
            ),
            JournalWrite::Unrecognised { text } => write!(f, "{text}"),
        }
    }
}

impl Write {
    /// What the journal keeps of the write.
    pub fn journal(&self) -> JournalWrite {
        match self.clone() {
            Write::AddLabels { labels } => JournalWrite::AddLabels { labels },
            Write::RemoveLabel { label } => JournalWrite::RemoveLabel { label },
            Write::Comment { marker, .. } => JournalWrite::Comment { marker },
            Write::Close { reason } => JournalWrite::Close {
                reason: reason.map(|reason| reason.word().to_string()),
            },
            Write::DeleteBranch { branch } => JournalWrite::DeleteBranch { branch },
            Write::Merge { sha, method } => JournalWrite::Merge {
                sha,
                method: method.word().to_string(),
            },
        }
    }
}

/// The invisible marker every gh-sweep comment carries, so later runs recognise their own
/// comments whatever token posted them.
pub fn marker(disposition: &str) -> String {
    format!("<!-- gh-sweep:{disposition} -->")
}

/// Finds the disposition named by a marker in a comment body.
pub fn marker_in(body: &str) -> Option<String> {
    let start = body.find("<!-- gh-sweep:")? + "<!-- gh-sweep:".len();
    let rest = &body[start..];
    let end = rest.find(" -->")?;
    Some(rest[..end].to_string())
}

pub fn comment(message: &str, disposition: &str) -> Write {
    let marker = marker(disposition);
    Write::Comment {
        body: format!("{message}\n\n{marker}"),
        marker,
    }
}

impl fmt::Display for Write {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The plan names a comment without its invisible marker.
            Write::Comment { .. } => write!(f, "comment"),
            other => other.journal().fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_finding_a_write_is_proof_only_after_the_settle_time() {
        let sent = DateTime::parse_from_rfc3339("2026-12-01T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let wait = chrono::Duration::seconds(120);
        let later = |seconds| sent + chrono::Duration::seconds(seconds);
        assert_eq!(
            pending_until(Settled::DidNotHappen, sent, later(30), wait),
            Some(later(120))
        );
        assert_eq!(
            pending_until(Settled::DidNotHappen, sent, later(120), wait),
            None
        );
        // Found: proof at once.
        assert_eq!(pending_until(Settled::Happened, sent, later(1), wait), None);
    }

    #[test]
    fn a_settled_write_is_journaled_as_a_write_answered_at_once() {
        // The store's SQL compares these words ('done', 'unknown', ...): they are stable.
        let words: Vec<&str> = [
            WriteOutcome::Done,
            WriteOutcome::Unknown,
            WriteOutcome::NotSent,
            WriteOutcome::Failed,
        ]
        .map(WriteOutcome::journal_word)
        .to_vec();
        assert_eq!(words, ["done", "unknown", "not sent", "failed"]);
        assert_eq!(Settled::Happened.journal_word(), "done");
        assert_eq!(Settled::DidNotHappen.journal_word(), "failed");
    }

    fn every_kind() -> Vec<Write> {
        vec![
            Write::AddLabels {
                labels: vec!["Stale".into(), "needs info".into()],
            },
            Write::RemoveLabel {
                label: "Stale".into(),
            },
            comment("This issue is stale.", "mark-stale"),
            Write::Close {
                reason: Some(CloseReason::NotPlanned),
            },
            Write::Close { reason: None },
            Write::Merge {
                sha: "0123456789abcdef0123".into(),
                method: crate::policy::merge::MergeMethod::Squash,
            },
        ]
    }

    #[test]
    fn an_enqueue_is_named_as_the_journal_named_it() {
        let enqueue = LocalWrite::Enqueue {
            key: "merge:o/r#7@0123456789abcdef0123".into(),
            head_sha: "0123456789abcdef0123".into(),
        };
        let journaled = JournalWrite::Enqueue {
            key: "merge:o/r#7@0123456789abcdef0123".into(),
            head_sha: "0123456789abcdef0123".into(),
        };
        assert_eq!(enqueue.to_string(), "enqueue merge of 0123456789ab");
        assert_eq!(journaled.to_string(), enqueue.to_string());
    }

    #[test]
    fn the_words_of_each_write_are_unchanged() {
        let words: Vec<(String, String)> = every_kind()
            .iter()
            .map(|write| (write.to_string(), write.journal().to_string()))
            .collect();
        let expected = [
            ("label +Stale, +needs info", "label +Stale, +needs info"),
            ("label -Stale", "label -Stale"),
            ("comment", "comment <!-- gh-sweep:mark-stale -->"),
            ("close (not_planned)", "close (not_planned)"),
            ("close", "close"),
            ("merge 0123456789ab (squash)", "merge 0123456789ab (squash)"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(plan, journal)| (plan.to_string(), journal.to_string()))
            .collect();
        assert_eq!(words, expected);
    }

    #[test]
    fn the_journal_keeps_data_not_words() {
        for write in every_kind() {
            let journaled = write.journal();
            let stored = serde_json::to_string(&journaled).unwrap();
            // The words name the write around the values it carries (a label, the marker);
            // the stored form holds the values alone. (A bare `close` is its kind's name.)
            for words in [journaled.to_string(), write.to_string()] {
                if words.contains(' ') {
                    assert!(!stored.contains(&words), "{stored} holds `{words}`");
                }
            }
            assert_eq!(JournalWrite::from_stored(&stored), journaled, "{stored}");
        }
        assert_eq!(
            serde_json::to_value(comment("Closing.", "close").journal()).unwrap(),
            serde_json::json!({"kind": "comment", "marker": "<!-- gh-sweep:close -->"}),
            "a comment is kept by its marker, not its body"
        );
    }

    #[test]
    fn a_row_that_is_not_a_journaled_write_is_kept_as_it_is() {
        for text in ["label +Stale", "{\"kind\": \"tweet\"}", ""] {
            assert_eq!(
                JournalWrite::from_stored(text),
                JournalWrite::Unrecognised { text: text.into() }
            );
            assert_eq!(JournalWrite::from_stored(text).to_string(), text);
        }
    }

    #[test]
    fn marker_round_trips_through_a_comment() {
        let Write::Comment { body, .. } = comment("Closing.", "close") else {
            unreachable!()
        };
        assert_eq!(marker_in(&body).as_deref(), Some("close"));
        assert_eq!(marker_in("a human comment"), None);
    }
}
