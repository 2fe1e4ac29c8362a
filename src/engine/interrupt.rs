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
///
/// `left` is told the whole seconds still to wait (rounded up) each time they change: a wait's
/// countdown on the progress bar.
pub(super) fn sleep(wait: Duration, stoppable: bool, mut left: impl FnMut(u64)) -> bool {
    let until = Instant::now() + wait;
    let mut shown = None;
    loop {
        if stoppable && crate::signals::received().is_some() {
            return true;
        }
        let rest = until.saturating_duration_since(Instant::now());
        if rest.is_zero() {
            return false;
        }
        let seconds = seconds_left(rest);
        if shown != Some(seconds) {
            shown = Some(seconds);
            left(seconds);
        }
        std::thread::sleep(rest.min(Duration::from_millis(50)));
    }
}

/// The whole seconds of `rest`, rounded up: a wait of 0.2 s still shows "1s".
fn seconds_left(rest: Duration) -> u64 {
    rest.as_secs() + u64::from(rest.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_counts_down_in_whole_seconds_rounded_up() {
        assert_eq!(seconds_left(Duration::from_millis(40_200)), 41);
        assert_eq!(seconds_left(Duration::from_secs(40)), 40);
        assert_eq!(seconds_left(Duration::from_millis(1)), 1);
        let mut told = Vec::new();
        assert!(!sleep(Duration::from_millis(300), false, |left| told.push(left)));
        assert_eq!(told, [1], "told once per second left, never 0");
    }

    /// With no signal, a wait that a signal could cut short is kept whole all the same.
    #[test]
    fn a_stoppable_wait_with_no_signal_is_kept_whole() {
        let mut told = Vec::new();
        assert!(!sleep(Duration::from_millis(120), true, |left| told.push(left)));
        assert_eq!(told, [1]);
    }
}
