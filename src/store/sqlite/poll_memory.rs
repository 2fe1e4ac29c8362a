//! What `poll` remembers of each repository's last tick, one JSON document per repository.

use rusqlite::{params, OptionalExtension};

use super::{Prepared, SqliteStore};
use crate::item::RepoRef;
use crate::store::error::Doing;
use crate::store::PollMemory;

impl PollMemory for SqliteStore {
    fn poll_memory(&self, repo: &RepoRef) -> crate::store::Result<Option<String>> {
        self.connection
            .query_row_cached(
                "SELECT memory FROM poll_memory WHERE repo = ?1",
                params![repo.to_string()],
                |row| row.get(0),
            )
            .optional()
            .doing("reading poll's memory of the repository's last tick")
    }

    fn record_poll_memory(&self, repo: &RepoRef, memory: &str) -> crate::store::Result<()> {
        self.connection
            .execute_cached(
                "INSERT OR REPLACE INTO poll_memory (repo, memory, stored_at)
             VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                params![repo.to_string(), memory],
            )
            .doing("keeping poll's memory of the repository's tick")?;
        Ok(())
    }
}
