//! Offline snapshots: the raw answers a run read, keyed by request path, with the time they
//! were captured. Replaying one reruns the same read phase with the same clock. Only bodies are
//! kept, never request headers, so no token can end up in a snapshot.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const FORMAT: &str = "gh-sweep-snapshot/1";

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Recorded {
    pub status: u16,
    pub body: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Snapshot {
    pub format: String,
    pub captured_at: DateTime<Utc>,
    /// The repositories the run swept, so a replay needs no --repo.
    #[serde(default)]
    pub repos: Vec<String>,
    /// The subcommand that read it (`classify stale`), so a replay by one that reads other
    /// things is refused up front. Older snapshots do not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The API its reads went through (`graphql` or `rest`), so a replay reads the same way.
    /// Older snapshots do not say: they were read with REST.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_api: Option<String>,
    /// Keyed by `GET /path?query`.
    pub responses: BTreeMap<String, Recorded>,
}

impl Snapshot {
    pub fn new(captured_at: DateTime<Utc>) -> Self {
        Snapshot {
            format: FORMAT.to_string(),
            captured_at,
            repos: Vec::new(),
            command: None,
            read_api: None,
            responses: BTreeMap::new(),
        }
    }

    pub fn insert(&mut self, key: &str, recorded: Recorded) {
        self.responses.insert(format!("GET {key}"), recorded);
    }

    pub fn get(&self, key: &str) -> Option<&Recorded> {
        self.responses.get(&format!("GET {key}"))
    }

    /// Keeps the answer to a read sent by POST (a GraphQL query), keyed by its path and what
    /// was asked.
    pub fn insert_posted(&mut self, key: &str, recorded: Recorded) {
        self.responses.insert(format!("POST {key}"), recorded);
    }

    pub fn get_posted(&self, key: &str) -> Option<&Recorded> {
        self.responses.get(&format!("POST {key}"))
    }

    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the snapshot {}", path.display()))?;
        let snapshot: Snapshot = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a gh-sweep snapshot", path.display()))?;
        if snapshot.format != FORMAT {
            bail!(
                "{} has format `{}`; this gh-sweep reads `{FORMAT}`",
                path.display(),
                snapshot.format
            );
        }
        Ok(snapshot)
    }

    /// Whether `command` (its words, `classify stale`) over `repos` can replay this snapshot:
    /// it must read what the capture read. Anything else would only find no answer for its
    /// first request and stop as an outage; it is a usage error naming both sides instead.
    pub fn check_replay(
        &self,
        path: &Path,
        command: &str,
        repos: &[crate::item::RepoRef],
    ) -> Result<(), String> {
        if let Some(captured) = &self.command {
            if !same_reads(captured, command) {
                return Err(format!(
                    "the snapshot {} was captured by `gh-sweep {captured}`, which reads other things than `gh-sweep {command}`: replay it with `gh-sweep {captured} --snapshot {}`, or capture one with `gh-sweep {command} --save-snapshot PATH`",
                    path.display(),
                    path.display()
                ));
            }
        }
        if self.repos.is_empty() {
            return Ok(());
        }
        let holds = |repo: &crate::item::RepoRef| {
            let name = repo.to_string();
            self.repos
                .iter()
                .any(|held| held.eq_ignore_ascii_case(&name))
        };
        if let Some(stranger) = repos.iter().find(|repo| !holds(repo)) {
            return Err(format!(
                "the snapshot {} holds what was read from {}, not from {stranger}: pass --repo {}, or leave --repo out",
                path.display(),
                self.repos.join(", "),
                self.repos.join(" --repo ")
            ));
        }
        Ok(())
    }

    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        crate::private_file::write_private(path, text.as_bytes())
            .with_context(|| format!("writing the snapshot {}", path.display()))
    }
}

/// Subcommands whose read phase asks GitHub the same things: a snapshot one captured, the
/// other replays (`stale-sweep` is `classify stale` plus writes).
const SAME_READS: &[&[&str]] = &[&["stale-sweep", "classify stale"]];

fn same_reads(captured: &str, replaying: &str) -> bool {
    captured == replaying
        || SAME_READS
            .iter()
            .any(|group| group.contains(&captured) && group.contains(&replaying))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_replays_only_what_reads_the_same_from_the_same_repositories() {
        let mut snapshot = Snapshot::new(crate::clock::wall());
        snapshot.repos = vec!["octo/demo".into()];
        let path = Path::new("snap.json");
        let demo: crate::item::RepoRef = "Octo/Demo".parse().unwrap();
        let other: crate::item::RepoRef = "octo/other".parse().unwrap();
        // An older snapshot names no command: only its repositories are checked.
        assert!(snapshot
            .check_replay(path, "poll", std::slice::from_ref(&demo))
            .is_ok());
        snapshot.command = Some("classify stale".into());
        assert!(snapshot
            .check_replay(path, "stale-sweep", std::slice::from_ref(&demo))
            .is_ok());
        assert!(snapshot.check_replay(path, "classify stale", &[]).is_ok());
        let error = snapshot.check_replay(path, "poll", &[demo]).unwrap_err();
        assert!(error.contains("`gh-sweep classify stale`") && error.contains("`gh-sweep poll`"));
        let error = snapshot
            .check_replay(path, "stale-sweep", &[other])
            .unwrap_err();
        assert!(error.contains("octo/other") && error.contains("--repo octo/demo"));
    }
}
