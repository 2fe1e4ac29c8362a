//! The pacing's ceilings, across runs of one account, and what the limits let a run start.

use super::*;

fn start() -> DateTime<Utc> {
    "2026-01-01T00:00:00Z".parse().unwrap()
}

fn at_millis(millis: i64) -> DateTime<Utc> {
    start() + chrono::Duration::milliseconds(millis)
}

fn at(seconds: i64) -> DateTime<Utc> {
    at_millis(seconds * 1000)
}

fn unattended(max_wait: u64) -> Limits {
    Limits {
        max_writes: None,
        core: None,
        interval: Duration::ZERO,
        max_wait: Some(Duration::from_secs(max_wait)),
    }
}

#[test]
fn the_interval_spaces_writes() {
    assert_eq!(
        wait(&[], start(), Duration::from_secs(1)),
        (Duration::ZERO, None)
    );
    let waited = wait(&[at(10)], at_millis(10_400), Duration::from_secs(1));
    assert_eq!(waited, (Duration::from_millis(600), Some(Limit::Interval)));
}

#[test]
fn admission_counts_the_room_an_item_asks_and_the_room_other_items_reserved() {
    // 76 writes in the minute: an item of 2 writes fits, with 2 reserved it does not.
    let sent: Vec<_> = (0..76).map(|n| at_millis(n * 100)).collect();
    let now = at(10);
    assert_eq!(
        admission(&sent, 0, now, 2, Duration::ZERO).0,
        Duration::ZERO
    );
    assert_eq!(
        admission(&sent, 2, now, 2, Duration::ZERO).0,
        Duration::ZERO
    );
    let waited = admission(&sent, 3, now, 2, Duration::ZERO);
    // Room for 2 after 79 counted: the oldest must leave the minute (at 60 s).
    assert_eq!(waited, (Duration::from_secs(50), Some(Limit::PerMinute)));
    // A later write of an item uses its reservation: no room asked, only the ceilings.
    assert_eq!(
        admission(&sent, 4, now, 0, Duration::ZERO).0,
        Duration::ZERO
    );
    // Reservations alone past the ceiling wait a whole window from now.
    let waited = admission(&[], 81, now, 1, Duration::ZERO);
    assert_eq!(waited, (Duration::from_secs(60), Some(Limit::PerMinute)));
    // One write asking for one room is the engine's own wait.
    let full: Vec<_> = (0..80).map(|n| at_millis(n * 500)).collect();
    assert_eq!(
        admission(&full, 0, at(40), 1, Duration::ZERO),
        wait(&full, at(40), Duration::ZERO)
    );
    // The hour: 495 sent, an item of 2 fits, a third item of 2 with 4 reserved waits.
    let hour: Vec<_> = (0..495).map(at).collect();
    let now = at(2400);
    assert_eq!(
        admission(&hour, 2, now, 2, Duration::ZERO).0,
        Duration::ZERO
    );
    let waited = admission(&hour, 4, now, 2, Duration::ZERO);
    assert_eq!(waited.1, Some(Limit::PerHour));
    assert_eq!(waited.0, Duration::from_secs(1200));
}

#[test]
fn writes_stamped_ahead_of_this_clock_count_as_sent_now() {
    // Another host's clock is 5 minutes ahead: its write of a moment ago is stamped at(300).
    // With a 1 s interval this run waits 1 s, never 301 s for its own clock to catch up.
    let now = at(0);
    let ahead = [at(300)];
    assert_eq!(
        admission(&ahead, 0, now, 1, Duration::from_secs(1)),
        (Duration::from_secs(1), Some(Limit::Interval))
    );
    // Eighty of them fill the minute from now, not from five minutes on.
    let full: Vec<_> = (0..80).map(|_| at(300)).collect();
    assert_eq!(
        admission(&full, 0, now, 1, Duration::ZERO),
        (Duration::from_secs(60), Some(Limit::PerMinute))
    );
}

#[test]
fn eighty_a_minute() {
    // 80 writes in the first 40 seconds: the 81st waits for the first to be a minute old.
    let sent: Vec<_> = (0..80).map(|n| at_millis(n * 500)).collect();
    let waited = wait(&sent, at(40), Duration::ZERO);
    assert_eq!(waited, (Duration::from_secs(20), Some(Limit::PerMinute)));
}

