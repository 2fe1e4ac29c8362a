//! The pool: the items given with `--only`, or each repository's and organisation's listing in
//! the order GitHub gave it; then the items that earlier writes of unknown outcome block.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};

use super::settle;
use super::state::RunProgress;
use super::Options;
use super::{Kind, ListError, Listed, Run, ScopeListing, StoreView};
use crate::exit;
use crate::github::{self, ApiError, Reader};
use crate::item::{ItemRef, RepoRef, Scope};
use crate::policy::recap::{Phase, Stop};
use crate::store::{Store, UnknownWrite};

/// What the listings showed, for the read phase.
#[derive(Default)]
pub(super) struct Listing {
    /// Where each listed item's entry is: its listing, and its place there.
    at: BTreeMap<ItemRef, (u32, u32)>,
    /// Each listing's entries in its order, each taken out as the read phase classifies its
    /// item. The entries stay where the listing put them (a pool of 100,000 is not moved into
    /// a map of its own beside the list it came in).
    lists: Vec<Entries>,
    /// Items this run never reads: another run still at work holds them, or a snapshot has
    /// no answer for them.
    pub(super) held: BTreeSet<ItemRef>,
}

/// One listing's entries, and when it was asked.
struct Entries {
    entries: Vec<Option<Listed>>,
    read_at: DateTime<Utc>,
    read_mark: i64,
}

impl Listing {
    /// Whether a listing showed `item`.
    pub(super) fn shows(&self, item: &ItemRef) -> bool {
        self.at.contains_key(item)
    }

    /// What the listing showed of `item`, taken out: once the item is classified it is of no
    /// more use.
    pub(super) fn take(&mut self, item: &ItemRef) -> Option<ListedEntry> {
        let (list, place) = self.at.remove(item)?;
        let list = self.lists.get_mut(list as usize)?;
        let listed = list.entries.get_mut(place as usize)?.take()?;
        Some(ListedEntry {
            listed,
            read_at: list.read_at,
            read_mark: list.read_mark,
        })
    }

    /// Adds one listing's entries, asked at `read_at` (the store's clock `read_mark`), each
    /// item once, and each item new to the pool to `pool`, in order.
    fn add(
        &mut self,
        entries: Vec<(ItemRef, Listed)>,
        read_at: DateTime<Utc>,
        read_mark: i64,
        pool: &mut Vec<ItemRef>,
    ) {
        let list = u32::try_from(self.lists.len()).unwrap_or(u32::MAX);
        let at = &mut self.at;
        // Into the list's own buffer, entry by entry, in place.
        let entries: Vec<Option<Listed>> = entries
            .into_iter()
            .enumerate()
            .map(|(place, (item, listed))| {
                if at.contains_key(&item) {
                    return None;
                }
                at.insert(
                    item.clone(),
                    (list, u32::try_from(place).unwrap_or(u32::MAX)),
                );
                pool.push(item);
                Some(listed)
            })
            .collect();
        self.lists.push(Entries {
            entries,
            read_at,
            read_mark,
        });
    }
}

/// An item as its listing showed it, and when.
pub(super) struct ListedEntry {
    pub(super) listed: Listed,
    /// When its facts were asked of GitHub: a list entry is as old as its list.
    pub(super) read_at: DateTime<Utc>,
    /// The store's clock then (see [`crate::store::WriteJournal::read_mark`]).
    pub(super) read_mark: i64,
}

