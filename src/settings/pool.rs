//! The pool a run is made from: `--repo` values on this run's API host, `--only` items (given,
//! from `@FILE` or standard input), a snapshot's repositories, or the repository of the clone
//! the run was started in, as gh would pick it.

use std::collections::BTreeSet;
use std::path::Path;

use super::auth::host_of;
use super::env::Env;
use super::error::SettingsError;
use super::flags::{CommandAccess, Spec};
use super::paths::{clone_default, git_remote_config};
use crate::github::snapshot::Snapshot;
use crate::item::{ItemRef, RepoRef};
use crate::policy::selector;

/// What the pool is: its repositories, the `--only` items, and the snapshot it replays.
pub(crate) struct ResolvedPool {
    pub repos: Vec<RepoRef>,
    pub only: Option<BTreeSet<ItemRef>>,
    pub snapshot: Option<Snapshot>,
}

/// The most an `--only @FILE` or `--only -` list may hold: a rerun line of a few hundred
/// thousand items. More is refused, never read to the end (`@/dev/zero` has no end).
pub(crate) const MAX_ONLY_BYTES: u64 = 8 * 1024 * 1024;

/// How long an `--only @FILE` that is a pipe may keep us waiting for its first data.
const ONLY_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Reads at most [`MAX_ONLY_BYTES`] from `input`, waiting at most [`ONLY_WAIT`] while it has
/// nothing yet (a FIFO whose writer is slow); a FIFO with no writer reads as empty.
fn read_bounded(mut input: impl std::io::Read, what: &str) -> Result<String, String> {
    let mut read = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let started = std::time::Instant::now();
    loop {
        match input.read(&mut chunk) {
            Ok(0) => break,
            Ok(count) => {
                read.extend_from_slice(&chunk[..count]);
                if read.len() as u64 > MAX_ONLY_BYTES {
                    return Err(format!(
                        "invalid --only {what}: it holds more than {} MiB; name fewer items, or split the list over several runs",
                        MAX_ONLY_BYTES / (1024 * 1024)
                    ));
                }
            }
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                if started.elapsed() > ONLY_WAIT {
                    return Err(format!(
                        "invalid --only {what}: nothing came in {} s (a pipe whose writer never wrote?)",
                        ONLY_WAIT.as_secs()
                    ));
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(format!("invalid --only {what}: cannot read it: {error}")),
        }
    }
    String::from_utf8(read).map_err(|_| format!("invalid --only {what}: it is not UTF-8 text"))
}

/// Opens `path` for `--only @FILE` without blocking: opening a FIFO with no writer would
/// otherwise wait forever.
fn open_only_file(path: &str) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// The `--only` list as given, or read from `@FILE` or `-` (standard input). A file may put
/// its items on lines, as the rerun file gh-sweep writes does; they are joined with commas.
fn only_list(text: &str) -> Result<String, String> {
    let (read, source) = if text == "-" {
        let read = read_bounded(std::io::stdin().lock(), "-")?;
        (read, "standard input".to_string())
    } else if let Some(path) = text.strip_prefix('@') {
        let file = open_only_file(path)
            .map_err(|error| format!("invalid --only @{path}: cannot read {path}: {error}"))?;
        let read = read_bounded(file, text)?;
        (read, path.to_string())
    } else {
        return Ok(text.to_string());
    };
    let joined = read
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(",");
    if joined.is_empty() {
        return Err(format!("invalid --only {text}: {source} names no items"));
    }
    Ok(joined)
}

/// What the pool is made from: `--repo`, `--only`, `--org`, a snapshot, or the clone's default.
pub(crate) struct Pool<'a> {
    /// `--repo` values, as given.
    pub repos: &'a [String],
    /// `--only`, as given.
    pub only: Option<&'a str>,
    /// `--snapshot`.
    pub snapshot: Option<&'a Path>,
    /// `--dry-run`.
    pub dry_run: bool,
    pub spec: &'a Spec<'a>,
    pub interactive: bool,
    pub env: &'a Env,
    pub cwd: &'a Path,
    pub api_base: &'a str,
    pub orgs: &'a [String],
}

