//! What a kind of run decided for an item, as a type. The policies return it, the engine acts
//! on it and counts it by variant, and the words a maintainer reads (the recap's
//! `disposition`, the plan table, `classify`'s lines) are rendered from it here, in one place:
//! rewording one changes no decision.

use std::fmt;

use super::merge::Rule;
use super::stale;

/// One item's disposition, for every kind of run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Disposition {
    /// `stale-sweep` and `classify stale`.
    Stale(stale::Verdict),
    /// `poll` and `sweep` leave the PR alone this time, for the reason named.
    Skip(Skip),
    /// `poll`: the first eligibility rule the PR does not meet.
    Ineligible(Rule),
    /// `poll`: eligible, so it is queued as an approved merge.
    EnqueueMerge,
    /// `sweep`: not now; tried again after the backoff. `charged` says whether the attempt
    /// counts against the trigger's budget.
    Defer { charged: bool },
    /// `sweep`: the guard passed; merged with the head `sha`.
    Merge,
}

/// Why `poll` or `sweep` skips a PR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    Held,
    AlreadyMerged,
    NotOpen,
    Draft,
    InFlight,
    BackedOff,
    HeadMoved,
    ChangesRequested,
    MergeQueue,
    /// Linear history rules out a merge commit and the repository allows no other method.
    NoMergeMethod,
}

impl Skip {
    fn words(self) -> &'static str {
        match self {
            Skip::Held => "held",
            Skip::AlreadyMerged => "already merged",
            Skip::NotOpen => "not open",
            Skip::Draft => "draft",
            Skip::InFlight => "in flight",
            Skip::BackedOff => "backed off",
            Skip::HeadMoved => "head moved",
            Skip::ChangesRequested => "changes requested",
            Skip::MergeQueue => "merge queue",
            Skip::NoMergeMethod => "no merge method",
        }
    }
}

impl From<stale::Verdict> for Disposition {
    fn from(disposition: stale::Verdict) -> Self {
        Disposition::Stale(disposition)
    }
}

impl fmt::Display for Disposition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Disposition::Stale(stale) => write!(f, "{stale}"),
            Disposition::Skip(skip) => write!(f, "skip: {}", skip.words()),
            Disposition::Ineligible(rule) => write!(f, "ineligible: {}", rule.name()),
            Disposition::EnqueueMerge => write!(f, "enqueue-merge"),
            Disposition::Defer { charged: true } => write!(f, "defer"),
            Disposition::Defer { charged: false } => write!(f, "defer (no attempt spent)"),
            Disposition::Merge => write!(f, "merge"),
        }
    }
}

impl fmt::Display for stale::Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            stale::Verdict::MarkStale => write!(f, "mark-stale"),
            stale::Verdict::Close => write!(f, "close"),
            stale::Verdict::Unmark => write!(f, "unmark"),
            stale::Verdict::Keep => write!(f, "keep"),
            stale::Verdict::Exempt(why) => write!(f, "exempt: {why}"),
            stale::Verdict::Skip(why) => write!(f, "skip: {why}"),
        }
    }
}

/// The recap's disposition for an item whose writes were not sent because a re-read before
/// writing found it decided otherwise.
pub(crate) fn changed_since_read(now: &Disposition) -> String {
    format!("changed since read: now {now}")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// Every disposition without free text, with the words the recap has always shown.
    fn every_word() -> Vec<(Disposition, &'static str)> {
        use stale::Verdict as S;
        vec![
            (S::MarkStale.into(), "mark-stale"),
            (S::Close.into(), "close"),
            (S::Unmark.into(), "unmark"),
            (S::Keep.into(), "keep"),
            (Disposition::Skip(Skip::Held), "skip: held"),
            (
                Disposition::Skip(Skip::AlreadyMerged),
                "skip: already merged",
            ),
            (Disposition::Skip(Skip::NotOpen), "skip: not open"),
            (Disposition::Skip(Skip::Draft), "skip: draft"),
            (Disposition::Skip(Skip::InFlight), "skip: in flight"),
            (Disposition::Skip(Skip::BackedOff), "skip: backed off"),
            (Disposition::Skip(Skip::HeadMoved), "skip: head moved"),
            (
                Disposition::Skip(Skip::ChangesRequested),
                "skip: changes requested",
            ),
            (Disposition::Skip(Skip::MergeQueue), "skip: merge queue"),
            (
                Disposition::Skip(Skip::NoMergeMethod),
                "skip: no merge method",
            ),
            (
                Disposition::Ineligible(Rule::DocsOnly),
                "ineligible: docs-only",
            ),
            (Disposition::Ineligible(Rule::Green), "ineligible: green"),
            (
                Disposition::Ineligible(Rule::ApprovedAtHead),
                "ineligible: approved-at-head",
            ),
            (Disposition::EnqueueMerge, "enqueue-merge"),
            (Disposition::Defer { charged: true }, "defer"),
            (
                Disposition::Defer { charged: false },
                "defer (no attempt spent)",
            ),
            (Disposition::Merge, "merge"),
        ]
    }

    #[test]
    fn each_disposition_renders_the_words_the_recap_shows() {
        for (disposition, words) in every_word() {
            assert_eq!(disposition.to_string(), words, "{disposition:?}");
        }
        let exempt: Disposition = stale::Verdict::Exempt("label `pinned`".into()).into();
        assert_eq!(exempt.to_string(), "exempt: label `pinned`");
        let skip: Disposition = stale::Verdict::Skip("not open".into()).into();
        assert_eq!(skip.to_string(), "skip: not open");
        assert_eq!(
            changed_since_read(&Disposition::Skip(Skip::Held)),
            "changed since read: now skip: held"
        );
    }

    #[test]
    fn no_two_dispositions_share_their_words() {
        // The words name the decision: two variants rendered alike could not be told apart in
        // the recap (a stale skip's free text aside, which only `stale-sweep` shows).
        let words: BTreeSet<&str> = every_word().iter().map(|(_, words)| *words).collect();
        assert_eq!(words.len(), every_word().len());
    }
}
