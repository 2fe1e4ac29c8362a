//! Backoff after a failed merge: when a PR may be tried again. Pure. The seed-000 mode is a
//! fixed window after a failed merge of the same head; the seed-001 per-trigger budget joins
//! it with `sweep`.

use chrono::{DateTime, Duration, Utc};

use super::merge::short;

/// A failed merge of this PR. Only a failure of the same head backs off: a new head is a new
/// trigger (seed 000's worst case, a fixed PR waiting the whole window, does not happen here).
#[derive(Clone, Debug)]
pub struct Failure {
    pub head_sha: String,
    pub failed_at: DateTime<Utc>,
}

pub(crate) fn backed_off(
    failures: &[Failure],
    head_sha: &str,
    window: Duration,
    now: DateTime<Utc>,
) -> Option<String> {
    failures
        .iter()
        .filter(|failure| failure.head_sha == head_sha && now - failure.failed_at < window)
        .max_by_key(|failure| failure.failed_at)
        .map(|failure| {
            let minutes = (now - failure.failed_at).num_minutes();
            // Rounded up: "retry in 0 min" would be wrong while the window still stands.
            let left = ((window - (now - failure.failed_at)).num_seconds() + 59) / 60;
            format!(
                "merge of {} failed {minutes} min ago; retry in {left} min",
                short(head_sha)
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 10, 12, 12, 0, 0).unwrap()
    }

    #[test]
    fn a_failure_ten_minutes_old_backs_off() {
        let failures = [Failure {
            head_sha: "pr-7-head".into(),
            failed_at: now() - Duration::minutes(10),
        }];
        let why = backed_off(&failures, "pr-7-head", Duration::hours(6), now()).unwrap();
        assert_eq!(
            why,
            "merge of pr-7-head failed 10 min ago; retry in 350 min"
        );
    }

    #[test]
    fn the_window_ends_exactly_at_its_length() {
        let at = |age: Duration| {
            backed_off(
                &[Failure {
                    head_sha: "pr-7-head".into(),
                    failed_at: now() - age,
                }],
                "pr-7-head",
                Duration::hours(6),
                now(),
            )
        };
        assert_eq!(at(Duration::hours(6)), None, "6 h old: the window is over");
        assert_eq!(
            at(Duration::hours(6) - Duration::seconds(1)).as_deref(),
            Some("merge of pr-7-head failed 359 min ago; retry in 1 min")
        );
    }

    #[test]
    fn a_failure_five_minutes_past_the_window_does_not_block() {
        let failures = [Failure {
            head_sha: "pr-7-head".into(),
            failed_at: now() - Duration::minutes(6 * 60 + 5),
        }];
        assert_eq!(
            backed_off(&failures, "pr-7-head", Duration::hours(6), now()),
            None
        );
    }

    #[test]
    fn a_new_head_after_a_failure_is_not_backed_off() {
        let failures = [Failure {
            head_sha: "pr-7-head".into(),
            failed_at: now() - Duration::minutes(10),
        }];
        assert_eq!(
            backed_off(&failures, "pr-7-head-2", Duration::hours(6), now()),
            None
        );
    }
}
