//! The HTTP cache in PostgreSQL, shared by every host on the database: GitHub's answers with
//! their validators, each with the fingerprint of the token they were given to (never the
//! token). Best effort on a connection of its own: a failure only costs requests.

use std::sync::Mutex;

use postgres::Client;

use super::connect::connect;
use super::Target;
use crate::http_cache::{worth_keeping, Cached, ResponseCache};

pub(super) struct PostgresCache {
    client: Mutex<Client>,
}

impl PostgresCache {
    pub(super) fn open(target: &Target) -> anyhow::Result<Self> {
        Ok(PostgresCache {
            client: Mutex::new(connect(target)?),
        })
    }
}

impl ResponseCache for PostgresCache {
    fn lookup(&self, url: &str) -> Option<Cached> {
        // A list of changes since an instant is never asked for again: not kept, not looked up.
        if !worth_keeping(url) {
            return None;
        }
        let mut client = self.client.lock().ok()?;
        let row = client
            .query_opt(
                "SELECT etag, last_modified, body, next, token FROM http_cache WHERE url = $1",
                &[&url],
            )
            .ok()??;
        Some(Cached {
            etag: row.get(0),
            last_modified: row.get(1),
            body: row.get(2),
            next: row.get(3),
            token: row.get(4),
        })
    }

    fn keep(&self, url: &str, cached: &Cached) {
        if !worth_keeping(url) {
            return;
        }
        let Ok(mut client) = self.client.lock() else {
            return;
        };
        let _ = client.execute(
            "INSERT INTO http_cache (url, etag, last_modified, body, next, stored_at, token)
             VALUES ($1, $2, $3, $4, $5, now(), $6)
             ON CONFLICT (url) DO UPDATE SET etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified,
                 body = EXCLUDED.body, next = EXCLUDED.next, stored_at = EXCLUDED.stored_at,
                 token = EXCLUDED.token",
            &[&url, &cached.etag, &cached.last_modified, &cached.body, &cached.next, &cached.token],
        );
    }
}
