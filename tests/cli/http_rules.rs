//! Issue 9's request rules, against a fake GitHub that answers the way GitHub does: redirects
//! for transferred issues and renamed repositories, the token kept to the API host, per-token
//! ETags, secondary rate limits without `retry-after`, incomplete search results, `html_url`s.

use crate::support::{issue, items, Fault, Request, Server, Test, WorldState, REPO, TOKEN};

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
        vec![(
            r#"{"kind":"add-labels","labels":["Stale"]}"#.to_string(),
            "not sent".to_string()
        )]
    );
}

// Rule 13: a read may follow a redirect on the API host, but the item read must be the one
// asked for: octo/demo#5's facts are never octo/other#7's.
#[test]
fn a_read_of_a_transferred_issue_fails_that_item_and_writes_nothing_to_it() {
    let test = Test::rest(|world| {
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
    let test = Test::rest(|world| {
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

/// A token for a GitHub Enterprise Server host, never to be mixed up with github.com's.
const ENTERPRISE_TOKEN: &str = "ghp_ENTERPRISEtoken0123456789ONLY";

// Rule 16, as `gh help environment` has it: "GH_TOKEN, GITHUB_TOKEN: an authentication token
// that will be used when a command targets either github.com or a subdomain of ghe.com";
// "GH_ENTERPRISE_TOKEN, GITHUB_ENTERPRISE_TOKEN: ... when a command targets a GitHub Enterprise
// Server host". The fake serves its API under /api/v3, as an Enterprise Server does.
#[test]
fn an_enterprise_host_gets_the_enterprise_token_and_never_the_github_com_one() {
    let test = Test::new(|world| {
        world.open_issue(1, 5);
    });
    let enterprise = format!("{}/api/v3", test.server.base);
    let output = test
        .command(&["classify", "stale", "--repo", REPO, "--json"])
        .env("GITHUB_API_URL", &enterprise)
        .env("GH_ENTERPRISE_TOKEN", ENTERPRISE_TOKEN)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let requests = test.requests();
    assert!(!requests.is_empty());
    for request in &requests {
        assert_eq!(
            request.authorization.as_deref(),
            Some(format!("Bearer {ENTERPRISE_TOKEN}").as_str()),
            "{}",
            request.line()
        );
    }

    // With only github.com's token, an Enterprise host gets nothing at all.
    test.clear_log();
    let output = test
        .command(&["classify", "stale", "--repo", REPO, "--json"])
        .env("GITHUB_API_URL", &enterprise)
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("GH_ENTERPRISE_TOKEN") && !stderr.contains(TOKEN),
        "{stderr}"
    );
    assert!(
        test.requests().is_empty(),
        "the github.com token stayed home"
    );
}

/// A `gh` on the PATH that records its arguments and prints `token`.
fn fake_gh(test: &Test, token: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let bin = test.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let args = test.dir.path().join("gh-args");
    let script = bin.join("gh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$@\" > '{}'\necho {token}\n",
            args.display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (bin, args)
}

// Rule 16: `gh auth token` is asked for the web host's token by name (`--hostname`), for
// github.com too, so gh never answers with another host's token.
#[cfg(unix)]
#[test]
fn gh_auth_token_is_asked_for_the_web_host() {
    let test = Test::new(|world| {
        world.open_issue(1, 5);
    });
    let (bin, args) = fake_gh(&test, ENTERPRISE_TOKEN);
    let host = test
        .server
        .base
        .trim_start_matches("http://")
        .split(':')
        .next()
        .unwrap()
        .to_string();
    let output = test
        .command(&["classify", "stale", "--repo", REPO, "--json"])
        .env_remove("GH_TOKEN")
        .env("PATH", &bin)
        .env("GITHUB_API_URL", format!("{}/api/v3", test.server.base))
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&args).unwrap().trim(),
        format!("auth token --hostname {host}")
    );
    assert!(test
        .requests()
        .iter()
        .all(|request| request.authorization.as_deref()
            == Some(format!("Bearer {ENTERPRISE_TOKEN}").as_str())));

    // The loopback stand-in for github.com asks for github.com's token.
    let output = test
        .command(&["classify", "stale", "--repo", REPO, "--json"])
        .env_remove("GH_TOKEN")
        .env("PATH", &bin)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&args).unwrap().trim(),
        "auth token --hostname github.com"
    );
}

// Rule 14. GitHub, "Rate limits for the REST API": on a secondary limit without
// `retry-after` (and a primary limit not spent), "wait for at least one minute before
// retrying", and "continuing to make requests while you are rate limited may result in the
// banning of your integration". A minute is more than this run may wait
// (max_retry_wait_seconds = 0 in the tests' config): it stops at once, asking nothing again.
#[test]
fn a_secondary_limit_without_retry_after_stops_at_once_when_a_minute_is_too_long() {
    for status in [403, 429] {
        let test = Test::rest(|world| {
            for number in 1..=3 {
                world.open_issue(number, 74);
            }
        });
        test.fail("GET", "/issues/2/events", Fault::SecondaryLimit(status), 5);
        test.world().world.issue(2).labels.push("Stale".into());
        let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
        outcome.expect_code(5);
        let recap = outcome.json();
        let detail = recap["stop_detail"].as_str().unwrap();
        assert!(
            detail.contains("60s") && detail.contains("max_retry_wait_seconds"),
            "{status}: {detail}"
        );
        let asked = test
            .requests()
            .iter()
            .filter(|request| request.path.ends_with("/issues/2/events"))
            .count();
        assert_eq!(asked, 1, "{status}: not asked again within the minute");
        test.expect_no_writes();
    }
}

/// A second token for the same account, as a new GitHub Actions job gets.
const NEXT_TOKEN: &str = "ghs_NEXTJOBtoken0123456789SECRET";

// Rule 15: GitHub's ETags are per token, and GITHUB_TOKEN changes every job. A validator
// kept under another token is not sent (it could only miss); the date still revalidates.
#[test]
fn a_new_token_revalidates_by_date_and_never_sends_the_old_tokens_etag() {
    let test = Test::rest(|world| {
        world.open_issue(1, 5);
    });
    let only = ["classify", "stale", "--only", "octo/demo#1", "--json"];
    test.run(&only).expect_code(0);
    let first = test.requests();
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(first[0].if_none_match.is_none());

    test.clear_log();
    let output = test
        .command(&only)
        .env("GH_TOKEN", NEXT_TOKEN)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let second = test.requests();
    assert_eq!(second.len(), 1, "{second:?}");
    assert_eq!(
        second[0].if_none_match, None,
        "the old token's ETag is not sent with the new token"
    );
    assert!(second[0].if_modified_since.is_some());
    assert_eq!(second[0].status, 304, "unchanged since, by date");

    // The 304 gave the new token's ETag: the next run with it asks by ETag again.
    test.clear_log();
    let output = test
        .command(&only)
        .env("GH_TOKEN", NEXT_TOKEN)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let third = test.requests();
    assert!(third[0].if_none_match.is_some());
    assert_eq!(third[0].status, 304);

    // The store keeps a fingerprint of each token, never a token.
    let bytes = std::fs::read(test.db_path()).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(!text.contains("SENTINEL") && !text.contains("NEXTJOB"));
}

// Rule 15: a cached page that held per_page items and had no next page may have one now,
// with the same ETag (the Link header is not part of it): it is asked again in full.
#[test]
fn a_full_page_cached_without_a_next_page_is_asked_again() {
    let test = Test::new(|world| {
        for number in 1..=100 {
            world.open_issue(number, 5);
        }
    });
    let args = ["classify", "stale", "--repo", REPO, "--json"];
    test.run(&args).expect_code(0);
    test.world().world.open_issue(101, 5);
    test.clear_log();
    let outcome = test.run(&args);
    outcome.expect_code(0);
    assert_eq!(outcome.json()["completed"].as_array().unwrap().len(), 101);
    let pages: Vec<u16> = test.requests().iter().map(|r| r.status).collect();
    assert_eq!(pages, vec![200, 200], "page 1 in full, then page 2");
}

// Rule 17: `incomplete_results: true` means GitHub's search timed out, "reaching a timeout does
// not necessarily mean that search results are incomplete" (REST docs, Search, "Timeouts and
// incomplete results"). Not an outage: the recap says so and the run goes on.
#[test]
fn an_incomplete_search_is_said_in_the_recap_and_the_run_goes_on() {
    let test = Test::rest(|world| {
        world.green_pr(1);
        world.search_incomplete = true;
    });
    let outcome = test.run(&["poll", "--repo", REPO, "--json"]);
    outcome.expect_code(0);
    let recap = outcome.json();
    assert_eq!(items(&recap["completed"]), vec![format!("{REPO}#1")]);
    assert_eq!(recap["completed"][0]["disposition"], "enqueue-merge");
    let notes = recap["notes"].to_string();
    assert!(notes.contains("incomplete_results"), "{notes}");
}

// Rule 17: the org search looks at no more than 4,000 of an organisation's repositories (REST
// docs, Search: "The REST API will find up to 4,000 repositories that match your filters").
#[test]
fn an_organisation_past_4000_repositories_is_said_in_the_recap() {
    let test = Test::new(|world| {
        world.green_pr(1);
        for index in 0..4000 {
            world.repos.push(format!("octo/repo-{index}"));
        }
    });
    let outcome = test.run(&["poll", "--org", "octo", "--json"]);
    outcome.expect_code(0);
    let recap = outcome.json();
    let notes = recap["notes"].to_string();
    assert!(notes.contains("4,000") && notes.contains("4001"), "{notes}");

    let small = Test::new(|world| {
        world.green_pr(1);
    });
    let outcome = small.run(&["poll", "--org", "octo", "--json"]);
    outcome.expect_code(0);
    let notes = outcome.json()["notes"].to_string();
    assert!(!notes.contains("4,000"), "{notes}");
}

// Rule 18: a recap's links are each item's `html_url`, as GitHub serves it on every issue and
// PR ("Get an issue", "Get a pull request": `html_url`); never a URL made from the API base
// (here a loopback address), which is no page anyone can open, and never `/issues/N` for a PR.
#[test]
fn recap_links_are_each_items_html_url() {
    let test = Test::rest(|world| {
        world.open_issue(1, 74);
        world.open_pr(2, 74);
        world.open_issue(3, 74).patch = Some(serde_json::json!({"title": null}));
    });
    let summary = test.dir.path().join("summary.md");
    let output = test
        .command(&["stale-sweep", "--repo", REPO, "--dry-run"])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(8));
    let written = std::fs::read_to_string(&summary).unwrap();
    for expected in [
        "[octo/demo#1](https://github.com/octo/demo/issues/1)",
        "[octo/demo#2](https://github.com/octo/demo/pull/2)",
        "[octo/demo#3](https://github.com/octo/demo/issues/3)",
    ] {
        assert!(written.contains(expected), "{expected}\n{written}");
    }
    assert!(!written.contains(&test.server.base), "{written}");
    let markdown = test.run(&["recap", "--markdown"]);
    assert!(
        markdown
            .stdout
            .contains("[octo/demo#2](https://github.com/octo/demo/pull/2)"),
        "a stored recap keeps its links: {}",
        markdown.stdout
    );
}

