//! Where the store lives and who its runs are recorded as, as plain data: a SQLite file, memory,
//! or a PostgreSQL [`Target`] (its connection string read and shown without its password), and
//! the heartbeats' [`Liveness`]. Needs no database driver, so a build without the `postgres`
//! feature still knows a PostgreSQL `--db` when it sees one, to refuse it by name rather than
//! take it for a file's path.

use std::path::PathBuf;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};

/// Where the store lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file (created 0600, migrated on open).
    File(PathBuf),
    /// Nothing kept past the process: replaying a snapshot leaves the maintainer's state alone.
    Memory,
    /// A PostgreSQL database that several hosts share (`--db postgres://...`).
    Postgres(Box<Target>),
}

/// Who this host's runs are recorded as on a SQLite file (a PostgreSQL target carries its
/// own): the name this host goes by and the heartbeats' settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Runs {
    pub host: String,
    pub liveness: Liveness,
}

impl Default for Runs {
    fn default() -> Self {
        Runs {
            host: super::sqlite::host_name(),
            liveness: Liveness::default(),
        }
    }
}

/// Whether `text` is a PostgreSQL connection URI (`postgres://` or `postgresql://`).
pub fn is_url(text: &str) -> bool {
    text.starts_with("postgres://") || text.starts_with("postgresql://")
}

/// Whether `text` names a PostgreSQL database rather than a SQLite file: one of libpq's two
/// forms of connection string ("Connection Strings" in the libpq docs), a URI or a
/// `keyword = value` string. Any `=` means the second: a SQLite path with one would be
/// ambiguous, and taken as a path such a string would make a file named after its password.
pub fn is_postgres(text: &str) -> bool {
    is_url(text) || text.contains('=')
}

/// Why a string is no libpq connection string; it never quotes the string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotConninfo {
    /// Neither form.
    #[error("it is neither a URL (postgres://USER@HOST/DATABASE) nor a libpq `keyword = value` string (host=HOST user=USER dbname=DATABASE)")]
    Form,
    /// A `keyword = 'value'` whose quote is not closed.
    #[error("{}: a quoted value is not closed", NotConninfo::Form)]
    Unclosed,
}

/// A libpq `keyword = value` string, pair by pair: spaces around `=` are optional, a value
/// with spaces (or an empty one) is in single quotes, and `\'` and `\\` escape within it.
/// The error names the form and never quotes the string (it may hold a password).
pub fn conninfo_pairs(text: &str) -> Result<Vec<(String, String)>, NotConninfo> {
    let mut pairs = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.peek().is_none() {
            break;
        }
        let mut key = String::new();
        while let Some(&c) = chars.peek() {
            if c == '=' || c.is_whitespace() {
                break;
            }
            key.push(c);
            chars.next();
        }
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if key.is_empty() || chars.next() != Some('=') {
            return Err(NotConninfo::Form);
        }
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let mut value = String::new();
        if chars.peek() == Some(&'\'') {
            chars.next();
            loop {
                match chars.next() {
                    None => return Err(NotConninfo::Unclosed),
                    Some('\'') => break,
                    Some('\\') => match chars.next() {
                        Some(escaped) => value.push(escaped),
                        None => return Err(NotConninfo::Unclosed),
                    },
                    Some(c) => value.push(c),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                chars.next();
                if c == '\\' {
                    if let Some(escaped) = chars.next() {
                        value.push(escaped);
                    }
                } else {
                    value.push(c);
                }
            }
        }
        pairs.push((key, value));
    }
    if pairs.is_empty() {
        return Err(NotConninfo::Form);
    }
    Ok(pairs)
}

