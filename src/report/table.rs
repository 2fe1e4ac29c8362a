//! The tables: the plan of writes, the recap (completed, failed, unfinished, then the rerun
//! line, always in that order), and the run list. Decorated on a terminal, plain otherwise
//! (no trailing blanks), every cell cleaned.

use comfy_table::{presets, ColumnConstraint, ContentArrangement, Table, Width};

use super::{clean, count, counters_line, phase_word, stop_word};
use crate::policy::recap::Recap;
use crate::store::RunRow;

/// Plain tables pad their last column; trailing blanks only get in grep's way.
fn render(table: &Table) -> String {
    table
        .to_string()
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

fn table(terminal: bool, header: &[&str]) -> Table {
    let mut table = bare_table(terminal);
    table.set_header(header.to_vec());
    table
}

/// A table without its header, decorated on a terminal, plain otherwise.
fn bare_table(terminal: bool) -> Table {
    let mut table = Table::new();
    table.load_preset(if terminal {
        presets::UTF8_FULL_CONDENSED
    } else {
        presets::NOTHING
    });
    table.set_content_arrangement(if terminal {
        ContentArrangement::Dynamic
    } else {
        ContentArrangement::Disabled
    });
    table
}

/// Rows a plain table is laid out in at a time: a table holds each of its cells several times
/// over while it lays them out (some 1 KB a row), so a recap of 100,000 items as one table
/// would hold 100 MB.
const PLAIN_ROWS_AT_ONCE: usize = 1000;

/// The table of `rows`, each made into its cells by `cells`. On a terminal one table, laid out
/// to the terminal's width. Plain, the same text as one table, laid out `PLAIN_ROWS_AT_ONCE`
/// rows at a time: the widths of every row's cells are measured first (by the table's own
/// measure), then each part is laid out at those widths, the header over the first.
fn rows_table<R>(
    terminal: bool,
    header: &[&str],
    rows: &[R],
    cells: impl Fn(&R) -> Vec<String>,
) -> String {
    let part = |rows: &[R], header: Option<&[&str]>| {
        let mut part = bare_table(terminal);
        if let Some(header) = header {
            part.set_header(header.to_vec());
        }
        for each in rows {
            let cells = cells(each);
            row(
                &mut part,
                &cells.iter().map(String::as_str).collect::<Vec<_>>(),
            );
        }
        part
    };
    if terminal || rows.len() <= PLAIN_ROWS_AT_ONCE {
        return render(&part(rows, Some(header)));
    }
    let mut widths = vec![0u16; header.len()];
    for rows in rows.chunks(PLAIN_ROWS_AT_ONCE) {
        let measured = part(rows, Some(header)).column_max_content_widths();
        for (width, measured) in widths.iter_mut().zip(measured) {
            *width = (*width).max(measured);
        }
    }
    let mut out = Vec::new();
    for (at, rows) in rows.chunks(PLAIN_ROWS_AT_ONCE).enumerate() {
        let mut part = part(rows, (at == 0).then_some(header));
        for (column, width) in part.column_iter_mut().zip(&widths) {
            let padded = width + column.padding_width();
            column.set_constraint(ColumnConstraint::Absolute(Width::Fixed(padded)));
        }
        out.push(render(&part));
    }
    out.join("\n")
}

/// Adds a row of cleaned cells.
fn row(table: &mut Table, cells: &[&str]) {
    table.add_row(cells.iter().map(|cell| clean(cell)).collect::<Vec<_>>());
}

/// The planned writes, one row per item.
pub struct PlanRow {
    pub item: String,
    pub title: String,
    pub disposition: String,
    /// Why, in words (`idle 379 days >= 60`).
    pub reason: String,
    pub writes: String,
}

pub fn plan(rows: &[PlanRow], terminal: bool) -> String {
    let header = ["ITEM", "TITLE", "DISPOSITION", "REASON", "WRITES"];
    rows_table(terminal, &header, rows, |row| {
        let title: String = if row.title.chars().count() > 50 {
            row.title.chars().take(49).chain(['…']).collect()
        } else {
            row.title.clone()
        };
        vec![
            row.item.clone(),
            title,
            row.disposition.clone(),
            row.reason.clone(),
            row.writes.clone(),
        ]
    })
}

type Style = fn(console::StyledObject<String>) -> console::StyledObject<String>;

/// A section's heading, bold and in its colour when colour is on.
fn heading(text: String, color: bool, style: Style) -> String {
    if color {
        style(console::style(text).force_styling(true).bold()).to_string()
    } else {
        text
    }
}

/// The recap: completed, failed, unfinished, then the rerun line. Always in that order.
pub fn recap(recap: &Recap, terminal: bool, color: bool) -> String {
    let mut out = String::new();
    recap_head(&mut out, recap);
    recap_completed(&mut out, recap, terminal, color);
    recap_failed(&mut out, recap, terminal, color);
    recap_unfinished(&mut out, recap, terminal, color);
    if let Some(rerun) = &recap.rerun {
        out.push_str(&format!("\nRerun what is left:\n  {rerun}\n"));
    }
    out.trim_end().to_string()
}

/// The first line, then why the run stopped, its counters and its notes.
fn recap_head(out: &mut String, recap: &Recap) {
    let dry = if recap.dry_run { " (dry run)" } else { "" };
    out.push_str(&format!(
        "Recap of run {}: {}{dry}{}\n",
        recap.run_id,
        recap.command,
        ran_by_and_when(recap)
    ));
    if let (Some(stop), Some(detail)) = (recap.stopped, &recap.stop_detail) {
        out.push_str(&format!(
            "Stopped ({}): {}\n",
            stop_word(stop),
            clean(detail)
        ));
    }
    if let Some(counters) = &recap.counters {
        out.push_str(&counters_line(counters));
        out.push('\n');
    }
    for note in &recap.notes {
        out.push_str(&format!("Note: {}\n", clean(note)));
    }
}

/// The completed items; a run that wrote shows what it sent for each item.
fn recap_completed(out: &mut String, recap: &Recap, terminal: bool, color: bool) {
    out.push_str(&format!(
        "\n{}\n",
        heading(
            format!("Completed ({})", recap.completed.len()),
            color,
            |s| s.green()
        )
    ));
    let wrote = recap.completed.iter().any(|item| !item.writes.is_empty());
    if !recap.completed.is_empty() && wrote {
        let header = ["ITEM", "DISPOSITION", "DETAIL", "WRITES SENT"];
        out.push_str(&rows_table(terminal, &header, &recap.completed, |item| {
            let writes = item.writes.join("; ");
            vec![
                item.item.clone(),
                item.disposition.clone(),
                item.detail.clone(),
                writes,
            ]
        }));
        out.push('\n');
    } else if !recap.completed.is_empty() {
        let header = ["ITEM", "DISPOSITION", "DETAIL"];
        out.push_str(&rows_table(terminal, &header, &recap.completed, |item| {
            vec![
                item.item.clone(),
                item.disposition.clone(),
                item.detail.clone(),
            ]
        }));
        out.push('\n');
    }
}

/// The failed items, then the verdict of the failure budget.
fn recap_failed(out: &mut String, recap: &Recap, terminal: bool, color: bool) {
    out.push_str(&format!(
        "\n{}\n",
        heading(format!("Failed ({})", recap.failed.len()), color, |s| s
            .red())
    ));
    if !recap.failed.is_empty() {
        let header = ["ITEM", "PHASE", "REASON"];
        out.push_str(&rows_table(terminal, &header, &recap.failed, |item| {
            vec![
                item.item.clone(),
                phase_word(&item.phase).to_string(),
                item.reason.clone(),
            ]
        }));
        out.push('\n');
    }
    if let Some(budget) = &recap.budget {
        let verdict = if budget.failures > budget.allowed {
            "Budget exhausted"
        } else {
            "Within budget"
        };
        out.push_str(&format!(
            "{verdict}: {}, {} allowed (item_failure_budget = {})\n",
            count(budget.failures, "item failure"),
            budget.allowed,
            budget.value
        ));
    }
}

/// The unfinished items and why; when every one has a plan (a dry run, a declined prompt), a
/// table of what each needs, else their names.
fn recap_unfinished(out: &mut String, recap: &Recap, terminal: bool, color: bool) {
    out.push_str(&format!(
        "\n{}",
        heading(
            format!("Unfinished ({})", recap.unfinished.len()),
            color,
            |s| s.yellow()
        )
    ));
    if let Some(reason) = &recap.unfinished_reason {
        out.push_str(&format!(": {reason}"));
    }
    out.push('\n');
    // A set, not a scan of the list per planned item: a dry run over 100,000 items has as many
    // of each.
    let unfinished: std::collections::HashSet<&str> =
        recap.unfinished.iter().map(String::as_str).collect();
    let planned: Vec<_> = recap
        .planned
        .iter()
        .filter(|planned| unfinished.contains(planned.item.as_str()))
        .collect();
    if !planned.is_empty() && planned.len() == recap.unfinished.len() {
        let header = ["ITEM", "DISPOSITION", "DETAIL", "WRITES"];
        out.push_str(&rows_table(terminal, &header, &planned, |planned| {
            vec![
                planned.item.clone(),
                planned.disposition.clone(),
                planned.detail.clone(),
                planned.writes.join("; "),
            ]
        }));
        out.push('\n');
    } else if !recap.unfinished.is_empty() {
        out.push_str(&format!("  {}\n", recap.unfinished.join(", ")));
    }
}

/// The first line's tail: `, gh-sweep 0.1.0, 2026-12-01T10:42:58Z to 2026-12-01T10:43:03Z`, so
/// a log tells which gh-sweep ran when. A recap stored before these were kept has none.
fn ran_by_and_when(recap: &Recap) -> String {
    let mut out = String::new();
    if !recap.version.is_empty() {
        out.push_str(&format!(", gh-sweep {}", recap.version));
    }
    match (&recap.started_at, &recap.finished_at) {
        (Some(started), Some(finished)) => out.push_str(&format!(", {started} to {finished}")),
        (Some(started), None) => out.push_str(&format!(", started {started}")),
        _ => {}
    }
    out
}

pub fn runs(rows: &[RunRow], terminal: bool) -> String {
    let mut runs = table(terminal, &["RUN", "STARTED", "COMMAND", "STOPPED", "EXIT"]);
    for row in rows {
        let id = row.id.to_string();
        let exit = row
            .exit_code
            .map_or("-".to_string(), |code| code.to_string());
        // Stored with fractions of a second; shown to the second, in UTC with `Z`.
        let started = chrono::DateTime::parse_from_rfc3339(&row.started_at).map_or_else(
            |_| row.started_at.clone(),
            |time| crate::policy::recap::time_text(time.with_timezone(&chrono::Utc)),
        );
        self::row(
            &mut runs,
            &[
                &id,
                &started,
                &row.argv,
                row.stopped.as_deref().unwrap_or("-"),
                &exit,
            ],
        );
    }
    render(&runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One plain table of `rows`, as comfy-table lays it out whole.
    fn whole(rows: &[Vec<String>]) -> String {
        let mut whole = table(false, &["ITEM", "DETAIL", "WRITES"]);
        for cells in rows {
            let cells: Vec<&str> = cells.iter().map(String::as_str).collect();
            row(&mut whole, &cells);
        }
        render(&whole)
    }

    /// A plain table laid out in parts is the same text as the whole table, to the byte: the
    /// widest cell of each column is in a later part, and some cells are wide characters.
    #[test]
    fn a_plain_table_in_parts_is_the_whole_table() {
        let rows: Vec<Vec<String>> = (0..2 * PLAIN_ROWS_AT_ONCE + 17)
            .map(|n| {
                vec![
                    format!("o/r#{n}"),
                    "d".repeat(n % 37) + if n % 11 == 0 { "日本" } else { "" },
                    if n == 2 * PLAIN_ROWS_AT_ONCE + 3 {
                        "the widest of them all, far in".to_string()
                    } else {
                        "w".repeat(n % 5)
                    },
                ]
            })
            .collect();
        let parts = rows_table(false, &["ITEM", "DETAIL", "WRITES"], &rows, Clone::clone);
        assert_eq!(parts, whole(&rows));
        assert_eq!(parts.lines().count(), rows.len() + 1, "one header line");
    }
}