impl Run<'_> {
    /// Fills the pool (in `progress`) and returns what the listings showed.
    pub(super) fn pool(&mut self, kind: &mut dyn Kind, progress: &mut RunProgress) -> Listing {
        let mut listing = Listing::default();
        // A snapshot holds its pool's list, not each item's own read: there `--only` picks
        // from the saved pool (so a rerun line pasted with `--snapshot` replays those items).
        let from_snapshot = self.options.from_snapshot;
        if progress.state.stopped.is_some() {
        } else if let Some(only) = self.options.only.as_ref().filter(|_| !from_snapshot) {
            progress.pool.extend(only.iter().cloned());
            let items: Vec<ItemRef> = only.iter().cloned().collect();
            kind.read_ahead(self.reader, &items);
        } else {
            let scopes = self
                .options
                .repos
                .iter()
                .cloned()
                .map(Scope::Repo)
                .chain(self.options.orgs.iter().cloned().map(Scope::Org));
            for scope in scopes {
                self.list_scope(kind, progress, &mut listing, &scope);
                if progress.state.stopped.is_some() {
                    break;
                }
            }
            if let (Some(only), true) = (&self.options.only, from_snapshot) {
                pick_from_snapshot(only, progress, &mut listing);
            }
        }
        listing
    }

    /// One repository's or organisation's listing, into the pool.
    fn list_scope(
        &mut self,
        kind: &mut dyn Kind,
        progress: &mut RunProgress,
        listing: &mut Listing,
        scope: &Scope,
    ) {
        let name = match scope {
            Scope::Repo(repo) => format!("repository {repo}"),
            Scope::Org(org) => format!("organisation {org}"),
        };
        let listed_at = self.clock.wall();
        let listed_mark = self.read_mark();
        let mut found = kind.list(self.reader, StoreView::new(self.store), scope);
        for note in &found.notes {
            self.ui.status(note);
            progress.notes.push(note.clone());
        }
        for (item, reason) in &found.held {
            if !progress.pool.contains(item) {
                progress.pool.push(item.clone());
            }
            progress.state.unfinished(item, reason);
            listing.held.insert(item.clone());
        }
        let entries = std::mem::replace(&mut found.entries, Ok(Vec::new()));
        let run_id = progress.state.run_id;
        let result = entries.and_then(|entries| self.claim(run_id, found, entries));
        if let (Scope::Org(org), Ok(_)) = (scope, &result) {
            if let Some(note) = org_search_note(self.reader, org) {
                self.ui.status(&note);
                progress.notes.push(note);
            }
        }
        match result {
            Ok(entries) => {
                listing.add(entries, listed_at, listed_mark, &mut progress.pool);
            }
            Err(error) => {
                let (stop, detail, code) = listing_stop(scope, &name, error);
                progress.state.stop(stop, detail);
                progress.state.exit_override = code;
                progress.pool_complete = false;
            }
        }
    }

    /// Applies what the listing asks of the store before its pool is read, then leases the
    /// rows it asks for, each as the pool's next entry.
    fn claim(
        &mut self,
        run_id: i64,
        found: ScopeListing,
        mut entries: Vec<(ItemRef, Listed)>,
    ) -> Result<Vec<(ItemRef, Listed)>, ListError> {
        settle::apply(self.store, run_id, &found.effects).map_err(ListError::Store)?;
        let Some(mut request) = found.claim else {
            return Ok(entries);
        };
        let owner = request.owner.as_str().to_string();
        while let Some(claim) = self
            .store
            .claim(
                request.now,
                &owner,
                &request.repos,
                request.lease,
                request.admit.as_mut(),
            )
            .map_err(|error| ListError::Store(error.into()))?
        {
            // The row's repository as the request names it (the store keeps it as text).
            let named = |repo: &&RepoRef| repo.to_string() == claim.repo;
            let Some(repo) = request.repos.iter().find(named).or(request.repos.first()) else {
                break;
            };
            let item = ItemRef::new(repo, claim.pr);
            let started = crate::clock::wall();
            entries.push((item, Listed::Claimed { claim, started }));
        }
        Ok(entries)
    }

    /// Writes of unknown outcome block their item until checked by hand (or, while GitHub may
    /// still be carrying one out, until `settles_at`). Returns the blocked items.
    pub(super) fn block_unknown(
        &mut self,
        kind: &mut dyn Kind,
        progress: &mut RunProgress,
        settles_at: &BTreeMap<i64, DateTime<Utc>>,
    ) -> anyhow::Result<BTreeSet<ItemRef>> {
        let mut repos: Vec<RepoRef> = self.options.repos.clone();
        for item in progress.pool.iter() {
            if !repos.contains(&item.repo) {
                repos.push(item.repo.clone());
            }
        }
        let unknown = self.store.unknown_writes(&repos, self.now)?;
        let mut blocked: BTreeSet<ItemRef> = BTreeSet::new();
        let mut mentioned: BTreeSet<ItemRef> = BTreeSet::new();
        for write in &unknown {
            let Ok(item) = write.item.parse::<ItemRef>() else {
                continue;
            };
            if self
                .options
                .only
                .as_ref()
                .is_some_and(|only| !only.contains(&item))
            {
                continue;
            }
            if !kind.concerns(write) {
                if mentioned.insert(item.clone()) {
                    let note = unconcerned_note(&item, write);
                    self.ui.status(&note);
                    progress.notes.push(note);
                }
                continue;
            }
            if !progress.pool.contains(&item) {
                progress.pool.push(item.clone());
            }
            if blocked.insert(item.clone()) {
                let reason = blocked_reason(&item, write, settles_at.get(&write.id));
                progress.state.failed(&item, Phase::Write, reason);
            }
        }
        Ok(blocked)
    }
}

