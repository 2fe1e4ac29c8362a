//! Rechecks by `since` in a long stale-sweep write phase (issue 13, point 4): an item read
//! longer ago than `recheck_after_seconds` is not read again one by one; GitHub's list of the
//! issues changed since the read is asked once per window, and only the items it shows moved
//! are read again. These count REST requests, so they read through REST.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::support::{issue, marked, Fault, Request, Test, REPO};

/// The lists of changed issues and PRs the run asked for, page by page.
fn change_lists(test: &Test) -> Vec<Request> {
    test.requests()
        .into_iter()
        .filter(|request| {
            request.method == "GET"
                && request.path == format!("/repos/{REPO}/issues")
                && request.query.contains("state=all")
        })
        .collect()
}

/// The items read again on their own (`GET /repos/{o}/{r}/issues/{n}`), by number.
fn rereads(test: &Test) -> Vec<String> {
    let prefix = format!("/repos/{REPO}/issues/");
    test.requests()
        .into_iter()
        .filter(|request| request.method == "GET")
        .filter_map(|request| {
            let number = request.path.strip_prefix(&prefix)?;
            number
                .chars()
                .all(|c| c.is_ascii_digit())
                .then(|| number.to_string())
        })
        .collect()
}

/// The `since` a list of changes asked from.
fn since_of(request: &Request) -> DateTime<Utc> {
    let since = request
        .query
        .split('&')
        .find_map(|pair| pair.strip_prefix("since="))
        .unwrap_or_else(|| panic!("no since in {request:?}"));
    since.parse().unwrap()
}

/// GitHub's clock now, in whole seconds as its stamps are.
fn github_now() -> DateTime<Utc> {
    DateTime::from_timestamp(Utc::now().timestamp(), 0).unwrap()
}

/// The first write (#1's label) outlasts the 4 s window: every later item's read is older,
/// and the rest of the writes fit in one window.
fn slow_first_write(test: &Test) {
    test.config("recheck_after_seconds = 4\n");
    test.fail(
        "POST",
        "/issues/1/labels",
        Fault::Slow(Duration::from_millis(4500)),
        1,
    );
}

#[test]
fn a_slow_write_phase_reads_again_only_the_item_that_changed_on_github() {
    let test = Test::new(|world| {
        for number in 1..=12 {
            world.open_issue(number, 74);
        }
    });
    // Pages of 4: GitHub's whole list of the 12 issues would take 3 pages.
    test.world().page_size = 4;
    slow_first_write(&test);
    // While GitHub works on that write, alice comments on #7.
    let shared = Arc::clone(&test.server.shared);
    test.world().on_first_write = Some(Box::new(move || {
        let mut shared = shared.lock().unwrap();
        shared
            .world
            .comment_at(7, "alice", github_now(), "still happening on 2.0");
    }));
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--json",
        "--read-api",
        "rest",
    ]);
    outcome.expect_code(0);
    let recap = outcome.json();
    let seventh = recap["completed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["item"] == format!("{REPO}#7"))
        .unwrap();
    assert_eq!(seventh["disposition"], "changed since read: now keep");
    // One list for the window, one page: #1 (gh-sweep's own writes) and #7 are all it holds.
    let lists = change_lists(&test);
    assert_eq!(lists.len(), 1, "{lists:?}");
    let own_write = test.world().world.issue(1).updated_at;
    assert!(since_of(&lists[0]) <= own_write, "#1 is in GitHub's answer");
    assert_eq!(rereads(&test), ["7"], "only #7 is read again");
    let expected: Vec<String> = (1..=12)
        .filter(|number| *number != 7)
        .flat_map(marked)
        .collect();
    test.expect_writes(&expected);
}

#[test]
fn an_item_gh_sweep_wrote_seconds_before_the_read_is_not_read_again() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 74);
    });
    test.config("[stale]\ndays_before_close = 0\n");
    test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--only",
        &format!("{REPO}#2"),
    ])
    .expect_code(0);
    test.expect_writes(&marked(2));
    let marked_at = test.world().world.issue(2).updated_at;
    test.clear_log();
    // At once, a sweep that closes #2 (stale since seconds ago, closed after 0 days) and marks
    // #1, whose first write outlasts the window.
    slow_first_write(&test);
    test.config("recheck_after_seconds = 4\n[stale]\ndays_before_close = 0\n");
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--yes",
        "--json",
        "--read-api",
        "rest",
    ]);
    outcome.expect_code(0);
    let recap = outcome.json();
    assert_eq!(recap["completed"][1]["disposition"], "close", "{recap:#}");
    // GitHub's list names #2, updated by gh-sweep's own mark within the clock slack of this
    // run's read, with the `updated_at` that read saw: not read again.
    let lists = change_lists(&test);
    assert_eq!(lists.len(), 1, "{lists:?}");
    assert!(since_of(&lists[0]) <= marked_at, "#2 is in GitHub's answer");
    assert!(rereads(&test).is_empty(), "{:?}", rereads(&test));
    let mut expected = marked(1);
    expected.push(format!("POST {}/comments", issue(2)));
    expected.push(format!("PATCH {}", issue(2)));
    test.expect_writes(&expected);
}
