//! The order a stale sweep takes its items in, and the operations a run may spend, both as
//! actions/stale has them: `sort_by` (created, updated, comments) with `ascending`, and
//! `operations_per_run` counted per request (one per page of the list, one per read of an
//! item's events, comments, timeline or own entry, one per write).

use std::collections::BTreeSet;

use super::{ItemFacts, SortBy, StaleRules};

/// How many items a page of GitHub's issue list holds (`per_page=100`).
pub(crate) const LIST_PAGE: u64 = 100;

/// Puts `entries` in the order the rules ask for: by `sort_by`, oldest (or fewest comments)
/// first when `ascending`, ties by number; an entry without facts (one that did not parse)
/// goes by its number alone. The default (created, ascending) is the order GitHub's list was
/// asked for, and is kept as GitHub gave it. Items in `first` (those the last capped run left
/// unfinished) come before all others, in the same order among themselves.
pub(crate) fn order<T>(
    entries: &mut [T],
    rules: &StaleRules,
    first: &BTreeSet<u64>,
    number: impl Fn(&T) -> u64,
    facts: impl Fn(&T) -> Option<&ItemFacts>,
) {
    let sort = rules.sort();
    let carried = |entry: &T| !first.contains(&number(entry));
    if sort == SortBy::Created && rules.ascending {
        entries.sort_by_key(|entry| carried(entry));
        return;
    }
    let key = |entry: &T| -> (i64, u64) {
        let value = facts(entry).map_or(0, |facts| match sort {
            SortBy::Created => facts.created_at.timestamp(),
            SortBy::Updated => facts.updated_at.timestamp(),
            SortBy::Comments => i64::try_from(facts.comments).unwrap_or(i64::MAX),
        });
        (value, number(entry))
    };
    entries.sort_by(|a, b| {
        let by_rules = if rules.ascending {
            key(a).cmp(&key(b))
        } else {
            key(b).cmp(&key(a))
        };
        carried(a).cmp(&carried(b)).then(by_rules)
    });
}

/// The operations listing `items` took: one per page of the list, at least one.
pub(crate) fn list_operations(items: usize) -> u64 {
    (items as u64).div_ceil(LIST_PAGE).max(1)
}

/// Why the run reads no further item, when `spent` operations used up the cap; `None` while
/// some are left. As actions/stale, the check is before each item: an item begun is finished
/// even if its reads and writes go past the cap.
pub(crate) fn operations_spent(spent: u64, rules: &StaleRules) -> Option<String> {
    let cap = rules.operations_per_run?;
    (spent >= cap).then(|| {
        format!("operations_per_run {cap} reached after {spent} operations (requests counted as actions/stale counts them)")
    })
}
