//! A PR's changed files through GraphQL: its page's first 100, and the next pages of every PR
//! kept whose files went past their first page read together, one query of aliased
//! connections (`queries::pull_files`) for as many PRs as a page of the search holds, instead
//! of a query per PR. A PR with a `RENAMED` file gets one REST files read: GraphQL's changed
//! files carry no previous path.

use std::collections::HashSet;

use super::reader::{pull_key, GraphqlReader};
use super::{batch, parse, queries};
use crate::github::client::ApiError;
use crate::github::reader::{malformed, MergeReader};
use crate::item::ItemRef;
use crate::policy::merge::ChangedFile;

impl GraphqlReader<'_> {
    /// Every changed file of the PR, read from its kept page and the pages after it.
    pub(super) fn changed_files(&self, item: &ItemRef) -> Result<Vec<ChangedFile>, ApiError> {
        let kept = self
            .pulls
            .borrow()
            .get(&pull_key(item))
            .is_some_and(|entry| entry.files.is_some());
        if !kept {
            self.read_pull(item)?;
        }
        let mut seen = HashSet::new();
        while let Some(after) = self.files_next(item) {
            parse::advance(&mut seen, "PullFiles", Some(&after))?;
            self.next_files_pages(item, after)?;
        }
        let first = self.take_pull(item, |entry| entry.files.take())?;
        let mut files = Vec::new();
        for node in &first.nodes {
            let (file, renamed) = parse::changed_file(node).map_err(malformed)?;
            if renamed {
                // Both paths of a rename are judged: only REST names the previous one.
                return self.client.pull_files(item);
            }
            files.push(file);
        }
        Ok(files)
    }

    /// Where the PR's kept files go on, if they do.
    fn files_next(&self, item: &ItemRef) -> Option<String> {
        self.pulls
            .borrow()
            .get(&pull_key(item))
            .and_then(|entry| entry.files.as_ref())
            .and_then(|files| files.next.clone())
    }

    /// The next page of `item`'s files (after `after`) and, in the same query, of the other
    /// PRs kept whose files go on, each appended to what is kept. Another PR's failure in it
    /// is left for its own read; `item`'s is the answer.
    fn next_files_pages(&self, item: &ItemRef, after: String) -> Result<(), ApiError> {
        let mut pages = vec![(item.clone(), after)];
        let size = self.pulls_page.get() as usize;
        let own = pull_key(item);
        for (key, entry) in self.pulls.borrow().iter() {
            if pages.len() >= size {
                break;
            }
            let next = entry.files.as_ref().and_then(|files| files.next.clone());
            let other = key.parse::<ItemRef>().ok();
            if let (Some(next), Some(other)) = (next, other) {
                if *key != own && queries::askable(&other).is_ok() {
                    pages.push((other, next));
                }
            }
        }
        let (document, variables, aliases) = queries::pull_files(&pages);
        let answer = self.send(&document, variables)?;
        let items: Vec<ItemRef> = pages.iter().map(|(item, _)| item.clone()).collect();
        let nodes = batch::each_node(&answer, &document, &items, &aliases)?;
        for (index, ((pull, sent), node)) in pages.iter().zip(nodes).enumerate() {
            let page = node.and_then(|node| parse::list(node, "files").map_err(malformed));
            let page = match page {
                // A cursor answered again is left for that PR's own read, which fails on it.
                Ok(page) if page.next.as_ref() == Some(sent) && index > 0 => continue,
                Ok(page) => page,
                Err(error) if index == 0 => return Err(error),
                Err(_) => continue,
            };
            let mut pulls = self.pulls.borrow_mut();
            if let Some(files) = pulls
                .get_mut(&pull_key(pull))
                .and_then(|entry| entry.files.as_mut())
            {
                files.nodes.extend(page.nodes);
                files.next = page.next;
            }
        }
        Ok(())
    }
}