#[test]
fn five_hundred_an_hour() {
    let sent: Vec<_> = (0..500).map(|n| at(n * 6)).collect();
    let waited = wait(&sent, at(3000), Duration::ZERO);
    assert_eq!(waited, (Duration::from_secs(600), Some(Limit::PerHour)));
    // Writes older than the hour hold nothing back.
    assert_eq!(wait(&sent, at(3600 + 6), Duration::ZERO).0, Duration::ZERO);
}

/// Two runs of one account (each `writes` long, the second starting `offset` seconds after the
/// first), each waiting as the pacing says over the writes both have journaled, the way the
/// engine asks again after every wait. Returns every write's time.
fn two_runs(first: &[u64], second: &[u64], offset: i64, interval: Duration) -> Vec<DateTime<Utc>> {
    let mut sent: Vec<DateTime<Utc>> = Vec::new();
    // Each run's next attempt and how many of its writes are out.
    let mut runs = [(start(), first, 0usize), (at(offset), second, 0usize)];
    loop {
        let Some(index) = (0..2)
            .filter(|index| runs[*index].2 < runs[*index].1.len())
            .min_by_key(|index| runs[*index].0)
        else {
            return sent;
        };
        let (attempt, gaps, done) = runs[index];
        let (waited, _) = wait(&sent, attempt, interval);
        if waited.is_zero() {
            let place = sent.partition_point(|time| *time <= attempt);
            sent.insert(place, attempt);
            let gap = Duration::from_millis(gaps[done]);
            runs[index] = (later(attempt, gap), gaps, done + 1);
        } else {
            runs[index].0 = later(attempt, waited);
        }
    }
}

/// The most writes any window of `window` holds (half open, starting at a write).
fn most_in_any(window: Duration, sent: &[DateTime<Utc>]) -> usize {
    let mut most = 0;
    let mut end = 0;
    for (start, first) in sent.iter().enumerate() {
        while end < sent.len() && sent[end] < later(*first, window) {
            end += 1;
        }
        most = most.max(end - start);
    }
    most
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    #[test]
    fn no_minute_ever_holds_more_than_eighty(gaps in proptest::collection::vec(0u64..2000, 1..300)) {
        // Whatever the maintainer's interval, following the waits keeps the ceiling.
        let mut sent: Vec<DateTime<Utc>> = Vec::new();
        let mut now = start();
        for gap in gaps {
            now = later(now, Duration::from_millis(gap));
            now = later(now, wait(&sent, now, Duration::ZERO).0);
            sent.push(now);
        }
        proptest::prop_assert!(most_in_any(Duration::from_secs(60), &sent) <= PER_MINUTE);
    }

    #[test]
    fn no_hour_ever_holds_more_than_five_hundred_across_two_runs(
        first in proptest::collection::vec(0u64..3000, 1..700),
        second in proptest::collection::vec(0u64..3000, 1..700),
        offset in 0i64..3600,
    ) {
        // Two cron runs of one account in one hour, the second counting the first's writes
        // from the journal: together they never pass GitHub's hourly or per-minute ceiling.
        let sent = two_runs(&first, &second, offset, Duration::ZERO);
        proptest::prop_assert_eq!(sent.len(), first.len() + second.len());
        proptest::prop_assert!(most_in_any(WINDOW, &sent) <= PER_HOUR);
        proptest::prop_assert!(most_in_any(Duration::from_secs(60), &sent) <= PER_MINUTE);
    }
}

#[test]
fn two_runs_of_seven_hundred_send_five_hundred_in_the_hour() {
    // Without the journal's earlier writes each run would send 500 of its 700 in its hour.
    let sent = two_runs(&[0; 700], &[0; 700], 1800, Duration::from_secs(1));
    assert_eq!(most_in_any(WINDOW, &sent), PER_HOUR);
    let first_hour = sent.iter().filter(|time| **time < at(3600)).count();
    assert_eq!(first_hour, PER_HOUR);
}

#[test]
fn nothing_to_write_is_never_held() {
    let limits = Limits {
        max_writes: Some(1),
        core: Some((0, at(60))),
        ..unattended(0)
    };
    assert_eq!(next(0, 5, &[], start(), &limits), None);
}

