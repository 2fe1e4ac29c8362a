//! The HTTP cache in the store: GitHub's answers with their ETag and Last-Modified, so every
//! read of a later run is conditional and an unchanged page costs a 304, which GitHub does not
//! count against the rate limit. Bodies only: no request header, so no token, is ever kept;
//! each row holds a fingerprint of the token its validators were given to (GitHub's ETags are
//! per token), a hash that cannot give the token back.
//!
//! Answers are written in batches (one transaction each was measured at 82,000 disk writes for
//! 6,600 requests): kept in memory, and read back from there, until [`BATCH_ROWS`] answers or
//! [`BATCH_BYTES`] of bodies wait, and written in one transaction then; also when the cache is
//! dropped (the end of the run), and when the store is about to journal a write or prune
//! ([`SqliteStore`](super::SqliteStore) flushes the caches it made first). A process killed
//! outright loses at most one batch of answers, which costs requests, never correctness.

use std::path::Path;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};

use super::Prepared;
use crate::http_cache::{worth_keeping, Cached, ResponseCache};

/// At most this many answers wait in memory before they are written.
pub const BATCH_ROWS: usize = 64;

/// At most this many bytes of bodies wait in memory before they are written (a page of 100
/// issues is some 300 KB), so the batch stays small beside the run's own memory.
pub const BATCH_BYTES: usize = 1 << 20;

/// The cache's connection and the answers waiting to be written through it.
pub(crate) struct CacheWriter {
    connection: Connection,
    /// Newest last; a URL kept twice waits once, with its newest answer.
    pending: Vec<(String, Cached, String)>,
    bytes: usize,
}

impl CacheWriter {
    /// Writes every waiting answer in one transaction. Best effort: a batch that cannot be
    /// written (the disk full, the lock held past the busy timeout) is dropped, which costs
    /// the next run full reads.
    pub(crate) fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        self.bytes = 0;
        let Ok(transaction) = self
            .connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        else {
            return;
        };
        let written = pending.iter().try_for_each(|(url, cached, stored_at)| {
            transaction
                .execute_cached(
                    "INSERT OR REPLACE INTO http_cache (url, etag, last_modified, body, next, stored_at, token)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![
                        url,
                        cached.etag,
                        cached.last_modified,
                        cached.body,
                        cached.next,
                        stored_at,
                        cached.token
                    ],
                )
                .map(drop)
        });
        if written.is_ok() {
            let _ = transaction.commit();
        }
    }
}

impl Drop for CacheWriter {
    fn drop(&mut self) {
        self.flush();
    }
}

pub struct SqliteCache {
    writer: Arc<Mutex<CacheWriter>>,
}

impl SqliteCache {
    /// Opens the cache in the store's file (already created and migrated by `SqliteStore::open`).
    pub fn open(path: &Path) -> crate::store::Result<Self> {
        let connection = Connection::open(path)?;
        connection.busy_timeout(Duration::from_secs(10))?;
        connection.set_prepared_statement_cache_capacity(super::PREPARED_KEPT);
        // Losing the last few cache rows on a power cut costs requests, not correctness.
        connection.execute_batch("PRAGMA synchronous = NORMAL")?;
        Ok(SqliteCache {
            writer: Arc::new(Mutex::new(CacheWriter {
                connection,
                pending: Vec::new(),
                bytes: 0,
            })),
        })
    }

    /// A handle the store keeps to flush this cache's waiting answers before it writes; it
    /// does not keep the cache alive.
    pub(crate) fn handle(&self) -> Weak<Mutex<CacheWriter>> {
        Arc::downgrade(&self.writer)
    }
}

