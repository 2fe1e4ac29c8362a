//! actions/stale's outputs, `staled-issues-prs` and `closed-issues-prs`: JSON lists of the
//! items marked stale and closed, each with the fields its consumers read (`number`,
//! `title`), kept within GitHub's limit on a step's outputs.

use serde::Serialize;

use super::ItemFacts;

/// GitHub's limit on a job's outputs: "Outputs are Unicode strings, and can be a maximum of
/// 1 MB" (workflow syntax, `jobs.<job_id>.outputs`). Both lists together stay under it, with
/// room for the `$GITHUB_OUTPUT` framing.
pub(crate) const OUTPUTS_LIMIT: usize = 1_000_000 - 4_096;

/// One item of an output list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct OutputItem {
    pub number: u64,
    pub title: String,
    /// `owner/name`.
    pub repository: String,
    pub pull_request: bool,
}

impl OutputItem {
    pub(crate) fn of(facts: &ItemFacts, repository: &str) -> OutputItem {
        OutputItem {
            number: facts.number,
            title: facts.title.clone(),
            repository: repository.to_string(),
            pull_request: facts.is_pr,
        }
    }
}

/// actions/stale's two outputs, each a JSON list as text, and how many entries were left out
/// to stay under [`OUTPUTS_LIMIT`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StaleOutputs {
    #[serde(rename = "staled-issues-prs")]
    pub staled: String,
    #[serde(rename = "closed-issues-prs")]
    pub closed: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<usize>,
}

/// The two outputs, as JSON text each (the form `$GITHUB_OUTPUT` takes), under
/// [`OUTPUTS_LIMIT`] together: past it, the last entries of the longer list are left out and
/// `truncated` says how many.
pub(crate) fn outputs(staled: &[OutputItem], closed: &[OutputItem]) -> StaleOutputs {
    let text = |list: &[OutputItem]| serde_json::to_string(list).unwrap_or_else(|_| "[]".into());
    // Each entry's share of its list's JSON: itself and a comma (never 0, so a list with
    // entries left always has bytes to give).
    let sizes = |list: &[OutputItem]| -> Vec<usize> {
        list.iter()
            .map(|entry| serde_json::to_string(entry).map_or(1, |json| json.len() + 1))
            .collect()
    };
    let (staled_sizes, closed_sizes) = (sizes(staled), sizes(closed));
    let (mut keep_staled, mut keep_closed) = (staled.len(), closed.len());
    let mut bytes = (
        staled_sizes.iter().sum::<usize>(),
        closed_sizes.iter().sum::<usize>(),
    );
    // The two lists' brackets and their entries.
    let fits = |bytes: (usize, usize)| 4 + bytes.0 + bytes.1 <= OUTPUTS_LIMIT;
    // The last entries of the longer list go first, until both fit.
    while !fits(bytes) {
        if bytes.0 >= bytes.1 {
            keep_staled -= 1;
            bytes.0 -= staled_sizes[keep_staled];
        } else {
            keep_closed -= 1;
            bytes.1 -= closed_sizes[keep_closed];
        }
    }
    let left_out = (staled.len() - keep_staled) + (closed.len() - keep_closed);
    StaleOutputs {
        staled: text(&staled[..keep_staled]),
        closed: text(&closed[..keep_closed]),
        truncated: (left_out > 0).then_some(left_out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn listed(number: u64, title: &str) -> OutputItem {
        OutputItem {
            number,
            title: title.into(),
            repository: "o/r".into(),
            pull_request: false,
        }
    }

    #[test]
    fn outputs_are_json_lists_of_number_and_title() {
        let value = serde_json::to_value(outputs(&[listed(3, "Old bug")], &[])).unwrap();
        let staled: Value =
            serde_json::from_str(value["staled-issues-prs"].as_str().unwrap()).unwrap();
        assert_eq!(staled[0]["number"], 3);
        assert_eq!(staled[0]["title"], "Old bug");
        assert_eq!(value["closed-issues-prs"], "[]");
        assert!(value.get("truncated").is_none());
        assert_eq!(
            value,
            json!({"staled-issues-prs": value["staled-issues-prs"], "closed-issues-prs": "[]"})
        );
    }

    fn sizes(value: &Value) -> (Vec<Value>, Vec<Value>, usize) {
        let text = |key: &str| value[key].as_str().unwrap().to_string();
        let (staled, closed) = (text("staled-issues-prs"), text("closed-issues-prs"));
        (
            serde_json::from_str(&staled).unwrap(),
            serde_json::from_str(&closed).unwrap(),
            staled.len() + closed.len(),
        )
    }

    /// GitHub's limit is 1 MB for a job's outputs; 4,096 bytes of it are left to the framing.
    #[test]
    fn outputs_stay_under_githubs_limit_cutting_the_end_of_the_longer_list() {
        let long = "x".repeat(1_000);
        let many: Vec<OutputItem> = (1..=2_000).map(|n| listed(n, &long)).collect();
        let value = serde_json::to_value(outputs(&many, &many[..10])).unwrap();
        let (staled, closed, size) = sizes(&value);
        assert!(size <= 1_000_000 - 4_096, "{size}");
        assert_eq!(closed.len(), 10, "the shorter list is kept whole");
        assert!(staled.len() > 900, "{}", staled.len());
        assert_eq!(value["truncated"], 2_000 - staled.len());
        assert_eq!(staled[0]["number"], 1, "the first items are kept");
        assert_eq!(staled.last().unwrap()["number"], staled.len());

        // The closed list longer: it is the one cut.
        let value = serde_json::to_value(outputs(&many[..10], &many)).unwrap();
        let (staled, closed, size) = sizes(&value);
        assert!(size <= OUTPUTS_LIMIT, "{size}");
        assert_eq!(staled.len(), 10);
        assert_eq!(value["truncated"], 2_000 - closed.len());
        assert_eq!(closed[0]["number"], 1);
    }

    #[test]
    fn two_long_lists_are_cut_to_about_the_same_length() {
        let long = "x".repeat(1_000);
        let many: Vec<OutputItem> = (1..=1_000).map(|n| listed(n, &long)).collect();
        let value = serde_json::to_value(outputs(&many, &many)).unwrap();
        let (staled, closed, size) = sizes(&value);
        assert!(size <= OUTPUTS_LIMIT, "{size}");
        assert!(
            staled.len().abs_diff(closed.len()) <= 1,
            "{} {}",
            staled.len(),
            closed.len()
        );
        assert_eq!(value["truncated"], 2_000 - staled.len() - closed.len());
        // Nothing more was cut than needed: one more entry would not have fitted.
        let entry = serde_json::to_string(&many[0]).unwrap().len() + 1;
        assert!(size + entry > OUTPUTS_LIMIT - 4, "{size}");
    }

    #[test]
    fn outputs_exactly_at_the_limit_are_kept_whole() {
        let entry = |title_len: usize| listed(1, &"x".repeat(title_len));
        let bare = serde_json::to_string(&entry(0)).unwrap().len() + 1;
        let at_limit = OUTPUTS_LIMIT - 4 - bare;
        let value = serde_json::to_value(outputs(&[entry(at_limit)], &[])).unwrap();
        assert!(value.get("truncated").is_none(), "{}", value["truncated"]);
        let value = serde_json::to_value(outputs(&[entry(at_limit + 1)], &[])).unwrap();
        assert_eq!(value["truncated"], 1);
        assert_eq!(value["staled-issues-prs"], "[]");
    }
}
