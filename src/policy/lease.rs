//! What becomes of a sweep's lease on a queue row, decided from what the attempt came to, and
//! who holds a lease. Pure: the engine turns a [`LeaseOutcome`] into the store's calls.

use std::fmt;

use super::disposition::{Disposition, Skip};

/// Who holds a lease: a run (`run-N`, once the run is recorded) or, before that, a sweep's
/// process. The store keeps it as text; the engine carries it as this type.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Owner(String);

impl Owner {
    /// The owner that names run `run_id`: what lets the next run tell a lease of a run that
    /// died (released at once) from one of a run still at work (waited for).
    pub fn run(run_id: i64) -> Self {
        Owner(format!("run-{run_id}"))
    }

    /// An owner as the store spells it.
    pub fn new(owner: impl Into<String>) -> Self {
        Owner(owner.into())
    }

    /// As the store spells it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What the store does with a leased row once its attempt is over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeaseOutcome {
    /// The merge went through: the row is done, and the PR's rows that waited for the same
    /// commit are folded into it.
    Complete,
    /// Not now: the row goes back, its attempt counted.
    Release,
    /// Not now, and nothing was tried (GitHub was still computing): the row goes back and its
    /// attempt is not counted.
    ReleaseUnattempted,
    /// The trigger ends: the row is abandoned.
    Abandon,
    /// GitHub refused the merge: the row failed, with GitHub's words, for the backoff.
    Fail { error: String },
}

/// What a claimed PR's attempt came to.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Attempt<'a> {
    /// The read decided, nothing was written: the disposition says what.
    Decided(&'a Disposition),
    /// The merge was written.
    Merged,
    /// GitHub refused the merge, in these words.
    Refused(&'a str),
}

/// The lease's outcome for an attempt; `None` leaves the row to another settlement: a PR found
/// merged on GitHub has every row settled as merged, and a planned merge waits for its write.
pub(crate) fn outcome(attempt: Attempt<'_>) -> Option<LeaseOutcome> {
    match attempt {
        Attempt::Merged => Some(LeaseOutcome::Complete),
        Attempt::Refused(error) => Some(LeaseOutcome::Fail {
            error: error.to_string(),
        }),
        Attempt::Decided(Disposition::Defer { charged: true }) => Some(LeaseOutcome::Release),
        Attempt::Decided(Disposition::Defer { charged: false }) => {
            Some(LeaseOutcome::ReleaseUnattempted)
        }
        Attempt::Decided(Disposition::Skip(Skip::AlreadyMerged) | Disposition::Merge) => None,
        Attempt::Decided(_) => Some(LeaseOutcome::Abandon),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::merge::Rule;

    #[test]
    fn a_written_merge_completes_and_a_refused_one_fails_with_the_words() {
        assert_eq!(outcome(Attempt::Merged), Some(LeaseOutcome::Complete));
        assert_eq!(
            outcome(Attempt::Refused("Pull Request is not mergeable")),
            Some(LeaseOutcome::Fail {
                error: "Pull Request is not mergeable".into()
            })
        );
    }

    #[test]
    fn a_deferral_gives_the_row_back_counted_or_not() {
        let charged = Disposition::Defer { charged: true };
        let free = Disposition::Defer { charged: false };
        assert_eq!(
            outcome(Attempt::Decided(&charged)),
            Some(LeaseOutcome::Release)
        );
        assert_eq!(
            outcome(Attempt::Decided(&free)),
            Some(LeaseOutcome::ReleaseUnattempted)
        );
    }

    #[test]
    fn every_skip_but_merged_ends_the_trigger() {
        for skip in [
            Skip::NotOpen,
            Skip::HeadMoved,
            Skip::Held,
            Skip::ChangesRequested,
            Skip::MergeQueue,
            Skip::NoMergeMethod,
        ] {
            let disposition = Disposition::Skip(skip);
            assert_eq!(
                outcome(Attempt::Decided(&disposition)),
                Some(LeaseOutcome::Abandon),
                "{skip:?}"
            );
        }
        let ineligible = Disposition::Ineligible(Rule::Green);
        assert_eq!(
            outcome(Attempt::Decided(&ineligible)),
            Some(LeaseOutcome::Abandon)
        );
    }

    #[test]
    fn a_pr_found_merged_and_a_planned_merge_leave_the_row_to_another_settlement() {
        let merged = Disposition::Skip(Skip::AlreadyMerged);
        assert_eq!(outcome(Attempt::Decided(&merged)), None);
        assert_eq!(outcome(Attempt::Decided(&Disposition::Merge)), None);
    }

    #[test]
    fn a_run_owner_is_spelled_as_the_store_spells_it() {
        assert_eq!(Owner::run(7).as_str(), "run-7");
        // Whatever formats an owner (a message, a log line) takes it through Display.
        assert_eq!(Owner::run(7).to_string(), "run-7");
        assert_eq!(Owner::run(7), Owner::new(crate::store::queue::run_owner(7)));
    }
}
