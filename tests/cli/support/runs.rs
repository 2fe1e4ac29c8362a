//! Helpers the topic files share: the writes tests name, the runs they repeat, the worlds
//! several of them start from, and the store they look into.

use chrono::{Duration, Utc};
use serde_json::Value;

use super::{Test, REPO};

/// The merge of `octo/demo#N` as the fake logs it.
pub fn merge(number: u64) -> String {
    format!("PUT /repos/{REPO}/pulls/{number}/merge")
}

/// `minutes` from now, as RFC 3339 (a `--now` or `GH_SWEEP_TEST_NOW` ahead of the clock).
pub fn later(minutes: i64) -> String {
    (Utc::now() + Duration::minutes(minutes)).to_rfc3339()
}

/// `sweep --yes --json` over `REPO` with `extra`, its JSON recap.
pub fn sweep(test: &Test, extra: &[&str]) -> Value {
    let mut args = vec!["sweep", "--repo", REPO, "--yes", "--json"];
    args.extend_from_slice(extra);
    test.run(&args).json()
}

/// A sweep with its clock at `now` (a backoff window passed): `--now` is for classify and dry
/// runs only.
pub fn sweep_at(test: &Test, now: &str) -> Value {
    test.run_at(now, &["sweep", "--repo", REPO, "--yes", "--json"])
        .json()
}

/// The test's store, opened beside gh-sweep's.
pub fn db(test: &Test) -> rusqlite::Connection {
    rusqlite::Connection::open(test.db_path()).unwrap()
}

/// How many merge attempts the sweep budget of PR `number` has spent (0 when it has none).
pub fn attempts(test: &Test, number: u64) -> u32 {
    let budget: Option<String> = db(test)
        .query_row(
            "SELECT budget FROM sweep_budget WHERE pr = ?1",
            [number as i64],
            |row| row.get(0),
        )
        .ok();
    budget
        .and_then(|b| b.split('|').next().and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}

/// Two issues idle for 74 days: a stale sweep marks both.
pub fn two_idle_issues() -> Test {
    Test::new(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 74);
    })
}

/// The operation names of the GraphQL queries among `requests`, in order.
pub fn operations(requests: &[crate::support::Request]) -> Vec<String> {
    requests
        .iter()
        .filter(|r| r.is_graphql())
        .map(|r| {
            let body: serde_json::Value = serde_json::from_str(&r.body).unwrap();
            body["operationName"].as_str().unwrap_or("").to_string()
        })
        .collect()
}
