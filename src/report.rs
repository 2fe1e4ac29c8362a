//! Renders what the engine produced: the plan table, the recap as a table or JSON, the run
//! list. Tables are decorated on a terminal and plain otherwise, ready for grep.

use comfy_table::{presets, ContentArrangement, Table};

use crate::policy::recap::{Phase, Recap};
use crate::store::RunRow;

/// Text from GitHub (titles, labels, logins, paths, messages) never reaches the terminal raw: a
/// control character (an escape sequence, a newline in a title) is printed escaped.
pub fn clean(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if needs_escape(c) {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// [`clean`] line by line: the line breaks stay, everything else a control character is
/// escaped. For text gh-sweep or the maintainer wrote, never GitHub's.
pub fn clean_lines(text: &str) -> String {
    text.lines().map(clean).collect::<Vec<_>>().join("\n")
}

/// Control characters, and the bidirectional controls (Unicode's "Trojan Source" set: LRE, RLE,
/// PDF, LRO, RLO, LRI, RLI, FSI, PDI, and the LRM/RLM/ALM marks), which are format characters
/// rather than controls but reorder what a terminal shows just as well.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
        )
}

/// `1 item`, `2 items`: a count and its noun, in the plural when it is not one.
pub fn count(number: u64, noun: &str) -> String {
    if number == 1 {
        format!("1 {noun}")
    } else {
        format!("{number} {noun}s")
    }
}

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
    table.set_header(header.to_vec());
    table
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
    pub writes: String,
}

pub fn plan(rows: &[PlanRow], terminal: bool) -> String {
    let mut table = table(terminal, &["ITEM", "TITLE", "DISPOSITION", "WRITES"]);
    for row in rows {
        let title: String = if row.title.chars().count() > 50 {
            row.title.chars().take(49).chain(['…']).collect()
        } else {
            row.title.clone()
        };
        self::row(
            &mut table,
            &[&row.item, &title, &row.disposition, &row.writes],
        );
    }
    render(&table)
}

pub fn recap_json(recap: &Recap) -> String {
    serde_json::to_string(recap).unwrap_or_else(|_| "{}".to_string())
}

pub fn recap_counts(recap: &Recap) -> String {
    let mut line = format!(
        "run {}: {} completed, {} failed, {} unfinished",
        recap.run_id,
        recap.completed.len(),
        recap.failed.len(),
        recap.unfinished.len()
    );
    if let Some(counters) = &recap.counters {
        line.push_str(&format!("\n{}", counters_line(counters)));
    }
    line
}

/// A subcommand's counters on one line, known ones in a fixed order:
/// `candidates 12, drafts dropped 1, ..., ineligible 4 (green 3, docs-only 1), enqueued 2`.
pub fn counters_line(counters: &serde_json::Value) -> String {
    const ORDER: &[&str] = &[
        "candidates",
        "drafts_dropped",
        "held",
        "in_flight",
        "backed_off",
        "ineligible",
        "enqueued",
        "failed",
    ];
    let Some(object) = counters.as_object() else {
        return String::new();
    };
    let mut keys: Vec<&String> = object.keys().collect();
    keys.sort_by_key(|key| {
        ORDER
            .iter()
            .position(|known| known == key)
            .unwrap_or(ORDER.len())
    });
    let parts: Vec<String> = keys
        .into_iter()
        .map(|key| {
            let name = key.replace('_', " ");
            match &object[key] {
                serde_json::Value::Object(inner) => {
                    let total: u64 = inner.values().filter_map(serde_json::Value::as_u64).sum();
                    let detail: Vec<String> =
                        inner.iter().map(|(k, v)| format!("{k} {v}")).collect();
                    if detail.is_empty() {
                        format!("{name} {total}")
                    } else {
                        format!("{name} {total} ({})", detail.join(", "))
                    }
                }
                value => format!("{name} {value}"),
            }
        })
        .collect();
    format!("Counters: {}", parts.join(", "))
}

