//! `gh-sweep recap`: print a stored run's recap again, list runs, or acknowledge a write whose
//! outcome was unknown once it has been checked by hand.

use super::{print_recap, Context};
use crate::cli::{GlobalArgs, RecapArgs, WriteArgs};
use crate::exit::Fatal;
use crate::item::ItemRef;
use crate::report;
use crate::settings::{self, CommandKind};
use crate::store::{self, Location};

pub fn run(
    context: &Context,
    recap: &RecapArgs,
    global: &GlobalArgs,
    cwd: &std::path::Path,
) -> anyhow::Result<i32> {
    // clap sees the conflict when `--json` follows `recap`; a global `--json` before it
    // reaches here as a plain value, so the same refusal is made here.
    if recap.markdown && global.json {
        return Err(Fatal::Usage(
            "the argument '--json' cannot be used with '--markdown': pick one".to_string(),
        )
        .into());
    }
    let (read, write) = (recap.store.as_read(), WriteArgs::default());
    let common = context.common_args(CommandKind::Recap, global, &read, &write);
    let (location, source) = settings::looked_at(&common, &context.env, cwd)?;
    if let Location::File(path) = &location {
        if !path.exists() {
            let hint = if recap.store.db.db.is_some() {
                String::new()
            } else {
                format!(" ({source}; pass --db PATH if the runs were stored elsewhere)")
            };
            return Err(Fatal::Usage(format!(
                "no runs recorded yet: {} does not exist{hint}",
                path.display()
            ))
            .into());
        }
    }
    // Reading a stored recap needs no write: a store on a read-only mount (or a read-only
    // file) is opened read-only. Acknowledging a write changes the store, so it opens it
    // as every command does.
    let store: Box<dyn store::Store> = match &location {
        Location::File(path)
            if recap.acknowledge.is_none() && !store::sqlite::SqliteStore::writable(path) =>
        {
            Box::new(store::sqlite::SqliteStore::open_read_only(path)?)
        }
        other => store::open(other)?,
    };
    for warning in store.warnings() {
        context.ui.warn(warning);
    }
    let path = shown(&location);
    if let Some(item) = &recap.acknowledge {
        return acknowledge(context, store.as_ref(), item, &path);
    }
    if recap.list {
        let runs = store.runs(20)?;
        if context.ui.json {
            context.ui.data(&serde_json::to_string(&runs)?);
        } else {
            context
                .ui
                .data(&report::runs(&runs, context.ui.stdout_terminal));
        }
        return Ok(crate::exit::SUCCESS);
    }
    match store.recap(recap.run)? {
        Some(found) if recap.markdown => {
            context.ui.data(&report::recap_markdown(&found));
            Ok(crate::exit::SUCCESS)
        }
        Some(found) => {
            // The stored run's own exit code is in the recap (`exit_code`); printing it worked.
            print_recap(&context.ui, &found);
            Ok(crate::exit::SUCCESS)
        }
        None => Err(Fatal::Usage(match recap.run {
            Some(id) => {
                format!("no finished run {id} in {path}; `gh-sweep recap --list` shows the runs")
            }
            None => format!("no finished run in {path}"),
        })
        .into()),
    }
}

/// How the store is named in messages: a URL without its password.
fn shown(location: &Location) -> String {
    match location {
        Location::File(path) => path.display().to_string(),
        Location::Postgres(target) => target.shown.clone(),
        Location::Memory => "memory".to_string(),
    }
}

/// `--acknowledge ITEM`: its writes of unknown outcome checked by hand.
fn acknowledge(
    context: &Context,
    store: &dyn store::Store,
    item: &str,
    path: &str,
) -> anyhow::Result<i32> {
    let item: ItemRef = item
        .parse()
        .map_err(|why: crate::item::RefError| Fatal::Usage(why.to_string()))?;
    let count = store.acknowledge(&item)?;
    if count == 0 {
        return Err(Fatal::Usage(format!(
            "nothing to acknowledge on {item}: it has no write of unknown outcome in {path}"
        ))
        .into());
    }
    context.ui.status(&format!(
        "Acknowledged {count} write(s) of unknown outcome on {item}."
    ));
    Ok(crate::exit::SUCCESS)
}
