//! Names of things on GitHub: a repository (`owner/name`) and an item (`owner/name#N`).
//! Parsing here is strict and every error names the bad value; nothing here does I/O.

use std::fmt;
use std::str::FromStr;

/// A repository, `owner/name`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RepoRef {
    pub owner: std::sync::Arc<str>,
    pub name: std::sync::Arc<str>,
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

/// Why a repository or item name is not one; each names the bad value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RefError {
    #[error("invalid repository `{0}`: write it as OWNER/NAME, e.g. `rust-lang/cargo`")]
    Repo(String),
    /// A `--repo` value, which may also name a host or be a URL.
    #[error("invalid repository `{0}`: write it as OWNER/NAME, HOST/OWNER/NAME or a URL, e.g. `rust-lang/cargo` or `https://github.com/rust-lang/cargo`")]
    RepoArg(String),
    #[error("invalid item `{0}`: write it as OWNER/NAME#NUMBER")]
    Item(String),
    #[error("invalid item `{text}`: {why}")]
    ItemNumber { text: String, why: NumberError },
}

impl FromStr for RepoRef {
    type Err = RefError;

    fn from_str(text: &str) -> Result<Self, RefError> {
        let mut parts = text.split('/');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(owner), Some(name), None) if valid_segment(owner) && valid_segment(name) => {
                Ok(RepoRef {
                    owner: owner.into(),
                    name: name.into(),
                })
            }
            _ => Err(RefError::Repo(text.to_string())),
        }
    }
}

impl FromStr for ItemRef {
    type Err = RefError;

    fn from_str(text: &str) -> Result<Self, RefError> {
        let (repo, number) = text
            .split_once('#')
            .ok_or_else(|| RefError::Item(text.to_string()))?;
        let repo: RepoRef = repo.parse()?;
        let number = parse_number(number).map_err(|why| RefError::ItemNumber {
            text: text.to_string(),
            why,
        })?;
        Ok(ItemRef { repo, number })
    }
}

/// A `--repo` value as gh reads `-R, --repo [HOST/]OWNER/REPO`: `OWNER/NAME`,
/// `HOST/OWNER/NAME`, or a URL (`https://github.com/o/r`, `https://github.com/o/r.git`,
/// `git@github.com:o/r.git`, `ssh://git@github.com/o/r.git`). Returns the host when one is
/// named (lowercased, `www.` dropped, as gh's `ghrepo.FromFullName` and `FromURL` do in
/// cli/cli internal/ghrepo/repo.go), and the repository.
pub fn parse_repo_arg(text: &str) -> Result<(Option<String>, RepoRef), RefError> {
    let invalid = || RefError::RepoArg(text.to_string());
    if is_url(text) {
        let (host, repo) = repo_of_url(text).ok_or_else(invalid)?;
        return Ok((Some(host), repo));
    }
    let parts: Vec<&str> = text.split('/').collect();
    match parts.as_slice() {
        [_, _] => Ok((None, text.parse().map_err(|_| invalid())?)),
        [host, owner, name] if valid_host(host) => {
            let repo: RepoRef = format!("{owner}/{name}").parse().map_err(|_| invalid())?;
            Ok((Some(normalize_host(host)), repo))
        }
        _ => Err(invalid()),
    }
}

/// Whether a `--repo` value or a remote is a URL: it has a scheme (`https://`), or is git's
/// scp-like form `user@host:path` (gh's `git.IsURL`: `://` or a `git@` prefix).
fn is_url(text: &str) -> bool {
    text.contains("://") || text.starts_with("git@")
}

