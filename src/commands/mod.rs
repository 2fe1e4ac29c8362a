//! One file per subcommand; each wires a pool, a policy and the engine together. The shared
//! wiring (client, store, printing the recap) is here.

pub mod classify;
pub mod completions;
pub mod poll;
pub mod recap;
pub mod stale_sweep;
pub mod store_admin;
pub mod sweep;

use crate::cli::{GlobalArgs, ReadArgs, StaleArgs, WriteArgs};
use crate::clock::Clock;
use crate::engine::{AssumeYes, Confirm, DryRun, Kind, Mode, Options, Prompt, Run};
use crate::github::client::{Client, LiveOptions, Log};
use crate::report;
use crate::settings::{self, CommandAccess, CommandKind, CommonArgs, Env, Settings, Sources};
use crate::store::{self, Location};
use crate::ui::Ui;

/// What every command gets from `main`.
pub struct Context {
    pub env: Env,
    pub ui: Ui,
    pub argv: String,
    /// The system's clock; a run whose decisions are fixed in time (`--now`, a snapshot) gets
    /// its own.
    pub clock: Clock,
    /// Which of the command's options clap took from the environment.
    pub sources: Sources,
}

impl Context {
    /// The common layer's options of a command: how it reads, how it writes (the defaults
    /// for one that does not), and `--json`.
    pub fn common_args<'a>(
        &'a self,
        kind: CommandKind,
        global: &GlobalArgs,
        read: &'a ReadArgs,
        write: &'a WriteArgs,
    ) -> CommonArgs<'a> {
        CommonArgs {
            kind,
            read,
            write,
            json: global.json,
            sources: &self.sources,
        }
    }
}

/// Runs a sweep or a classification end to end and prints its recap. Returns the exit code.
pub fn run_engine(
    context: &Context,
    mut settings: Settings,
    classifier: &mut dyn Kind,
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
    let (mut client, now) = match open_client(context, &mut settings) {
        Ok(opened) => opened,
        Err(error) => {
            print_unstarted(ui, &settings, &error);
            return Err(error);
        }
    };
    // A snapshot's capture time and `--now` fix the instant every decision is taken at.
    let clock = if settings.snapshot.is_some() || settings.now_given {
        Clock::fixed(now)
    } else {
        context.clock
    };
    if let (true, Some(path)) = (ui.verbose, &settings.config_path) {
        eprintln!("Using the config file {}.", path.display());
    }
    let mut store = open_store(ui, &settings)?;
    if settings.snapshot.is_none() {
        client.set_cache(store.response_cache()?);
    }
    let mut options = engine_options(&settings);
    let notes = if settings.snapshot.is_none() {
        crate::engine::canonicalise_repos(&client, store.as_mut(), &mut options)?
    } else {
        Vec::new()
    };
    for note in &notes {
        ui.status(note);
    }
    let mut confirm = confirmation(&settings, ui);
    let graphql = crate::github::graphql::GraphqlReader::new(&client).knowing_stale_labels(
        settings.stale.stale_label(false),
        settings.stale.stale_label(true),
    );
    let reader: &dyn crate::github::Reader = match settings.read_api {
        settings::ReadApi::Graphql => &graphql,
        settings::ReadApi::Rest => &client,
    };
    let command = settings.kind.words();
    let recap = Run {
        reader,
        writer: &client,
        store: store.as_mut(),
        options: &options,
        ui,
        clock,
        now,
        command,
        mode: mode_of(settings.kind),
        argv: context.argv.clone(),
        notes,
    }
    .execute(classifier, confirm.as_mut())?;
    save_recording(ui, &settings, &options, &client)?;
    if ui.verbose {
        print_costs(&client, &graphql);
    }
    print_stop(&recap);
    print_recap(ui, &recap);
    append_job_summary(context, &recap);
    write_step_outputs(context, &recap);
    Ok(recap.exit_code)
}

/// `--save-snapshot FILE`: every GitHub answer the run read, with what it was read for.
fn save_recording(
    ui: &Ui,
    settings: &Settings,
    options: &Options,
    client: &Client,
) -> anyhow::Result<()> {
    if let (Some(path), Some(mut recording)) = (&settings.save_snapshot, client.take_recording()) {
        recording.repos = options.repos.iter().map(ToString::to_string).collect();
        recording.command = Some(settings.kind.words().to_string());
        recording.read_api = Some(settings.read_api.name().to_string());
        recording.save(path)?;
        ui.status(&format!("Saved what this run read to {}.", path.display()));
    }
    Ok(())
}

