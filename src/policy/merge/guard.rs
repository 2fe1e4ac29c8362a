//! The guards before any rule is judged, in their fixed order: a held PR (its title or a
//! label), and a merge already in flight by the status of its queue row (seed 002).

use super::PollRules;

/// The guard before any database or GitHub call: `(HELD)` in the title or a held label.
pub(crate) fn held(title: &str, labels: &[String], rules: &PollRules) -> Option<String> {
    if title.contains("(HELD)") {
        return Some("title has (HELD)".into());
    }
    labels
        .iter()
        .find(|label| {
            rules
                .held_labels
                .iter()
                .any(|held| held.eq_ignore_ascii_case(label))
        })
        .map(|label| format!("label \"{label}\""))
}

/// Where a queue row is in its life (seed 002). Stored as its word, [`QueueStatus::as_str`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueStatus {
    /// Waiting to be claimed.
    Pending,
    /// Leased to one worker until its lease ends.
    Claimed,
    /// Carried out (or folded into a row that was); kept, so the key says "already done".
    Done,
    /// Given up on: it would only fail again.
    Abandoned,
    /// A merge GitHub refused: the row the backoff reads.
    Failed,
}

impl QueueStatus {
    pub const ALL: [QueueStatus; 5] = [
        QueueStatus::Pending,
        QueueStatus::Claimed,
        QueueStatus::Done,
        QueueStatus::Abandoned,
        QueueStatus::Failed,
    ];

    /// The word the queue's `status` column holds, and the recap shows.
    pub fn as_str(self) -> &'static str {
        match self {
            QueueStatus::Pending => "pending",
            QueueStatus::Claimed => "claimed",
            QueueStatus::Done => "done",
            QueueStatus::Abandoned => "abandoned",
            QueueStatus::Failed => "failed",
        }
    }
}

/// A queue row's status word that gh-sweep does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a queue row's status is `{0}`, which gh-sweep does not know")]
pub struct UnknownQueueStatus(pub String);

impl std::str::FromStr for QueueStatus {
    type Err = UnknownQueueStatus;

    fn from_str(word: &str) -> Result<Self, Self::Err> {
        QueueStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == word)
            .ok_or_else(|| UnknownQueueStatus(word.to_string()))
    }
}

impl std::fmt::Display for QueueStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A merge already queued for this PR, by the status of its queue row.
pub(crate) fn in_flight(status: QueueStatus) -> bool {
    matches!(
        status,
        QueueStatus::Pending | QueueStatus::Claimed | QueueStatus::Done
    )
}
