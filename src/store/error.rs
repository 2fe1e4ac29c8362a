//! How a store method fails, as one type for both backends: the database's own error kept as
//! the cause (so `Caused by:` lines and the recap's words stay the database's), what the store
//! was doing around it, and the store's own refusals. No variant holds a connection string:
//! the backends name a database by its shown form only (without its password).

use std::borrow::Cow;

/// A failed store method.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed or refused (a full disk, a lock held past the busy timeout, a damaged
    /// file). Shown as SQLite words it.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),

    /// PostgreSQL failed or refused (a dropped connection, a refused statement). Shown as the
    /// driver words it.
    #[cfg(feature = "postgres")]
    #[error(transparent)]
    Postgres(#[from] postgres::Error),

    /// The run no longer holds its heartbeat: it may start no more writes.
    #[error(transparent)]
    LostLease(#[from] super::LostLease),

    /// A value could not be turned into what is stored, or read back from it (a damaged
    /// recap).
    #[error(transparent)]
    Json(#[from] serde_json::Error),

    /// A stored row holds what this version of gh-sweep does not know (a queue status).
    #[error("{0}")]
    Damaged(String),

    /// The store's files or folders (the HTTP cache's second connection, a file's mode).
    #[error(transparent)]
    Io(#[from] std::io::Error),

    /// A connection of its own (the HTTP cache's) could not be opened: what opening the
    /// store says, kept whole.
    #[error(transparent)]
    Open(anyhow::Error),

    /// What the store was doing when `source` happened: a fragment that reads well before
    /// the cause (`journaling a write before sending it`).
    #[error("{doing}")]
    While {
        doing: Cow<'static, str>,
        #[source]
        source: Box<StoreError>,
    },
}

impl StoreError {
    /// The error this one is about, below what the store was doing.
    pub fn root(&self) -> &StoreError {
        match self {
            StoreError::While { source, .. } => source.root(),
            other => other,
        }
    }

    /// Whether the backend failed (the database, or a heartbeat lost), rather than what was
    /// stored being unreadable.
    pub fn is_backend(&self) -> bool {
        match self.root() {
            StoreError::Sqlite(_) | StoreError::LostLease(_) => true,
            #[cfg(feature = "postgres")]
            StoreError::Postgres(_) => true,
            StoreError::Open(error) => error.chain().any(database_error),
            _ => false,
        }
    }

    /// The PostgreSQL error below, if that is what failed.
    #[cfg(feature = "postgres")]
    pub fn postgres(&self) -> Option<&postgres::Error> {
        match self.root() {
            StoreError::Postgres(error) => Some(error),
            _ => None,
        }
    }
}

/// Whether `cause` is one of the databases' own errors.
fn database_error(cause: &(dyn std::error::Error + 'static)) -> bool {
    #[cfg(feature = "postgres")]
    if cause.is::<postgres::Error>() {
        return true;
    }
    cause.is::<rusqlite::Error>()
}

/// A store method's result.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Names what the store was doing when an error happened, as `anyhow::Context` does.
pub(crate) trait Doing<T> {
    fn doing(self, what: &'static str) -> Result<T>;

    fn doing_with(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: Into<StoreError>> Doing<T> for std::result::Result<T, E> {
    fn doing(self, what: &'static str) -> Result<T> {
        self.map_err(|error| StoreError::While {
            doing: Cow::Borrowed(what),
            source: Box::new(error.into()),
        })
    }

    fn doing_with(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|error| StoreError::While {
            doing: Cow::Owned(what()),
            source: Box::new(error.into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL), None)
    }

    #[test]
    fn the_chain_reads_as_the_context_and_the_database_s_words() {
        let error: Result<()> = Err(full()).doing("journaling a write before sending it");
        let error = anyhow::Error::from(error.unwrap_err());
        let words: Vec<String> = error.chain().map(|cause| cause.to_string()).collect();
        assert_eq!(words[0], "journaling a write before sending it");
        assert_eq!(words[1], full().to_string());
        assert!(crate::store::is_failure(&error));
    }

    #[test]
    fn a_damaged_row_is_no_backend_failure() {
        let error: Result<()> =
            Err(StoreError::Damaged("a queue status `x`".into())).doing("reading the queue");
        let error = error.unwrap_err();
        assert!(!error.is_backend());
        assert!(!crate::store::is_failure(&anyhow::Error::from(error)));
        let lost = StoreError::from(crate::store::LostLease("run 3".into()));
        assert!(lost.is_backend());
    }
}
