//! The request and resource benchmark of issue 6. It runs the release binary against the fake
//! GitHub of the tests, with a simulated latency per request, on generated pools, and prints a
//! Markdown table: requests (total, non-304), the theoretical minimum, wall time, CPU time and
//! peak memory of the gh-sweep process.
//!
//! `cargo bench` runs it (pools of 100, 1,000 and 10,000; 50 ms a request by default).
//! `GH_SWEEP_BENCH_LATENCY_MS=5` changes the latency; `GH_SWEEP_BENCH_POOLS=100,1000` the pools.
//! Timings are measurements of this machine, never assertions.

#[allow(dead_code, unused_imports)]
#[path = "../tests/cli/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use support::{Test, WorldState, REPO};

struct Measured {
    requests: usize,
    charged: usize,
    wall: Duration,
    cpu: Duration,
    peak_kib: i64,
    code: i32,
    /// The GraphQL points the run's queries cost, as its `--verbose` line says.
    points: Option<u64>,
}

/// Runs the binary once and measures it with `wait4`, which reports this child's own CPU time
/// and peak resident memory.
#[cfg(unix)]
#[allow(clippy::zombie_processes)] // wait4 reaps it
fn measure(test: &Test, args: &[&str]) -> Measured {
    test.clear_log();
    let started = Instant::now();
    let mut args = args.to_vec();
    args.push("--verbose");
    let log = test.dir.path().join("bench-stderr.txt");
    let child = test
        .std_command(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).expect("a log file"))
        .spawn()
        .expect("the release binary runs");
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4");
    let wall = started.elapsed();
    // Reaped by wait4 above; dropping the handle does nothing more.
    drop(child);
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    // The process's own VmHWM: wait4's ru_maxrss would count what it inherited from this
    // process at fork, before exec.
    let peak_kib = std::fs::read_to_string(&log)
        .ok()
        .and_then(|text| {
            let line = text
                .lines()
                .find(|line| line.starts_with("Peak memory: "))?
                .to_string();
            line.trim_start_matches("Peak memory: ")
                .trim_end_matches(" KiB.")
                .parse()
                .ok()
        })
        .unwrap_or(usage.ru_maxrss);
    let points = std::fs::read_to_string(&log).ok().and_then(|text| {
        let line = text
            .lines()
            .find(|line| line.contains(" GraphQL queries, costing "))?;
        line.split(" costing ")
            .nth(1)?
            .trim_end_matches(" points.")
            .parse()
            .ok()
    });
    let requests = test.all_requests();
    Measured {
        points,
        requests: requests.len(),
        charged: requests.iter().filter(|r| r.status != 304).count(),
        wall,
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
        peak_kib,
        code: if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            -1
        },
    }
}

/// A repository of `size` issues: 3% idle (to be marked), 2% stale-labelled (their events are
/// read), the rest fresh.
fn stale_world(size: u64) -> impl FnOnce(&mut WorldState) {
    move |world| {
        for number in 1..=size {
            match number % 100 {
                0..=2 => {
                    world.open_issue(number, 74);
                }
                3..=4 => {
                    world.stale_issue(number, 3, "github-actions[bot]");
                }
                _ => {
                    world.open_issue(number, 5);
                }
            }
        }
    }
}

/// `size` open PRs: 10% eligible, the rest not docs-only.
fn poll_world(size: u64) -> impl FnOnce(&mut WorldState) {
    move |world| {
        for number in 1..=size {
            let pr = world.green_pr(number);
            if number % 10 != 0 {
                pr.files = vec![("src/lib.rs".into(), None)];
            }
        }
    }
}

fn row(case: &str, size: u64, minimum: usize, measured: &Measured) -> String {
    format!(
        "| {case} | {size} | {} | {} | {minimum} | {:.2} | {:.2} s | {:.3} s | {:.1} MiB | {} | {} |",
        measured.requests,
        measured.charged,
        measured.charged as f64 / minimum.max(1) as f64,
        measured.wall.as_secs_f64(),
        measured.cpu.as_secs_f64(),
        measured.peak_kib as f64 / 1024.0,
        measured.code,
        measured
            .points
            .map_or_else(|| "—".to_string(), |points| points.to_string())
    )
}

