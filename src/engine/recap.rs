//! The last phase: the recap of the run, from what it found (each item's outcome, why it
//! stopped, what it sent), built by the pure `policy::recap` and stored with the run. A store
//! that fails in mid-run still ends with the recap from memory.

use std::collections::BTreeMap;

use super::state::{RunProgress, State};
use super::{Kind, Run};
use crate::item::ItemRef;
use crate::policy::disposition::Disposition;
use crate::policy::recap::{self, Outcome, Phase, Planned, Recap, RunFacts, Stop};

impl Run<'_> {
    /// A store that fails in mid-run stops the run as a harness failure (exit 5): the recap
    /// from memory, as far as known; the items not reached unfinished; a write sent but not
    /// journaled, unknown. Storing that recap is tried, and said when it fails too.
    pub(super) fn after_store_failure(
        &mut self,
        kind: &mut dyn Kind,
        progress: RunProgress,
        error: &anyhow::Error,
    ) -> Recap {
        let mut state = progress.state;
        if let Some(item) = state.in_flight.take() {
            state.failed(
                &item,
                Phase::Write,
                "outcome unknown: sent, but the store failed before the outcome was journaled; check it by hand".to_string(),
            );
        }
        state.stop(
            Stop::HarnessOutage,
            match crate::store::explain_failure(error) {
                Some(meaning) => format!("the store failed in mid-run: {meaning}"),
                None => format!("the store failed in mid-run: {error:#}"),
            },
        );
        state.exit_override = None;
        let mut recap = self.build_recap(
            kind,
            state.run_id,
            &state,
            &progress.pool,
            progress.pool_complete,
            Vec::new(),
            progress.notes,
            progress.blocked,
        );
        if crate::signals::file_size_limit_reached() {
            recap.notes.push(
                "a write went past this process's file size limit (ulimit -f, systemd's LimitFSIZE) and failed with EFBIG (File too large); the next run settles any write left unknown".to_string(),
            );
        }
        if let Err(stored) = self.store.finish_run(&recap) {
            recap.notes.push(format!(
                "this recap could not be stored ({stored:#}); `gh-sweep recap` will not show it"
            ));
        }
        recap
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn build_recap(
        &self,
        kind: &mut dyn Kind,
        run_id: i64,
        state: &State,
        pool: &[ItemRef],
        pool_complete: bool,
        planned: Vec<Planned>,
        notes: Vec<String>,
        blocked: bool,
    ) -> Recap {
        let rerun_file_path = rerun_file_path(&self.options.db, run_id);
        let mut recap = recap::build(RunFacts {
            run_id,
            command: self.command,
            dry_run: self.options.dry_run,
            pool,
            pool_complete,
            outcomes: &state.outcomes,
            stopped: state.stopped,
            stop_detail: state.stop_detail.clone(),
            budget: self.options.budget,
            planned,
            rerun_prefix: &self.options.rerun_prefix,
            rerun_file_path: &rerun_file_path,
            exit_override: state.exit_override,
            unknown_writes: blocked,
            overtaken: state.overtaken,
        });
        for completed in &mut recap.completed {
            if let Some(writes) = state.sent.get(&completed.item) {
                completed.writes = writes.clone();
            }
        }
        let summary = kind.summary(
            &completed_dispositions(pool, &state.outcomes),
            recap.failed.len(),
            self.options.dry_run,
        );
        // The recap keeps them as JSON, as it is stored and printed.
        recap.counters = summary.counters.and_then(|c| serde_json::to_value(c).ok());
        recap.outputs = summary.outputs.and_then(|o| serde_json::to_value(o).ok());
        recap.notes = notes;
        // What the store did this run that the maintainer should know (a dead run taken over).
        recap.notes.extend(self.store.notes());
        write_rerun_file(&mut recap, &self.options.rerun_prefix);
        recap.web_url = self.options.web_url.clone();
        recap.links = pool
            .iter()
            .filter_map(|item| {
                let item = item.to_string();
                self.writer.html_url(&item).map(|url| (item, url))
            })
            .collect();
        recap.started_at = Some(recap::time_text(state.started_at));
        recap.finished_at = Some(recap::time_text(self.clock.wall()));
        recap
    }
}

/// The dispositions of the pool's completed items, in pool order: what the recap's `completed`
/// shows, as types. An item that changed since it was read completed with no disposition of
/// its own.
fn completed_dispositions<'a>(
    pool: &[ItemRef],
    outcomes: &'a BTreeMap<ItemRef, Outcome>,
) -> Vec<&'a Disposition> {
    pool.iter()
        .filter_map(|item| match outcomes.get(item) {
            Some(Outcome::Completed { disposition, .. }) => Some(disposition),
            _ => None,
        })
        .collect()
}

/// Where the selector of a run's rerun line goes when it is too long for the command line: a
/// `rerun` folder beside the database, one file per run.
pub(super) fn rerun_file_path(db: &std::path::Path, run_id: i64) -> String {
    let folder = db
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or_else(|| std::path::Path::new("."));
    folder
        .join("rerun")
        .join(format!("run-{run_id}.txt"))
        .display()
        .to_string()
}

/// Writes a long rerun selector to its file, one item range per line. If it cannot be written,
/// the rerun line carries the selector inline after all (long, but nothing is lost) and says
/// why in a note.
pub(super) fn write_rerun_file(recap: &mut recap::Recap, prefix: &str) {
    let Some(file) = &recap.rerun_file else {
        return;
    };
    let path = std::path::Path::new(&file.path);
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(path, format!("{}\n", file.selector.replace(',', "\n"))));
    if let Err(error) = written {
        recap.notes.push(format!(
            "the rerun selector could not be written to {}: {error}; it is given inline",
            file.path
        ));
        recap.rerun = Some(format!(
            "{prefix} --only {}",
            recap::shell_quote(&file.selector)
        ));
        recap.rerun_file = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::disposition::Skip;

    #[test]
    fn completed_dispositions_follow_the_pool_and_leave_out_changed_items() {
        let item = |number| ItemRef::new(&"o/r".parse().unwrap(), number);
        let mut outcomes = BTreeMap::new();
        let completed = |disposition| Outcome::Completed {
            disposition,
            detail: String::new(),
        };
        outcomes.insert(item(3), completed(Disposition::EnqueueMerge));
        outcomes.insert(item(1), completed(Disposition::Skip(Skip::Held)));
        outcomes.insert(
            item(2),
            Outcome::Changed {
                now: Disposition::Skip(Skip::InFlight),
                detail: String::new(),
            },
        );
        outcomes.insert(
            item(4),
            Outcome::Unfinished {
                reason: "dry run".into(),
            },
        );
        // Not in the pool: not in the recap either.
        outcomes.insert(item(9), completed(Disposition::Merge));
        let pool = [item(3), item(2), item(1), item(4)];
        assert_eq!(
            completed_dispositions(&pool, &outcomes),
            [&Disposition::EnqueueMerge, &Disposition::Skip(Skip::Held)]
        );
    }
}
