//! Where a run notices SIGINT or SIGTERM (caught by `crate::signals`): before each item's
//! reads, before the prompt, at the prompt, before each item's first write, and during every
//! pacing wait. An item whose writes have begun is finished when only a short wait stands
//! between them (its few writes are one unit, as the journal's first-intent check treats
//! them); a longer wait between them is cut short and the item left unfinished with what was
//! sent. The write in flight always gets its outcome journaled.

use std::time::{Duration, Instant};

use super::State;
use crate::policy::recap::Stop;

impl State {
    /// Whether a signal asked the run to stop. The first time, stops the run and says where
    /// (`at`), with the signal's own exit code for the recap.
    pub(super) fn interrupted(&mut self, at: &str) -> bool {
        let Some(signal) = crate::signals::received() else {
            return false;
        };
        if self.stopped != Some(Stop::Interrupted) {
            self.stop(
                Stop::Interrupted,
                format!(
                    "{} received {at}; the items not reached are left for the rerun",
                    signal.name()
                ),
            );
            self.exit_override = Some(signal.exit_code());
        }
        true
    }
}

/// Sleeps `wait` (the pacing between writes). When `stoppable` (nothing of the item is
/// written yet, or the wait is longer than a short grace), wakes early if a signal arrives and
/// returns true; otherwise the whole wait is kept, so an item's writes end whole.
pub(super) fn sleep(wait: Duration, stoppable: bool) -> bool {
    if !stoppable {
        std::thread::sleep(wait);
        return false;
    }
    let until = Instant::now() + wait;
    loop {
        if crate::signals::received().is_some() {
            return true;
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}
