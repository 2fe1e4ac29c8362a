//! `poll`'s repeat tick through GraphQL (issue 24): it asks GitHub what changed since the last
//! tick (the repository's PRs by `updatedAt`, newest first), reads those in full, reads again
//! the PRs the last tick left waiting on their checks (a check completing does not move a
//! PR's `updatedAt`), and keeps every other PR's verdict unread. Counted in queries and
//! points, never in time; the verdicts are those a full read gives (REST, on the same world).

use serde_json::Value;

use crate::support::{operations, Test, WorldState, REPO};

/// The GraphQL points a run cost, as the fake GitHub charged them.
fn points_of(test: &Test, run: impl FnOnce()) -> i64 {
    let before = test.world().world.graphql_points;
    run();
    before - test.world().world.graphql_points
}

/// Each completed item's disposition and reason, by item.
fn verdicts(recap: &Value) -> Vec<(String, String, String)> {
    recap["completed"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|item| {
            let field = |name: &str| item[name].as_str().unwrap_or_default().to_string();
            (field("item"), field("disposition"), field("detail"))
        })
        .collect()
}

/// 250 open PRs: every tenth eligible, the rest not docs-only.
fn quiet_world(world: &mut WorldState) {
    for number in 1..=250 {
        let pr = world.green_pr(number);
        if number % 10 != 0 {
            pr.files = vec![("src/lib.rs".into(), None)];
        }
    }
}

/// Issue 24's target: a repeat tick over unchanged PRs sends at most one query per 100 open
/// PRs and costs at most 2 points. Here it is one query of 1 point for 250 PRs: the list of
/// changes, whose first PR is older than the last tick. The 25 PRs queued by the first tick are
/// in flight; the other 225 keep their verdict, and say the same as a full read.
#[test]
fn a_repeat_tick_over_unchanged_prs_asks_only_what_changed() {
    let test = Test::new(quiet_world);
    let first = test.run(&["poll", "--repo", REPO, "--read-api", "graphql", "--json"]);
    assert_eq!(first.json()["counters"]["enqueued"], 25, "{}", first.stdout);
    test.clear_log();
    let mut second = None;
    let points = points_of(&test, || {
        second = Some(test.run(&["poll", "--repo", REPO, "--read-api", "graphql", "--json"]));
    });
    let second = second.unwrap().json();
    let requests = test.requests();
    assert_eq!(operations(&requests), ["PullsChanged"], "{requests:?}");
    assert_eq!(points, 1);
    // Nothing else: no search page, no PR read, no REST read but the repository's name.
    assert_eq!(requests.len(), 1, "{requests:?}");
    let counters = &second["counters"];
    assert_eq!(counters["candidates"], 250, "{second}");
    assert_eq!(counters["in_flight"], 25);
    assert_eq!(counters["ineligible"]["docs-only"], 225);
    // A full read of the same world on the same store says the same of every PR.
    test.clear_log();
    let full = test.run(&["poll", "--repo", REPO, "--read-api", "rest", "--json"]);
    let full = full.json();
    assert_eq!(verdicts(&second), verdicts(&full));
    assert_eq!(second["links"], full["links"]);
}

/// Two ticks of `poll` on the world `setup` builds, `between` changing it after the first,
/// through each API on its own world and store: the second tick's recap through GraphQL and
/// through REST (a full read, its unchanged pages answered 304), and the GraphQL queries of the
/// second tick. The recaps say the same of every PR, and link the same PRs.
fn two_ticks(
    setup: impl Fn(&mut WorldState),
    between: impl Fn(&mut WorldState),
) -> (Value, Value, Vec<String>) {
    let mut recaps = Vec::new();
    let mut queries = Vec::new();
    for api in ["graphql", "rest"] {
        let test = Test::new(&setup);
        let args = ["poll", "--repo", REPO, "--read-api", api, "--json"];
        test.run(&args).expect_code(0);
        between(&mut test.world().world);
        test.clear_log();
        let second = test.run(&args);
        second.expect_code(0);
        recaps.push(second.json());
        if api == "graphql" {
            queries = operations(&test.requests());
        }
    }
    let rest = recaps.pop().unwrap();
    let graphql = recaps.pop().unwrap();
    assert_eq!(
        verdicts(&graphql),
        verdicts(&rest),
        "GraphQL (left), REST (right)"
    );
    assert_eq!(graphql["counters"], rest["counters"]);
    assert_eq!(graphql["links"], rest["links"]);
    (graphql, rest, queries)
}

/// A PR waiting on its checks at the first tick, whose check completes before the second:
/// GitHub does not move its `updatedAt` for that, so the list of changes does not show it; the
/// second tick reads it again all the same (one batch of aliased `pullRequest` fields), finds
/// it green and queues it, as a full read does.
#[test]
fn a_pr_whose_check_completes_between_ticks_is_found_green() {
    let setup = |world: &mut WorldState| {
        for number in 1..=20 {
            let pr = world.green_pr(number);
            if number != 7 {
                pr.files = vec![("src/lib.rs".into(), None)];
            }
        }
        let waiting = world.issue(7);
        waiting.check_runs[0].status = "in_progress".into();
        waiting.check_runs[0].conclusion = None;
    };
    let between = |world: &mut WorldState| {
        let stamp = world.issue(7).updated_at;
        world.issue(7).complete_checks("success");
        assert_eq!(world.issue(7).updated_at, stamp);
    };
    let (second, _, queries) = two_ticks(setup, between);
    assert_eq!(second["counters"]["enqueued"], 1, "{second}");
    assert_eq!(
        second["counters"]["ineligible"]["docs-only"], 19,
        "{second}"
    );
    assert_eq!(queries, ["PullsChanged", "Pulls"]);
}