/// `--only` with a snapshot: the items picked from the saved pool; one the snapshot does not
/// hold is that item's failure, never read.
fn pick_from_snapshot(only: &BTreeSet<ItemRef>, progress: &mut RunProgress, listing: &mut Listing) {
    progress.pool.retain(|item| only.contains(item));
    for item in only {
        if !listing.shows(item) && !progress.pool.contains(item) {
            progress.pool.push(item.clone());
            progress.state.failed(
                item,
                Phase::Read,
                "not in the snapshot's pool: it was not open when the snapshot was saved"
                    .to_string(),
            );
            // Never read: the snapshot has no answer for it.
            listing.held.insert(item.clone());
        }
    }
}

/// Why an item blocked by an earlier write of unknown outcome is not swept.
fn blocked_reason(
    item: &ItemRef,
    write: &UnknownWrite,
    settles_at: Option<&DateTime<Utc>>,
) -> String {
    match settles_at {
        Some(at) => format!(
            "outcome unknown: {} of run {} is not on GitHub yet, but GitHub may still be carrying it out; a run after {} settles it",
            write.action,
            write.run_id,
            at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        ),
        None => format!(
            "outcome unknown: check by hand ({} in run {}), then run `gh-sweep recap --acknowledge {item}`",
            write.action, write.run_id
        ),
    }
}

