//! The recap as Markdown, for a job summary or an issue comment: counts, then the completed,
//! failed and unfinished tables (each item a link to its page), then the rerun line in a code
//! block. Every cell is cleaned and its pipes escaped.

use super::{clean, counters_line, phase_word, stop_word};
use crate::policy::recap::Recap;

/// A table cell in Markdown: no pipes, no line breaks, no control characters, and gh-sweep's
/// marker shown as code (as raw HTML it would be an invisible comment).
fn md(text: &str) -> String {
    clean(text)
        .replace('|', "\\|")
        .replace("<!--", "`<!--")
        .replace("-->", "-->`")
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
    let mut out = markdown_head(recap);
    markdown_items(&mut out, recap);
    if let Some(rerun) = &recap.rerun {
        out.push_str(&format!(
            "Rerun what is left:\n\n```sh\n{}\n```\n",
            clean(rerun)
        ));
    }
    out.trim_end().to_string()
}

/// The title and the counts, then why the run stopped, its counters and its notes.
fn markdown_head(recap: &Recap) -> String {
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
        out.push_str(&format!(
            "Stopped (`{}`): {}\n\n",
            stop_word(stop),
            md(detail)
        ));
    }
    if let Some(counters) = &recap.counters {
        out.push_str(&format!("{}\n\n", md(&counters_line(counters))));
    }
    for note in &recap.notes {
        out.push_str(&format!("> {}\n\n", md(note)));
    }
    out
}

/// The completed and failed tables and the unfinished items, each present only when not empty.
fn markdown_items(out: &mut String, recap: &Recap) {
    if !recap.completed.is_empty() {
        // A run that wrote says what it sent for each item, as the table does.
        let wrote = recap.completed.iter().any(|item| !item.writes.is_empty());
        if wrote {
            out.push_str(
                "#### Completed\n\n| Item | Disposition | Detail | Writes |\n|---|---|---|---|\n",
            );
        } else {
            out.push_str("#### Completed\n\n| Item | Disposition | Detail |\n|---|---|---|\n");
        }
        for item in &recap.completed {
            let writes = if wrote {
                format!(" {} |", md(&item.writes.join("; ")))
            } else {
                String::new()
            };
            out.push_str(&format!(
                "| {} | {} | {} |{writes}\n",
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
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                md_item(&item.item, recap),
                phase_word(&item.phase),
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
}

#[cfg(test)]
mod marker_tests {
    /// gh-sweep's marker in a reason shows as code: as raw HTML it would be an invisible
    /// comment in a job summary.
    #[test]
    fn a_marker_shows_as_code() {
        assert_eq!(
            super::md("comment <!-- gh-sweep:close --> failed | 403"),
            "comment `<!-- gh-sweep:close -->` failed \\| 403"
        );
    }
}