/// The recap: completed, failed, unfinished, then the rerun line. Always in that order.
pub fn recap(recap: &Recap, terminal: bool, color: bool) -> String {
    let heading =
        |text: String,
         style: fn(console::StyledObject<String>) -> console::StyledObject<String>| {
            if color {
                style(console::style(text).force_styling(true).bold()).to_string()
            } else {
                text
            }
        };
    let mut out = String::new();
    let dry = if recap.dry_run { " (dry run)" } else { "" };
    out.push_str(&format!(
        "Recap of run {}: {}{dry}{}\n",
        recap.run_id,
        recap.command,
        ran_by_and_when(recap)
    ));
    if let (Some(stop), Some(detail)) = (recap.stopped, &recap.stop_detail) {
        let stop = serde_json::to_value(stop)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        out.push_str(&format!("Stopped ({stop}): {}\n", clean(detail)));
    }
    if let Some(counters) = &recap.counters {
        out.push_str(&counters_line(counters));
        out.push('\n');
    }
    for note in &recap.notes {
        out.push_str(&format!("Note: {}\n", clean(note)));
    }

    out.push_str(&format!(
        "\n{}\n",
        heading(format!("Completed ({})", recap.completed.len()), |s| s
            .green())
    ));
    // A run that wrote shows what it sent for each item.
    let wrote = recap.completed.iter().any(|item| !item.writes.is_empty());
    if !recap.completed.is_empty() && wrote {
        let mut completed = table(terminal, &["ITEM", "DISPOSITION", "DETAIL", "WRITES SENT"]);
        for item in &recap.completed {
            let writes = item.writes.join("; ");
            row(
                &mut completed,
                &[&item.item, &item.disposition, &item.detail, &writes],
            );
        }
        out.push_str(&render(&completed));
        out.push('\n');
    } else if !recap.completed.is_empty() {
        let mut completed = table(terminal, &["ITEM", "DISPOSITION", "DETAIL"]);
        for item in &recap.completed {
            row(
                &mut completed,
                &[&item.item, &item.disposition, &item.detail],
            );
        }
        out.push_str(&render(&completed));
        out.push('\n');
    }

    out.push_str(&format!(
        "\n{}\n",
        heading(format!("Failed ({})", recap.failed.len()), |s| s.red())
    ));
    if !recap.failed.is_empty() {
        let mut failed = table(terminal, &["ITEM", "PHASE", "REASON"]);
        for item in &recap.failed {
            let phase = match item.phase {
                Phase::Read => "read",
                Phase::Write => "write",
            };
            row(&mut failed, &[&item.item, phase, &item.reason]);
        }
        out.push_str(&render(&failed));
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

    out.push_str(&format!(
        "\n{}",
        heading(format!("Unfinished ({})", recap.unfinished.len()), |s| s
            .yellow())
    ));
    if let Some(reason) = &recap.unfinished_reason {
        out.push_str(&format!(": {reason}"));
    }
    out.push('\n');
    let planned: Vec<_> = recap
        .planned
        .iter()
        .filter(|planned| recap.unfinished.contains(&planned.item))
        .collect();
    if !planned.is_empty() && planned.len() == recap.unfinished.len() {
        // Every unfinished item has a plan (a dry run, a declined prompt): show what it needs.
        let mut unfinished = table(terminal, &["ITEM", "DISPOSITION", "DETAIL", "WRITES"]);
        for planned in planned {
            let writes = planned.writes.join("; ");
            row(
                &mut unfinished,
                &[
                    &planned.item,
                    &planned.disposition,
                    &planned.detail,
                    &writes,
                ],
            );
        }
        out.push_str(&render(&unfinished));
        out.push('\n');
    } else if !recap.unfinished.is_empty() {
        out.push_str(&format!("  {}\n", recap.unfinished.join(", ")));
    }

    if let Some(rerun) = &recap.rerun {
        out.push_str(&format!("\nRerun what is left:\n  {rerun}\n"));
    }
    out.trim_end().to_string()
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

/// A table cell in Markdown: no pipes, no line breaks, no control characters.
fn md(text: &str) -> String {
    clean(text).replace('|', "\\|")
}

/// `owner/repo#N` as a link to its page: the `html_url` GitHub gave for it, never an address
/// made up from the API base (a PR's page is `/pull/N`, and the API host may be a proxy).
/// Without one, the item is plain text.
fn md_item(item: &str, recap: &Recap) -> String {
    match recap.links.get(item) {
        Some(url) if url.starts_with("https://") || url.starts_with("http://") => {
            format!("[{}]({})", md(item), url.replace([')', ' '], ""))
        }
        _ => md(item),
    }
}

/// The recap as Markdown, for a job summary or an issue comment: counts, then the completed,
/// failed and unfinished tables (each item a link), then the rerun line in a code block.
pub fn recap_markdown(recap: &Recap) -> String {
    let mut out = format!(
        "### gh-sweep {}: run {}\n\n",
        md(&recap.command),
        recap.run_id
    );
    let dry = if recap.dry_run { " (dry run)" } else { "" };
    out.push_str(&format!(
        "**{} completed · {} failed · {} unfinished**{dry}\n\n",
        recap.completed.len(),
        recap.failed.len(),
        recap.unfinished.len()
    ));
    if let (Some(stop), Some(detail)) = (recap.stopped, &recap.stop_detail) {
        let stop = serde_json::to_value(stop)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        out.push_str(&format!("Stopped (`{stop}`): {}\n\n", md(detail)));
    }
    if let Some(counters) = &recap.counters {
        out.push_str(&format!("{}\n\n", md(&counters_line(counters))));
    }
    for note in &recap.notes {
        out.push_str(&format!("> {}\n\n", md(note)));
    }
    if !recap.completed.is_empty() {
        out.push_str("#### Completed\n\n| Item | Disposition | Detail |\n|---|---|---|\n");
        for item in &recap.completed {
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                md_item(&item.item, recap),
                md(&item.disposition),
                md(&item.detail)
            ));
        }
        out.push('\n');
    }
    if !recap.failed.is_empty() {
        out.push_str("#### Failed\n\n| Item | Phase | Reason |\n|---|---|---|\n");
        for item in &recap.failed {
            let phase = match item.phase {
                Phase::Read => "read",
                Phase::Write => "write",
            };
            out.push_str(&format!(
                "| {} | {phase} | {} |\n",
                md_item(&item.item, recap),
                md(&item.reason)
            ));
        }
        out.push('\n');
    }
    if !recap.unfinished.is_empty() {
        let reason = recap
            .unfinished_reason
            .as_deref()
            .map(|reason| format!(": {}", md(reason)))
            .unwrap_or_default();
        out.push_str(&format!("#### Unfinished{reason}\n\n"));
        let items: Vec<String> = recap
            .unfinished
            .iter()
            .map(|item| md_item(item, recap))
            .collect();
        out.push_str(&format!("{}\n\n", items.join(", ")));
    }
    if let Some(rerun) = &recap.rerun {
        out.push_str(&format!(
            "Rerun what is left:\n\n```sh\n{}\n```\n",
            clean(rerun)
        ));
    }
    out.trim_end().to_string()
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
