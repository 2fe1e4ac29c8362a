//! `stale-sweep` and `classify stale` end to end: each actions/stale rule, with gh-sweep's
//! documented differences.

use crate::support::{issue, Test, REPO, VIEWER};

#[test]
fn marks_closes_unmarks_and_keeps_in_one_sweep() {
    let test = Test::new(|world| {
        world.open_issue(1, 5); // fresh
        world.open_issue(2, 74); // idle
        world.stale_issue(3, 8, VIEWER); // stale long enough
        world.stale_issue(4, 9, VIEWER);
        world.comment(4, "alice", 2, "still happening on 1.2");
    });
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    outcome.expect_code(0);
    let recap = outcome.json();
    let dispositions: Vec<(String, String)> = recap["completed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["item"].as_str().unwrap().to_string(), c["disposition"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(
        dispositions,
        vec![
            ("octo/demo#1".to_string(), "keep".to_string()),
            ("octo/demo#2".to_string(), "mark-stale".to_string()),
            ("octo/demo#3".to_string(), "close".to_string()),
            ("octo/demo#4".to_string(), "unmark".to_string()),
        ]
    );
    test.expect_writes(&[
        &format!("POST {}/labels", issue(2)),
        &format!("POST {}/comments", issue(2)),
        &format!("POST {}/comments", issue(3)),
        &format!("PATCH {}", issue(3)),
        &format!("DELETE {}/labels/Stale", issue(4)),
    ]);
    let mut world = test.world();
    assert!(world.world.issue(2).has_label("Stale"));
    assert_eq!(world.world.issue(3).state, "closed");
    assert_eq!(world.world.issue(3).state_reason.as_deref(), Some("not_planned"));
    assert!(!world.world.issue(4).has_label("Stale"));
    assert!(recap["budget"].is_null());
    assert!(recap["rerun"].is_null());
}