/// PRs pushed to or labelled between two ticks move their `updatedAt`: the list of changes
/// names them and they are read in full again, one batch for both. #3 was not docs-only and
/// a push made it so: queued. #5 got a hold label: held. The others keep their verdicts.
#[test]
fn a_pr_pushed_or_labelled_between_ticks_is_read_again() {
    let setup = |world: &mut WorldState| {
        for number in 1..=20 {
            world.green_pr(number).files = vec![("src/lib.rs".into(), None)];
        }
    };
    let between = |world: &mut WorldState| {
        let now = chrono::Utc::now();
        let pushed = world.issue(3);
        pushed.push(now);
        pushed.files = vec![("docs/guide.md".into(), None)];
        // The push's checks ran green and the reviewer approved the new head.
        let head = pushed.head_sha.clone();
        for review in &mut pushed.reviews {
            review.commit_id = head.clone();
        }
        world.issue(5).add_label("do-not-merge", "maintainer", now);
    };
    let (second, _, queries) = two_ticks(setup, between);
    let counters = &second["counters"];
    assert_eq!(counters["enqueued"], 1, "{second}");
    assert_eq!(counters["held"], 1, "{second}");
    assert_eq!(counters["ineligible"]["docs-only"], 18, "{second}");
    assert_eq!(queries, ["PullsChanged", "Pulls"]);
}

/// The first tick reads every PR in full, as before: a search page of 50 PRs at a time with
/// their files, reviews and checks, and the verdicts of a REST read.
#[test]
fn a_first_tick_reads_every_pr_and_judges_as_rest_does() {
    let test = Test::new(quiet_world);
    let graphql = test.run(&["poll", "--repo", REPO, "--read-api", "graphql", "--json"]);
    let requests = test.requests();
    assert_eq!(
        operations(&requests),
        [
            "PullsPage",
            "PullsPage",
            "PullsPage",
            "PullsPage",
            "PullsPage"
        ]
    );
    let rest = Test::rest(quiet_world);
    let read = rest.run(&["poll", "--repo", REPO, "--json"]);
    assert_eq!(verdicts(&graphql.json()), verdicts(&read.json()));
}

/// Issue 24's table at 1,000 open PRs (every tenth eligible, the rest not docs-only; then
/// every 33rd over 100 changed files): the first tick's queries and points, and the repeat
/// tick's, as the fake GitHub charged them.
#[test]
fn a_thousand_prs_cost_one_query_on_a_repeat_tick() {
    for many_files in [false, true] {
        let test = Test::new(|world| {
            for number in 1..=1000 {
                let pr = world.green_pr(number);
                if number % 10 != 0 {
                    pr.files = vec![("src/lib.rs".into(), None)];
                }
                if many_files && number % 33 == 0 {
                    pr.files = (0..150).map(|n| (format!("src/f{n}.rs"), None)).collect();
                }
            }
        });
        let args = ["poll", "--repo", REPO, "--read-api", "graphql"];
        let mut ticks = Vec::new();
        for _ in 0..2 {
            test.clear_log();
            let points = points_of(&test, || {
                test.run(&args).expect_code(0);
            });
            let requests = test.all_requests();
            let queries = requests.iter().filter(|r| r.is_graphql()).count();
            ticks.push((requests.len(), queries, points));
        }
        eprintln!("1,000 PRs, many files {many_files}: (requests, queries, points) {ticks:?}");
        assert_eq!(
            ticks[1],
            (2, 1, 1),
            "the repository's name and one query of 1 point"
        );
    }
}

/// A store that cannot give back the last tick's memory is a store failure, said as one: the
/// tick stops on the repository it could not list (a harness outage, exit 5) and names the
/// store. It does not quietly list the repository in full, as if there were no memory.
#[test]
fn a_memory_the_store_cannot_read_stops_the_tick() {
    let test = Test::new(quiet_world);
    let args = ["poll", "--repo", REPO, "--read-api", "graphql", "--json"];
    test.run(&args).expect_code(0);
    // What no gh-sweep writes: bytes where the store keeps text.
    rusqlite::Connection::open(test.db_path())
        .unwrap()
        .execute("UPDATE poll_memory SET memory = X'FF00'", [])
        .unwrap();
    test.clear_log();
    let second = test.run(&args);
    second.expect_code(5);
    assert!(
        second.stderr.contains("the store") && second.stderr.contains("poll"),
        "{}",
        second.stderr
    );
    assert_eq!(operations(&test.requests()), Vec::<String>::new());
}
