//! The request and resource benchmark of issue 6. It runs the release binary against the fake
//! GitHub of the tests, with a simulated latency per request, on generated pools, and prints a
//! Markdown table: requests (total, non-304), the theoretical minimum, wall time, CPU time and
//! peak memory of the gh-sweep process.
//!
//! `cargo bench` runs it (pools of 100, 1,000 and 10,000; 50 ms a request by default).
//! `GH_SWEEP_BENCH_LATENCY_MS=5` changes the latency; `GH_SWEEP_BENCH_POOLS=100,1000` the pools.
//! Two slow cases of issue 13 are opt-in: `GH_SWEEP_BENCH_BIG=100000` (`classify stale` over
//! one big pool: peak memory and CPU) and `GH_SWEEP_BENCH_HISTORY=50` (that many runs of the
//! same 1,000-item sweep on one store: run 1's CPU against the last's).
//! Issue 24's busy-repository cases, in one command:
//! `GH_SWEEP_BENCH_BUSY=10000,100000 GH_SWEEP_BENCH_LATENCY_MS=0 cargo bench --bench sweep`
//! classifies busy-repository pools of those sizes (a seeded generator, `pools/busy.rs`;
//! `GH_SWEEP_BENCH_SEED` picks another seed) through REST and through GraphQL, then runs the
//! history case on a busy pool of 1,000 through both (`GH_SWEEP_BENCH_HISTORY` runs, 50 by
//! default here), and prints both as Markdown tables ready for BENCHMARKS.md. With it set, the
//! default pools and the recheck case are skipped unless `GH_SWEEP_BENCH_POOLS` or
//! `GH_SWEEP_BENCH_RECHECK` name them.
//! Timings are measurements of this machine, never assertions.

#[allow(dead_code, unused_imports)]
#[path = "../tests/cli/support/mod.rs"]
mod support;

#[path = "pools/busy.rs"]
mod busy;

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
    let out = test.dir.path().join("bench-stdout.txt");
    let child = test
        .std_command(&args)
        .stdout(std::fs::File::create(&out).expect("an output file"))
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

/// A world's setup, boxed.
type Setup = Box<dyn FnOnce(&mut WorldState)>;

