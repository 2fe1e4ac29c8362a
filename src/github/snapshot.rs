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
    /// Keyed by `GET /path?query`.
    pub responses: BTreeMap<String, Recorded>,
}

impl Snapshot {
    pub fn new(captured_at: DateTime<Utc>) -> Self {
        Snapshot {
            format: FORMAT.to_string(),
            captured_at,
            repos: Vec::new(),
            responses: BTreeMap::new(),
        }
    }

    pub fn insert(&mut self, key: &str, recorded: Recorded) {
        self.responses.insert(format!("GET {key}"), recorded);
    }

    pub fn get(&self, key: &str) -> Option<&Recorded> {
        self.responses.get(&format!("GET {key}"))
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

    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        crate::store::write_private(path, text.as_bytes())
            .with_context(|| format!("writing the snapshot {}", path.display()))
    }
}