// Rule 6: GitHub matches owner and repository names case-insensitively and answers with the
// canonical `full_name` ("Get a repository"). What `poll --repo octoorg/demo` stored is
// `OctoOrg/Demo`'s, and `sweep --repo octoorg/demo` must find it.
#[test]
fn a_repository_given_in_another_case_is_used_by_its_canonical_name() {
    let test = Test::new(|world| {
        world.repos = vec!["OctoOrg/Demo".into()];
        world.green_pr(1).repo = "OctoOrg/Demo".into();
    });
    let outcome = test.run(&["poll", "--repo", "octoorg/demo", "--json"]);
    outcome.expect_code(0);
    assert_eq!(items(&outcome.json()["completed"]), vec!["OctoOrg/Demo#1"]);
    let outcome = test.run(&["sweep", "--repo", "octoorg/demo", "--yes", "--json"]);
    outcome.expect_code(0);
    test.expect_writes(&["PUT /repos/OctoOrg/Demo/pulls/1/merge"]);
    let asked: Vec<String> = test
        .all_requests()
        .iter()
        .filter(|request| request.path.eq_ignore_ascii_case("/repos/OctoOrg/Demo"))
        .map(|request| request.path.clone())
        .collect();
    assert_eq!(
        asked,
        vec!["/repos/octoorg/demo", "/repos/octoorg/demo"],
        "each run asks once"
    );
}

