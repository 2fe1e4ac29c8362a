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

pub mod approval;
pub mod checks;
pub mod docs_only;
pub mod guard;
pub mod method;
pub mod rules;
pub mod state;

pub use approval::{
    approved_at_head, approved_since, reviewers, verdicts, Access, ApprovalVerdict, NotApproved,
    Review,
};
pub use checks::{
    green, green_since, needs_workflow_runs, CheckRun, CheckSuite, Checks, CommitStatus, NotGreen,
    Statuses, WorkflowRun, WorkflowRunsUnread, ACTIONS_APP,
};
pub use docs_only::{docs_only, ChangedFile, NotDocsOnly, FILE_LIST_LIMIT};
pub use guard::{held, in_flight, QueueStatus, UnknownQueueStatus};
pub use method::{
    choose_method, method_allowed, refusal, BranchRules, ClassicProtection, MergeMethod,
    MergeRefusal, MergeSettings, MethodChoice, MethodNotAllowed, NoMethod, CLASSIC_NOTE,
};
pub use rules::{PollRules, Rule, SkippedCountsAs};
pub use state::MergeableState;

pub fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

#[cfg(test)]
mod tests;