/// How the engine runs a kind: `classify` is the read phase alone.
fn mode_of(kind: CommandKind) -> Mode {
    match kind.access() {
        CommandAccess::ReadOnly => Mode::Classify,
        CommandAccess::LocalWrites | CommandAccess::Writes => Mode::Sweep,
    }
}

/// A run with `--json` that cannot start for want of a token still leaves its one JSON line
/// (`stopped: "auth"`, exit 4, the code of that stop): a cron log of JSON lines says why the
/// night was empty. Nothing was read or stored (run id 0).
fn print_unstarted(ui: &Ui, settings: &Settings, error: &anyhow::Error) {
    let Some(crate::exit::ExpectedError::Auth(message)) = error.downcast_ref() else {
        return;
    };
    if !ui.json {
        return;
    }
    let outcomes = std::collections::BTreeMap::new();
    let recap = crate::policy::recap::build(crate::policy::recap::RunFacts {
        run_id: 0,
        command: settings.kind.words(),
        dry_run: settings.dry_run,
        pool: &[],
        pool_complete: false,
        outcomes: &outcomes,
        stopped: Some(crate::exit::Stop::Auth),
        stop_detail: Some(message.clone()),
        budget: settings.common.budget,
        planned: Vec::new(),
        rerun_prefix: &settings.rerun_prefix,
        rerun_file_path: "",
        exit_override: None,
        unknown_writes: false,
        overtaken: false,
    });
    ui.data(&report::recap_json(&recap));
}

/// The store the run keeps its state in. A snapshot replay leaves the maintainer's state alone
/// unless a database is named.
fn open_store(ui: &Ui, settings: &Settings) -> anyhow::Result<Box<dyn store::Store>> {
    let location = if settings.snapshot.is_some() && !settings.db_given {
        Location::Memory
    } else if let Some(target) = &settings.postgres {
        Location::Postgres(Box::new(target.clone()))
    } else {
        Location::File(settings.db.clone())
    };
    let store = store::open_as(&location, &settings.common.runs)?;
    for warning in store.warnings() {
        ui.warn(warning);
    }
    Ok(store)
}

/// How the run learns which writes to send: a dry run sends none, `--yes` all, else it asks.
fn confirmation<'a>(settings: &Settings, ui: &'a Ui) -> Box<dyn Confirm + 'a> {
    if settings.dry_run {
        Box::new(DryRun)
    } else if settings.yes {
        Box::new(AssumeYes)
    } else {
        Box::new(Prompt(ui))
    }
}

/// The client this run reads with, and the run's clock: a snapshot's replay (at the time it
/// was captured), else GitHub with the token for the API's host.
fn open_client(
    context: &Context,
    settings: &mut Settings,
) -> anyhow::Result<(Client, chrono::DateTime<chrono::Utc>)> {
    let ui = &context.ui;
    Ok(match &mut settings.snapshot {
        Some((path, snapshot)) => {
            let now = snapshot.captured_at;
            ui.status(&format!(
                "Reading from snapshot {} (captured {}); nothing will be written.",
                path.display(),
                now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            ));
            // The client takes the answers over: a second copy of a big snapshot would
            // double the replay's memory. What stays behind is its capture time alone.
            let answers = std::mem::replace(snapshot, crate::github::snapshot::Snapshot::new(now));
            (Client::replay(answers), now)
        }
        None => {
            let common = &settings.common;
            let token = settings::token(&context.env, &common.api_base)?;
            if ui.verbose {
                eprintln!(
                    "Using the token from {} for {}.",
                    token.source, common.api_base
                );
            }
            let client = Client::live(LiveOptions {
                search_interval: common.timing.search_interval,
                base: common.api_base.clone(),
                token: token.secret,
                timeout: common.timing.timeout,
                retry: common.timing.retry.clone(),
                log: request_log(ui.verbose),
                record: settings.save_snapshot.is_some(),
            })?;
            (client, settings.now)
        }
    })
}

/// Where the client's request lines go: standard error under `-v`, else nowhere.
fn request_log(verbose: bool) -> Option<Log> {
    verbose.then(|| Box::new(|line: &str| eprintln!("{line}")) as Log)
}