/// The host and repository of a git remote URL, as gh's `git.ParseURL` and
/// `ghrepo.FromURL` read one: the scp-like `git@host:o/r.git` is `ssh://git@host/o/r.git`;
/// the path must be exactly `OWNER/NAME`, with `.git` dropped from the name. `None` for
/// anything else (a local path, a URL with more path, a bad name).
pub fn repo_of_url(url: &str) -> Option<(String, RepoRef)> {
    let url = url.trim();
    let (authority_and_path, scp_like) = match url.split_once("://") {
        Some((scheme, rest)) => {
            let scheme = scheme.to_ascii_lowercase();
            if !matches!(
                scheme.as_str(),
                "https" | "http" | "ssh" | "git" | "git+ssh"
            ) {
                return None;
            }
            (rest, false)
        }
        None => (url, true),
    };
    let (authority, path) = if scp_like {
        // `user@host:path`; a Windows path (`C:\...`) is not a remote URL.
        if url.contains('\\') {
            return None;
        }
        authority_and_path.split_once(':')?
    } else {
        authority_and_path.split_once('/')?
    };
    let host = authority.rsplit('@').next()?;
    // A port (`ssh://git@host:22/o/r`) is not part of the host.
    let host = host.split(':').next()?;
    if !valid_host(host) {
        return None;
    }
    let path = path.trim_matches('/');
    let (owner, name) = path.split_once('/')?;
    let name = name.strip_suffix(".git").unwrap_or(name);
    let repo: RepoRef = format!("{owner}/{name}").parse().ok()?;
    Some((normalize_host(host), repo))
}

/// A host name as gh compares them: lowercase, without `www.`.
pub fn normalize_host(host: &str) -> String {
    let host = host.to_ascii_lowercase();
    host.strip_prefix("www.").unwrap_or(&host).to_string()
}

/// A DNS name or an address with a dot or a colon, so `octo/demo/x` is not taken for a host.
fn valid_host(host: &str) -> bool {
    !host.is_empty()
        && (host.contains('.') || host == "localhost")
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '[' | ']' | ':'))
}

/// Why the text after `#` is no issue number.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    #[error("the number after `#` is missing")]
    Missing,
    #[error("`{text}` is not an issue number")]
    NotDigits { text: String },
    #[error("issue numbers start at 1, not 0")]
    Zero,
    #[error("`{text}` is too large for an issue number")]
    TooLarge { text: String },
}

/// Parses an issue number: digits only, at least 1.
pub fn parse_number(text: &str) -> Result<u64, NumberError> {
    if text.is_empty() {
        return Err(NumberError::Missing);
    }
    if !text.chars().all(|c| c.is_ascii_digit()) {
        return Err(NumberError::NotDigits {
            text: text.to_string(),
        });
    }
    match text.parse::<u64>() {
        Ok(0) => Err(NumberError::Zero),
        Ok(number) => Ok(number),
        Err(_) => Err(NumberError::TooLarge {
            text: text.to_string(),
        }),
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
        assert_eq!(&*item.repo.owner, "octo");
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
            let error = bad.parse::<ItemRef>().unwrap_err().to_string();
            assert!(error.contains('`'), "{bad}: {error}");
        }
    }

    #[test]
    fn repo_args_take_a_host_or_a_url_as_gh_does() {
        let octo = |owner: &str, name: &str| RepoRef {
            owner: owner.into(),
            name: name.into(),
        };
        for (text, host) in [
            ("octo/demo", None),
            ("github.com/octo/demo", Some("github.com")),
            ("GitHub.com/octo/demo", Some("github.com")),
            ("ghe.example.com/octo/demo", Some("ghe.example.com")),
            ("https://github.com/octo/demo", Some("github.com")),
            ("https://github.com/octo/demo/", Some("github.com")),
            ("https://github.com/octo/demo.git", Some("github.com")),
            ("https://www.github.com/octo/demo", Some("github.com")),
            ("git@github.com:octo/demo.git", Some("github.com")),
            ("ssh://git@github.com:22/octo/demo.git", Some("github.com")),
        ] {
            let parsed = parse_repo_arg(text).unwrap_or_else(|error| panic!("{text}: {error}"));
            assert_eq!(
                parsed,
                (host.map(String::from), octo("octo", "demo")),
                "{text}"
            );
        }
        for bad in [
            "octo",
            "a/b/c",
            "https://github.com/octo",
            "https://github.com/octo/demo/tree/main",
            "ftp://github.com/octo/demo",
            "github.com/octo/..",
            "/octo/demo",
        ] {
            let error = parse_repo_arg(bad).unwrap_err().to_string();
            assert!(error.contains(&format!("`{bad}`")), "{bad}: {error}");
        }
    }
}