impl ResponseCache for SqliteCache {
    fn lookup(&self, url: &str) -> Option<Cached> {
        if !worth_keeping(url) {
            return None;
        }
        let writer = self.writer.lock().ok()?;
        if let Some((_, cached, _)) = writer.pending.iter().rev().find(|(kept, ..)| kept == url) {
            return Some(cached.clone());
        }
        writer
            .connection
            .query_row_cached(
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
        if !worth_keeping(url) {
            return;
        }
        let Ok(mut writer) = self.writer.lock() else {
            return;
        };
        if let Some(at) = writer.pending.iter().position(|(kept, ..)| kept == url) {
            let (_, old, _) = writer.pending.remove(at);
            writer.bytes -= old.body.len();
        }
        writer.bytes += cached.body.len();
        let stored_at = crate::clock::wall().to_rfc3339();
        writer
            .pending
            .push((url.to_string(), cached.clone(), stored_at));
        if writer.pending.len() >= BATCH_ROWS || writer.bytes >= BATCH_BYTES {
            writer.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sqlite::SqliteStore;
    use crate::store::{RunLog, Store, WriteJournal};

    fn answer(n: usize) -> Cached {
        Cached {
            etag: Some(format!("W/\"{n}\"")),
            last_modified: None,
            body: format!("[{{\"number\": {n}}}]"),
            next: None,
            token: Some("fingerprint".into()),
        }
    }

    fn url(n: usize) -> String {
        format!("https://api.github.com/repos/o/r/issues/{n}/events?per_page=100")
    }

    /// The WAL file's frames from `from` on: (frames, commits). Each frame is one page written
    /// to disk; a commit frame (its header's second word, the database's size after the
    /// commit, is not 0) ends a transaction.
    fn wal_frames(wal: &Path, from: usize) -> (usize, usize) {
        let bytes = std::fs::read(wal).unwrap_or_default();
        if bytes.len() < 32 {
            return (0, 0);
        }
        let page = u32::from_be_bytes(bytes[8..12].try_into().unwrap()) as usize;
        let frames: Vec<&[u8]> = bytes[32..].chunks_exact(24 + page).collect();
        let commits = frames[from.min(frames.len())..]
            .iter()
            .filter(|frame| frame[4..8] != [0, 0, 0, 0])
            .count();
        (frames.len().saturating_sub(from), commits)
    }

    #[test]
    fn answers_are_written_in_batches_and_none_is_lost_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        // The store's connection stays open, so closing the cache's does not checkpoint the
        // WAL away before its frames are counted.
        let store = SqliteStore::open(&path).unwrap();
        let wal = dir.path().join("state.db-wal");
        let (before, _) = wal_frames(&wal, 0);
        let answers = 200;
        {
            let cache = store.response_cache().unwrap();
            for n in 0..answers {
                cache.keep(&url(n), &answer(n));
                // Read back at once, from memory while it waits.
                assert_eq!(cache.lookup(&url(n)), Some(answer(n)));
            }
        }
        let (frames, commits) = wal_frames(&wal, before);
        // One transaction per 64 answers, not one per answer.
        assert_eq!(commits, answers.div_ceil(BATCH_ROWS), "{frames} frames");
        assert!(frames < answers / 2, "{frames} pages written");
        let reopened = SqliteCache::open(&path).unwrap();
        for n in 0..answers {
            assert_eq!(reopened.lookup(&url(n)), Some(answer(n)), "answer {n}");
        }
        drop(store);
    }

    #[test]
    fn waiting_answers_are_written_before_a_write_is_journaled() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let store = SqliteStore::open(&path).unwrap();
        let cache = store.response_cache().unwrap();
        cache.keep(&url(1), &answer(1));
        let rows = || -> i64 {
            Connection::open(&path)
                .unwrap()
                .query_row("SELECT count(*) FROM http_cache", [], |row| row.get(0))
                .unwrap()
        };
        assert_eq!(rows(), 0, "it waits in memory");
        let run = store
            .start_run("stale-sweep", "gh-sweep stale-sweep")
            .unwrap();
        let item = "o/r#1".parse().unwrap();
        store
            .journal_intent(
                run,
                &item,
                &crate::policy::write::JournalWrite::Close { reason: None },
            )
            .unwrap();
        assert_eq!(rows(), 1, "written before the intent");
    }

    #[test]
    fn a_list_of_changes_is_never_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(SqliteStore::open(&path).unwrap());
        let changes =
            "https://api.github.com/repos/o/r/issues?state=all&since=2026-12-01T10:00:00Z&per_page=100";
        {
            let cache = SqliteCache::open(&path).unwrap();
            cache.keep(changes, &answer(1));
            cache.keep(&url(2), &answer(2));
            assert_eq!(cache.lookup(changes), None);
        }
        let urls: Vec<String> = {
            let connection = Connection::open(&path).unwrap();
            let mut statement = connection.prepare("SELECT url FROM http_cache").unwrap();
            let rows = statement.query_map([], |row| row.get(0)).unwrap();
            rows.map(Result::unwrap).collect()
        };
        assert_eq!(urls, vec![url(2)]);
    }
}
