//! The writes a policy can ask for. Plain data: the engine sends them, the recap names them.

use std::fmt;

/// One change a run makes: a request to GitHub, or a row in the store's queue.
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
        reason: Option<String>,
    },
    /// `PUT /pulls/{n}/merge` with `sha` = the checked head: GitHub refuses if the head moved.
    Merge {
        sha: String,
        method: String,
    },
    /// Local: an approved merge of this head into the queue (seed 002). Never sent to GitHub.
    Enqueue {
        key: String,
        head_sha: String,
    },
}

impl Write {
    /// How the journal names the write: enough to check on GitHub later whether it happened
    /// (a comment by its marker).
    pub fn journal_text(&self) -> String {
        match self {
            Write::Comment { marker, .. } => format!("comment {marker}"),
            other => other.to_string(),
        }
    }

    /// Whether the write stays in the store rather than going to GitHub.
    pub fn is_local(&self) -> bool {
        matches!(self, Write::Enqueue { .. })
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
            Write::AddLabels { labels } => write!(f, "label +{}", labels.join(", +")),
            Write::RemoveLabel { label } => write!(f, "label -{label}"),
            Write::Comment { .. } => write!(f, "comment"),
            Write::Close {
                reason: Some(reason),
            } => write!(f, "close ({reason})"),
            Write::Close { reason: None } => write!(f, "close"),
            Write::Merge { sha, method } => {
                write!(f, "merge {} ({method})", crate::policy::merge::short(sha))
            }
            Write::Enqueue { head_sha, .. } => write!(
                f,
                "enqueue merge of {}",
                crate::policy::merge::short(head_sha)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_round_trips_through_a_comment() {
        let Write::Comment { body, .. } = comment("Closing.", "close") else {
            unreachable!()
        };
        assert_eq!(marker_in(&body).as_deref(), Some("close"));
        assert_eq!(marker_in("a human comment"), None);
    }
}
