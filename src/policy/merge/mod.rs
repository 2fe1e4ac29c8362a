//! Merge eligibility for `poll` (seed 000): the guards in their fixed order (held, in flight,
//! backoff) and the rules of `[poll] rules` (docs-only, green, approved at the head), each
//! failing closed: a missing, truncated or unreadable fact means "not eligible", with that
//! reason.
//! Pure: facts in, the first unmet condition out, in words.
//!
//! These rules are GitHub's: checks are judged per (app, workflow) and name, with the
//! head's check suites (a suite waiting for approval, or one queued with no runs, which an app
//! may leave forever); commit statuses by their combined state; approvals only from accounts
//! with write access; the branch's rules (required checks, the merge queue, merge methods).
//!
//! One file per decision: `rules` (the `[poll]` table), `guard` (held, in flight), `docs_only`,
//! `checks` (green), `approval` (approved at the head), `method` (which merge method the
//! repository and its branch allow, and what GitHub's refusal of a merge means).

pub(crate) mod approval;
pub(crate) mod checks;
pub(crate) mod docs_only;
pub(crate) mod guard;
pub(crate) mod method;
pub(crate) mod rules;
pub(crate) mod state;

pub(crate) use approval::{
    approved_at_head, approved_since, reviewers, Access, ApprovalVerdict, Review,
};
#[cfg(test)]
pub(crate) use checks::ACTIONS_APP;
pub(crate) use checks::{
    green, green_since, needs_workflow_runs, CheckRun, CheckSuite, Checks, CommitStatus, NotGreen,
    Statuses, WorkflowRun, WorkflowRunsUnread,
};
#[cfg(test)]
pub(crate) use docs_only::NotDocsOnly;
pub(crate) use docs_only::{docs_only, ChangedFile};
pub(crate) use guard::{held, in_flight, QueueStatus, UnknownQueueStatus};
#[cfg(test)]
pub(crate) use method::method_allowed;
pub(crate) use method::{
    choose_method, refusal, BranchRules, ClassicProtection, MergeMethod, MergeRefusal,
    MergeSettings, NoMethod,
};
pub(crate) use rules::{PollRules, Rule, SkippedCountsAs};
pub(crate) use state::MergeableState;

pub(crate) fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

#[cfg(test)]
mod tests;
