//! Offline snapshots: the raw answers a run read, keyed by request path, with the time they
//! were captured. Replaying one reruns the same read phase with the same clock. Only bodies are
//! kept, never request headers, so no token can end up in a snapshot.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

pub(crate) const FORMAT: &str = "gh-sweep-snapshot/1";

/// Why a snapshot cannot serve a command: it was captured by a command that reads other
/// things, or from other repositories. Each names the snapshot and both sides.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CannotReplay {
    #[error("the snapshot {path} was captured by `gh-sweep {captured}`, which reads other things than `gh-sweep {command}`: replay it with `gh-sweep {captured} --snapshot {path}`, or capture one with `gh-sweep {command} --save-snapshot PATH`")]
    OtherCommand {
        path: String,
        captured: String,
        command: String,
    },
    #[error("the snapshot {path} holds what was read from {}, not from {stranger}: pass --repo {}, or leave --repo out", held.join(", "), held.join(" --repo "))]
    OtherRepos {
        path: String,
        held: Vec<String>,
        stranger: String,
    },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Recorded {
    pub status: u16,
    /// The answer's JSON as text, as GitHub sent it: a recording or a replay of a big pool
    /// holds each answer once at its own size, not as a parsed tree several times larger
    /// (so a replay's memory stays near the file's size); a replay parses each answer when it
    /// is read.
    pub body: Box<RawValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

impl Recorded {
    /// An answer from its text; text that is not JSON is kept as `null`.
    pub fn new(status: u16, text: &str, next: Option<String>) -> Self {
        let body = RawValue::from_string(text.to_string()).unwrap_or_else(|_| null());
        Recorded { status, body, next }
    }

    /// An answer already parsed.
    pub fn of(status: u16, body: &Value, next: Option<String>) -> Self {
        let body = serde_json::value::to_raw_value(body).unwrap_or_else(|_| null());
        Recorded { status, body, next }
    }

    /// The answer's JSON (`null` for a body that does not parse, which cannot be written).
    pub fn body(&self) -> Value {
        serde_json::from_str(self.body.get()).unwrap_or(Value::Null)
    }
}

impl PartialEq for Recorded {
    fn eq(&self, other: &Self) -> bool {
        self.status == other.status && self.next == other.next && self.body() == other.body()
    }
}

fn null() -> Box<RawValue> {
    RawValue::from_string("null".to_string()).unwrap_or_default()
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
    ) -> Result<(), CannotReplay> {
        if let Some(captured) = &self.command {
            if !same_reads(captured, command) {
                return Err(CannotReplay::OtherCommand {
                    path: path.display().to_string(),
                    captured: captured.clone(),
                    command: command.to_string(),
                });
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
            return Err(CannotReplay::OtherRepos {
                path: path.display().to_string(),
                held: self.repos.clone(),
                stranger: stranger.to_string(),
            });
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
    fn an_answer_is_kept_as_the_text_github_sent_and_reads_back_the_same() {
        let text = r#"[{"number":1,"title":"Issue 1"}]"#;
        let recorded = Recorded::new(200, text, Some("/next".into()));
        assert_eq!(recorded.body.get(), text);
        assert_eq!(
            recorded.body(),
            serde_json::json!([{"number": 1, "title": "Issue 1"}])
        );
        assert_eq!(Recorded::new(200, "not json", None).body(), Value::Null);
        let mut snapshot = Snapshot::new(crate::clock::wall());
        snapshot.insert("/repos/o/r/issues", recorded.clone());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("snap.json");
        snapshot.save(&path).unwrap();
        assert!(std::fs::read_to_string(&path).unwrap().contains(text));
        let loaded = Snapshot::load(&path).unwrap();
        assert_eq!(loaded.get("/repos/o/r/issues"), Some(&recorded));
        // A snapshot saved pretty-printed, as earlier versions did, still reads.
        let pretty = serde_json::json!({
            "format": FORMAT,
            "captured_at": "2026-11-01T00:00:00Z",
            "responses": {"GET /x": {"status": 200, "body": {"a": [1, 2]}}}
        });
        std::fs::write(&path, serde_json::to_string_pretty(&pretty).unwrap()).unwrap();
        let loaded = Snapshot::load(&path).unwrap();
        assert_eq!(
            loaded.get("/x").unwrap().body(),
            serde_json::json!({"a": [1, 2]})
        );
    }

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
        let error = snapshot
            .check_replay(path, "poll", &[demo])
            .unwrap_err()
            .to_string();
        assert!(error.contains("`gh-sweep classify stale`") && error.contains("`gh-sweep poll`"));
        let error = snapshot
            .check_replay(path, "stale-sweep", &[other])
            .unwrap_err()
            .to_string();
        assert!(error.contains("octo/other") && error.contains("--repo octo/demo"));
    }
}