/// Pairs written back as a `keyword = value` string, each value quoted.
pub(crate) fn conninfo_text(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(key, value)| {
            let escaped = value.replace('\\', "\\\\").replace('\'', "\\'");
            format!("{key}='{escaped}'")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// How often a run renews its heartbeat, how old one may grow before its run counts as dead,
/// and the HTTP write timeout a taking-over host waits on top.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Liveness {
    pub renew_every: Duration,
    pub bound: Duration,
    pub write_timeout: Duration,
}

impl Default for Liveness {
    fn default() -> Self {
        Liveness {
            renew_every: Duration::from_secs(5),
            bound: Duration::from_secs(60),
            write_timeout: Duration::from_secs(30),
        }
    }
}

impl Liveness {
    /// How long a run may go without a renewed heartbeat before it stops starting writes:
    /// well inside the bound, so a run that is cut off stops before others think it dead.
    pub fn local_deadline(&self) -> Duration {
        self.bound / 2
    }

    /// How old another run's heartbeat must be before its unknown writes are settled: the
    /// bound, plus the time a write it had started could still take to land.
    pub fn takeover_after(&self) -> Duration {
        self.bound + self.write_timeout
    }
}

/// A PostgreSQL database to open, with what the environment said about it (resolved once at
/// the top; nothing here reads the environment).
#[derive(Clone)]
pub struct Target {
    /// The connection string as given, password and all: only the backend reads it.
    pub(crate) url: SecretString,
    /// The URL without its password: what output may show.
    pub shown: String,
    pub password_env: Option<SecretString>,
    /// `PGPASSFILE`, else `~/.pgpass`.
    pub passfile: Option<PathBuf>,
    /// `PGSSLROOTCERT`.
    pub root_cert_env: Option<PathBuf>,
    /// `~/.postgresql/root.crt`, libpq's root certificate file when nothing names one (used
    /// only if it exists).
    pub root_cert_home: Option<PathBuf>,
    /// Who this host is, for `store status` and the dead-run checks.
    pub host: String,
    pub liveness: Liveness,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.shown)
    }
}

impl PartialEq for Target {
    fn eq(&self, other: &Self) -> bool {
        self.url.expose_secret() == other.url.expose_secret() && self.host == other.host
    }
}

impl Eq for Target {}

impl Target {
    pub fn new(url: &str, host: String) -> Self {
        Target {
            url: SecretString::from(url.to_string()),
            shown: if is_url(url) {
                without_password(url)
            } else {
                conninfo_pairs(url).map_or_else(
                    |_| "a libpq connection string".to_string(),
                    |pairs| {
                        let kept: Vec<(String, String)> = pairs
                            .into_iter()
                            .filter(|(key, _)| key != "password")
                            .collect();
                        conninfo_text(&kept)
                    },
                )
            },
            password_env: None,
            passfile: None,
            root_cert_env: None,
            root_cert_home: None,
            host,
            liveness: Liveness::default(),
        }
    }
}

/// A `--db` value as output may show it: a URL without its password, a `keyword = value`
/// string without its `password`, anything else as it is.
pub fn shown(text: &str) -> String {
    if is_url(text) || !text.contains('=') {
        return without_password(text);
    }
    Target::new(text, String::new()).shown
}

/// `url` without the password in its user part or its query.
pub fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((user_info, hosts)) => {
            let user = user_info.split(':').next().unwrap_or_default();
            format!("{user}@{hosts}")
        }
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let kept: Vec<&str> = query
                .split('&')
                .filter(|pair| !pair.starts_with("password="))
                .collect();
            if kept.is_empty() {
                path.to_string()
            } else {
                format!("{path}?{}", kept.join("&"))
            }
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(url: &str) -> Target {
        Target::new(url, "h".into())
    }

    #[test]
    fn the_password_is_taken_out_of_what_is_shown() {
        for (url, shown) in [
            (
                "postgres://u:s3cret@db.example:5433/q?sslmode=require",
                "postgres://u@db.example:5433/q?sslmode=require",
            ),
            ("postgresql://u@db/q", "postgresql://u@db/q"),
            (
                "postgres://db/q?password=s3cret&sslmode=verify-full",
                "postgres://db/q?sslmode=verify-full",
            ),
            ("postgres://u:p%40ss@db", "postgres://u@db"),
        ] {
            assert_eq!(without_password(url), shown);
            assert!(!format!("{:?}", target(url)).contains("s3cret"));
        }
    }

    /// Without the `postgres` feature, opening a PostgreSQL store is a usage error (exit 2)
    /// that names the feature and the database without its password.
    #[cfg(not(feature = "postgres"))]
    #[test]
    fn without_the_feature_opening_a_postgres_store_is_refused_naming_the_feature() {
        let location = Location::Postgres(Box::new(target("postgres://u:s3cret@db/q")));
        let error = crate::store::open(&location).err().unwrap();
        assert_eq!(crate::exit::of_error(&error), crate::exit::USAGE);
        let message = error.to_string();
        assert!(
            message.starts_with("cannot open postgres://u@db/q: this gh-sweep was built without PostgreSQL support (cargo feature `postgres`)"),
            "{message}"
        );
        assert!(!message.contains("s3cret"), "{message}");
    }
}
