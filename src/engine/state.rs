//! What a run has found so far: each item's outcome, why it stopped, what it sent. Kept
//! outside the phases so that a store failure in mid-run still ends with the recap of it.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::item::ItemRef;
use crate::policy::disposition::Disposition;
use crate::policy::recap::{Outcome, Phase, Planned, Stop};

pub(super) struct State {
    /// The run's id in the store: its settlements are fenced on this run's heartbeat.
    pub(super) run_id: i64,
    pub(super) outcomes: BTreeMap<ItemRef, Outcome>,
    pub(super) stopped: Option<Stop>,
    pub(super) stop_detail: Option<String>,
    pub(super) exit_override: Option<i32>,
    /// The item whose write was sent and whose outcome is not journaled yet: if the store
    /// fails now, that write's outcome is unknown.
    pub(super) in_flight: Option<ItemRef>,
    /// The writes sent for each item that completed with writes, for the recap.
    pub(super) sent: BTreeMap<String, Vec<String>>,
    /// When the run started, for the recap.
    pub(super) started_at: DateTime<Utc>,
    /// The GitHub account the run's writes count against, once the run will write there.
    pub(super) account: Option<String>,
    /// Whether an item was left unfinished because another run wrote it since this run read
    /// it: unfinished work, for the exit code.
    pub(super) overtaken: bool,
    /// What `classify` would write, item by item: the JSON recap's `planned`, as a dry run's
    /// (a classified item is completed, so the phases never hold it as pending).
    pub(super) classified: Vec<Planned>,
}

/// What a run has found so far, kept outside its phases so that a store failure in mid-run
/// (disk full, a lock held past the busy timeout) still ends with the recap of it.
pub(super) struct RunProgress {
    pub(super) state: State,
    pub(super) pool: Vec<ItemRef>,
    pub(super) pool_complete: bool,
    pub(super) notes: Vec<String>,
    /// Whether earlier writes of unknown outcome block items of this run.
    pub(super) blocked: bool,
    /// Why the read phase stopped before the pool's end at the kind's cap on operations:
    /// the items read are still written, then the run stops as at the write cap.
    pub(super) read_capped: Option<String>,
}

/// Whether an error came from the store (SQLite) rather than from anything else.
pub(super) fn store_failure(error: &anyhow::Error) -> bool {
    crate::store::is_failure(error)
}

impl State {
    pub(super) fn stop(&mut self, stop: Stop, detail: String) {
        self.stopped = Some(stop);
        self.stop_detail = Some(detail);
    }

    pub(super) fn completed(&mut self, item: &ItemRef, disposition: &Disposition, detail: &str) {
        self.outcomes.insert(
            item.clone(),
            Outcome::Completed {
                disposition: disposition.clone(),
                detail: detail.to_string(),
            },
        );
    }

    /// Completed without its writes: re-read before writing, it is now decided otherwise.
    pub(super) fn changed(&mut self, item: &ItemRef, now: &Disposition, detail: &str) {
        self.outcomes.insert(
            item.clone(),
            Outcome::Changed {
                now: now.clone(),
                detail: detail.to_string(),
            },
        );
    }

    pub(super) fn failed(&mut self, item: &ItemRef, phase: Phase, reason: String) {
        self.outcomes
            .insert(item.clone(), Outcome::Failed { phase, reason });
    }

    pub(super) fn unfinished(&mut self, item: &ItemRef, reason: &str) {
        self.outcomes.insert(
            item.clone(),
            Outcome::Unfinished {
                reason: reason.to_string(),
            },
        );
    }
}
