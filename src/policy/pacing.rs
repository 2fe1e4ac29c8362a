//! Write pacing at GitHub's documented ceilings for content creation, and what the limits let a
//! run write now. GitHub's "Rate limits for the REST API" ("About secondary rate limits"): in
//! general no more than 80 content-generating requests a minute and 500 an hour, counting the
//! web interface's actions too; they are the account's, not the process's or the token's, so
//! the times passed in are those of every run acting as the same account (the store's
//! journal). On top of them, at least the configured interval between two writes.
//!
//! Pure: the times of earlier writes, the limits and the clock in; a wait, or why the rest of
//! the writes are held and when they can go on, out. Never sleeps, never reads anything.

use std::fmt;
use std::time::Duration;

use chrono::{DateTime, Utc};

pub(crate) const PER_MINUTE: usize = 80;
pub(crate) const PER_HOUR: usize = 500;
/// How far back an account's earlier writes matter: the longest window of a ceiling.
pub(crate) const WINDOW: Duration = Duration::from_secs(3600);

/// What asked for a wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Interval,
    PerMinute,
    PerHour,
}

impl fmt::Display for Limit {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            Limit::Interval => "the write interval",
            Limit::PerMinute => "GitHub's limit of 80 writes a minute",
            Limit::PerHour => "GitHub's limit of 500 writes an hour",
        })
    }
}

/// How long to wait before the next write, given when the account's earlier writes were sent
/// (ascending: other runs' and this run's alike; older than an hour they change nothing) and
/// the time now. Also says which rule asked for the wait (`None` when there is none).
pub(crate) fn wait(
    sent: &[DateTime<Utc>],
    now: DateTime<Utc>,
    interval: Duration,
) -> (Duration, Option<Limit>) {
    let mut longest = (Duration::ZERO, None);
    let mut consider = |until: DateTime<Utc>, rule: Limit| {
        let wait = (until - now).to_std().unwrap_or_default();
        if wait > longest.0 {
            longest = (wait, Some(rule));
        }
    };
    if let Some(last) = sent.last() {
        consider(later(*last, interval), Limit::Interval);
    }
    for (limit, window, rule) in [
        (PER_MINUTE, Duration::from_secs(60), Limit::PerMinute),
        (PER_HOUR, WINDOW, Limit::PerHour),
    ] {
        if sent.len() >= limit {
            // The write `limit` back must leave the window before another may go.
            consider(later(sent[sent.len() - limit], window), rule);
        }
    }
    longest
}

/// The account's writes as sent by `now`: another host's clock may be ahead of this one, and
/// its writes stamped later than `now` were sent by now (never a wait for this clock to catch
/// up). Ascending stays ascending.
pub(crate) fn sent_by(sent: &[DateTime<Utc>], now: DateTime<Utc>) -> Vec<DateTime<Utc>> {
    sent.iter().map(|time| (*time).min(now)).collect()
}

/// How long a run must wait before the store may admit a write of the account, when the
/// account's journaled writes were sent at `sent` (ascending), `reserved` writes are promised
/// to items whose first write is out (counted as sent `now`: they go out soon, and no other
/// run may take their room), and the write asks for `room` more (an item's first write asks
/// for all of the item's writes, a later one for none: its room was reserved with the
/// first). The check the store makes in the transaction that journals the intent, under the
/// account's lock, so concurrent runs never pass a ceiling together.
pub(crate) fn admission(
    sent: &[DateTime<Utc>],
    reserved: usize,
    now: DateTime<Utc>,
    room: usize,
    interval: Duration,
) -> (Duration, Option<Limit>) {
    let sent = sent_by(sent, now);
    let mut longest = (Duration::ZERO, None);
    let mut consider = |until: DateTime<Utc>, rule: Limit| {
        let wait = (until - now).to_std().unwrap_or_default();
        if wait > longest.0 {
            longest = (wait, Some(rule));
        }
    };
    if let Some(last) = sent.last() {
        consider(later(*last, interval), Limit::Interval);
    }
    let total = sent.len() + reserved + room;
    for (limit, window, rule) in [
        (PER_MINUTE, Duration::from_secs(60), Limit::PerMinute),
        (PER_HOUR, WINDOW, Limit::PerHour),
    ] {
        if total > limit {
            // After the write, at most `limit` may be in the window: the write `total - 1 -
            // limit` places back must have left it (a reserved one leaves a window from now).
            let index = total - 1 - limit;
            let leaves = sent.get(index).copied().unwrap_or(now);
            consider(later(leaves, window), rule);
        }
    }
    longest
}

