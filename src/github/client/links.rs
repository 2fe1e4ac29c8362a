//! The recap's links: each issue's and PR's web address as GitHub gave it in an answer
//! (`html_url` in REST, `url` in GraphQL). A pool of 100,000 items gives 100,000 addresses
//! that differ in their number only (`https://HOST/OWNER/REPO/issues/N`, `…/pull/N`), so each
//! is kept as the part before its number, shared by every item that has it, and rebuilt when
//! asked; an address that does not end with its item's number is kept whole.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The web addresses seen, by item.
#[derive(Default)]
pub(super) struct Links {
    /// Each address's part before the number, once.
    prefixes: HashSet<Arc<str>>,
    /// By repository (`owner/repo` in lower case, as GitHub's names are case-insensitive),
    /// then by number.
    by_repo: HashMap<Arc<str>, HashMap<u64, Link>>,
}

/// One item's address.
enum Link {
    /// The shared part before the number: the address is it and the number.
    Prefix(Arc<str>),
    /// An address of another shape, as GitHub gave it.
    Whole(Box<str>),
}

/// `owner/repo` in lower case and the number, of an item's name `owner/repo#N`.
fn split(name: &str) -> Option<(String, u64)> {
    let (repo, number) = name.rsplit_once('#')?;
    Some((repo.to_ascii_lowercase(), number.parse().ok()?))
}

impl Links {
    /// Keeps `url` as the address of the item named `name` (`owner/repo#N`, any case); a name
    /// without a number is not an item's and is not kept.
    pub(super) fn insert(&mut self, name: &str, url: &str) {
        let Some((repo, number)) = split(name) else {
            return;
        };
        let digits = number.to_string();
        let link = match url.strip_suffix(digits.as_str()) {
            Some(prefix) if prefix.ends_with('/') => {
                let shared = match self.prefixes.get(prefix) {
                    Some(shared) => shared.clone(),
                    None => {
                        let shared: Arc<str> = prefix.into();
                        self.prefixes.insert(shared.clone());
                        shared
                    }
                };
                Link::Prefix(shared)
            }
            _ => Link::Whole(url.into()),
        };
        match self.by_repo.get_mut(repo.as_str()) {
            Some(items) => {
                items.insert(number, link);
            }
            None => {
                self.by_repo
                    .insert(repo.into(), HashMap::from([(number, link)]));
            }
        }
    }

    /// The address kept for the item named `name`, in any case.
    pub(super) fn get(&self, name: &str) -> Option<String> {
        let (repo, number) = split(name)?;
        Some(match self.by_repo.get(repo.as_str())?.get(&number)? {
            Link::Prefix(prefix) => format!("{prefix}{number}"),
            Link::Whole(url) => url.to_string(),
        })
    }

    /// How many distinct address prefixes are kept.
    #[cfg(test)]
    fn prefixes(&self) -> usize {
        self.prefixes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_given_back_as_github_gave_it_whatever_the_names_case() {
        let mut links = Links::default();
        links.insert("Octo/Demo#3", "https://github.com/Octo/Demo/issues/3");
        links.insert(
            "octo/demo#12",
            "https://ghe.example.com:8443/octo/demo/pull/12",
        );
        // Not ending with the item's number: kept whole.
        links.insert("octo/demo#4", "https://github.com/octo/demo/issues/40");
        links.insert("octo/demo#5", "https://github.com/octo/demo/issues/x5");
        assert_eq!(
            links.get("octo/demo#3").as_deref(),
            Some("https://github.com/Octo/Demo/issues/3")
        );
        assert_eq!(
            links.get("OCTO/DEMO#12").as_deref(),
            Some("https://ghe.example.com:8443/octo/demo/pull/12")
        );
        assert_eq!(
            links.get("octo/demo#4").as_deref(),
            Some("https://github.com/octo/demo/issues/40")
        );
        assert_eq!(
            links.get("octo/demo#5").as_deref(),
            Some("https://github.com/octo/demo/issues/x5")
        );
        assert_eq!(links.get("octo/demo#6"), None);
        assert_eq!(links.get("octo/other#3"), None);
        assert_eq!(links.get("octo/demo"), None);
    }

    #[test]
    fn the_items_of_one_repository_share_their_addresses_prefix() {
        let mut links = Links::default();
        for number in 1..=100 {
            let url = format!("https://github.com/octo/demo/issues/{number}");
            links.insert(&format!("octo/demo#{number}"), &url);
        }
        links.insert("octo/demo#101", "https://github.com/octo/demo/pull/101");
        assert_eq!(links.prefixes(), 2);
        // A later address of an item replaces the earlier one.
        links.insert("octo/demo#7", "https://github.com/octo/moved/issues/7");
        assert_eq!(
            links.get("octo/demo#7").as_deref(),
            Some("https://github.com/octo/moved/issues/7")
        );
    }
}
