//! Which items a long write phase reads again before writing them. Instead
//! of one read per item older than `recheck_after_seconds`, the engine asks GitHub once per
//! window which issues and PRs of the repository changed since they were read (`updated_at`
//! at or after `since`), and only the items whose `updated_at` moved since their own read are
//! read again. Pure: the engine asks, this decides.
//!
//! GitHub's clock against ours: the items' `updated_at` is GitHub's stamp, the read's time is
//! ours, moved onto GitHub's clock by the client where its `Date` showed the two more than the
//! clock slack apart (15 s; within it the client leaves our time as it is). So `since` reaches
//! back by that slack and one second more (`Date` and `since` have whole seconds): a change in
//! the same second as the read, or on a clock a few seconds behind, is never missed. The slack
//! costs no read: an item the list names only because of it still has the `updated_at` its
//! read saw, and is not read again.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};

use super::stale::QUIET_SLACK_SECONDS;

/// How far `since` reaches back before the moment it covers: the clock slack within which
/// the client does not move our time onto GitHub's, and a second for whole-second stamps.
pub(crate) const SINCE_SLACK_SECONDS: i64 = QUIET_SLACK_SECONDS + 1;

/// The `since` that covers every change after `moment` (on GitHub's clock as far as it is
/// known): reaching back by the slack, in whole seconds (GitHub's format has no fraction).
pub(crate) fn since(moment: DateTime<Utc>) -> DateTime<Utc> {
    let back = moment - Duration::seconds(SINCE_SLACK_SECONDS);
    DateTime::from_timestamp(back.timestamp(), 0).unwrap_or(back)
}

/// What GitHub's lists of changed items have shown of one repository, from `from` on: each
/// listed item's newest `updated_at`.
#[derive(Debug, Clone)]
pub(crate) struct Changes {
    from: DateTime<Utc>,
    latest: BTreeMap<u64, DateTime<Utc>>,
    /// A list could not be read: nothing is known, and every item is read again.
    blind: bool,
}

impl Changes {
    /// Nothing seen yet of the changes from `from` on.
    pub(crate) fn new(from: DateTime<Utc>) -> Self {
        Changes {
            from,
            latest: BTreeMap::new(),
            blind: false,
        }
    }

    /// Adds one list's entries (number, `updated_at`), keeping each item's newest.
    pub(crate) fn add(&mut self, entries: impl IntoIterator<Item = (u64, DateTime<Utc>)>) {
        for (number, updated_at) in entries {
            let latest = self.latest.entry(number).or_insert(updated_at);
            *latest = (*latest).max(updated_at);
        }
    }

    /// A list could not be read: from now on nothing is known of the repository's changes.
    pub(crate) fn lose_sight(&mut self) {
        self.blind = true;
    }

    /// Whether a list could not be read.
    pub(crate) fn blind(&self) -> bool {
        self.blind
    }
}

/// Whether an item must be read again before its writes: when the lists name it with an
/// `updated_at` other than the one its read saw (`seen`), or when they cannot tell (they
/// start after `read_since`, the `since` of the item's own read, or one was not read). An item
/// they do not name was not updated since they start: its read stands.
pub(crate) fn must_reread(
    changes: &Changes,
    number: u64,
    seen: DateTime<Utc>,
    read_since: DateTime<Utc>,
) -> bool {
    if changes.blind || changes.from > read_since {
        return true;
    }
    changes
        .latest
        .get(&number)
        .is_some_and(|latest| *latest != seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn since_reaches_back_by_the_slack_in_whole_seconds() {
        assert_eq!(
            since(at("2026-12-01T10:00:00.900Z")),
            at("2026-12-01T09:59:44Z")
        );
        assert_eq!(
            since(at("2026-12-01T10:00:00Z")),
            at("2026-12-01T09:59:44Z")
        );
    }

    #[test]
    fn only_an_item_whose_update_moved_since_its_read_is_read_again() {
        let read = at("2026-12-01T10:00:00Z");
        let seen = at("2026-10-01T08:00:00Z");
        let mut changes = Changes::new(since(read));
        changes.add([(7, at("2026-12-01T10:03:00Z")), (8, seen)]);
        // Changed since its read.
        assert!(must_reread(&changes, 7, seen, since(read)));
        // Listed only because the slack reaches back: the update its read saw.
        assert!(!must_reread(&changes, 8, seen, since(read)));
        // Not listed: not updated since.
        assert!(!must_reread(&changes, 9, seen, since(read)));
    }

    #[test]
    fn a_later_list_keeps_the_newest_update_of_each_item() {
        let read = at("2026-12-01T10:00:00Z");
        let seen = at("2026-10-01T08:00:00Z");
        let mut changes = Changes::new(since(read));
        changes.add([(7, at("2026-12-01T10:03:00Z"))]);
        changes.add([(7, seen)]);
        assert!(must_reread(&changes, 7, seen, since(read)));
    }

    #[test]
    fn lists_that_cannot_tell_read_the_item_again() {
        let read = at("2026-12-01T10:00:00Z");
        let seen = at("2026-10-01T08:00:00Z");
        // The lists start after the item was read: a change in between is not in them.
        let changes = Changes::new(since(read) + Duration::seconds(1));
        assert!(must_reread(&changes, 9, seen, since(read)));
        let mut changes = Changes::new(since(read));
        changes.lose_sight();
        assert!(changes.blind());
        assert!(must_reread(&changes, 9, seen, since(read)));
    }
}