/// `time` plus `duration`, at the end of time rather than past it.
fn later(time: DateTime<Utc>, duration: Duration) -> DateTime<Utc> {
    chrono::Duration::from_std(duration)
        .ok()
        .and_then(|span| time.checked_add_signed(span))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// The limits a run's writes are held to, beside GitHub's ceilings.
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    /// `--max-writes`: writes to GitHub this run may send.
    pub max_writes: Option<u64>,
    /// What GitHub last said of the core rate limit: requests left, and when it resets.
    pub core: Option<(i64, DateTime<Utc>)>,
    /// The least time between two writes.
    pub interval: Duration,
    /// The longest the run waits for the pacing without asking; `None` when a maintainer saw
    /// the plan's estimate at the prompt and said yes.
    pub max_wait: Option<Duration>,
}

/// Why the rest of a run's writes are held, and when they can go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Held {
    /// `--max-writes` has no room for the next item's writes.
    Cap { cap: u64, sent: u64 },
    /// GitHub's core rate limit has fewer requests left than the next item needs.
    RateLimit { left: i64, reset: DateTime<Utc> },
    /// The pacing would wait longer than `max_wait` before the next item's writes are out.
    Paced {
        rule: Limit,
        until: DateTime<Utc>,
        max_wait: Duration,
    },
}

impl Held {
    /// The reason the items left get in the recap: why, and the time they can go on.
    pub(crate) fn reason(&self, account: &str) -> String {
        match self {
            Held::Cap { .. } => "write cap reached".to_string(),
            Held::RateLimit { left, reset } => format!(
                "GitHub's rate limit has {left} requests left until {}: the rest can go on after that",
                time_text(*reset)
            ),
            Held::Paced { rule, until, .. } => format!(
                "{rule} for {account}: the rest can go on after {}",
                time_text(*until)
            ),
        }
    }

    /// The sentence on the run's stop.
    pub(crate) fn detail(&self, account: &str) -> String {
        match self {
            Held::Cap { cap, sent } => format!("--max-writes {cap} reached after {sent} writes"),
            Held::RateLimit { .. } => self.reason(account),
            Held::Paced { max_wait, .. } => format!(
                "{}; waiting is longer than max_wait ({}), so the run stopped starting writes",
                self.reason(account),
                duration_text(*max_wait)
            ),
        }
    }

    /// When the writes held can go on (`None` for the cap: the maintainer's choice).
    #[cfg(test)]
    pub(crate) fn resume_at(&self) -> Option<DateTime<Utc>> {
        match self {
            Held::Cap { .. } => None,
            Held::RateLimit { reset, .. } => Some(*reset),
            Held::Paced { until, .. } => Some(*until),
        }
    }
}

/// Whether the next item's `writes` writes to GitHub may be started now, oldest first in pool
/// order: the run has sent `sent` writes, the account's writes of the last hour were sent at
/// `recent` (ascending). `None`: start them (waiting as [`wait`] says before each). An item
/// whose writes are not all paid for is not begun, and nor is any item after it.
pub(crate) fn next(
    writes: usize,
    sent: u64,
    recent: &[DateTime<Utc>],
    now: DateTime<Utc>,
    limits: &Limits,
) -> Option<Held> {
    if writes == 0 {
        return None;
    }
    if let Some(cap) = limits.max_writes {
        if sent + writes as u64 > cap {
            return Some(Held::Cap { cap, sent });
        }
    }
    if let Some((left, reset)) = limits.core {
        if left < writes as i64 && reset > now {
            return Some(Held::RateLimit { left, reset });
        }
    }
    let max_wait = limits.max_wait?;
    let (last, rule) = schedule(recent, now, writes, limits.interval);
    let waited = (last - now).to_std().unwrap_or_default();
    match rule {
        Some(rule) if waited > max_wait => Some(Held::Paced {
            rule,
            until: last,
            max_wait,
        }),
        _ => None,
    }
}

