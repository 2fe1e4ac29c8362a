//! Write pacing at GitHub's documented ceilings for content creation: at least the configured
//! interval between two writes (one second by default), at most 80 a minute and 500 an hour.
//! Pure: the times of earlier writes in, how long to wait out.

use std::time::Duration;

pub const PER_MINUTE: usize = 80;
pub const PER_HOUR: usize = 500;

/// How long to wait before the next write, given when the earlier ones were sent (ascending,
/// as offsets from any fixed start) and the time now on the same scale. Also says which rule
/// asked for the wait, for the progress bar.
pub fn wait(sent: &[Duration], now: Duration, interval: Duration) -> (Duration, &'static str) {
    let mut longest = (Duration::ZERO, "");
    let mut consider = |until: Duration, why: &'static str| {
        let wait = until.saturating_sub(now);
        if wait > longest.0 {
            longest = (wait, why);
        }
    };
    if let Some(last) = sent.last() {
        consider(*last + interval, "the write interval");
    }
    for (limit, window, why) in [
        (
            PER_MINUTE,
            Duration::from_secs(60),
            "GitHub's limit of 80 writes a minute",
        ),
        (
            PER_HOUR,
            Duration::from_secs(3600),
            "GitHub's limit of 500 writes an hour",
        ),
    ] {
        if sent.len() >= limit {
            // The write `limit` back must leave the window before another may go.
            consider(sent[sent.len() - limit] + window, why);
        }
    }
    longest
}

/// Whether GitHub's rate limit can pay for `writes` writes to GitHub before the first is sent:
/// the reason in words when it has fewer requests left (`limit`: what it last said, and when it
/// resets) until a reset still to come.
pub fn rate_limit_refuses(
    writes: usize,
    limit: Option<(i64, chrono::DateTime<chrono::Utc>)>,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<String> {
    let (left, reset) = limit?;
    (writes > 0 && left < writes as i64 && reset > now).then(|| {
        format!(
            "{writes} writes are planned but GitHub's rate limit has {left} requests left until {}: run again after that",
            reset.to_rfc3339()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seconds(values: impl IntoIterator<Item = u64>) -> Vec<Duration> {
        values.into_iter().map(Duration::from_secs).collect()
    }

    #[test]
    fn the_interval_spaces_writes() {
        assert_eq!(
            wait(&[], Duration::ZERO, Duration::from_secs(1)).0,
            Duration::ZERO
        );
        let (wait, why) = wait(
            &seconds([10]),
            Duration::from_millis(10_400),
            Duration::from_secs(1),
        );
        assert_eq!(
            (wait, why),
            (Duration::from_millis(600), "the write interval")
        );
    }

    #[test]
    fn eighty_a_minute() {
        // 80 writes in the first 40 seconds: the 81st waits for the first to be a minute old.
        let sent: Vec<Duration> = (0..80).map(|n| Duration::from_millis(n * 500)).collect();
        let (wait, why) = wait(&sent, Duration::from_secs(40), Duration::ZERO);
        assert_eq!(
            (wait, why),
            (
                Duration::from_secs(20),
                "GitHub's limit of 80 writes a minute"
            )
        );
    }

    #[test]
    fn five_hundred_an_hour() {
        let sent: Vec<Duration> = (0..500).map(|n| Duration::from_secs(n * 6)).collect();
        let (wait, why) = wait(&sent, Duration::from_secs(3000), Duration::ZERO);
        assert_eq!(
            (wait, why),
            (
                Duration::from_secs(600),
                "GitHub's limit of 500 writes an hour"
            )
        );
    }

    proptest::proptest! {
        #[test]
        fn no_minute_ever_holds_more_than_eighty(gaps in proptest::collection::vec(0u64..2000, 1..300)) {
            // Whatever the maintainer's interval, following the waits keeps the ceiling.
            let mut sent: Vec<Duration> = Vec::new();
            let mut now = Duration::ZERO;
            for gap in gaps {
                now += Duration::from_millis(gap);
                now += wait(&sent, now, Duration::ZERO).0;
                sent.push(now);
            }
            for (index, start) in sent.iter().enumerate() {
                let in_minute = sent[index..].iter().take_while(|t| **t < *start + Duration::from_secs(60)).count();
                proptest::prop_assert!(in_minute <= PER_MINUTE);
            }
        }
    }

    #[test]
    fn the_rate_limit_refuses_only_what_it_cannot_pay_before_its_reset() {
        let now: chrono::DateTime<chrono::Utc> = "2026-01-01T00:00:00Z".parse().unwrap();
        let later = now + chrono::Duration::minutes(5);
        let earlier = now - chrono::Duration::minutes(5);
        assert!(super::rate_limit_refuses(4, Some((3, later)), now).is_some());
        assert_eq!(super::rate_limit_refuses(4, Some((4, later)), now), None);
        assert_eq!(super::rate_limit_refuses(4, Some((0, earlier)), now), None);
        assert_eq!(super::rate_limit_refuses(4, Some((0, now)), now), None);
        assert_eq!(super::rate_limit_refuses(0, Some((0, later)), now), None);
        assert_eq!(super::rate_limit_refuses(4, None, now), None);
    }
}