// Rule 6: a renamed repository's old name answers 301 to reads and 307 to writes (GitHub
// developer blog, repository redirects). gh-sweep reads the repository once, follows that
// 301, and uses the new name everywhere: no list read or write is redirected.
#[test]
fn a_renamed_repository_is_swept_under_its_new_name() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
        world.rename_repo(REPO, "octo/renamed");
    });
    let outcome = test.run(&["stale-sweep", "--repo", REPO, "--yes", "--json"]);
    outcome.expect_code(0);
    let recap = outcome.json();
    assert_eq!(items(&recap["completed"]), vec!["octo/renamed#1"]);
    let notes = recap["notes"].to_string();
    assert!(notes.contains("octo/renamed"), "{notes}");
    test.expect_writes(&[
        "POST /repos/octo/renamed/issues/1/labels",
        "POST /repos/octo/renamed/issues/1/comments",
    ]);
    let redirected: Vec<String> = test
        .all_requests()
        .iter()
        .filter(|request| (300..400).contains(&request.status))
        .map(Request::line)
        .collect();
    assert_eq!(redirected, vec![format!("GET /repos/{REPO}")]);
    assert!(recap["rerun"].is_null());
}

// Rule 6: a repository's id never changes with a rename. What `poll` queued under the old
// name is swept under the new one: the store follows the repository by its id.
#[test]
fn what_poll_queued_before_a_rename_is_merged_after_it() {
    let test = Test::new(|world| {
        world.green_pr(1);
    });
    test.run(&["poll", "--repo", REPO, "--json"]).expect_code(0);
    test.world().world.rename_repo(REPO, "octo/renamed");
    let outcome = test.run(&["sweep", "--repo", REPO, "--yes", "--json"]);
    outcome.expect_code(0);
    test.expect_writes(&["PUT /repos/octo/renamed/pulls/1/merge"]);
    assert!(test.world().world.issues[0].merged);
    let notes = outcome.json()["notes"].to_string();
    assert!(notes.contains("octo/renamed"), "{notes}");
}
