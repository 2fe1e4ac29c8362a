//! The tables: the plan of writes, the recap (completed, failed, unfinished, then the rerun
//! line, always in that order), and the run list. Decorated on a terminal, plain otherwise
//! (no trailing blanks), every cell cleaned.

use comfy_table::{presets, ContentArrangement, Table};

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

/// The table of `rows`, each made into its cells by `cells`. On a terminal one comfy-table
/// table, laid out to the terminal's width. Plain, the text comfy-table lays out with no
/// borders and no wrapping (each cell padded by a blank on either side to its column's width,
/// as `unicode-width` measures it, the line's trailing blanks cut), written straight out: for
/// 10,000 rows, comfy-table's layout was a tenth of a sweep's instructions and held every cell
/// several times over.
fn rows_table<R>(
    terminal: bool,
    header: &[&str],
    rows: &[R],
    cells: impl Fn(&R) -> Vec<String>,
) -> String {
    if !terminal {
        return plain_table(header, rows, cells);
    }
    let mut table = table(terminal, header);
    for each in rows {
        let cells = cells(each);
        row(
            &mut table,
            &cells.iter().map(String::as_str).collect::<Vec<_>>(),
        );
    }
    render(&table)
}

/// [`rows_table`] off a terminal: the widths of every row's cleaned cells first, then each
/// line; no row is held past its line.
fn plain_table<R>(header: &[&str], rows: &[R], cells: impl Fn(&R) -> Vec<String>) -> String {
    use unicode_width::UnicodeWidthStr;
    let cleaned =
        |each: &R| -> Vec<String> { cells(each).iter().map(|cell| clean(cell)).collect() };
    let mut widths: Vec<usize> = header.iter().map(|name| name.width()).collect();
    for each in rows {
        let cells = cleaned(each);
        if cells.len() > widths.len() {
            widths.resize(cells.len(), 0);
        }
        for (width, cell) in widths.iter_mut().zip(&cells) {
            *width = (*width).max(cell.width());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[&str]| {
        if !out.is_empty() {
            out.push('\n');
        }
        let start = out.len();
        for (at, width) in widths.iter().enumerate() {
            let cell = cells.get(at).copied().unwrap_or("");
            out.push(' ');
            out.push_str(cell);
            out.extend(std::iter::repeat_n(' ', width - cell.width() + 1));
        }
        let kept = out[start..].trim_end().len();
        out.truncate(start + kept);
    };
    line(header);
    for each in rows {
        let cells = cleaned(each);
        line(&cells.iter().map(String::as_str).collect::<Vec<_>>());
    }
    out
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

    /// A plain table is the text comfy-table lays out for it, to the byte: cells of wide
    /// characters, zero-width and combining ones, emoji sequences, control characters (which
    /// are cleaned), empty cells and empty rows, the widest cell of a column far down.
    #[test]
    fn a_plain_table_is_the_text_comfy_table_lays_out() {
        let odd = [
            "日本",
            "e\u{301}",
            "a\u{200b}b",
            "👩‍💻",
            "\t<tab>",
            "\u{202e}evil",
            "",
        ];
        let rows: Vec<Vec<String>> = (0..2_017)
            .map(|n| {
                vec![
                    format!("o/r#{n}"),
                    "d".repeat(n % 37) + odd[n % odd.len()],
                    if n == 2_003 {
                        "the widest of them all, far in".to_string()
                    } else if n % 13 == 0 {
                        String::new()
                    } else {
                        "w".repeat(n % 5)
                    },
                ]
            })
            .chain([vec![String::new(), String::new(), String::new()]])
            .collect();
        let plain = rows_table(false, &["ITEM", "DETAIL", "WRITES"], &rows, Clone::clone);
        assert_eq!(plain, whole(&rows));
        assert_eq!(plain.split('\n').count(), rows.len() + 1, "one header line");
        assert!(plain.lines().all(|line| line == line.trim_end()));
    }
}
