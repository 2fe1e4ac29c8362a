//! GitHub's word for whether and how a PR can merge now: REST's `mergeable_state` on a pull
//! request (`GET /repos/{owner}/{repo}/pulls/{pull_number}`, lowercase) and GraphQL's
//! `PullRequest.mergeStateStatus` (the `MergeStateStatus` enum of GitHub's schema: `BEHIND`,
//! `BLOCKED`, `CLEAN`, `DIRTY`, `DRAFT` (deprecated), `HAS_HOOKS`, `UNKNOWN`, `UNSTABLE`), the
//! same words in capitals. Read into this type at the edge, so the guard decides on variants,
//! never on strings.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeableState {
    /// Mergeable, and every required check and review passes.
    Clean,
    /// Mergeable with passing checks, and pre-receive hooks exist (GitHub Enterprise).
    HasHooks,
    /// Branch protection or a ruleset blocks it (a token that may bypass still merges it).
    Blocked,
    /// The base requires up-to-date branches, and the head is behind.
    Behind,
    /// A merge conflict.
    Dirty,
    /// A draft (GitHub deprecated this word for `isDraft`, but REST still sends it).
    Draft,
    /// Mergeable, but a check or commit status is not passing.
    Unstable,
    /// GitHub is still computing it.
    Unknown,
    /// A word GitHub may add later: never merged on.
    Other(String),
}

impl MergeableState {
    /// GitHub's word in either case; `None` for an empty one (GitHub sent nothing to go by).
    pub fn parse(word: &str) -> Option<MergeableState> {
        let word = word.trim();
        if word.is_empty() {
            return None;
        }
        Some(match word.to_ascii_lowercase().as_str() {
            "clean" => MergeableState::Clean,
            "has_hooks" => MergeableState::HasHooks,
            "blocked" => MergeableState::Blocked,
            "behind" => MergeableState::Behind,
            "dirty" => MergeableState::Dirty,
            "draft" => MergeableState::Draft,
            "unstable" => MergeableState::Unstable,
            "unknown" => MergeableState::Unknown,
            other => MergeableState::Other(other.to_string()),
        })
    }

    /// REST's word for it, as the recap quotes it.
    pub fn word(&self) -> &str {
        match self {
            MergeableState::Clean => "clean",
            MergeableState::HasHooks => "has_hooks",
            MergeableState::Blocked => "blocked",
            MergeableState::Behind => "behind",
            MergeableState::Dirty => "dirty",
            MergeableState::Draft => "draft",
            MergeableState::Unstable => "unstable",
            MergeableState::Unknown => "unknown",
            MergeableState::Other(word) => word,
        }
    }
}

impl fmt::Display for MergeableState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_apis_words_read_as_one_state() {
        for (rest, graphql) in [
            ("clean", "CLEAN"),
            ("has_hooks", "HAS_HOOKS"),
            ("blocked", "BLOCKED"),
            ("behind", "BEHIND"),
            ("dirty", "DIRTY"),
            ("draft", "DRAFT"),
            ("unstable", "UNSTABLE"),
            ("unknown", "UNKNOWN"),
        ] {
            let state = MergeableState::parse(rest).unwrap();
            assert_eq!(MergeableState::parse(graphql), Some(state.clone()));
            assert_eq!(state.word(), rest);
            // Display is the same word.
            assert_eq!(state.to_string(), rest);
            assert!(!matches!(state, MergeableState::Other(_)), "{rest}");
        }
        assert_eq!(MergeableState::parse(""), None);
        assert_eq!(
            MergeableState::parse("QUEUED"),
            Some(MergeableState::Other("queued".into()))
        );
    }
}
