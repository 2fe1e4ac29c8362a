//! What `poll` remembers of each repository's last tick, one JSON document per repository.

use super::PostgresStore;
use crate::item::RepoRef;
use crate::store::error::Doing;
use crate::store::PollMemory;

impl PollMemory for PostgresStore {
    fn poll_memory(&self, repo: &RepoRef) -> crate::store::Result<Option<String>> {
        let row = self
            .client()
            .query_opt(
                "SELECT memory FROM poll_memory WHERE repo = $1",
                &[&repo.to_string()],
            )
            .doing("reading poll's memory of the repository's last tick")?;
        row.map(|row| row.try_get(0))
            .transpose()
            .doing("reading poll's memory of the repository's last tick")
    }

    fn record_poll_memory(&self, repo: &RepoRef, memory: &str) -> crate::store::Result<()> {
        self.client()
            .execute(
                "INSERT INTO poll_memory (repo, memory, stored_at) VALUES ($1, $2, now())
             ON CONFLICT (repo) DO UPDATE SET memory = EXCLUDED.memory, stored_at = now()",
                &[&repo.to_string(), &memory],
            )
            .doing("keeping poll's memory of the repository's tick")?;
        Ok(())
    }
}