/// Inside GitHub Actions every run also appears on the workflow's page: the recap as Markdown,
/// appended to `GITHUB_STEP_SUMMARY`.
fn append_job_summary(context: &Context, recap: &crate::policy::recap::Recap) {
    let ui = &context.ui;
    if let Some(summary) = context.env.get("GITHUB_STEP_SUMMARY") {
        // What the step already wrote counts against the limit too.
        let used = std::fs::metadata(summary).map_or(0, |meta| meta.len() as usize);
        let room = report::outputs::SUMMARY_LIMIT.saturating_sub(used);
        let markdown = report::outputs::fit_summary(
            &format!("{}\n\n", report::recap_markdown(recap)),
            room,
            recap.run_id,
        );
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
}

/// Inside GitHub Actions, a run with outputs (`stale-sweep`'s `staled-issues-prs` and
/// `closed-issues-prs`) appends them to `GITHUB_OUTPUT`, the step's outputs file.
fn write_step_outputs(context: &Context, recap: &crate::policy::recap::Recap) {
    let (Some(path), Some(outputs)) = (context.env.get("GITHUB_OUTPUT"), &recap.outputs) else {
        return;
    };
    let pairs: Vec<(&str, &str)> = ["staled-issues-prs", "closed-issues-prs"]
        .into_iter()
        .filter_map(|name| outputs.get(name)?.as_str().map(|value| (name, value)))
        .collect();
    let text = report::outputs::github_output(&pairs);
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| std::io::Write::write_all(&mut file, text.as_bytes()));
    if let Err(error) = appended {
        context.ui.warn(&format!(
            "could not write the outputs to GITHUB_OUTPUT ({path}): {error}"
        ));
    }
}

/// What the engine takes of the resolved settings.
fn engine_options(settings: &Settings) -> Options {
    Options {
        repos: settings.repos.clone(),
        orgs: settings.orgs.clone(),
        only: settings.only.clone(),
        from_snapshot: settings.snapshot.is_some(),
        dry_run: settings.dry_run,
        confirm_local: settings.confirm,
        budget: settings.common.budget,
        max_writes: settings.common.limits.max_writes,
        recheck_after: settings.common.timing.recheck_after,
        write_interval: settings.write_interval(),
        max_wait: settings.max_wait(),
        settle_after: settings.common.timing.settle_after,
        attempts_per_trigger: settings.sweep.attempts_per_trigger,
        db: settings.db.clone(),
        rerun_prefix: settings.rerun_prefix.clone(),
        web_url: settings::web_url(&settings.common.api_base),
    }
}

/// `-v`'s last lines: what the run cost in requests, GraphQL points and memory.
fn print_costs(client: &Client, graphql: &crate::github::graphql::GraphqlReader) {
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

/// This process's peak resident memory, where the system says (Linux's VmHWM).
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `--print-config`: the `[stale]` table in effect, ready to paste, and nothing read.
pub fn print_stale_config(
    context: &Context,
    stale: &StaleArgs,
    read: &ReadArgs,
    cwd: &std::path::Path,
) -> anyhow::Result<i32> {
    let (text, warnings) = settings::stale_table_in_effect(
        read.config.as_deref(),
        stale.from_workflow.as_deref(),
        stale.from_action_inputs,
        &context.env,
        cwd,
    )?;
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
        // No stop, and still not a clean run: items failed (exit 8) or a write was refused
        // for one item (11). Said once, with the first failed item and its reason.
        if recap.exit_code != crate::exit::SUCCESS {
            if let Some(first) = recap.failed.first() {
                let more = match recap.failed.len() {
                    1 => String::new(),
                    count => format!(
                        " (and {} more)",
                        crate::policy::count(count as u64 - 1, "item")
                    ),
                };
                let reason: String = report::clean(&first.reason)
                    .lines()
                    .collect::<Vec<_>>()
                    .join(" ");
                eprintln!(
                    "error: {} failed: {}: {reason}{more}; exit {}",
                    crate::policy::count(recap.failed.len() as u64, "item"),
                    first.item,
                    recap.exit_code
                );
            }
        }
        return;
    };
    let detail = recap
        .stop_detail
        .as_deref()
        .unwrap_or_else(|| stop.unfinished_reason());
    let line: String = report::clean(detail).lines().collect::<Vec<_>>().join(" ");
    // Ctrl-C (or SIGTERM) is the maintainer's own choice, not a failure: said, not as an error.
    if stop == crate::exit::Stop::Interrupted {
        eprintln!("interrupted: {line}");
    } else {
        eprintln!("error: {line}");
    }
}
