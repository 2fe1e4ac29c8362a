//! The one clock. Two readings, kept apart on purpose:
//!
//! - [`Clock::now`]: the instant decisions are taken at (idle days, days stale, backoff
//!   windows). `--now` and a snapshot's capture time fix it, for every decision of the run,
//!   the first read and the re-read before a write alike.
//! - [`Clock::wall`] (and [`wall`] for layers that hold no clock): when things happen, for
//!   what other runs compare (the journal, leases, run stamps, rate-limit resets). Always the
//!   system's: a run that judges as of `--now` still records when it really ran.
//!
//! This file is the only caller of `Utc::now()`.

use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, Utc};

/// How far this host's clock is off, in milliseconds: always 0 but in gh-sweep's own tests,
/// which move one host's clock (`GH_SWEEP_TEST_CLOCK_SKEW`, debug builds only) to show that
/// nothing another run compares depends on it.
static SKEW_MS: AtomicI64 = AtomicI64::new(0);

/// The system's time.
pub fn wall() -> DateTime<Utc> {
    Utc::now() + chrono::Duration::milliseconds(SKEW_MS.load(Ordering::Relaxed))
}

/// Moves this process's wall clock by `seconds` (a test standing for a host whose clock is
/// off).
pub fn skew_for_tests(seconds: i64) {
    SKEW_MS.store(seconds.saturating_mul(1000), Ordering::Relaxed);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    fixed: Option<DateTime<Utc>>,
}

impl Clock {
    /// Decisions at the system's time.
    pub fn system() -> Self {
        Clock { fixed: None }
    }

    /// Decisions at `at`, whatever the time (`--now`, a snapshot's capture time).
    pub fn fixed(at: DateTime<Utc>) -> Self {
        Clock { fixed: Some(at) }
    }

    /// The instant decisions are taken at.
    pub fn now(&self) -> DateTime<Utc> {
        self.fixed.unwrap_or_else(wall)
    }

    /// When things happen: the system's time.
    pub fn wall(&self) -> DateTime<Utc> {
        wall()
    }

    /// Whether decisions are taken at a fixed instant.
    pub fn is_fixed(&self) -> bool {
        self.fixed.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_clock_fixes_decisions_but_not_records() {
        let at: DateTime<Utc> = "2020-01-02T03:04:05Z".parse().unwrap();
        let clock = Clock::fixed(at);
        assert_eq!(clock.now(), at);
        assert!(clock.is_fixed());
        assert!(clock.wall() > at);
        let system = Clock::system();
        assert!(!system.is_fixed());
        assert!(system.now() > at);
    }
}