/// [`poll_world`] where every 33rd PR changes 150 files (a first tick follows their files).
fn many_files(world: &mut WorldState, size: u64) {
    poll_world(size)(world);
    for number in (33..=size).step_by(33) {
        world.issue(number).files = (0..150)
            .map(|n| (format!("src/file{n}.rs"), None))
            .collect();
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
    let busy_sizes: Vec<u64> = std::env::var("GH_SWEEP_BENCH_BUSY")
        .unwrap_or_default()
        .split(',')
        .filter_map(|size| size.trim().parse().ok())
        .filter(|size| *size > 0)
        .collect();
    let default_pools = if busy_sizes.is_empty() {
        "100,1000,10000"
    } else {
        ""
    };
    let pools: Vec<u64> = std::env::var("GH_SWEEP_BENCH_POOLS")
        .unwrap_or_else(|_| default_pools.into())
        .split(',')
        .filter_map(|size| size.trim().parse().ok())
        .collect();
    if let Ok(spec) = std::env::var("GH_SWEEP_BENCH_PROFILE") {
        let seed = env_number("GH_SWEEP_BENCH_SEED").unwrap_or(busy::SEED);
        profile_only(&spec, seed);
        return;
    }
    if !busy_sizes.is_empty() {
        let seed = env_number("GH_SWEEP_BENCH_SEED").unwrap_or(busy::SEED);
        busy_pools(&busy_sizes, seed, latency);
        // `GH_SWEEP_BENCH_HISTORY=0` leaves the history case out.
        let runs = std::env::var("GH_SWEEP_BENCH_HISTORY")
            .ok()
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or(50);
        for api in bench_apis().into_iter().filter(|_| runs > 0) {
            busy_history(runs, seed, api);
        }
        if pools.is_empty() && std::env::var("GH_SWEEP_BENCH_RECHECK").is_err() {
            return;
        }
    }
    println!("Latency {latency} ms a request; pools {pools:?}.\n");
    println!("| case | items | requests | non-304 | minimum | non-304 / minimum | wall | CPU | peak memory | exit | GraphQL points |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for &size in &pools {
        let pages = size.div_ceil(100) as usize;
        let stale_labelled = (1..=size).filter(|n| matches!(n % 100, 3..=4)).count();
        let test = Test::new(stale_world(size));
        test.world().latency = Duration::from_millis(latency);
        let classify = measure(
            &test,
            &["classify", "stale", "--repo", REPO, "--read-api", "rest"],
        );
        println!(
            "{}",
            row(
                "classify stale, REST",
                size,
                1 + pages + stale_labelled,
                &classify
            )
        );
        let dry = measure(
            &test,
            &[
                "stale-sweep",
                "--repo",
                REPO,
                "--dry-run",
                "--read-api",
                "rest",
            ],
        );
        println!(
            "{}",
            row(
                "stale-sweep --dry-run (warm cache), REST",
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
        let rest = ["poll", "--repo", REPO, "--read-api", "rest"];
        let first = measure(&test, &rest);
        println!(
            "{}",
            row("poll, first tick, REST", size, first_minimum, &first)
        );
        let second = measure(&test, &rest);
        println!(
            "{}",
            row("poll, second tick (unchanged), REST", size, 2, &second)
        );
        // Through GraphQL: the repository's name, a query per page of 50 PRs, the branch's
        // rules and the reviewer's permission once a run. A repeat tick over unchanged PRs
        // asks only what changed since (issue 24): the repository's name and one query.
        let worlds: [(&str, Setup); 2] = [
            ("", Box::new(poll_world(size))),
            (
                ", 3% over 100 files",
                Box::new(move |world| many_files(world, size)),
            ),
        ];
        for (pool, world) in worlds {
            let test = Test::new(world);
            test.world().latency = Duration::from_millis(latency);
            let first = 1 + size.div_ceil(50) as usize + 2;
            for (tick, minimum) in [("first", first), ("repeat (unchanged)", 2)] {
                let measured = measure(&test, &["poll", "--repo", REPO, "--read-api", "graphql"]);
                let queries = test
                    .all_requests()
                    .iter()
                    .filter(|r| r.is_graphql())
                    .count();
                let case = format!("poll, {tick} tick{pool}, GraphQL ({queries} queries)");
                println!("{}", row(&case, size, minimum, &measured));
            }
        }
    }
    println!("\nThe poll cases stop at 1,000 PRs: with {latency} ms a request, a first tick over 10,000 PRs is some 20,000 sequential reads.");
    recheck_case(latency);
    if let Some(size) = env_number("GH_SWEEP_BENCH_BIG") {
        big_pool(size, latency);
    }
    if let Some(runs) = env_number("GH_SWEEP_BENCH_HISTORY").filter(|_| busy_sizes.is_empty()) {
        history(runs);
    }
}

/// The points an hour the busy pools' fake grants: 12,500, the most GitHub gives a GitHub App
/// installation ("Rate limits and query limits for the GraphQL API", primary rate limit:
/// installations scale up to 12,500 points an hour), so a pool that needs more than a user's
/// 5,000 shows what it costs instead of stopping at the budget.
const BUSY_POINTS: i64 = 12_500;

/// Issue 24's table: `classify stale` over each busy pool, REST and GraphQL side by side, each
/// on a fresh world and a cold store, one process at a time.
#[cfg(unix)]
/// The read APIs the busy cases run through: `GH_SWEEP_BENCH_APIS=graphql` (or `rest`) runs
/// one; both by default.
fn bench_apis() -> Vec<&'static str> {
    let wanted = std::env::var("GH_SWEEP_BENCH_APIS").unwrap_or_default();
    ["rest", "graphql"]
        .into_iter()
        .filter(|api| wanted.is_empty() || wanted.split(',').any(|want| want == *api))
        .collect()
}

fn busy_pools(sizes: &[u64], seed: u64, latency: u64) {
    println!("Busy-repository pools, seed {seed}, {latency} ms a request; `classify stale --read-api API` on a cold store.\n");
    let mut captions = Vec::new();
    let mut rows = Vec::new();
    for &size in sizes {
        let mut captioned = false;
        for api in bench_apis() {
            let mut world = WorldState::new();
            let census = busy::generate(&mut world, size, seed);
            if !std::mem::replace(&mut captioned, true) {
                captions.push(format!(
                    "- {size}: {}; expected: {}.",
                    census.describe(),
                    busy::expected(&census)
                ));
            }
            let test = Test::new(|_| {});
            world.graphql_points = BUSY_POINTS;
            test.world().world = world;
            test.world().latency = Duration::from_millis(latency);
            test.config(busy::CONFIG);
            let args = ["classify", "stale", "--repo", REPO, "--read-api", api];
            let measured = measure(&test, &args);
            let queries = test
                .all_requests()
                .iter()
                .filter(|r| r.is_graphql())
                .count();
            let api_name = if api == "rest" { "REST" } else { "GraphQL" };
            rows.push(format!(
                "| `classify stale`, {api_name} | {size} | {:.2} s | {:.1} MiB | {} | {queries} | {} | {:.2} s | {} | {} |",
                measured.cpu.as_secs_f64(),
                measured.peak_kib as f64 / 1024.0,
                measured.requests,
                measured
                    .points
                    .map_or_else(|| "—".to_string(), |points| points.to_string()),
                measured.wall.as_secs_f64(),
                measured.code,
                verdicts(&test),
            ));
        }
    }
    if let Some(&size) = sizes
        .first()
        .filter(|_| std::env::var("GH_SWEEP_BENCH_MASSIF").is_ok())
    {
        heap_profile(size, seed);
    }
    println!("{}\n", captions.join("\n"));
    println!("| case | items | CPU | peak RSS | requests | of them GraphQL | points | wall | exit | verdicts |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for row in rows {
        println!("{row}");
    }
}

/// `classify stale --read-api API` over the busy pool of `size` under valgrind's `tool`
/// (`massif`, `callgrind`, `dhat`), its output in `out`; the fake serves from this process, so
/// only gh-sweep's instructions and heap are counted. The exit code gh-sweep gave.
#[cfg(unix)]
fn under_profiler(
    tool: &str,
    size: u64,
    seed: u64,
    api: &str,
    out: &std::path::Path,
) -> Option<i32> {
    let mut world = WorldState::new();
    busy::generate(&mut world, size, seed);
    world.graphql_points = BUSY_POINTS;
    let test = Test::new(|_| {});
    test.world().world = world;
    test.world().latency = Duration::ZERO;
    test.config(busy::CONFIG);
    let binary = test.std_command(&["classify", "stale", "--repo", REPO, "--read-api", api]);
    // `perf`: Linux's sampling profiler (`perf report -i OUT` reads it); else a valgrind tool.
    let mut command = if tool == "perf" {
        let mut perf = std::process::Command::new("perf");
        perf.args(["record", "-F", "999", "--call-graph", "dwarf,16384", "-o"])
            .arg(out)
            .arg("--");
        perf
    } else {
        let mut valgrind = std::process::Command::new("valgrind");
        valgrind
            .arg(format!("--tool={tool}"))
            .arg(format!("--{tool}-out-file={}", out.display()));
        valgrind
    };
    command
        .env_clear()
        .arg(binary.get_program())
        .args(binary.get_args())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if let Some(dir) = binary.get_current_dir() {
        command.current_dir(dir);
    }
    for (key, value) in binary.get_envs() {
        if let Some(value) = value {
            command.env(key, value);
        }
    }
    let status = command.status().expect("valgrind runs");
    test.clear_log();
    status.code()
}

/// `GH_SWEEP_BENCH_PROFILE=TOOL:API:SIZE:OUT` (e.g. `callgrind:graphql:10000:/tmp/cg.out`, or
/// `perf:rest:100000:/tmp/perf.data`): only that profile, of the busy pool of SIZE, its output
/// left in OUT for `callgrind_annotate`, `ms_print`, dhat's viewer or `perf report`.
#[cfg(unix)]
fn profile_only(spec: &str, seed: u64) {
    let parts: Vec<&str> = spec.splitn(4, ':').collect();
    let [tool, api, size, out] = parts[..] else {
        panic!("GH_SWEEP_BENCH_PROFILE is TOOL:API:SIZE:OUT, not {spec}");
    };
    let size = size.parse().expect("SIZE is a number");
    let code = under_profiler(tool, size, seed, api, std::path::Path::new(out));
    println!("{tool} of `classify stale --read-api {api}` over the busy pool of {size}: exit {code:?}, output in {out}");
}

/// `GH_SWEEP_BENCH_MASSIF=1`: `classify stale --read-api graphql` over the first busy pool once
/// more, under valgrind's massif, and the heap's peak snapshot as `ms_print` shows it (its
/// largest allocation sites).
#[cfg(unix)]
fn heap_profile(size: u64, seed: u64) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let out = dir.path().join("massif.out");
    let status = under_profiler("massif", size, seed, "graphql", &out);
    let printed = std::process::Command::new("ms_print")
        .arg(&out)
        .output()
        .expect("ms_print runs");
    let text = String::from_utf8_lossy(&printed.stdout);
    println!("\nHeap profile (valgrind --tool=massif, then ms_print), `classify stale --read-api graphql` over the busy pool of {size}, exit {status:?}: the peak snapshot's largest sites.\n\n```text");
    // " Detailed snapshots: [3, 7, 12 (peak), ...]": the peak's number, then its tree, which
    // follows its row in the snapshots' table; its top two levels.
    let peak = text
        .lines()
        .find(|line| line.trim_start().starts_with("Detailed snapshots:"))
        .and_then(|line| line.split(" (peak)").next())
        .and_then(|head| head.rsplit(['[', ' ']).next())
        .map(str::to_string);
    if let Some(peak) = peak {
        let mut lines = text
            .lines()
            .skip_while(|line| line.split_whitespace().next() != Some(peak.as_str()));
        let row = lines.next().unwrap_or_default();
        let tree: Vec<&str> = lines
            .take_while(|line| !line.trim().is_empty())
            .filter(|line| {
                !line.starts_with("->") && !line.starts_with("| ->") && line.contains('%')
                    || line.starts_with("->")
                    || line.starts_with("| ->")
            })
            .take(40)
            .collect();
        println!("{row}\n{}", tree.join("\n"));
    }
    println!("```");
}

/// The run's verdicts, counted from the store's record of its items (`run_items`: each
/// item's disposition, or its outcome when it has none), so the REST and GraphQL rows can be
/// compared.
fn verdicts(test: &Test) -> String {
    let Ok(connection) = rusqlite::Connection::open(test.db_path()) else {
        return "—".into();
    };
    let counted: Result<Vec<String>, _> = connection
        .prepare(
            "SELECT coalesce(disposition, outcome), count(*) FROM run_items GROUP BY 1 ORDER BY 1",
        )
        .and_then(|mut statement| {
            statement
                .query_map([], |row| {
                    Ok(format!(
                        "{} {}",
                        row.get::<_, i64>(1)?,
                        row.get::<_, String>(0)?
                    ))
                })?
                .collect()
        });
    counted.map_or_else(|_| "—".into(), |counted| counted.join(", "))
}

/// Issue 24's history case on a busy pool of 1,000: the same `stale-sweep --yes` run `runs`
/// times on one store through `api`, the world built anew before each run (the same items,
/// its clock a second later), each run capped at 60 writes (`max_writes`, the 30 oldest
/// marks) and its account forgotten after it (as in [`history`]), so each run has the same
/// work. Prints one row: CPU and page reads of the first and last five runs, the store's size.
#[cfg(unix)]
fn busy_history(runs: u64, seed: u64, api: &str) {
    let size = 1000;
    let test = Test::new(|_| {});
    test.config(&format!("max_writes = 60\n{}", busy::CONFIG));
    let start = test.world().world.now;
    let (mut cpu, mut pages, mut sizes, mut codes) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut requests = Vec::new();
    for run in 1..=runs {
        {
            let mut world = WorldState::new();
            world.now = start + chrono::Duration::seconds(run as i64);
            busy::generate(&mut world, size, seed);
            world.graphql_points = BUSY_POINTS;
            test.world().world = world;
        }
        let args = ["stale-sweep", "--repo", REPO, "--yes", "--read-api", api];
        let measured = measure(&test, &args);
        rusqlite::Connection::open(test.db_path())
            .and_then(|store| store.execute("UPDATE runs SET account = NULL", []))
            .expect("the store opens");
        cpu.push(measured.cpu.as_secs_f64());
        pages.push(lookup_pages(&test, size) as f64);
        sizes.push(store_mib(&test));
        requests.push(measured.requests);
        if !codes.contains(&measured.code) {
            codes.push(measured.code);
        }
    }
    let writes = test.all_requests().iter().filter(|r| r.is_write()).count();
    test.clear_log();
    let five = cpu.len().min(5);
    let mean = |runs: &[f64]| runs.iter().sum::<f64>() / runs.len().max(1) as f64;
    let ratio = |values: &[f64]| {
        let (first, last) = (mean(&values[..five]), mean(&values[values.len() - five..]));
        (first, last, last / first.max(f64::MIN_POSITIVE))
    };
    let (cpu_first, cpu_last, cpu_ratio) = ratio(&cpu);
    let (pages_first, pages_last, pages_ratio) = ratio(&pages);
    let api_name = if api == "rest" { "REST" } else { "GraphQL" };
    if api == "rest" {
        println!("\n{runs} runs of the same `stale-sweep --yes` over a busy pool of {size} (seed {seed}, at most 60 writes a run) on one store, no latency.\n");
        println!("| case | runs | requests a run (last) | CPU, first 5 → last 5 | last 5 / first 5 | page reads of a run's look-ups, first 5 → last 5 | last 5 / first 5 | store after run 1 → run {runs} | exit |");
        println!("|---|---|---|---|---|---|---|---|---|");
    }
    println!(
        "| history, {api_name} | {runs} | {} | {cpu_first:.3} s → {cpu_last:.3} s | {cpu_ratio:.2}× | {pages_first:.0} → {pages_last:.0} | {pages_ratio:.2}× | {:.1} → {:.1} MiB ({}) | {codes:?} |",
        requests.last().copied().unwrap_or(0),
        sizes.first().copied().unwrap_or(0.0),
        sizes.last().copied().unwrap_or(0.0),
        store_counts(&test).replace('|', "/"),
    );
    // The writes are the case's own (checked by the tests, not here).
    let _ = writes;
}

/// The store's file and its write-ahead log, in MiB.
fn store_mib(test: &Test) -> f64 {
    let size = std::fs::metadata(test.db_path()).map_or(0, |meta| meta.len())
        + std::fs::metadata(test.db_path().with_extension("db-wal")).map_or(0, |meta| meta.len());
    size as f64 / 1048576.0
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

/// A positive number from the environment, for the opt-in cases.
fn env_number(name: &str) -> Option<u64> {
    std::env::var(name)
        .ok()
        .and_then(|value| value.trim().parse().ok())
        .filter(|value| *value > 0)
}

/// Issue 13's memory case (`GH_SWEEP_BENCH_BIG=100000`): `classify stale` over one big pool on
/// a cold cache, through REST and through GraphQL.
#[cfg(unix)]
fn big_pool(size: u64, latency: u64) {
    println!("\n`classify stale` over {size} issues, {latency} ms a request.\n");
    println!("| case | items | requests | non-304 | minimum | non-304 / minimum | wall | CPU | peak memory | exit | GraphQL points |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let pages = size.div_ceil(100) as usize;
    let stale_labelled = (1..=size).filter(|n| matches!(n % 100, 3..=4)).count();
    for (case, api, minimum) in [
        ("classify stale", "rest", 1 + pages + stale_labelled),
        ("classify stale, GraphQL", "graphql", 1 + pages),
    ] {
        let test = Test::new(stale_world(size));
        test.world().latency = Duration::from_millis(latency);
        // 6 points a page of 100 spend more than a user's 5,000 points an hour: this pool
        // needs the 10,000 of an installation in a GitHub Enterprise Cloud organisation
        // ("Rate limits and node limits for the GraphQL API", primary rate limit).
        test.world().world.graphql_points = 10_000;
        let args = ["classify", "stale", "--repo", REPO, "--read-api", api];
        let measured = measure(&test, &args);
        println!("{}", row(case, size, minimum, &measured));
        println!("{}", store_counts(&test));
    }
    // Saving what a REST run read, then replaying it offline (no request at all).
    let test = Test::new(stale_world(size));
    test.world().latency = Duration::from_millis(latency);
    let path = test.dir.path().join("snapshot.json");
    let path = path.to_string_lossy().to_string();
    let saved = measure(
        &test,
        &[
            "classify",
            "stale",
            "--repo",
            REPO,
            "--read-api",
            "rest",
            "--save-snapshot",
            &path,
        ],
    );
    let minimum = 1 + pages + stale_labelled;
    println!(
        "{}",
        row("classify stale --save-snapshot", size, minimum, &saved)
    );
    let replayed = measure(&test, &["classify", "stale", "--snapshot", &path]);
    println!(
        "{}",
        row("classify stale --snapshot (replay)", size, 0, &replayed)
    );
    let bytes = std::fs::metadata(&path).map_or(0, |meta| meta.len());
    println!("snapshot file {:.1} MiB", bytes as f64 / 1048576.0);
}

/// Issue 13's history case (`GH_SWEEP_BENCH_HISTORY=50`): the same 1,000-item `stale-sweep
/// --yes` run again and again on one store. Before each run the world is built anew (the same
/// items, its clock a second later, so every answer is a fresh one), so each run has the same
/// work: read the pool, mark the same 30 idle issues (a label and a comment each). No
/// simulated latency: the runs' CPU is the point.
#[cfg(unix)]
fn history(runs: u64) {
    let size = 1000;
    println!("\n{runs} runs of the same {size}-item `stale-sweep --yes` on one store.\n");
    println!("| run | requests | writes | wall | CPU | peak memory | exit | page reads of a run's look-ups | store |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let test = Test::new(|_| {});
    let start = test.world().world.now;
    let mut cpu = Vec::new();
    let mut pages = Vec::new();
    for run in 1..=runs {
        {
            let mut world = WorldState::new();
            world.now = start + chrono::Duration::seconds(run as i64);
            stale_world(size)(&mut world);
            test.world().world = world;
        }
        let args = ["stale-sweep", "--repo", REPO, "--yes", "--read-api", "rest"];
        let measured = measure(&test, &args);
        let writes = test.all_requests().iter().filter(|r| r.is_write()).count();
        // The same 60 writes a run would otherwise wait for the account's limits across runs
        // (80 a minute, 500 an hour) and then stop: this case measures the store's history,
        // not the pacing, so a finished run's account is forgotten (every row stays).
        rusqlite::Connection::open(test.db_path())
            .and_then(|store| store.execute("UPDATE runs SET account = NULL", []))
            .expect("the store opens");
        cpu.push(measured.cpu.as_secs_f64());
        let read = lookup_pages(&test, size);
        pages.push(read);
        if run == 1 || run == runs || run % 10 == 0 {
            println!(
                "| {run} | {} | {writes} | {:.2} s | {:.3} s | {:.1} MiB | {} | {read} | {} |",
                measured.requests,
                measured.wall.as_secs_f64(),
                measured.cpu.as_secs_f64(),
                measured.peak_kib as f64 / 1024.0,
                measured.code,
                store_counts(&test)
            );
        }
    }
    // The writes are the case's own: each run marks the same 30 issues.
    test.clear_log();
    // One run's CPU is noisy on a shared machine: the first five against the last five.
    let five = cpu.len().min(5);
    let mean = |runs: &[f64]| runs.iter().sum::<f64>() / runs.len().max(1) as f64;
    let (first, last) = (mean(&cpu[..five]), mean(&cpu[cpu.len() - five..]));
    println!(
        "\nMean CPU of the first {five} runs {first:.3} s, of the last {five} {last:.3} s: {:.2}x.",
        last / first.max(f64::MIN_POSITIVE)
    );
    let pages: Vec<f64> = pages.into_iter().map(|read| read as f64).collect();
    let (first, last) = (mean(&pages[..five]), mean(&pages[pages.len() - five..]));
    println!(
        "Mean page reads of a run's look-ups, the first {five} runs {first:.0}, the last {five} {last:.0}: {:.2}x.",
        last / first.max(f64::MIN_POSITIVE)
    );
}

/// The pages a run's store look-ups read on the store as the last run left it, counted by
/// SQLite (`SqliteStore::page_reads`), on a copy of the file so the next run is not changed:
/// a new run journals a label on each issue the case marks (each intent checks the other
/// runs' writes to the item and reads each writer's run), then asks what a run asks at its
/// start and end (unknown writes, unfinished marks, the latest recap, the runs list).
fn lookup_pages(test: &Test, size: u64) -> i64 {
    use gh_sweep::item::ItemRef;
    use gh_sweep::policy::write::JournalWrite;
    use gh_sweep::store::sqlite::SqliteStore;
    use gh_sweep::store::{RunLog, WriteJournal};
    let copy = test.dir.path().join("lookups.db");
    for suffix in ["", "-wal"] {
        let from = format!("{}{suffix}", test.db_path().display());
        let to = format!("{}{suffix}", copy.display());
        let _ = std::fs::remove_file(&to);
        if std::path::Path::new(&from).exists() {
            std::fs::copy(&from, &to).expect("a copy of the store");
        }
    }
    let store = SqliteStore::open(&copy).expect("the copied store opens");
    let before = store.page_reads();
    let repo: gh_sweep::item::RepoRef = REPO.parse().unwrap();
    let run = store
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    let mark = store.read_mark().unwrap();
    let label = JournalWrite::AddLabels {
        labels: vec!["Stale".into()],
    };
    let marked: Vec<ItemRef> = (1..=size)
        .filter(|number| number % 100 <= 2)
        .map(|number| ItemRef::new(&repo, number))
        .collect();
    for item in &marked {
        store.journal_intent_since(run, item, &label, mark).unwrap();
    }
    for item in &marked {
        store.mark_unfinished(item, "Stale").unwrap();
    }
    store
        .unknown_writes(std::slice::from_ref(&repo), gh_sweep::clock::wall())
        .unwrap();
    store.recap(None).unwrap();
    store.runs(20).unwrap();
    store.page_reads() - before
}

/// What the store holds after a run: rows per table, the HTTP cache's body bytes, the file's
/// size.
fn store_counts(test: &Test) -> String {
    let Ok(connection) = rusqlite::Connection::open(test.db_path()) else {
        return "no store".into();
    };
    let count = |sql: &str| -> i64 {
        connection
            .query_row(sql, [], |row| row.get(0))
            .unwrap_or(-1)
    };
    let size = std::fs::metadata(test.db_path()).map_or(0, |meta| meta.len())
        + std::fs::metadata(test.db_path().with_extension("db-wal")).map_or(0, |meta| meta.len());
    format!(
        "runs {}, run_items {}, journal {}, http_cache {} ({:.1} MiB of bodies), file {:.1} MiB",
        count("SELECT count(*) FROM runs"),
        count("SELECT count(*) FROM run_items"),
        count("SELECT count(*) FROM journal"),
        count("SELECT count(*) FROM http_cache"),
        count("SELECT coalesce(sum(length(body)), 0) FROM http_cache") as f64 / 1048576.0,
        size as f64 / 1048576.0
    )
}

#[cfg(not(unix))]
fn main() {
    eprintln!("the benchmark measures with wait4 and runs on Unix only");
}
