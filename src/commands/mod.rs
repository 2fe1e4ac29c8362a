//! One file per subcommand; each wires a pool, a policy and the engine together. The shared
//! wiring (client, store, printing the recap) is here.

pub mod classify;
pub mod completions;
pub mod poll;
pub mod recap;
pub mod stale_sweep;
pub mod sweep;

use crate::config::{self, Env, Settings};
use crate::engine::{Classifier, Mode, Run};
use crate::exit::Fatal;
use crate::github::client::{Client, LiveOptions};
use crate::report;
use crate::store::http_cache::SqliteCache;
use crate::store::Store;
use crate::ui::Ui;

/// What every command gets from `main`.
pub struct Context {
    pub env: Env,
    pub ui: Ui,
    pub argv: String,
}

/// Runs a sweep or a classification end to end and prints its recap. Returns the exit code.
pub fn run_engine(
    context: &Context,
    settings: Settings,
    command: &str,
    mode: Mode,
    classifier: &mut dyn Classifier,
) -> anyhow::Result<i32> {
    let ui = &context.ui;
    for warning in &settings.warnings {
        ui.warn(warning);
    }
    // From here on, Ctrl-C and SIGTERM stop the run at its next safe point with a recap.
    if let Err(error) = crate::signals::install() {
        ui.warn(&format!(
            "cannot catch Ctrl-C and SIGTERM ({error}): they will end the run without a recap"
        ));
    }
    let (mut client, now) = match &settings.snapshot {
        Some((path, snapshot)) => {
            let now = snapshot.captured_at;
            ui.status(&format!(
                "Reading from snapshot {} (captured {}); nothing will be written.",
                path.display(),
                now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            ));
            (Client::replay(snapshot.clone()), now)
        }
        None => {
            let token = config::token(&context.env, &settings.api_base).map_err(Fatal::Auth)?;
            if ui.verbose {
                eprintln!(
                    "Using the token from {} for {}.",
                    token.source, settings.api_base
                );
            }
            let client = Client::live(LiveOptions {
                search_interval: settings.search_interval,
                base: settings.api_base.clone(),
                token: token.secret,
                timeout: settings.timeout,
                retry: settings.retry.clone(),
                verbose: ui.verbose,
                record: settings.save_snapshot.is_some(),
            })?;
            (client, settings.now)
        }
    };
    if let (true, Some(path)) = (ui.verbose, &settings.config_path) {
        eprintln!("Using the config file {}.", path.display());
    }
    // A snapshot replay leaves the maintainer's state alone unless a database is named.
    let mut store = if settings.snapshot.is_some() && !settings.db_given {
        Store::in_memory()?
    } else {
        Store::open(&settings.db)?
    };
    for warning in &store.warnings {
        ui.warn(warning);
    }
    if settings.snapshot.is_none() {
        client.set_cache(Box::new(SqliteCache::open(&settings.db)?));
    }
    let mut settings = settings;
    let notes = if settings.snapshot.is_none() {
        crate::engine::canonicalise_repos(&client, &mut store, &mut settings)?
    } else {
        Vec::new()
    };
    for note in &notes {
        ui.status(note);
    }
    let graphql = crate::github::graphql::GraphqlReader::new(&client);
    let reader: &dyn crate::github::Reader = match settings.read_api {
        config::ReadApi::Graphql => &graphql,
        config::ReadApi::Rest => &client,
    };
    let recap = Run {
        reader,
        writer: &client,
        store: &mut store,
        settings: &settings,
        ui,
        now,
        command,
        mode,
        argv: context.argv.clone(),
        notes,
    }
    .execute(classifier)?;

    if let (Some(path), Some(mut recording)) = (&settings.save_snapshot, client.take_recording()) {
        recording.repos = settings.repos.iter().map(ToString::to_string).collect();
        recording.command = Some(command.to_string());
        recording.save(path)?;
        ui.status(&format!("Saved what this run read to {}.", path.display()));
    }
    if ui.verbose {
        eprintln!(
            "{} requests sent; {} answered 304 Not Modified from the cache.",
            client.requests(),
            client.not_modified()
        );
        if graphql.queries() > 0 {
            eprintln!(
                "{} of them GraphQL queries, costing {} points.",
                graphql.queries(),
                graphql.points()
            );
        }
        if let Some(peak) = peak_memory_kib() {
            eprintln!("Peak memory: {peak} KiB.");
        }
    }
    print_stop(&recap);
    print_recap(ui, &recap);
    // Inside GitHub Actions every run also appears on the workflow's page.
    if let Some(summary) = context.env.get("GITHUB_STEP_SUMMARY") {
        let markdown = format!("{}\n\n", report::recap_markdown(&recap));
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(summary)
            .and_then(|mut file| std::io::Write::write_all(&mut file, markdown.as_bytes()));
        if let Err(error) = appended {
            ui.warn(&format!(
                "could not append the recap to GITHUB_STEP_SUMMARY ({summary}): {error}"
            ));
        }
    }
    Ok(recap.exit_code)
}

/// This process's peak resident memory, where the system says (Linux's VmHWM).
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `--print-config`: the `[stale]` table in effect, ready to paste, and nothing read.
pub fn print_stale_config(
    context: &Context,
    stale: &crate::cli::StaleArgs,
    args: &crate::cli::GlobalArgs,
    cwd: &std::path::Path,
) -> anyhow::Result<i32> {
    let (text, warnings) =
        config::stale_table_in_effect(args, stale.from_workflow.as_deref(), &context.env, cwd)?;
    for warning in &warnings {
        context.ui.warn(warning);
    }
    context.ui.data(text.trim_end());
    Ok(crate::exit::SUCCESS)
}

pub fn print_recap(ui: &Ui, recap: &crate::policy::recap::Recap) {
    if ui.json {
        ui.data(&report::recap_json(recap));
    } else if ui.quiet {
        ui.data(&report::recap_counts(recap));
    } else {
        ui.data(&report::recap(recap, ui.stdout_terminal, ui.color));
    }
}

/// The reason a run stopped on a failure, as one line on stderr whatever `-q` and `--json` say,
/// so that a log of stderr (cron's `2>>`) holds every failure; the recap stays on stdout.
fn print_stop(recap: &crate::policy::recap::Recap) {
    let Some(stop) = recap.stopped.filter(|stop| stop.is_error()) else {
        return;
    };
    let detail = recap
        .stop_detail
        .as_deref()
        .unwrap_or_else(|| stop.unfinished_reason());
    let line: String = report::clean(detail).lines().collect::<Vec<_>>().join(" ");
    eprintln!("error: {line}");
}
