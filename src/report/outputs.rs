//! A run's outputs as `$GITHUB_OUTPUT` takes them, and its job summary cut to fit: the
//! multiline syntax GitHub documents for environment files ("Multiline strings",
//! workflow commands: `{name}<<{delimiter}`, the value, the delimiter), with a delimiter the
//! value does not hold.

/// GitHub's limit on one step's job summary: "the maximum size of the job summary is 1 MiB"
/// (workflow commands, "Adding a job summary"); a summary past it is not shown.
pub const SUMMARY_LIMIT: usize = 1024 * 1024;

/// `name<<DELIMITER`, the value, `DELIMITER`, for each output, in order.
pub fn github_output(outputs: &[(&str, &str)]) -> String {
    let mut text = String::new();
    for (name, value) in outputs {
        let mut delimiter = String::from("GH_SWEEP_EOF");
        while value.contains(&delimiter) {
            delimiter.push('_');
        }
        text.push_str(&format!("{name}<<{delimiter}\n{value}\n{delimiter}\n"));
    }
    text
}

/// The summary as it is when it fits in `room` bytes, else cut at a line before the limit with
/// a pointer to the whole recap (`gh-sweep recap RUN`).
pub fn fit_summary(markdown: &str, room: usize, run_id: i64) -> String {
    if markdown.len() <= room {
        return markdown.to_string();
    }
    let pointer = format!(
        "\n\n… cut here: the job summary holds 1 MiB. The whole recap: `gh-sweep recap {run_id}` (or `--json`).\n"
    );
    let mut end = room.saturating_sub(pointer.len());
    while end > 0 && !markdown.is_char_boundary(end) {
        end -= 1;
    }
    let cut = markdown[..end].rfind('\n').unwrap_or(end);
    format!("{}{pointer}", &markdown[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_framed_by_a_delimiter_they_do_not_hold() {
        let text = github_output(&[("a", "[1]"), ("b", "x\nGH_SWEEP_EOF\ny")]);
        assert_eq!(
            text,
            "a<<GH_SWEEP_EOF\n[1]\nGH_SWEEP_EOF\nb<<GH_SWEEP_EOF_\nx\nGH_SWEEP_EOF\ny\nGH_SWEEP_EOF_\n"
        );
    }

    #[test]
    fn a_summary_past_the_limit_is_cut_with_a_pointer() {
        let long = "| row |\n".repeat(200_000);
        let fitted = fit_summary(&long, SUMMARY_LIMIT, 7);
        assert!(fitted.len() <= SUMMARY_LIMIT);
        assert!(fitted.ends_with("`gh-sweep recap 7` (or `--json`).\n"));
        assert_eq!(fit_summary("short", SUMMARY_LIMIT, 7), "short");
    }
}
