//! The stale rules: which open issues and PRs to mark stale, close, unmark or keep. The rules and
//! option names follow actions/stale (in snake_case) with the differences listed in the README:
//! bots and gh-sweep's own writes never count as activity (the token's user, often the
//! maintainer, does), locked items are left alone, and the close clock starts when the stale
//! label was put on. Pure: facts, rules and `now` in; a decision out.
//!
//! One file per question: `rules` (the `[stale]` table), `facts` (what was read about an item),
//! `exemption` (left alone whatever its age), `activity` (what counts as activity after the
//! label), `decide` (mark, close, unmark or keep), `order` (the sweep's order and its cap on
//! operations).

pub(crate) mod activity;
pub(crate) mod branch;
pub(crate) mod decide;
pub(crate) mod exemption;
pub(crate) mod facts;
pub(crate) mod order;
pub(crate) mod outputs;
pub(crate) mod rules;

pub(crate) use activity::{
    activity_possible, is_notification, reconcile_since, unexplained_update, QUIET_SLACK_SECONDS,
};
pub(crate) use branch::branch_deletion;
pub(crate) use decide::{decide, label_date_unknown, Decision, Verdict};
pub(crate) use exemption::{exemption, needs_history};
pub(crate) use facts::{Activity, ActivityKind, HeadBranch, History, ItemFacts, StampOf};
pub(crate) use order::{list_operations, operations_spent, order};
pub(crate) use outputs::{outputs, OutputItem, StaleOutputs};
pub(crate) use rules::{label_addressable, CloseReason, SortBy, StaleRules};

#[cfg(test)]
mod tests;