impl Pool<'_> {
    /// The repositories, the `--only` items and the loaded snapshot; a note when the clone's
    /// default repository was taken.
    pub(crate) fn resolve(
        &self,
        warnings: &mut Vec<String>,
    ) -> Result<ResolvedPool, SettingsError> {
        self.resolved(warnings).map_err(|error| match error {
            Pooled::Message(message) => SettingsError::Pool(message),
            Pooled::Settings(error) => error,
        })
    }

    fn resolved(&self, warnings: &mut Vec<String>) -> Result<ResolvedPool, Pooled> {
        let mut repos = self.given_repos()?;
        let only_text = match self.only {
            Some(text) => Some(only_list(text)?),
            None => None,
        };
        // No repository named: inside a git clone, the one gh itself would use.
        let wants_clone_default = repos.is_empty()
            && self.orgs.is_empty()
            && self.snapshot.is_none()
            && only_text
                .as_deref()
                .is_none_or(selector::needs_default_repo);
        if wants_clone_default {
            if let Some(repo) = self.clone_default(warnings)? {
                repos.push(repo);
            }
        }
        let only = match &only_text {
            Some(text) => Some(only_items(text, &mut repos)?),
            None => None,
        };
        let snapshot = match self.snapshot {
            Some(path) => Some(Snapshot::load(path).map_err(|error| format!("{error:#}"))?),
            None => None,
        };
        if let (Some(path), Some(snapshot)) = (self.snapshot, &snapshot) {
            snapshot
                .check_replay(path, self.spec.kind.words(), &repos)
                .map_err(|why| why.to_string())?;
        }
        if repos.is_empty() {
            if let Some(snapshot) = &snapshot {
                for repo in &snapshot.repos {
                    repos.push(
                        repo.parse()
                            .map_err(|why: crate::item::RefError| why.to_string())?,
                    );
                }
            }
        }
        if repos.is_empty() && self.orgs.is_empty() {
            let org = if self.spec.kind.takes_orgs() {
                ", or --org ORG"
            } else {
                ""
            };
            return Err(Pooled::Message(format!(
                "no repository given: pass --repo OWNER/NAME{org} (or --only 'OWNER/NAME#N')"
            )));
        }
        Ok(ResolvedPool {
            repos,
            only,
            snapshot,
        })
    }

    /// `--repo` values, each once, all on this run's API host.
    fn given_repos(&self) -> Result<Vec<RepoRef>, String> {
        let api_base = self.api_base;
        let api_host = host_of(api_base).web_host().to_string();
        let mut repos = Vec::new();
        for text in self.repos {
            let (host, repo) = crate::item::parse_repo_arg(text).map_err(|why| why.to_string())?;
            // gh's `-R [HOST/]OWNER/REPO` may name a host; one run talks to one API, so a host
            // that is not that API's is a mistake, not a second place to read from.
            if let Some(host) = host.filter(|host| *host != api_host) {
                return Err(format!(
                    "invalid --repo `{text}`: it is on {host}, but this run's API is {api_host} ({api_base}); drop the host, or set GH_HOST={host} (or --api-url) to sweep {host}"
                ));
            }
            if !repos.contains(&repo) {
                repos.push(repo);
            }
        }
        Ok(repos)
    }

    /// The clone's default repository, refused for a run that may write with no terminal to
    /// show it on.
    fn clone_default(&self, warnings: &mut Vec<String>) -> Result<Option<RepoRef>, Pooled> {
        let api_host = host_of(self.api_base).web_host().to_string();
        let remotes = git_remote_config(self.cwd, self.env).unwrap_or_default();
        let Some(found) = clone_default(&remotes, &api_host)? else {
            return Ok(None);
        };
        if self.spec.kind.access() != CommandAccess::ReadOnly && !self.dry_run && !self.interactive
        {
            return Err(Pooled::Message(format!(
                "refusing to take the repository from this clone's git remotes ({}) without a terminal to show it on: a run that writes from cron names its repository; pass --repo {}",
                found.repo, found.repo
            )));
        }
        warnings.push(format!(
            "using {}, the gh default of this clone (remote `{}`); pass --repo to choose another",
            found.repo, found.remote
        ));
        Ok(Some(found.repo))
    }
}

/// Why the pool could not be made: a message of the pool's own (or a policy's), or a settings
/// error from below (the clone's remotes).
enum Pooled {
    Message(String),
    Settings(SettingsError),
}

impl From<String> for Pooled {
    fn from(message: String) -> Self {
        Pooled::Message(message)
    }
}

impl From<SettingsError> for Pooled {
    fn from(error: SettingsError) -> Self {
        Pooled::Settings(error)
    }
}

/// The `--only` items, each in a repository given with `--repo` when any was; their
/// repositories join the pool's.
fn only_items(text: &str, repos: &mut Vec<RepoRef>) -> Result<BTreeSet<ItemRef>, String> {
    let default_repo = (repos.len() == 1).then(|| &repos[0]);
    let items = selector::parse(text, default_repo).map_err(|e| e.to_string())?;
    if !repos.is_empty() {
        if let Some(stranger) = items.iter().find(|item| !repos.contains(&item.repo)) {
            return Err(format!(
                "invalid --only: {stranger} is not in the repositories given with --repo ({})",
                repos
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    for item in &items {
        if !repos.contains(&item.repo) {
            repos.push(item.repo.clone());
        }
    }
    Ok(items)
}