#[test]
fn the_cap_holds_an_item_whose_writes_do_not_fit() {
    let limits = Limits {
        max_writes: Some(4),
        ..unattended(600)
    };
    assert_eq!(next(2, 2, &[], start(), &limits), None);
    assert_eq!(
        next(2, 3, &[], start(), &limits),
        Some(Held::Cap { cap: 4, sent: 3 })
    );
}

#[test]
fn the_rate_limit_holds_only_what_it_cannot_pay_before_its_reset() {
    let limits = |core| Limits {
        core: Some(core),
        ..unattended(600)
    };
    let reset = at(300);
    assert_eq!(
        next(2, 0, &[], start(), &limits((1, reset))),
        Some(Held::RateLimit { left: 1, reset })
    );
    assert_eq!(next(2, 0, &[], start(), &limits((2, reset))), None);
    // A reset already past (or now): the limit is whole again.
    assert_eq!(next(2, 0, &[], start(), &limits((0, at(-60)))), None);
    assert_eq!(next(2, 0, &[], start(), &limits((0, start()))), None);
}

#[test]
fn a_wait_past_max_wait_holds_the_rest_until_the_hour_allows() {
    // 500 writes of the account in the last 40 minutes: the next can go in 20 minutes.
    let recent: Vec<_> = (0..500).map(|n| at(-2400 + n)).collect();
    let held = next(2, 0, &recent, start(), &unattended(600)).unwrap();
    assert_eq!(
        held,
        Held::Paced {
            rule: Limit::PerHour,
            until: at(1200 + 1),
            max_wait: Duration::from_secs(600),
        }
    );
    assert_eq!(held.resume_at(), Some(at(1201)));
    assert_eq!(
        held.reason("github.com/octocat"),
        "GitHub's limit of 500 writes an hour for github.com/octocat: the rest can go on after 2026-01-01T00:20:01Z"
    );
    // Long enough a max_wait, or a maintainer who agreed at the prompt: the run waits.
    assert_eq!(next(2, 0, &recent, start(), &unattended(1201)), None);
    let asked = Limits {
        max_wait: None,
        ..unattended(0)
    };
    assert_eq!(next(2, 0, &recent, start(), &asked), None);
}

#[test]
fn a_wait_within_max_wait_is_waited() {
    // A full minute: under a minute's wait, well within ten.
    let recent: Vec<_> = (0..80).map(|n| at_millis(-30_000 + n * 100)).collect();
    assert_eq!(next(1, 0, &recent, start(), &unattended(600)), None);
    assert_eq!(
        next(1, 0, &recent, start(), &unattended(10)),
        Some(Held::Paced {
            rule: Limit::PerMinute,
            until: at(30),
            max_wait: Duration::from_secs(10),
        })
    );
}

#[test]
fn the_plan_says_how_long_writes_past_the_hour_take() {
    assert_eq!(
        hourly_estimate(&[], start(), 500, Duration::from_secs(1)),
        None
    );
    // 1,400 writes a second apart: 500, then 500 more once the first are an hour old, then 400.
    let estimate = hourly_estimate(&[], start(), 1400, Duration::from_secs(1)).unwrap();
    assert_eq!(estimate, Duration::from_secs(2 * 3600 + 399));
    assert_eq!(
        estimate_text(1400, estimate),
        "1,400 writes: about 2 h 7 min at GitHub's limit of 500 writes an hour"
    );
    // Earlier writes of the account count: 450 in the hour leave room for 50.
    let recent: Vec<_> = (0..450).map(|n| at(-1800 + n)).collect();
    assert!(hourly_estimate(&recent, start(), 50, Duration::ZERO).is_none());
    assert!(hourly_estimate(&recent, start(), 51, Duration::ZERO).is_some());
}

#[test]
fn durations_read_as_hours_minutes_and_seconds() {
    assert_eq!(duration_text(Duration::from_secs(40)), "40 s");
    assert_eq!(duration_text(Duration::from_secs(600)), "10 min");
    assert_eq!(duration_text(Duration::from_secs(3599)), "1 h");
    assert_eq!(duration_text(Duration::from_secs(10_200)), "2 h 50 min");
    assert_eq!(thousands(5000), "5,000");
    assert_eq!(thousands(999), "999");
}

