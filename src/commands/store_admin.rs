//! `gh-sweep store status` and `gh-sweep store copy`: what a store holds, and moving one
//! between SQLite and PostgreSQL. Wiring only: the stores read and write their own rows.

use super::Context;
use crate::cli::{GlobalArgs, StoreCopyArgs, StoreStatusArgs, WriteArgs};
use crate::exit::Fatal;
use crate::settings::{self, CommandKind};
use crate::store::{self, retention, Location, RunRow, Status};

/// How a store is named in output: a URL without its password.
fn shown(text: &str) -> String {
    store::location::without_password(text)
}

pub fn status(
    context: &Context,
    args: &StoreStatusArgs,
    global: &GlobalArgs,
    cwd: &std::path::Path,
) -> anyhow::Result<i32> {
    let (read, write) = (args.store.as_read(), WriteArgs::default());
    let common = context.common_args(CommandKind::StoreStatus, global, &read, &write);
    let (location, source) = settings::looked_at(&common, &context.env, cwd)?;
    // Looking never makes a store: a mistyped path is not a healthy empty one.
    if let Location::File(path) = &location {
        if !path.exists() {
            let message = if args.store.db.db.is_some() {
                format!(
                    "invalid --db {}: no such file (name an existing store; a run makes one)",
                    path.display()
                )
            } else {
                format!(
                    "no store yet: {} does not exist ({source}; pass --db PATH or --db postgres://... to look at another)",
                    path.display()
                )
            };
            return Err(Fatal::Usage(message).into());
        }
    }
    let store = store::open(&location)?;
    for warning in store.warnings() {
        context.ui.warn(warning);
    }
    let status = store.status()?;
    // The newest run that finished, with its exit: what cron or CI last made of it.
    let last_run = store
        .runs(retention::RUNS_KEPT)?
        .into_iter()
        .find(|run| run.exit_code.is_some());
    let view = StatusView { status, last_run };
    if context.ui.json {
        // One line, as `recap --json` is: a log of JSON lines stays one record a line.
        context.ui.data(&serde_json::to_string(&view)?);
    } else {
        context.ui.data(&render(&view));
    }
    Ok(crate::exit::SUCCESS)
}

/// What `store status` prints: the store's own status and its last finished run.
#[derive(serde::Serialize)]
struct StatusView {
    #[serde(flatten)]
    status: Status,
    last_run: Option<RunRow>,
}

fn render(view: &StatusView) -> String {
    let status = &view.status;
    let mut lines = vec![
        format!("backend: {} ({})", status.backend, status.location),
        format!("schema version: {}", status.schema_version),
        format!("runs at work: {}", status.live_runs.len()),
    ];
    for run in &status.live_runs {
        lines.push(format!(
            "  run {} {} on {} (pid {}), started {}{}",
            run.id,
            run.command,
            run.host.as_deref().unwrap_or("an unknown host"),
            run.pid.map_or("unknown".to_string(), |pid| pid.to_string()),
            run.started_at,
            run.heartbeat_at
                .as_ref()
                .map(|at| format!(", last heartbeat {at}"))
                .unwrap_or_default()
        ));
    }
    let queue: Vec<String> = status
        .queue
        .iter()
        .map(|(word, count)| format!("{word} {count}"))
        .collect();
    lines.push(format!(
        "queue: {}",
        if queue.is_empty() {
            "empty".to_string()
        } else {
            queue.join(", ")
        }
    ));
    lines.push(format!("leases: {}", status.leases.len()));
    for lease in &status.leases {
        lines.push(format!(
            "  {} held by {} until {}",
            lease.key, lease.owner, lease.leased_until
        ));
    }
    lines.push(format!(
        "writes of unknown outcome: {}",
        status.unknown_writes.len()
    ));
    for write in &status.unknown_writes {
        lines.push(format!(
            "  {} {} (run {}, sent {}): the next `gh-sweep {}` settles it by asking GitHub, or `gh-sweep recap --acknowledge {}` once checked by hand",
            crate::report::clean(&write.item),
            crate::report::clean(&write.write),
            write.run_id,
            write.intent_at,
            write.settled_by,
            crate::report::clean(&write.item)
        ));
    }
    lines.push(match &view.last_run {
        Some(run) => format!(
            "last run: {} at {}, exit {}{} ({})",
            run.id,
            run.started_at,
            run.exit_code.unwrap_or_default(),
            run.stopped
                .as_deref()
                .map(|stopped| format!(", stopped: {stopped}"))
                .unwrap_or_default(),
            crate::report::clean(&run.argv)
        ),
        None => "last run: none finished yet".to_string(),
    });
    lines.join("\n")
}

pub fn copy(context: &Context, args: &StoreCopyArgs) -> anyhow::Result<i32> {
    let from = settings::store_named(&args.from, &context.env, "--from")?;
    if let Location::File(path) = &from {
        if !path.exists() {
            return Err(Fatal::Usage(format!(
                "invalid --from {}: no such file (name an existing store)",
                path.display()
            ))
            .into());
        }
    }
    let source = store::open(&from)?;
    let mut target = store::open(&settings::store_named(&args.to, &context.env, "--to")?)?;
    // A run at work on either side would go on writing where the copy no longer looks, or be
    // taken for dead on the copy: copied runs keep their heartbeats, so with --force a run at
    // work is at work on the copy too, until its heartbeat stops.
    if !args.force {
        for (what, text, store) in [("from", &args.from, &source), ("into", &args.to, &target)] {
            let at_work = store.status()?.live_runs;
            if !at_work.is_empty() {
                let runs: Vec<String> = at_work
                    .iter()
                    .map(|run| {
                        format!(
                            "run {} ({} on host {}, pid {})",
                            run.id,
                            run.command,
                            run.host.as_deref().unwrap_or("unknown"),
                            run.pid
                                .map_or_else(|| "unknown".to_string(), |pid| pid.to_string())
                        )
                    })
                    .collect();
                return Err(Fatal::Usage(format!(
                    "refusing to copy {what} {}: {} at work there ({}); wait for it to finish, or pass --force to copy all the same",
                    shown(text),
                    if runs.len() == 1 { "a run is" } else { "runs are" },
                    runs.join(", ")
                ))
                .into());
            }
        }
    }
    let existing = target.export()?;
    if !existing.is_empty() && !args.force {
        let held: Vec<String> = existing
            .counts()
            .into_iter()
            .filter(|(_, count)| *count > 0)
            .map(|(table, count)| format!("{count} {table}"))
            .collect();
        return Err(Fatal::Usage(format!(
            "refusing to copy into {}: it already holds rows ({}); pass --force to replace them",
            shown(&args.to),
            held.join(", ")
        ))
        .into());
    }
    let dump = source.export()?;
    target.import(&dump)?;
    let counts: Vec<String> = dump
        .counts()
        .into_iter()
        .map(|(table, count)| format!("{count} {table}"))
        .collect();
    context.ui.status(&format!(
        "Copied {} into {}: {}.",
        shown(&args.from),
        shown(&args.to),
        counts.join(", ")
    ));
    Ok(crate::exit::SUCCESS)
}