/// When the last of `writes` writes could go if each went as soon as the pacing allows, and
/// the rule behind the longest single wait on the way.
fn schedule(
    recent: &[DateTime<Utc>],
    now: DateTime<Utc>,
    writes: usize,
    interval: Duration,
) -> (DateTime<Utc>, Option<Limit>) {
    // Only the last hour's writes (at most the hourly ceiling of them) can hold a write back.
    let keep = recent.len().min(PER_HOUR);
    let mut sent: Vec<DateTime<Utc>> = recent[recent.len() - keep..].to_vec();
    let mut at = now;
    let mut longest = (Duration::ZERO, None);
    for _ in 0..writes {
        let (wait, rule) = wait(&sent, at, interval);
        if wait > longest.0 {
            longest = (wait, rule);
        }
        at = later(at, wait);
        sent.push(at);
        if sent.len() > 2 * PER_HOUR {
            sent.drain(..PER_HOUR);
        }
    }
    (at, longest.1)
}

/// How long `writes` writes take at GitHub's ceilings from `now`, after the account's earlier
/// writes at `recent`; `Some` only when the hourly ceiling is what makes them take long, for
/// the plan's line before the prompt.
pub(crate) fn hourly_estimate(
    recent: &[DateTime<Utc>],
    now: DateTime<Utc>,
    writes: usize,
    interval: Duration,
) -> Option<Duration> {
    let in_hour = recent
        .iter()
        .filter(|time| later(**time, WINDOW) > now)
        .count();
    if in_hour + writes <= PER_HOUR {
        return None;
    }
    let (last, _) = schedule(recent, now, writes, interval);
    Some((last - now).to_std().unwrap_or_default())
}

/// The plan's line for writes that need longer than the hour allows.
pub(crate) fn estimate_text(writes: usize, estimate: Duration) -> String {
    format!(
        "{} writes: about {} at GitHub's limit of 500 writes an hour",
        thousands(writes),
        duration_text(estimate)
    )
}

/// The least time `writes` writes can take at GitHub's ceilings for content creation: the
/// largest of the write interval after each one, 80 a minute, and the 500-an-hour windows
/// (`hourly`, from [`hourly_estimate`], when the hour's writes already sent matter).
pub(crate) fn least_duration(
    writes: usize,
    interval: Duration,
    hourly: Option<Duration>,
) -> Duration {
    let per_interval = interval.saturating_mul(u32::try_from(writes).unwrap_or(u32::MAX));
    let per_minute = Duration::from_secs_f64(writes as f64 * 60.0 / PER_MINUTE as f64);
    per_interval.max(per_minute).max(hourly.unwrap_or_default())
}

/// `2 h 7 min`, `7 min 32 s`, `40 s`: to the second below an hour.
pub(crate) fn precise_duration_text(duration: Duration) -> String {
    let seconds = duration.as_secs() + u64::from(duration.subsec_nanos() > 0);
    match (seconds / 3600, (seconds % 3600) / 60, seconds % 60) {
        (0, 0, seconds) => format!("{seconds} s"),
        (0, minutes, 0) => format!("{minutes} min"),
        (0, minutes, seconds) => format!("{minutes} min {seconds} s"),
        (hours, 0, _) => format!("{hours} h"),
        (hours, minutes, _) => format!("{hours} h {minutes} min"),
    }
}

/// `2 h 50 min`, `7 min`, `40 s`.
pub(crate) fn duration_text(duration: Duration) -> String {
    let seconds = duration.as_secs();
    if seconds < 60 {
        return format!("{seconds} s");
    }
    let rounded = (seconds + 30) / 60;
    match (rounded / 60, rounded % 60) {
        (0, minutes) => format!("{minutes} min"),
        (hours, 0) => format!("{hours} h"),
        (hours, minutes) => format!("{hours} h {minutes} min"),
    }
}

fn thousands(number: usize) -> String {
    let digits = number.to_string();
    let mut text = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

fn time_text(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests;