#[cfg(unix)]
fn main() {
    let latency = std::env::var("GH_SWEEP_BENCH_LATENCY_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .unwrap_or(50);
    let pools: Vec<u64> = std::env::var("GH_SWEEP_BENCH_POOLS")
        .unwrap_or_else(|_| "100,1000,10000".into())
        .split(',')
        .filter_map(|size| size.trim().parse().ok())
        .collect();
    println!("Latency {latency} ms a request; pools {pools:?}.\n");
    println!("| case | items | requests | non-304 | minimum | non-304 / minimum | wall | CPU | peak memory | exit | GraphQL points |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for &size in &pools {
        let pages = size.div_ceil(100) as usize;
        let stale_labelled = (1..=size).filter(|n| matches!(n % 100, 3..=4)).count();
        let test = Test::new(stale_world(size));
        test.world().latency = Duration::from_millis(latency);
        let classify = measure(&test, &["classify", "stale", "--repo", REPO]);
        println!(
            "{}",
            row(
                "classify stale",
                size,
                1 + pages + stale_labelled,
                &classify
            )
        );
        let dry = measure(&test, &["stale-sweep", "--repo", REPO, "--dry-run"]);
        println!(
            "{}",
            row(
                "stale-sweep --dry-run (warm cache)",
                size,
                1 + pages + stale_labelled,
                &dry
            )
        );
        // Through GraphQL: the repository's name, a page of 100 issues and 100 PRs at a time
        // (the PR list is empty here, one page), the token's login when there is activity.
        let test = Test::new(stale_world(size));
        test.world().latency = Duration::from_millis(latency);
        let graphql = measure(
            &test,
            &["classify", "stale", "--repo", REPO, "--read-api", "graphql"],
        );
        println!(
            "{}",
            row("classify stale, GraphQL", size, 1 + pages, &graphql)
        );
    }
    for &size in pools.iter().filter(|size| **size <= 1000) {
        let test = Test::new(poll_world(size));
        test.world().latency = Duration::from_millis(latency);
        // Minimum of a first tick: the repository's name, the search pages, then for each PR
        // its read and files; the eligible tenth also needs check runs, status and reviews.
        let search_pages = size.div_ceil(100) as usize;
        let first_minimum = 1 + search_pages + (size as usize) * 2 + (size as usize / 10) * 3;
        let first = measure(&test, &["poll", "--repo", REPO]);
        println!("{}", row("poll, first tick", size, first_minimum, &first));
        let second = measure(&test, &["poll", "--repo", REPO]);
        println!("{}", row("poll, second tick (unchanged)", size, 2, &second));
        // Through GraphQL: the repository's name, a query per page of 50 PRs, the branch's
        // rules and the reviewer's permission once a run. A second tick costs the same.
        let test = Test::new(poll_world(size));
        test.world().latency = Duration::from_millis(latency);
        let minimum = 1 + size.div_ceil(50) as usize + 2;
        for tick in ["first", "second"] {
            let measured = measure(&test, &["poll", "--repo", REPO, "--read-api", "graphql"]);
            let case = format!("poll, {tick} tick, GraphQL");
            println!("{}", row(&case, size, minimum, &measured));
        }
    }
    println!("\nThe poll cases stop at 1,000 PRs: with {latency} ms a request, a first tick over 10,000 PRs is some 20,000 sequential reads.");
    recheck_case(latency);
}

/// Issue 13's recheck row: a stale sweep whose write phase lasts `items × interval` (300 items
/// at 2 s a write: 10 minutes, by default) over items that each need one write (the label, no
/// message), with a recheck window of `window` seconds (120, the default); while it writes,
/// someone comments on 3 items a third of the way in and on 3 more two thirds in, each before
/// its turn. `GH_SWEEP_BENCH_RECHECK=items,interval,window` changes it (`0` skips it).
#[cfg(unix)]
fn recheck_case(latency: u64) {
    let spec = std::env::var("GH_SWEEP_BENCH_RECHECK").unwrap_or_else(|_| "300,2,120".into());
    let parts: Vec<f64> = spec
        .split(',')
        .filter_map(|part| part.trim().parse().ok())
        .collect();
    let [items, interval, window] = parts[..] else {
        return;
    };
    let items = items as u64;
    if items == 0 {
        return;
    }
    let test = Test::new(move |world| {
        for number in 1..=items {
            world.open_issue(number, 74);
        }
    });
    test.world().latency = Duration::from_millis(latency);
    test.config(&format!(
        "write_interval = {interval}\nrecheck_after_seconds = {window}\n[stale]\nstale_issue_message = \"\"\n"
    ));
    let phase = Duration::from_secs_f64(items as f64 * interval);
    let batches: Vec<Vec<u64>> = [0.8, 0.9]
        .iter()
        .map(|share| {
            let first = (items as f64 * share) as u64;
            (first..first + 3)
                .filter(|number| *number <= items)
                .collect()
        })
        .collect();
    let changed: usize = batches.iter().map(Vec::len).sum();
    let shared = std::sync::Arc::clone(&test.server.shared);
    let changer = std::thread::spawn(move || {
        for batch in batches {
            std::thread::sleep(phase / 3);
            let mut shared = shared.lock().unwrap();
            let now = chrono::Utc::now();
            for number in batch {
                shared
                    .world
                    .comment_at(number, "alice", now, "still happening");
            }
        }
    });
    let measured = measure(
        &test,
        &["stale-sweep", "--repo", REPO, "--yes", "--read-api", "rest"],
    );
    let _ = changer.join();
    let log = test.all_requests();
    let lists = log
        .iter()
        .filter(|request| request.method == "GET" && request.query.contains("state=all"))
        .count();
    let prefix = format!("/repos/{REPO}/issues/");
    let rereads = log
        .iter()
        .filter(|request| request.method == "GET")
        .filter_map(|request| request.path.strip_prefix(&prefix))
        .filter(|rest| rest.chars().all(|c| c.is_ascii_digit()))
        .count();
    let writes = log.iter().filter(|request| request.is_write()).count();
    // Counted here, not audited: the harness's end-of-test audit is for the tests.
    test.clear_log();
    // Before: one read per item whose write came more than a window after its read.
    let young = (window / (interval + latency as f64 / 1000.0)).floor() as u64;
    let before = items.saturating_sub(young);
    println!("\n| case | items | write phase | recheck window | lists of changes (pages) | changed mid-run | re-reads | before: 1 GET per item older than the window (computed) | requests | writes | wall | exit |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    println!(
        "| stale-sweep recheck by `since` | {items} | {:.0} s | {window} s | {lists} | {changed} | {rereads} | {before} | {} | {writes} | {:.0} s | {} |",
        phase.as_secs_f64(),
        measured.requests,
        measured.wall.as_secs_f64(),
        measured.code
    );
}

#[cfg(not(unix))]
fn main() {
    eprintln!("the benchmark measures with wait4 and runs on Unix only");
}
