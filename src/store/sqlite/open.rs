//! Opening the file: made private, WAL, a busy timeout, migrated; read-only when it cannot be
//! written; in memory for a snapshot replay.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use rusqlite::Connection;

use super::runs::spawn_heartbeat;
use super::{host, migrations, Liveness, SqliteStore, PREPARED_KEPT};
use crate::exit::Fatal;
use crate::private_file::create_private;
use crate::store::error::Doing;
use crate::store::identity::Identity;

/// Retries an operation SQLite refused as busy or locked, for up to ten seconds.
fn busy_retry<T>(mut operation: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        match operation() {
            Err(rusqlite::Error::SqliteFailure(error, message))
                if matches!(
                    error.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && std::time::Instant::now() < deadline =>
            {
                let _ = message;
                std::thread::sleep(Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

impl SqliteStore {
    /// A store that lives as long as the process: for replaying a snapshot, which must leave
    /// nothing in the maintainer's own state (no run in `recap --list`, no journal).
    pub fn in_memory() -> anyhow::Result<Self> {
        let connection = Connection::open_in_memory().doing("opening an in-memory store")?;
        connection.set_prepared_statement_cache_capacity(PREPARED_KEPT);
        connection
            .execute_batch("PRAGMA foreign_keys = ON")
            .doing("opening an in-memory store")?;
        let mut store = SqliteStore::unbeating(connection, PathBuf::from(":memory:"));
        store.migrate()?;
        Ok(store)
    }

    /// A store on `connection` whose runs no thread beats for: one in memory (no other process
    /// sees it) or one opened only to be read (it starts no run).
    fn unbeating(connection: Connection, path: PathBuf) -> Self {
        SqliteStore {
            connection,
            path,
            warnings: Vec::new(),
            me: Identity::this_process(),
            host: host(),
            liveness: Liveness::default(),
            beating: Arc::default(),
            _stop: None,
            took_over: RefCell::default(),
            caches: RefCell::default(),
        }
    }

    pub fn open(path: &Path) -> anyhow::Result<Self> {
        Self::open_as(path, &host(), Liveness::default())
    }

    /// Opens the file for runs of the host named `host`, whose heartbeats follow `liveness`.
    pub fn open_as(path: &Path, host: &str, liveness: Liveness) -> anyhow::Result<Self> {
        let warnings = make_file(path)?;
        let unusable = |error: rusqlite::Error| {
            Fatal::Usage(format!(
                "cannot use the database {}: {error}; pass --db PATH to use another file",
                path.display()
            ))
        };
        let connection = Connection::open(path).map_err(unusable)?;
        connection.set_prepared_statement_cache_capacity(PREPARED_KEPT);
        connection
            .busy_timeout(Duration::from_secs(10))
            .map_err(unusable)?;
        // Switching a new file to WAL needs it to itself for a moment, and SQLite answers
        // "busy" at once instead of calling the busy handler: an overlapping run waits here.
        busy_retry(|| connection.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(())))
            .map_err(unusable)?;
        connection
            .execute_batch("PRAGMA foreign_keys = ON")
            .map_err(unusable)?;
        let beating: Arc<Mutex<Vec<i64>>> = Arc::default();
        let (stop, stopped) = mpsc::channel();
        spawn_heartbeat(path.to_path_buf(), liveness, beating.clone(), stopped);
        let mut store = SqliteStore {
            connection,
            path: path.to_path_buf(),
            warnings,
            me: Identity::this_process(),
            host: host.to_string(),
            liveness,
            beating,
            _stop: Some(stop),
            took_over: RefCell::default(),
            caches: RefCell::default(),
        };
        store
            .migrate()
            .map_err(|error| match error.downcast::<Fatal>() {
                Ok(fatal) => anyhow::Error::new(fatal),
                Err(error) => match error.downcast::<rusqlite::Error>() {
                    Ok(sqlite) => anyhow::Error::new(unusable(sqlite)),
                    Err(other) => other,
                },
            })?;
        store.check_tables()?;
        Ok(store)
    }
}

impl SqliteStore {
    /// Whether this process can write the store at `path`: the file and its folder (where
    /// SQLite puts the `-wal` and `-shm` files). A read-only mount says no even to root
    /// (`EROFS`), a read-only file to anyone but root.
    #[cfg(unix)]
    pub fn writable(path: &Path) -> bool {
        use std::os::unix::ffi::OsStrExt;
        let can_write = |path: &Path| {
            std::ffi::CString::new(path.as_os_str().as_bytes())
                .map(|name| unsafe { libc::access(name.as_ptr(), libc::W_OK) } == 0)
                .unwrap_or(false)
        };
        let folder = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        can_write(path) && can_write(folder)
    }

    #[cfg(not(unix))]
    pub fn writable(path: &Path) -> bool {
        std::fs::metadata(path).is_ok_and(|metadata| !metadata.permissions().readonly())
    }

    /// The store opened only to be read (`recap` on a read-only mount or file): nothing is
    /// migrated or created. A WAL database whose `-shm` file is not there and cannot be made
    /// is opened as immutable, which SQLite allows for a file nobody changes meanwhile; a
    /// store of an older schema cannot be read this way and says so.
    pub fn open_read_only(path: &Path) -> anyhow::Result<Self> {
        use rusqlite::OpenFlags;
        let unusable = |error: rusqlite::Error| {
            Fatal::Usage(format!(
                "cannot read the database {} (it is read-only here, so it was opened read-only): {error}",
                path.display()
            ))
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI;
        let plain = Connection::open_with_flags(path, flags).and_then(|connection| {
            connection.query_row("PRAGMA user_version", [], |row| row.get::<_, i64>(0))?;
            Ok(connection)
        });
        let connection = match plain {
            Ok(connection) => connection,
            Err(_) => {
                let uri = format!(
                    "file:{}?immutable=1",
                    percent_path(&path.display().to_string())
                );
                Connection::open_with_flags(uri, flags).map_err(unusable)?
            }
        };
        connection.set_prepared_statement_cache_capacity(PREPARED_KEPT);
        let version: i64 = connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(unusable)?;
        if version != migrations::SCHEMA_VERSION {
            return Err(Fatal::Usage(format!(
                "the database {} has schema version {version} and this gh-sweep reads version {}; it is read-only here, so it cannot be migrated: open it once where it can be written",
                path.display(),
                migrations::SCHEMA_VERSION
            ))
            .into());
        }
        // Read only: it starts no run, so nothing of it beats.
        let store = SqliteStore::unbeating(connection, path.to_path_buf());
        store.check_tables()?;
        Ok(store)
    }
}

/// A path as a `file:` URI's path: the characters a URI gives a meaning escaped.
fn percent_path(path: &str) -> String {
    let mut text = String::new();
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"/-_.~".contains(&byte) {
            text.push(byte as char);
        } else {
            text.push_str(&format!("%{byte:02X}"));
        }
    }
    text
}

/// Makes the file (private) and its folder when they are not there yet; returns what the
/// maintainer should know of one that is (others can read it).
fn make_file(path: &Path) -> anyhow::Result<Vec<String>> {
    if let Some(parent) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    {
        std::fs::create_dir_all(parent).map_err(|error| {
            Fatal::Usage(format!(
                "cannot create the database folder {}: {error}",
                parent.display()
            ))
        })?;
    }
    #[cfg(unix)]
    refuse_foreign_dangling_link(path)?;
    let mut warnings = Vec::new();
    #[cfg(unix)]
    if let Ok(metadata) = std::fs::metadata(path) {
        use std::os::unix::fs::PermissionsExt;
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            warnings.push(format!(
                "the database {} can be read by other users (mode {mode:o}); run `chmod 600 {}`",
                path.display(),
                path.display()
            ));
        }
    }
    // A link to a file not made yet: the file is made where it points, as any path's.
    let made = std::fs::read_link(path)
        .ok()
        .filter(|_| !path.exists())
        .map(|target| match path.parent() {
            Some(parent) if target.is_relative() => parent.join(target),
            _ => target,
        })
        .unwrap_or_else(|| path.to_path_buf());
    if !path.exists() {
        create_private(&made).map_err(|error| {
            Fatal::Usage(format!(
                "cannot create the database {}: {error}; pass --db PATH to put it elsewhere",
                path.display()
            ))
        })?;
    }
    Ok(warnings)
}

/// A store path that is a symlink to nothing is made only where the link and the folder it
/// points into are this user's: another user's link (planted in a shared folder, say) would
/// have the store made where they can read it.
#[cfg(unix)]
fn refuse_foreign_dangling_link(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let Ok(link) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    if !link.file_type().is_symlink() || path.exists() {
        return Ok(());
    }
    let target = std::fs::read_link(path).unwrap_or_default();
    let target = match path.parent() {
        Some(parent) if target.is_relative() => parent.join(&target),
        _ => target,
    };
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let folder_is_mine = target
        .parent()
        .and_then(|folder| std::fs::metadata(folder).ok())
        .is_some_and(|folder| folder.uid() == me);
    if link.uid() == me && folder_is_mine {
        return Ok(());
    }
    Err(Fatal::Usage(format!(
        "refusing the database {}: it is a link to {}, which does not exist, and the link or the folder it points into belongs to another user; remove the link, or pass --db PATH to use another file",
        path.display(),
        target.display()
    ))
    .into())
}
