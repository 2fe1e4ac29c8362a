//! Unit tests of the order a sweep takes its items in and of the operations it may spend.

use std::collections::BTreeSet;

use super::*;

/// Items 1..=4: created oldest first by number, updated newest first by number, and with
/// comments 2, 0, 3, 1.
fn pool() -> Vec<ItemFacts> {
    (1..=4u64)
        .map(|number| {
            let mut facts = issue(10);
            facts.number = number;
            facts.created_at = days_ago(100 - number as i64);
            facts.updated_at = days_ago(number as i64);
            facts.comments = [2, 0, 3, 1][number as usize - 1];
            facts
        })
        .collect()
}

fn ordered(sort_by: &str, ascending: bool, first: &[u64], mut entries: Vec<ItemFacts>) -> Vec<u64> {
    let rules = StaleRules {
        sort_by: sort_by.into(),
        ascending,
        ..StaleRules::default()
    };
    let first: BTreeSet<u64> = first.iter().copied().collect();
    order(&mut entries, &rules, &first, |f| f.number, itself);
    entries.iter().map(|f| f.number).collect()
}

fn itself(facts: &ItemFacts) -> Option<&ItemFacts> {
    Some(facts)
}

#[test]
fn items_go_in_the_order_sort_by_and_ascending_ask_for() {
    assert_eq!(ordered("created", false, &[], pool()), [4, 3, 2, 1]);
    assert_eq!(ordered("updated", true, &[], pool()), [4, 3, 2, 1]);
    assert_eq!(ordered("updated", false, &[], pool()), [1, 2, 3, 4]);
    assert_eq!(ordered("comments", true, &[], pool()), [2, 4, 1, 3]);
    assert_eq!(ordered("comments", false, &[], pool()), [3, 1, 4, 2]);
}

#[test]
fn the_default_order_keeps_githubs_and_puts_the_unfinished_first() {
    // Created ascending is the order the list was asked for: kept as given, not re-sorted.
    let mut shuffled = pool();
    shuffled.swap(0, 3);
    assert_eq!(
        ordered("created", true, &[], shuffled.clone()),
        [4, 2, 3, 1]
    );
    assert_eq!(ordered("created", true, &[3, 1], shuffled), [3, 1, 4, 2]);
    // Under any other order too, the items the last capped run left come first.
    assert_eq!(ordered("comments", true, &[3], pool()), [3, 2, 4, 1]);
    assert_eq!(ordered("created", false, &[1, 2], pool()), [2, 1, 4, 3]);
}

#[test]
fn listing_costs_one_operation_a_page_and_at_least_one() {
    assert_eq!(list_operations(0), 1);
    assert_eq!(list_operations(1), 1);
    assert_eq!(list_operations(100), 1);
    assert_eq!(list_operations(101), 2);
    assert_eq!(list_operations(1_000), 10);
}

#[test]
fn the_cap_stops_a_run_once_its_operations_are_spent() {
    let rules = StaleRules {
        operations_per_run: Some(30),
        ..StaleRules::default()
    };
    assert_eq!(operations_spent(29, &rules), None);
    let spent = operations_spent(30, &rules).unwrap();
    assert!(
        spent.contains("operations_per_run 30 reached after 30"),
        "{spent}"
    );
    assert!(operations_spent(31, &rules).is_some());
    assert_eq!(operations_spent(u64::MAX, &StaleRules::default()), None);
}