/// Names every `--repo` as GitHub does, once per run: `GET /repos/{o}/{r}` answers a name in any
/// case with the canonical `full_name`, and an old name with a 301 to the renamed repository.
/// The canonical name replaces the given one everywhere (pool, `--only`, queue scope, rerun
/// line). Best effort: a repository that cannot be read is left as given, and its listing
/// says why. Returns the notes for the recap.
pub(crate) fn canonicalise_repos(
    client: &dyn Reader,
    store: &mut dyn Store,
    options: &mut Options,
) -> anyhow::Result<Vec<String>> {
    let mut notes = Vec::new();
    for given in options.repos.clone() {
        let Ok(found) = client.repository(&given) else {
            continue;
        };
        let canonical = found.full_name;
        if let Some(old) = store.follow_repository(found.id, &canonical)? {
            notes.push(format!(
                "repository id {} was {old} and is now {canonical}: what gh-sweep kept under {old} (queue, merge gate, journal, stale marks) is now under {canonical}",
                found.id
            ));
        }
        if canonical.to_string() == given.to_string() {
            continue;
        }
        if found.moved {
            notes.push(format!(
                "{given} is now {canonical} (GitHub redirected it; repository id {}): swept as {canonical}",
                found.id
            ));
        }
        let mut repos = Vec::new();
        for repo in options.repos.drain(..) {
            let repo = if repo == given {
                canonical.clone()
            } else {
                repo
            };
            if !repos.contains(&repo) {
                repos.push(repo);
            }
        }
        options.repos = repos;
        if let Some(only) = &options.only {
            options.only = Some(
                only.iter()
                    .map(|item| {
                        if item.repo == given {
                            ItemRef::new(&canonical, item.number)
                        } else {
                            item.clone()
                        }
                    })
                    .collect(),
            );
        }
        let given = given.to_string();
        let canonical = canonical.to_string();
        options.rerun_prefix = options
            .rerun_prefix
            .split(' ')
            .map(|word| {
                if word == given {
                    canonical.as_str()
                } else {
                    word
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
    }
    Ok(notes)
}

/// The recap's note when an organisation has more repositories than one search looks at.
/// Best effort: when the count cannot be read, nothing is said.
pub(super) fn org_search_note(client: &dyn Reader, org: &str) -> Option<String> {
    let count = client.org_repository_count(org).ok()?;
    (count > github::SEARCH_REPOSITORY_CAP).then(|| {
        format!(
            "organisation {org} has {count} repositories; GitHub's search looks at no more than 4,000 of them, so PRs in the others may be missing from this pool: list those repositories with --repo"
        )
    })
}

/// The recap's note on another kind of run's write of unknown outcome: who settles it.
fn unconcerned_note(item: &ItemRef, write: &UnknownWrite) -> String {
    format!(
        "{item}: `{}` of run {} has an unknown outcome; `gh-sweep {}` settles it (or check by hand, then `gh-sweep recap --acknowledge {item}`); this run goes on",
        write.action,
        write.run_id,
        write.settled_by()
    )
}

/// Why listing a scope stopped the run, and the exit code when the stop's own is not the
/// one: a repository GitHub says is not there (404) exits 4 like a permission refusal (GitHub
/// answers 404 for both); an organisation its search cannot see (422, "The listed users and
/// repositories cannot be searched...") is a mistyped `--org`, a usage error.
fn listing_stop(scope: &Scope, name: &str, error: ListError) -> (Stop, String, Option<i32>) {
    let error = match error {
        ListError::GitHub(error) => error,
        other => {
            return (
                Stop::HarnessOutage,
                format!("listing {name}: {other}"),
                None,
            )
        }
    };
    match (scope, error) {
        (
            Scope::Repo(_),
            ApiError::Item {
                status: Some(404), ..
            },
        ) => (
            Stop::NotFound,
            format!("{name} was not found, or the token cannot see it"),
            None,
        ),
        (
            Scope::Org(org),
            ApiError::Item {
                status: Some(422),
                message,
            },
        ) => (
            Stop::NotFound,
            format!("{name} cannot be searched ({message}): check the spelling of --org {org}"),
            Some(exit::USAGE),
        ),
        (_, ApiError::Auth { message, .. }) => (Stop::Auth, message, None),
        (_, other) => (
            Stop::HarnessOutage,
            format!("listing {name}: {other}"),
            None,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(hour: u32) -> DateTime<Utc> {
        format!("2025-03-04T{hour:02}:00:00Z").parse().unwrap()
    }

    fn queued(item: &str, head: &str) -> (ItemRef, Listed) {
        let listed = Listed::Queued {
            head_sha: Some(head.into()),
        };
        (item.parse().unwrap(), listed)
    }

    fn head(entry: Option<ListedEntry>) -> Option<(String, DateTime<Utc>, i64)> {
        let entry = entry?;
        match entry.listed {
            Listed::Queued { head_sha } => Some((head_sha?, entry.read_at, entry.read_mark)),
            _ => None,
        }
    }

    /// An item two listings show (a repository and its organisation) is in the pool once,
    /// with what the first showed and when; each entry is taken once.
    #[test]
    fn an_item_listed_twice_is_pooled_once_with_its_first_entry() {
        let mut listing = Listing::default();
        let mut pool = Vec::new();
        listing.add(
            vec![queued("o/r#1", "a"), queued("o/r#2", "b")],
            at(10),
            7,
            &mut pool,
        );
        listing.add(
            vec![queued("o/r#2", "c"), queued("o/s#3", "d")],
            at(11),
            8,
            &mut pool,
        );
        let names: Vec<String> = pool.iter().map(ToString::to_string).collect();
        assert_eq!(names, ["o/r#1", "o/r#2", "o/s#3"]);
        let item = |name: &str| name.parse::<ItemRef>().unwrap();
        assert!(listing.shows(&item("o/r#2")));
        assert!(!listing.shows(&item("o/r#9")));
        assert_eq!(
            head(listing.take(&item("o/r#2"))),
            Some(("b".into(), at(10), 7))
        );
        assert_eq!(
            head(listing.take(&item("o/s#3"))),
            Some(("d".into(), at(11), 8))
        );
        assert_eq!(head(listing.take(&item("o/r#2"))), None, "taken once");
        assert!(!listing.shows(&item("o/r#2")));
        assert_eq!(
            head(listing.take(&item("o/r#1"))),
            Some(("a".into(), at(10), 7))
        );
    }
}
