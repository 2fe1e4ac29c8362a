//! The claim benchmark of issue 14: queue claims per second with 1, 4 and 8 concurrent workers
//! on each backend (a SQLite file; a throwaway PostgreSQL server, the tests' own, when built
//! with the `postgres` feature). Each worker
//! is a thread with its own store (its own connection), standing for a host; it claims and
//! completes rows until none is left, and the run checks that every row was leased once.
//!
//! `cargo bench --bench claims` prints a Markdown table. `GH_SWEEP_BENCH_ROWS=2000` changes the
//! queue's size; `GH_SWEEP_BENCH_BACKENDS=postgres` (or `sqlite`) measures one backend only. Timings are measurements of this machine, never assertions.

#[cfg(feature = "postgres")]
#[allow(dead_code)]
#[path = "../src/store/postgres/test_server.rs"]
mod pg;

use std::sync::{Arc, Mutex};
use std::time::Instant;

use gh_sweep::item::RepoRef;
use gh_sweep::store::queue::{merge_key, NewRow};
use gh_sweep::store::{open, Location};

fn repo() -> RepoRef {
    "o/r".parse().unwrap_or_else(|_| unreachable!())
}

/// Claims per second with `workers` threads on a fresh store at `location`, and how many rows
/// were leased more than once (must be 0).
fn measure(location: &Location, rows: u64, workers: usize) -> (f64, usize) {
    let store = open(location).unwrap();
    let now = chrono::Utc::now();
    for pr in 0..rows {
        let key = merge_key(&repo(), pr, "h");
        let row = NewRow {
            key: &key,
            kind: "merge",
            repo: &repo(),
            pr,
            head_sha: Some("h"),
            max_attempts: 3,
        };
        store.enqueue(&row, now).unwrap();
    }
    drop(store);
    let leased = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    let threads: Vec<_> = (0..workers)
        .map(|worker| {
            let location = location.clone();
            let leased = leased.clone();
            std::thread::spawn(move || {
                let mut store = open(&location).unwrap();
                let owner = format!("worker-{worker}");
                let lease = chrono::Duration::minutes(30);
                while let Some(claim) = store
                    .claim(now, &owner, &[repo()], lease, &mut |_, _, _| true)
                    .unwrap()
                {
                    store.complete(&claim.key, &owner, now).unwrap();
                    leased.lock().unwrap().push(claim.key);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let elapsed = started.elapsed().as_secs_f64();
    let mut keys = leased.lock().unwrap().clone();
    let total = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len() as u64, rows, "every row leased");
    (total as f64 / elapsed, total - keys.len())
}

fn main() {
    let rows: u64 = std::env::var("GH_SWEEP_BENCH_ROWS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(1000);
    let backends = std::env::var("GH_SWEEP_BENCH_BACKENDS").unwrap_or_default();
    let measured = |backend: &str| backends.is_empty() || backends.split(',').any(|b| b == backend);
    println!("| backend | workers | rows | claims / s | leased twice |");
    println!("|---|---|---|---|---|");
    for workers in [1, 4, 8] {
        if measured("sqlite") {
            let dir = tempfile::tempdir().unwrap();
            let sqlite = Location::File(dir.path().join("state.db"));
            let (rate, twice) = measure(&sqlite, rows, workers);
            println!("| SQLite | {workers} | {rows} | {rate:.0} | {twice} |");
        }
        // A build without the `postgres` feature measures SQLite alone.
        #[cfg(feature = "postgres")]
        if measured("postgres") {
            let url = pg::fresh_database();
            let target = gh_sweep::store::Target::new(&url, "bench".into());
            let (rate, twice) = measure(&Location::Postgres(Box::new(target)), rows, workers);
            println!("| PostgreSQL | {workers} | {rows} | {rate:.0} | {twice} |");
        }
    }
}
