//! The HTTP cache in the store: GitHub's answers with their ETag and Last-Modified, so every
//! read of a later run is conditional and an unchanged page costs a 304, which GitHub does not
//! count against the rate limit. Bodies only: no request header, so no token, is ever kept;
//! each row holds a fingerprint of the token its validators were given to (GitHub's ETags are
//! per token), a hash that cannot give the token back.

use std::path::Path;
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};

use crate::http_cache::{Cached, ResponseCache};

pub struct SqliteCache {
    connection: Connection,
}

impl SqliteCache {
    /// Opens the cache in the store's file (already created and migrated by `SqliteStore::open`).
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let connection = Connection::open(path)?;
        connection.busy_timeout(Duration::from_secs(10))?;
        // Losing the last few cache rows on a power cut costs requests, not correctness.
        connection.execute_batch("PRAGMA synchronous = NORMAL")?;
        Ok(SqliteCache { connection })
    }
}

impl ResponseCache for SqliteCache {
    fn lookup(&self, url: &str) -> Option<Cached> {
        self.connection
            .query_row(
                "SELECT etag, last_modified, body, next, token FROM http_cache WHERE url = ?1",
                [url],
                |row| {
                    Ok(Cached {
                        etag: row.get(0)?,
                        last_modified: row.get(1)?,
                        body: row.get(2)?,
                        next: row.get(3)?,
                        token: row.get(4)?,
                    })
                },
            )
            .optional()
            .ok()
            .flatten()
    }

    fn keep(&self, url: &str, cached: &Cached) {
        let _ = self.connection.execute(
            "INSERT OR REPLACE INTO http_cache (url, etag, last_modified, body, next, stored_at, token)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                url,
                cached.etag,
                cached.last_modified,
                cached.body,
                cached.next,
                crate::clock::wall().to_rfc3339(),
                cached.token
            ],
        );
    }
}
