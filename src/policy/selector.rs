//! The rerun selector of seed 004: the `--only` list. `format` prints a set of items the way the
//! recap shows them (`o/r#12,#15,#40-#44`); `parse` reads exactly that back. Pure.

use std::collections::BTreeSet;

use crate::item::{parse_number, ItemRef, RepoRef};

/// A run of consecutive numbers this long or longer prints as a range.
const RANGE_MIN: u64 = 3;

/// Formats items grouped by repository, numbers ascending, consecutive runs as ranges.
pub fn format(items: &BTreeSet<ItemRef>) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut current: Option<&RepoRef> = None;
    let numbers_of = |repo: &RepoRef| -> Vec<u64> {
        items
            .iter()
            .filter(|item| &item.repo == repo)
            .map(|item| item.number)
            .collect()
    };
    let repos: BTreeSet<&RepoRef> = items.iter().map(|item| &item.repo).collect();
    for repo in repos {
        let numbers = numbers_of(repo);
        let mut index = 0;
        while index < numbers.len() {
            let start = numbers[index];
            let mut end = start;
            while index + 1 < numbers.len() && numbers[index + 1] == end + 1 {
                index += 1;
                end = numbers[index];
            }
            let prefix = if current == Some(repo) {
                String::new()
            } else {
                repo.to_string()
            };
            current = Some(repo);
            if end - start + 1 >= RANGE_MIN {
                parts.push(format!("{prefix}#{start}-#{end}"));
            } else {
                for number in start..=end {
                    let prefix = if number == start { prefix.as_str() } else { "" };
                    parts.push(format!("{prefix}#{number}"));
                }
            }
            index += 1;
        }
    }
    parts.join(",")
}

/// Why a text is not a selector; each names the text (a long one abbreviated).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    #[error("invalid --only `{text}`: no items given")]
    Empty { text: String },
    /// One comma-separated part is wrong; `why` follows the part in the message.
    #[error("invalid --only `{text}`: `{part}` {why}; write items as `owner/repo#12,#15,#40-#44`")]
    Part {
        text: String,
        part: String,
        why: String,
    },
    #[error("invalid --only `{text}`: names more than {max} items in all", max = MAX_ITEMS)]
    TooMany { text: String },
}

/// Parses a selector. `#N` without a repository belongs to the previous item's repository, or
/// to `default_repo` when it comes first (the run's only `--repo`).
pub fn parse(
    text: &str,
    default_repo: Option<&RepoRef>,
) -> Result<BTreeSet<ItemRef>, SelectorError> {
    let invalid = |part: &str, why: String| SelectorError::Part {
        text: text.to_string(),
        part: part.to_string(),
        why,
    };
    let mut items = BTreeSet::new();
    let mut repo: Option<RepoRef> = default_repo.cloned();
    if text.trim().is_empty() {
        return Err(SelectorError::Empty {
            text: text.to_string(),
        });
    }
    for part in text.split(',') {
        let part = part.trim();
        // A bare number (`12`, `2-10`) is `#12` of the run's single --repo, as `gh issue view
        // 12` is an item of the current repository.
        let (repo_text, numbers) = match part.split_once('#') {
            Some(split) => split,
            None if part.starts_with(|c: char| c.is_ascii_digit()) => ("", part),
            None => return Err(invalid(part, "has no `#NUMBER`".to_string())),
        };
        if !repo_text.is_empty() {
            repo = Some(
                repo_text
                    .parse()
                    .map_err(|why: crate::item::RefError| invalid(part, why.to_string()))?,
            );
        }
        let Some(repo) = repo.as_ref() else {
            return Err(invalid(
                part,
                "names no repository, and no single --repo gives one".to_string(),
            ));
        };
        let (start, end) = match numbers.split_once('-') {
            Some((start, end)) => {
                // `#2-#10` as the recap prints it, or `#2-10` as people write it.
                let end = end.strip_prefix('#').unwrap_or(end);
                let start = parse_number(start).map_err(|why| invalid(part, why.to_string()))?;
                let end = parse_number(end).map_err(|why| invalid(part, why.to_string()))?;
                if end < start {
                    return Err(invalid(
                        part,
                        format!("is a range backwards ({start} > {end})"),
                    ));
                }
                (start, end)
            }
            None => {
                let number = parse_number(numbers).map_err(|why| invalid(part, why.to_string()))?;
                (number, number)
            }
        };
        if end - start >= MAX_ITEMS {
            return Err(invalid(
                part,
                format!("is a range of more than {MAX_ITEMS} items"),
            ));
        }
        // The cap is on the whole selector, not per range: adjacent ranges each under it
        // once took gigabytes.
        if items.len() as u64 + (end - start + 1) > MAX_ITEMS {
            return Err(SelectorError::TooMany {
                text: abbreviate(text),
            });
        }
        for number in start..=end {
            items.insert(ItemRef::new(repo, number));
        }
    }
    Ok(items)
}

