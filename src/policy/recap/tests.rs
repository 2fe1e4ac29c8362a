//! Unit tests of the recap builder: every item in one group, the rerun line (inline or from a
//! file), the exit code, and shell quoting.

use super::*;
use crate::policy::stale;

const KEEP: Disposition = Disposition::Stale(stale::Verdict::Keep);

fn items(numbers: &[u64]) -> Vec<ItemRef> {
    numbers
        .iter()
        .map(|number| format!("o/r#{number}").parse().unwrap())
        .collect()
}

fn facts<'a>(
    pool: &'a [ItemRef],
    outcomes: &'a BTreeMap<ItemRef, Outcome>,
    stopped: Option<Stop>,
) -> RunFacts<'a> {
    RunFacts {
        run_id: 1,
        command: "stale-sweep",
        dry_run: false,
        pool,
        pool_complete: true,
        outcomes,
        stopped,
        stop_detail: None,
        budget: FailureBudget::default(),
        planned: vec![],
        rerun_prefix: "gh-sweep stale-sweep --repo o/r",
        rerun_file_path: "/state/rerun/run-1.txt",
        exit_override: None,
        unknown_writes: false,
        overtaken: false,
    }
}

#[test]
fn a_run_without_a_stop_exits_by_what_it_found() {
    let pool = items(&[1, 2]);
    let mut outcomes = BTreeMap::new();
    let keep = Outcome::Completed {
        disposition: KEEP,
        detail: String::new(),
    };
    outcomes.insert(pool[0].clone(), keep.clone());
    outcomes.insert(pool[1].clone(), keep);
    assert_eq!(
        build(facts(&pool, &outcomes, None)).exit_code,
        crate::exit::SUCCESS
    );
    // An earlier write of unknown outcome still blocks an item: a write problem.
    let blocked = RunFacts {
        unknown_writes: true,
        ..facts(&pool, &outcomes, None)
    };
    assert_eq!(build(blocked).exit_code, crate::exit::WRITE_FAILED);
    // An item another run wrote since this run read it is left for the rerun: exit 9.
    let overtaken = RunFacts {
        overtaken: true,
        ..facts(&pool, &outcomes, None)
    };
    assert_eq!(build(overtaken).exit_code, crate::exit::WRITE_CAP);
    // An item failure within the budget.
    outcomes.insert(
        pool[1].clone(),
        Outcome::Failed {
            phase: Phase::Read,
            reason: "404".into(),
        },
    );
    assert_eq!(
        build(facts(&pool, &outcomes, None)).exit_code,
        crate::exit::ITEM_FAILURES
    );
}

#[test]
fn a_selector_too_long_for_the_command_line_goes_to_a_file() {
    // Every other item unfinished: no ranges, so the selector grows with the pool.
    let pool = items(&(1..=4000).collect::<Vec<_>>());
    let mut outcomes = BTreeMap::new();
    for item in pool.iter().step_by(2) {
        outcomes.insert(
            item.clone(),
            Outcome::Completed {
                disposition: KEEP,
                detail: String::new(),
            },
        );
    }
    let recap = build(facts(&pool, &outcomes, Some(Stop::WriteFailed)));
    assert_eq!(
        recap.rerun.as_deref(),
        Some("gh-sweep stale-sweep --repo o/r --only @/state/rerun/run-1.txt")
    );
    let file = recap.rerun_file.expect("a rerun file");
    assert_eq!(file.path, "/state/rerun/run-1.txt");
    let expected: BTreeSet<ItemRef> = pool.iter().skip(1).step_by(2).cloned().collect();
    assert_eq!(selector::parse(&file.selector, None).unwrap(), expected);

    // Short enough: inline, no file.
    let short = build(facts(&pool[..10], &outcomes, Some(Stop::WriteFailed)));
    assert!(short.rerun_file.is_none());
    assert!(short
        .rerun
        .unwrap()
        .ends_with("--only 'o/r#2,#4,#6,#8,#10'"));
}

#[test]
fn every_pool_item_lands_in_exactly_one_group() {
    let pool = items(&[1, 2, 3, 4, 5]);
    let mut outcomes = BTreeMap::new();
    outcomes.insert(
        pool[0].clone(),
        Outcome::Completed {
            disposition: KEEP,
            detail: "idle 3 days < 60".into(),
        },
    );
    outcomes.insert(
        pool[1].clone(),
        Outcome::Failed {
            phase: Phase::Read,
            reason: "404".into(),
        },
    );
    let recap = build(facts(&pool, &outcomes, Some(Stop::BudgetExhausted)));
    assert_eq!(recap.completed.len(), 1);
    assert_eq!(recap.failed.len(), 1);
    assert_eq!(recap.unfinished, vec!["o/r#3", "o/r#4", "o/r#5"]);
    assert_eq!(recap.unfinished_reason.as_deref(), Some("budget exhausted"));
    assert_eq!(
        recap.rerun.as_deref(),
        Some("gh-sweep stale-sweep --repo o/r --only 'o/r#2-#5'")
    );
    assert_eq!(recap.exit_code, crate::exit::BUDGET_EXHAUSTED);
    assert_eq!(recap.budget.unwrap().failures, 1);
}

