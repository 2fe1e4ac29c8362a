//! The queue's data, as every backend hands it over: a claimed row, a row a sweep would claim,
//! a row as the in-flight guard sees it, a live lease and who holds it, and the keys and owner
//! names the rows carry. The queue itself (seed 002) is [`super::MergeQueue`].

use chrono::{DateTime, Utc};

use crate::item::RepoRef;
use crate::policy::merge::QueueStatus;

/// A leased row, handed to the worker that claimed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    pub key: String,
    pub kind: String,
    pub repo: String,
    pub pr: u64,
    pub head_sha: Option<String>,
    pub attempts: u32,
    pub owner: String,
    pub leased_until: DateTime<Utc>,
}

/// A row a sweep would claim.
pub struct Pending {
    pub key: String,
    pub repo: String,
    pub pr: u64,
    pub head_sha: Option<String>,
}

/// A queue row as the in-flight guard sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub key: String,
    pub status: QueueStatus,
    pub head_sha: Option<String>,
}

pub const DEFAULT_LEASE_MINUTES: i64 = 30;

/// What a new row says.
pub struct NewRow<'a> {
    pub key: &'a str,
    pub kind: &'a str,
    pub repo: &'a RepoRef,
    pub pr: u64,
    pub head_sha: Option<&'a str>,
    /// Claims before the row is abandoned. A merge row's attempts are governed by the sweep
    /// budget, so it takes the budget's limit rather than seed 002's default of 3.
    pub max_attempts: u32,
}

/// The lease owner that names run `run_id`: what lets the next run tell a lease of a run that
/// died (released at once) from one of a run still at work (waited for).
pub fn run_owner(run_id: i64) -> String {
    format!("run-{run_id}")
}

/// The run a lease owner names, when it names one.
pub fn owner_run(owner: &str) -> Option<i64> {
    owner.strip_prefix("run-")?.parse().ok()
}

/// Who holds a live lease, as far as the store can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Holder {
    /// A run that may still be at work (or one the store cannot tell about): wait for it.
    Alive,
    /// A run of this machine whose process is gone (killed, crashed).
    Dead,
    /// A run that finished without handing the row back.
    Finished,
}

/// A claimed row whose lease has not run out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub key: String,
    pub repo: String,
    pub pr: u64,
    pub head_sha: Option<String>,
    pub owner: String,
    /// The run the owner names, when it names one.
    pub run_id: Option<i64>,
    pub leased_until: DateTime<Utc>,
    pub holder: Holder,
}

/// The merge dedupe key: a new head is new work.
pub fn merge_key(repo: &RepoRef, pr: u64, head_sha: &str) -> String {
    format!("merge:{repo}#{pr}@{head_sha}")
}
