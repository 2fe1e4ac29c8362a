//! Issue 9's request rules, against a fake GitHub that answers the way GitHub does: redirects
//! for transferred issues and renamed repositories, the token kept to the API host, per-token
//! ETags, secondary rate limits without `retry-after`, incomplete search results, `html_url`s.

use crate::support::{issue, items, Fault, Server, Test, WorldState, REPO, TOKEN};

/// What the journal says became of `item`'s writes, in order.
fn journal(test: &Test, item: &str) -> Vec<(String, String)> {
    let connection = rusqlite::Connection::open(test.db_path()).unwrap();
    let mut statement = connection
        .prepare("SELECT action, outcome FROM journal WHERE item = ?1 ORDER BY id")
        .unwrap();
    let rows = statement
        .query_map([item], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, Option<String>>(1)?.unwrap_or_default(),
            ))
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

// Rule 13: a 3xx on a write is never followed. A 301'd POST followed as a GET "succeeds"
// without writing anything; a followed PATCH would close the item in its new repository.
#[test]
fn a_write_to_a_transferred_issue_is_not_sent_and_the_run_goes_on() {
    let test = Test::new(|world| {
        for number in 1..=3 {
            world.open_issue(number, 74);
        }
    });
    // Between gh-sweep's read and its first write to #2, a maintainer moves #2 to octo/other.
    test.fail(
        "POST",
        "/issues/2/labels",
        Fault::Transfer {
            to_repo: "octo/other".into(),
            to_number: 7,
        },
        1,
    );
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    outcome.expect_code(8);
    let recap = outcome.json();
    assert_eq!(items(&recap["failed"]), vec![format!("{REPO}#2")]);
    assert_eq!(recap["failed"][0]["phase"], "write");
    let reason = recap["failed"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("moved to octo/other#7"), "{reason}");
    assert_eq!(
        items(&recap["completed"]),
        vec![format!("{REPO}#1"), format!("{REPO}#3")],
        "the moved item is its own failure: the run goes on"
    );
    test.expect_writes(&[
        format!("POST {}/labels", issue(1)),
        format!("POST {}/comments", issue(1)),
        format!("POST {}/labels", issue(2)),
        format!("POST {}/labels", issue(3)),
        format!("POST {}/comments", issue(3)),
    ]);
    let redirected = test
        .requests()
        .into_iter()
        .find(|request| request.path == format!("{}/labels", issue(2)))
        .unwrap();
    assert_eq!(redirected.status, 301);
    assert!(
        !test
            .requests()
            .iter()
            .any(|request| request.is_write() && request.path.starts_with("/repositories/")),
        "the write was not sent to the redirect's target"
    );
    let world = test.world();
    let moved = world.world.issues.iter().find(|i| i.number == 7).unwrap();
    assert!(!moved.has_label("Stale") && moved.comments.is_empty());
    drop(world);
    assert_eq!(
        journal(&test, &format!("{REPO}#2")),
        vec![("label +Stale".to_string(), "not sent".to_string())]
    );
}

// Rule 13: a read may follow a redirect on the API host, but the item read must be the one
// asked for: octo/demo#5's facts are never octo/other#7's.
#[test]
fn a_read_of_a_transferred_issue_fails_that_item_and_writes_nothing_to_it() {
    let test = Test::new(|world| {
        world.open_issue(5, 74);
        world.open_issue(6, 74);
        world.transfer_issue(REPO, 5, "octo/other", 7);
    });
    let outcome = test.run(&[
        "stale-sweep",
        "--repo",
        REPO,
        "--only",
        "#5,#6",
        "--yes",
        "--json",
    ]);
    outcome.expect_code(8);
    let recap = outcome.json();
    assert_eq!(items(&recap["failed"]), vec![format!("{REPO}#5")]);
    assert_eq!(recap["failed"][0]["phase"], "read");
    let reason = recap["failed"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("moved to octo/other#7"), "{reason}");
    test.expect_writes(&[
        format!("POST {}/labels", issue(6)),
        format!("POST {}/comments", issue(6)),
    ]);
}

// Rule 13: the token goes to the API base's host only, whatever a Link header or a redirect
// names.
#[test]
fn the_token_never_leaves_the_api_host() {
    let elsewhere = Server::start(WorldState::new());
    let test = Test::new(|world| {
        for number in 1..=3 {
            world.open_issue(number, 5);
        }
    });
    test.fail("GET", "/issues?", Fault::LinkTo(elsewhere.base.clone()), 1);
    let outcome = test.run(&["classify", "stale", "--repo", REPO, "--json"]);
    outcome.expect_code(5);
    assert!(
        outcome.stdout.contains("another host"),
        "{}\n{}",
        outcome.stdout,
        outcome.stderr
    );

    test.fail(
        "GET",
        "/issues/2",
        Fault::Redirect {
            status: 302,
            location: format!("{}/repos/{REPO}/issues/2", elsewhere.base),
        },
        1,
    );
    let outcome = test.run(&[
        "classify",
        "stale",
        "--only",
        &format!("{REPO}#1,#2"),
        "--json",
    ]);
    outcome.expect_code(8);
    let recap = outcome.json();
    assert_eq!(items(&recap["failed"]), vec![format!("{REPO}#2")]);
    let reason = recap["failed"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("another host"), "{reason}");

    let log = elsewhere.lock().log.clone();
    assert!(
        log.iter()
            .all(|request| request.authorization.as_deref() != Some(&format!("Bearer {TOKEN}"))),
        "the token was sent to another host"
    );
    assert!(log.is_empty(), "nothing is sent to another host: {log:?}");
    test.expect_no_writes();
}
