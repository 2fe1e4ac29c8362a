//! Renders what the engine produced: the plan table, the recap as a table, JSON or Markdown, the
//! run list. Tables are decorated on a terminal and plain otherwise, ready for grep. What every
//! rendering shares lives here: text from GitHub made safe to print, counts and their nouns, the
//! counters line, and the words of a stop and a phase.

mod json;
mod markdown;
pub mod outputs;
mod table;

pub use json::recap_json;
pub use markdown::recap_markdown;
pub use table::{plan, recap, runs, PlanRow};

use crate::policy::recap::{Phase, Recap, Stop};

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
        "eligible",
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

/// The stop's word, as the JSON recap spells it (`budget`, `interrupted`, ...).
fn stop_word(stop: Stop) -> String {
    serde_json::to_value(stop)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The phase an item failed in, as the recap shows it.
fn phase_word(phase: &Phase) -> &'static str {
    match phase {
        Phase::Read => "read",
        Phase::Write => "write",
    }
}

/// The plan's last line, right above the prompt: each disposition's count in the order they
/// first appear, the writes and items, and the least time the writes take at GitHub's
/// ceilings (`Plan: 108 mark-stale, 87 close, 62 unmark — 452 writes on 257 items, at least
/// 7 min 32 s`). No duration for a plan that only queues.
pub fn plan_totals(
    dispositions: &[String],
    writes: usize,
    items: usize,
    least: Option<std::time::Duration>,
) -> String {
    let mut counted: Vec<(&str, usize)> = Vec::new();
    for disposition in dispositions {
        match counted
            .iter_mut()
            .find(|(name, _)| *name == disposition.as_str())
        {
            Some((_, count)) => *count += 1,
            None => counted.push((disposition, 1)),
        }
    }
    let kinds: Vec<String> = counted
        .iter()
        .map(|(name, count)| format!("{count} {name}"))
        .collect();
    let duration = least.map_or_else(String::new, |least| {
        format!(
            ", at least {}",
            crate::policy::pacing::precise_duration_text(least)
        )
    });
    format!(
        "Plan: {} — {} on {}{duration}",
        kinds.join(", "),
        count(writes as u64, "write"),
        count(items as u64, "item")
    )
}

/// `text` cut to `width` characters, with `…` where it was cut.
pub fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    text.chars()
        .take(width.saturating_sub(1))
        .chain(['…'])
        .collect()
}
