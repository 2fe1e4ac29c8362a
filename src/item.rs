//! Names of things on GitHub: a repository (`owner/name`) and an item (`owner/name#N`).
//! Parsing here is strict and every error names the bad value; nothing here does I/O.

use std::fmt;
use std::str::FromStr;

/// A repository, `owner/name`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RepoRef {
    pub owner: String,
    pub name: String,
}

/// Where a pool comes from: one repository, or every repository of an organisation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    Repo(RepoRef),
    Org(String),
}

/// An issue or pull request, `owner/name#N`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ItemRef {
    pub repo: RepoRef,
    pub number: u64,
}

impl ItemRef {
    pub fn new(repo: &RepoRef, number: u64) -> Self {
        ItemRef {
            repo: repo.clone(),
            number,
        }
    }
}

/// A name GitHub accepts and a URL keeps as it is: `.` and `..` are reserved by GitHub ("The
/// repository . is reserved") and a URL library would resolve them as dot segments.
fn valid_segment(segment: &str) -> bool {
    !segment.is_empty()
        && segment != "."
        && segment != ".."
        && segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl FromStr for RepoRef {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let mut parts = text.split('/');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(owner), Some(name), None) if valid_segment(owner) && valid_segment(name) => {
                Ok(RepoRef {
                    owner: owner.to_string(),
                    name: name.to_string(),
                })
            }
            _ => Err(format!(
                "invalid repository `{text}`: write it as OWNER/NAME, e.g. `rust-lang/cargo`"
            )),
        }
    }
}

impl FromStr for ItemRef {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (repo, number) = text
            .split_once('#')
            .ok_or_else(|| format!("invalid item `{text}`: write it as OWNER/NAME#NUMBER"))?;
        let repo: RepoRef = repo.parse()?;
        let number = parse_number(number).map_err(|why| format!("invalid item `{text}`: {why}"))?;
        Ok(ItemRef { repo, number })
    }
}

/// Parses an issue number: digits only, at least 1.
pub fn parse_number(text: &str) -> Result<u64, String> {
    if text.is_empty() {
        return Err("the number after `#` is missing".to_string());
    }
    if !text.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("`{text}` is not an issue number"));
    }
    match text.parse::<u64>() {
        Ok(0) => Err("issue numbers start at 1, not 0".to_string()),
        Ok(number) => Ok(number),
        Err(_) => Err(format!("`{text}` is too large for an issue number")),
    }
}

impl fmt::Display for RepoRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

impl fmt::Display for ItemRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.repo, self.number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_items() {
        let item: ItemRef = "octo/demo#12".parse().unwrap();
        assert_eq!(item.repo.owner, "octo");
        assert_eq!(item.number, 12);
        assert_eq!(item.to_string(), "octo/demo#12");
    }

    #[test]
    fn rejects_bad_items_naming_the_value() {
        for bad in [
            "x#",
            "octo/demo#0",
            "octo#3",
            "octo/demo#x",
            "/demo#1",
            "a/b/c#1",
            "octo/..#1",
            "../demo#1",
            "octo/.#1",
        ] {
            let error = bad.parse::<ItemRef>().unwrap_err();
            assert!(error.contains('`'), "{bad}: {error}");
        }
    }
}