/// One unattended run at `start` over `items` items of `per_item` writes, as the engine acts
/// on the policy: each item asks [`next`], each write waits as [`wait`] says (the clock moves
/// instead of sleeping). `core` is what the rate limit has left after the run's reads. Returns
/// how many items it finished.
fn unattended_run(
    sent: &mut Vec<DateTime<Utc>>,
    start: DateTime<Utc>,
    items: usize,
    per_item: usize,
    core: i64,
) -> usize {
    let mut limits = unattended(600);
    limits.interval = Duration::from_secs(1);
    let reset = later(start, WINDOW);
    let mut now = start;
    let mut written = 0u64;
    for item in 0..items {
        limits.core = Some((core - written as i64, reset));
        if next(per_item, written, sent, now, &limits).is_some() {
            return item;
        }
        for _ in 0..per_item {
            now = later(now, wait(sent, now, limits.interval).0);
            sent.push(now);
            written += 1;
        }
    }
    items
}

#[test]
fn benchmark_rows_count_writes_per_hour_and_runs_to_finish_a_pool() {
    // Two runs in one hour, 700 planned writes each (350 items of a label and a comment).
    let mut sent = Vec::new();
    let first = unattended_run(&mut sent, start(), 350, 2, 5000);
    let second = unattended_run(&mut sent, at(1800), 350, 2, 5000);
    let hour = most_in_any(WINDOW, &sent);
    println!(
        "two runs in one hour, 700 planned writes each: {} + {} writes sent, at most {hour} in any hour",
        first * 2,
        second * 2
    );
    assert_eq!((first * 2, second * 2, hour), (500, 0, 500));

    // A 5,000-item stale pool (10,000 writes), 5,000 requests an hour, an hourly cron run
    // that first spends 52 requests on its reads (50 list pages, the repository, the account).
    let mut sent = Vec::new();
    let mut left = 5000;
    let mut runs = 0;
    let mut per_run = Vec::new();
    while left > 0 {
        let done = unattended_run(&mut sent, at(runs * 3600 + 60), left, 2, 5000 - 52);
        assert!(done > 0, "run {runs} wrote nothing");
        per_run.push(done * 2);
        left -= done;
        runs += 1;
    }
    println!(
        "5,000-item stale pool, 5,000 requests an hour: {runs} hourly runs, writes per run {per_run:?}"
    );
    assert_eq!(runs, 10_000 / 500);
    assert!(per_run.iter().all(|writes| *writes == 500));
    assert!(most_in_any(WINDOW, &sent) <= PER_HOUR);
}

/// No wait names no rule: a write long after the last one, past every ceiling, is not "held
/// by the interval" (the plan and the recap say a rule only when it made a write wait).
#[test]
fn no_wait_names_no_rule() {
    let sent = [at(-10)];
    let interval = Duration::from_secs(1);
    assert_eq!(wait(&sent, start(), interval), (Duration::ZERO, None));
    assert_eq!(
        admission(&sent, 0, start(), 1, interval),
        (Duration::ZERO, None)
    );
}

/// A write exactly an hour old no longer counts against the hour, as it no longer holds a
/// write back in [`wait`].
#[test]
fn a_write_an_hour_old_has_left_the_hour() {
    let recent: Vec<_> = (0..500).map(|_| at(-3600)).collect();
    assert_eq!(hourly_estimate(&recent, start(), 1, Duration::ZERO), None);
    assert_eq!(
        wait(&recent, start(), Duration::ZERO),
        (Duration::ZERO, None)
    );
}

/// The estimate keeps each write's place in the hour however the earlier ones were spread:
/// three writes 50 minutes ago and 497 a moment ago let three more go in 10 minutes, and the
/// rest only once the 497 are an hour old.
#[test]
fn the_estimate_holds_every_write_of_the_hour_back() {
    let recent: Vec<_> = (0..500)
        .map(|n| if n < 3 { at(-3000) } else { at(-100) })
        .collect();
    assert_eq!(
        hourly_estimate(&recent, start(), 10, Duration::ZERO),
        Some(Duration::from_secs(3500))
    );
}

#[test]
fn durations_round_up_to_the_second_and_a_minute_reads_as_one() {
    assert_eq!(precise_duration_text(Duration::from_millis(40_500)), "41 s");
    assert_eq!(precise_duration_text(Duration::from_secs(40)), "40 s");
    assert_eq!(duration_text(Duration::from_secs(60)), "1 min");
    assert_eq!(duration_text(Duration::from_secs(59)), "59 s");
}
