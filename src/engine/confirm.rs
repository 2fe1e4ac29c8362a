//! The confirmation: the plan is shown and the maintainer says which items' writes to send.
//! How the answer is had is a [`Confirm`]: the prompt at a terminal, `--yes`, a dry run (which
//! sends nothing), or a script in tests.

use super::read::{writes_text, PendingPlan};
use super::state::State;
use super::Run;
use crate::policy::recap::Stop;
use crate::report::{self, PlanRow};
use crate::ui::{Choice, Ui};

/// How a run learns which planned writes to send.
pub(crate) trait Confirm {
    /// Whether the writes are only shown, never sent (a dry run).
    fn dry_run(&self) -> bool {
        false
    }
    /// Whether someone is asked. When nobody is, every planned write is confirmed.
    fn asks(&self) -> bool;
    /// Asks, with one label per item, which items' writes to send.
    fn choose(&mut self, labels: &[String], writes: usize) -> std::io::Result<Choice>;
}

/// The maintainer at the prompt.
pub(crate) struct Prompt<'a>(pub &'a Ui);

impl Confirm for Prompt<'_> {
    fn asks(&self) -> bool {
        true
    }

    fn choose(&mut self, labels: &[String], writes: usize) -> std::io::Result<Choice> {
        self.0.confirm(labels, writes)
    }
}

/// `--yes`: every planned write is confirmed.
pub(crate) struct AssumeYes;

impl Confirm for AssumeYes {
    fn asks(&self) -> bool {
        false
    }

    fn choose(&mut self, _labels: &[String], _writes: usize) -> std::io::Result<Choice> {
        Ok(Choice::All)
    }
}

/// `--dry-run`: the plan is shown in the recap and nothing is sent.
pub(crate) struct DryRun;

impl Confirm for DryRun {
    fn dry_run(&self) -> bool {
        true
    }

    fn asks(&self) -> bool {
        false
    }

    fn choose(&mut self, _labels: &[String], _writes: usize) -> std::io::Result<Choice> {
        Ok(Choice::None)
    }
}

impl Run<'_> {
    /// Shows the plan and asks. Returns, per pending item, whether its writes are confirmed;
    /// `None` when nothing is to be written (a dry run, a signal before or at the prompt).
    pub(super) fn confirm(
        &self,
        confirm: &mut dyn Confirm,
        state: &mut State,
        pending: &[PendingPlan],
    ) -> anyhow::Result<Option<Vec<bool>>> {
        let rows: Vec<PlanRow> = pending
            .iter()
            .map(|pending| PlanRow {
                item: pending.plan.item.to_string(),
                title: pending.plan.title.clone(),
                disposition: pending.plan.disposition.to_string(),
                reason: pending.plan.reason.clone(),
                writes: writes_text(&pending.plan),
            })
            .collect();
        let total: usize = pending.iter().map(|pending| pending.plan.len()).sum();
        let items = report::count(pending.len() as u64, "item");
        if confirm.dry_run() {
            // The recap shows these items with their writes.
            self.ui.status(&format!(
                "Dry run: {} on {items} planned, none sent.",
                report::count(total as u64, "write"),
            ));
            for pending in pending {
                state.unfinished(&pending.plan.item, "dry run");
            }
            return Ok(None);
        }
        // An entry in gh-sweep's own queue is asked about only with `--confirm`.
        let all_local = pending.iter().all(|pending| pending.plan.remote.is_empty());
        let ask = confirm.asks() && (!all_local || self.options.confirm_local);
        if ask || !all_local {
            self.show_plan(state, pending, &rows, ask)?;
        }
        if state.interrupted("before the prompt; nothing was written") {
            return Ok(None);
        }
        let chosen: Vec<bool> = if !ask {
            vec![true; pending.len()]
        } else {
            let answer = match confirm.choose(&choice_labels(&rows), total) {
                Ok(answer) => answer,
                Err(error) => {
                    // No answer is no confirmation; the run still ends with its recap.
                    state.stop(
                        Stop::NotConfirmed,
                        format!("the prompt failed ({error}); nothing was written"),
                    );
                    return Ok(None);
                }
            };
            match answer {
                Choice::All => vec![true; pending.len()],
                Choice::None => vec![false; pending.len()],
                Choice::Some(indices) => (0..pending.len())
                    .map(|index| indices.contains(&index))
                    .collect(),
                Choice::Interrupted => {
                    state.interrupted("at the prompt; nothing was written");
                    return Ok(None);
                }
            }
        };
        if chosen.iter().any(|chosen| !chosen) {
            state.stop(
                Stop::NotConfirmed,
                "the maintainer declined some or all of the planned writes".into(),
            );
        }
        Ok(Some(chosen))
    }
    /// The plan table, the estimates, and right above the prompt what the plan amounts to.
    fn show_plan(
        &self,
        state: &mut State,
        pending: &[PendingPlan],
        rows: &[PlanRow],
        ask: bool,
    ) -> anyhow::Result<()> {
        let total: usize = pending.iter().map(|pending| pending.plan.len()).sum();
        let items = report::count(pending.len() as u64, "item");
        self.ui
            .status(&format!("Planned writes ({total} on {items}):"));
        self.ui
            .show_plan(&report::plan(rows, self.ui.stderr_terminal));
        for line in self.estimate_lines(state, pending, ask)? {
            self.ui.status(&line);
        }
        // Last, right above the prompt: what the plan amounts to, and how long it takes.
        let remote: usize = pending
            .iter()
            .map(|pending| pending.plan.remote.len())
            .sum();
        let dispositions: Vec<String> = pending
            .iter()
            .map(|pending| pending.plan.disposition.to_string())
            .collect();
        let totals = report::plan_totals(
            &dispositions,
            total,
            pending.len(),
            (remote > 0)
                .then(|| self.plan_duration(state, pending))
                .transpose()?,
        );
        // `-q` hides the table, never what the prompt below asks about.
        if ask {
            self.ui.always(&totals);
        } else {
            self.ui.status(&totals);
        }
        Ok(())
    }
}

/// The "Choose items" list: item, title, disposition and writes in aligned columns, as in the
/// plan table above it (titles cut at 40 characters).
pub(super) fn choice_labels(rows: &[PlanRow]) -> Vec<String> {
    let title = |row: &PlanRow| -> String {
        let title = report::clean(&row.title);
        if title.chars().count() > 40 {
            title.chars().take(39).chain(['…']).collect()
        } else {
            title
        }
    };
    let width = |cell: &dyn Fn(&PlanRow) -> String| {
        rows.iter()
            .map(|row| cell(row).chars().count())
            .max()
            .unwrap_or(0)
    };
    let item_width = width(&|row| row.item.clone());
    let title_width = width(&title);
    let disposition_width = width(&|row| row.disposition.clone());
    rows.iter()
        .map(|row| {
            let pad = |text: String, width: usize| {
                let fill = width.saturating_sub(text.chars().count());
                format!("{text}{}", " ".repeat(fill))
            };
            format!(
                "{}  {}  {}  {}",
                pad(row.item.clone(), item_width),
                pad(title(row), title_width),
                pad(row.disposition.clone(), disposition_width),
                row.writes
            )
        })
        .collect()
}