#[test]
fn a_write_failed_item_is_named_but_left_out_of_the_selector() {
    let pool = items(&[1, 2, 3]);
    let mut outcomes = BTreeMap::new();
    outcomes.insert(
        pool[0].clone(),
        Outcome::Completed {
            disposition: stale::Verdict::Close.into(),
            detail: String::new(),
        },
    );
    outcomes.insert(
        pool[1].clone(),
        Outcome::Failed {
            phase: Phase::Write,
            reason: "comment: 502".into(),
        },
    );
    let recap = build(facts(&pool, &outcomes, Some(Stop::WriteFailed)));
    assert_eq!(recap.failed[0].item, "o/r#2");
    assert_eq!(
        recap.rerun.as_deref(),
        Some("gh-sweep stale-sweep --repo o/r --only 'o/r#3'")
    );
    assert_eq!(recap.exit_code, crate::exit::WRITE_FAILED);
    assert!(
        recap.budget.is_none(),
        "a write failure does not spend the budget"
    );
}

#[test]
fn a_completed_item_shows_its_disposition_in_words() {
    let pool = items(&[1, 2]);
    let mut outcomes = BTreeMap::new();
    outcomes.insert(
        pool[0].clone(),
        Outcome::Completed {
            disposition: Disposition::Ineligible(crate::policy::merge::Rule::Green),
            detail: "check `ci` failed".into(),
        },
    );
    outcomes.insert(
        pool[1].clone(),
        Outcome::Changed {
            now: stale::Verdict::Keep.into(),
            detail: "updated since".into(),
        },
    );
    let recap = build(facts(&pool, &outcomes, None));
    let words: Vec<(&str, &str)> = recap
        .completed
        .iter()
        .map(|c| (c.disposition.as_str(), c.detail.as_str()))
        .collect();
    assert_eq!(
        words,
        [
            ("ineligible: green", "check `ci` failed"),
            ("changed since read: now keep", "updated since"),
        ]
    );
}

#[test]
fn a_clean_run_has_no_budget_and_no_rerun() {
    let pool = items(&[1]);
    let mut outcomes = BTreeMap::new();
    outcomes.insert(
        pool[0].clone(),
        Outcome::Completed {
            disposition: KEEP,
            detail: String::new(),
        },
    );
    let recap = build(facts(&pool, &outcomes, None));
    assert_eq!(recap.budget, None);
    assert_eq!(recap.rerun, None);
    assert_eq!(recap.exit_code, 0);
}

#[test]
fn shell_quote_leaves_plain_words_alone() {
    assert_eq!(shell_quote("o/r"), "o/r");
    assert_eq!(shell_quote("max(3, 10%)"), "'max(3, 10%)'");
    assert_eq!(shell_quote("it's"), r"'it'\''s'");
}

/// A selector of exactly `LONG_SELECTOR` characters still fits the line; one longer goes to
/// the file.
#[test]
fn a_selector_of_the_longest_length_stays_on_the_line() {
    let mut left: BTreeSet<ItemRef> = BTreeSet::new();
    let mut number = 1;
    while selector::format(&left).len() < LONG_SELECTOR - 20 {
        left.insert(format!("o/r#{number}").parse().unwrap());
        number += 2;
    }
    // One more item whose digits make the selector exactly `LONG_SELECTOR` long (",#" and
    // its digits).
    let digits = LONG_SELECTOR - selector::format(&left).len() - 2;
    let last = 10u64.pow(digits as u32 - 1) + 1;
    left.insert(format!("o/r#{last}").parse().unwrap());
    assert_eq!(selector::format(&left).len(), LONG_SELECTOR);
    let pool: Vec<ItemRef> = left.iter().cloned().collect();
    let outcomes = BTreeMap::new();
    let run = facts(&pool, &outcomes, Some(Stop::Interrupted));
    let (line, file) = rerun_line(&run, &left);
    assert!(file.is_none(), "{line:?}");
    left.insert(format!("o/r#{}", last + 2).parse().unwrap());
    let (line, file) = rerun_line(&run, &left);
    assert!(file.is_some(), "{line:?}");
}