/// Whether the selector's first item names no repository (`12`, `#12`), so it needs the run's
/// single repository to mean anything.
pub fn needs_default_repo(text: &str) -> bool {
    let first = text.split(',').next().unwrap_or_default().trim();
    match first.split_once('#') {
        Some((repo, _)) => repo.is_empty(),
        None => true,
    }
}

/// The most items one selector may name, across all its parts.
pub const MAX_ITEMS: u64 = 100_000;

/// A long selector, shortened for an error message.
fn abbreviate(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((index, _)) => format!("{}…", &text[..index]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn repo(text: &str) -> RepoRef {
        text.parse().unwrap()
    }

    fn set(repo_text: &str, numbers: &[u64]) -> BTreeSet<ItemRef> {
        numbers
            .iter()
            .map(|number| ItemRef::new(&repo(repo_text), *number))
            .collect()
    }

    #[test]
    fn formats_ranges_only_for_runs() {
        let items = set("o/r", &[12, 15, 40, 41, 42, 43, 44, 50, 51]);
        assert_eq!(format(&items), "o/r#12,#15,#40-#44,#50,#51");
    }

    #[test]
    fn an_error_about_a_long_selector_quotes_its_start_only() {
        let long = format!("o/r#1-#60000,#60001-#120000{}", ",#1".repeat(40));
        let error = parse(&long, None).unwrap_err().to_string();
        assert!(
            error.starts_with(
                "invalid --only `o/r#1-#60000,#60001-#120000,#1,#1,#1,#1,#1,#1,#1,#1,#1,#1,#1…`"
            ),
            "{error}"
        );
        assert!(
            error.contains("…`: names more than 100000 items in all"),
            "{error}"
        );
        // A range of exactly the cap is one item too many only past it.
        assert_eq!(parse("o/r#1-#100000", None).unwrap().len(), 100_000);
        assert!(parse("o/r#1-#100001", None)
            .unwrap_err()
            .to_string()
            .contains("is a range of more than 100000 items"));
    }

    #[test]
    fn a_run_of_three_is_the_shortest_range() {
        assert_eq!(format(&set("o/r", &[1, 2, 3])), "o/r#1-#3");
        assert_eq!(format(&set("o/r", &[1, 2, 4])), "o/r#1,#2,#4");
    }

    #[test]
    fn formats_several_repos() {
        let mut items = set("o/r", &[1, 2]);
        items.extend(set("o/s", &[7]));
        assert_eq!(format(&items), "o/r#1,#2,o/s#7");
    }

    #[test]
    fn parses_what_it_prints() {
        let parsed = parse("o/r#12,#15,#40-#44", None).unwrap();
        assert_eq!(parsed, set("o/r", &[12, 15, 40, 41, 42, 43, 44]));
        let defaulted = parse("#3", Some(&repo("o/r"))).unwrap();
        assert_eq!(defaulted, set("o/r", &[3]));
    }

    #[test]
    fn bare_numbers_and_open_range_ends_are_items_of_the_single_repo() {
        let single = repo("o/r");
        assert_eq!(parse("12", Some(&single)).unwrap(), set("o/r", &[12]));
        assert_eq!(
            parse("#12,#15", Some(&single)).unwrap(),
            set("o/r", &[12, 15])
        );
        assert_eq!(
            parse("12,15,20-22", Some(&single)).unwrap(),
            set("o/r", &[12, 15, 20, 21, 22])
        );
        assert_eq!(
            parse("o/r#2-10", None).unwrap(),
            set("o/r", &[2, 3, 4, 5, 6, 7, 8, 9, 10])
        );
        assert_eq!(parse("o/r#2-10", None), parse("o/r#2-#10", None));
        // Printed back, a range keeps the recap's own form.
        assert_eq!(format(&parse("o/r#2-10", None).unwrap()), "o/r#2-#10");
    }

    #[test]
    fn rejects_bad_selectors_naming_the_part() {
        for (bad, part) in [
            ("x#", "`x#`"),
            ("o/r#0", "`o/r#0`"),
            ("o/r#9-#3", "`o/r#9-#3`"),
            ("#4", "`#4`"),
            ("o/r#1,,#2", "``"),
            ("o/r#1-#", "`o/r#1-#`"),
            ("o/r#3-1", "`o/r#3-1`"),
            ("4", "`4`"),
            ("o/r", "`o/r`"),
            ("", "no items"),
        ] {
            let error = parse(bad, None).unwrap_err().to_string();
            assert!(error.contains(part), "{bad}: {error}");
        }
    }

    #[test]
    fn the_item_cap_is_on_the_whole_selector() {
        let at_cap = parse("o/r#1-#50000,#50001-#100000", None).unwrap();
        assert_eq!(at_cap.len(), 100_000);
        let error = parse("o/r#1-#50000,#50001-#100001", None)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("names more than 100000 items in all"),
            "{error}"
        );
    }

    proptest! {
        #[test]
        fn format_then_parse_is_identity(
            numbers in proptest::collection::btree_set(1u64..200, 0..40),
            others in proptest::collection::btree_set(1u64..200, 0..10),
        ) {
            let mut items = set("o/r", &numbers.into_iter().collect::<Vec<_>>());
            items.extend(set("x/y", &others.into_iter().collect::<Vec<_>>()));
            prop_assume!(!items.is_empty());
            prop_assert_eq!(parse(&format(&items), None).unwrap(), items);
        }

        /// A selector either parses to items that print back as a selector of the same items,
        /// or is refused with an error that quotes it.
        #[test]
        fn a_selector_is_items_or_an_error_quoting_it(text in "[o/r#0-9,\\- ]{0,24}") {
            match parse(&text, Some(&repo("o/r"))) {
                Ok(items) => prop_assert_eq!(parse(&format(&items), None).unwrap(), items),
                Err(error) => prop_assert!(
                    error.to_string().starts_with(&format!("invalid --only `{text}`")),
                    "{}", error
                ),
            }
        }
    }

    #[test]
    fn a_part_without_a_number_says_so_and_a_one_item_range_is_one_item() {
        let error = parse("octo/demo", None).unwrap_err().to_string();
        assert!(error.contains("`octo/demo` has no `#NUMBER`"), "{error}");
        let one: Vec<String> = parse("octo/demo#5-5", None)
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(one, ["octo/demo#5"]);
    }

    #[test]
    fn only_a_first_item_without_its_repository_needs_the_runs_repository() {
        assert!(needs_default_repo("12"));
        assert!(needs_default_repo("#12,octo/demo#3"));
        assert!(!needs_default_repo("octo/demo#12"));
        assert!(!needs_default_repo(" octo/demo#1,#2"));
    }
}
