//! Which store a run uses: `--db` (or `GH_SWEEP_DB`), else the config's `db`, else the SQLite
//! file in the state folder. A `postgres://` URL or a libpq `keyword = value` string names the
//! PostgreSQL store, with what the
//! environment says about it (`PGPASSWORD`, `PGPASSFILE` or `~/.pgpass`, `PGSSLROOTCERT`, and
//! `GH_SWEEP_HOST` for the name this host goes by); a path or `sqlite:PATH` names a SQLite file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use secrecy::SecretString;

use super::env::Env;
use super::error::SettingsError;
use crate::store::location::{conninfo_pairs, is_postgres, Liveness, Target};
use crate::store::Location;

/// The store named by `text`: a PostgreSQL target, or a SQLite file's path.
pub(crate) enum Named {
    Postgres(Target),
    File(PathBuf),
}

/// Reads what `--db` or the config's `db` says (`what`: where it came from, for the error).
/// A URL of another scheme (`mysql://`, a mistyped `postgress://`) is refused by its scheme
/// alone, never echoed whole: it may carry a password, and taken as a path it would make a
/// SQLite file named after it.
pub(crate) fn named(text: &str, env: &Env, what: &str) -> Result<Named, SettingsError> {
    if is_postgres(text) && text.contains("://") {
        return postgres(text, env, what);
    }
    if let Some((scheme, _)) = text.split_once("://") {
        let looks_like_a_scheme = !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if looks_like_a_scheme {
            return Err(SettingsError::Place(format!(
                "invalid {what}: `{scheme}://` is not a store gh-sweep knows; use a path, `sqlite:PATH` or `postgres://USER@HOST/DATABASE`"
            )));
        }
    }
    if is_postgres(text) {
        // A libpq `keyword = value` string: refused here, naming the form, when it is none.
        conninfo_pairs(text)
            .map_err(|why| SettingsError::Place(format!("invalid {what}: {why}")))?;
        return postgres(text, env, what);
    }
    Ok(Named::File(PathBuf::from(
        text.strip_prefix("sqlite:").unwrap_or(text),
    )))
}

/// The PostgreSQL store `text` names, in a build with the `postgres` feature; refused by name
/// in one without, never taken for a SQLite file's path.
fn postgres(text: &str, env: &Env, what: &str) -> Result<Named, SettingsError> {
    if cfg!(feature = "postgres") {
        Ok(Named::Postgres(target(text, env)))
    } else {
        Err(SettingsError::Place(format!(
            "invalid {what}: {}",
            crate::store::WITHOUT_POSTGRES
        )))
    }
}

/// Which store the command uses, as the common layer found it: `--db` (or `GH_SWEEP_DB`),
/// else the config file's `db`, else the default SQLite file. A run and a command that only
/// looks at a store (`recap`, `store status`) open it each in their own way
/// ([`StoreChoice::for_run`], [`StoreChoice::looked_at`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreChoice {
    /// The text naming the store, and where it came from; `None`: the default file.
    pub given: Option<(String, StoreOrigin)>,
    /// The config file, as messages name it (from the working directory), when there is one.
    config_shown: Option<String>,
}

/// Where the store's name came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreOrigin {
    /// `--db`.
    Flag,
    /// `--db`'s variable, taken by clap (`GH_SWEEP_DB`).
    Variable(String),
    /// The config file's `db`.
    File,
}

impl StoreChoice {
    /// `--db` (its value's source in `sources`), else the config's `db`.
    pub(super) fn of(
        db: Option<&Path>,
        sources: &super::Sources,
        file: &super::file::FileConfig,
        config: &Option<PathBuf>,
        cwd: &Path,
    ) -> Self {
        let given = match db {
            Some(db) => Some((
                db.display().to_string(),
                match sources.variable("db") {
                    Some(variable) => StoreOrigin::Variable(variable.to_string()),
                    None => StoreOrigin::Flag,
                },
            )),
            None => file.db.clone().map(|text| (text, StoreOrigin::File)),
        };
        StoreChoice {
            given,
            config_shown: config
                .as_ref()
                .map(|path| path.strip_prefix(cwd).unwrap_or(path).display().to_string()),
        }
    }

    /// Whether `--db` (or its variable) named the store.
    pub fn named_by_db(&self) -> bool {
        matches!(
            self.given,
            Some((_, StoreOrigin::Flag | StoreOrigin::Variable(_)))
        )
    }

    /// A run's store: the SQLite file's path (a PostgreSQL store's too: the local state file
    /// whose folder keeps the rerun files), checked for a folder to go in, and the PostgreSQL
    /// target when one is named.
    pub fn for_run(&self, env: &Env) -> Result<(PathBuf, Option<Target>), SettingsError> {
        let Some((text, origin)) = &self.given else {
            return Ok((super::default_db(env)?, None));
        };
        let name = match origin {
            StoreOrigin::Flag => "--db",
            StoreOrigin::Variable(variable) => variable,
            StoreOrigin::File => "db in the config",
        };
        Ok(match named(text, env, name)? {
            Named::Postgres(target) => (
                super::default_db(env).unwrap_or_else(|_| PathBuf::from("state.db")),
                Some(target),
            ),
            Named::File(path) => {
                super::paths::check_output_folder(&path, name)?;
                (path, None)
            }
        })
    }

    /// The store a command that only looks at stores opens, and where it came from, for
    /// messages.
    pub fn looked_at(&self, env: &Env) -> Result<(Location, String), SettingsError> {
        let source = match &self.given {
            Some((_, StoreOrigin::Flag | StoreOrigin::Variable(_))) => {
                if env.get("GH_SWEEP_DB").is_some() {
                    "--db (or GH_SWEEP_DB)".to_string()
                } else {
                    "--db".to_string()
                }
            }
            _ => self
                .config_shown
                .as_ref()
                .map_or_else(String::new, |path| format!("db in {path}")),
        };
        match &self.given {
            Some((text, _)) => Ok((named(text, env, &source)?.location(), source)),
            None => Ok((
                Location::File(super::default_db(env)?),
                "the default store".to_string(),
            )),
        }
    }
}

impl Named {
    /// Where the store is, as `store::open` takes it.
    pub(crate) fn location(self) -> Location {
        match self {
            Named::Postgres(target) => Location::Postgres(Box::new(target)),
            Named::File(path) => Location::File(path),
        }
    }
}

/// The name this host goes by among those sharing a store: `GH_SWEEP_HOST`, else its
/// hostname. A label for people: liveness never rests on it.
pub(crate) fn host(env: &Env) -> String {
    env.get("GH_SWEEP_HOST")
        .map(str::to_string)
        .unwrap_or_else(crate::store::sqlite::host_name)
}

/// The PostgreSQL target of `url`, with the environment's password, passfile, CA and host name.
pub(crate) fn target(url: &str, env: &Env) -> Target {
    let mut target = Target::new(url, host(env));
    target.password_env = env
        .get("PGPASSWORD")
        .map(|password| SecretString::from(password.to_string()));
    target.passfile = env
        .get("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| env.get("HOME").map(|home| Path::new(home).join(".pgpass")));
    target.root_cert_env = env.get("PGSSLROOTCERT").map(PathBuf::from);
    target.root_cert_home = env
        .get("HOME")
        .map(|home| Path::new(home).join(".postgresql/root.crt"));
    target
}

/// The heartbeat settings: the config's, checked, with the HTTP timeout a taking-over host
/// waits on top of the bound.
pub(crate) fn liveness(
    heartbeat_seconds: Option<u64>,
    dead_after_seconds: Option<u64>,
    write_timeout: Duration,
) -> Result<Liveness, SettingsError> {
    let defaults = Liveness::default();
    let renew_every = heartbeat_seconds.map_or(defaults.renew_every, Duration::from_secs);
    let bound = dead_after_seconds.map_or(defaults.bound, Duration::from_secs);
    if bound < renew_every * 3 {
        return Err(SettingsError::value(
            "db_dead_after_seconds",
            bound.as_secs().to_string(),
            format!(
                "make it at least three heartbeats ({} s), so a run that renews on time is never counted dead",
                renew_every.as_secs() * 3
            ),
        ));
    }
    Ok(Liveness {
        renew_every,
        bound,
        write_timeout,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_scheme_is_refused_by_its_scheme_alone() {
        let env = Env::default();
        let refused = named("mysql://u:SECRETPW@h/db", &env, "--db")
            .err()
            .unwrap()
            .to_string();
        assert!(refused.contains("`mysql://`"), "{refused}");
        assert!(!refused.contains("SECRETPW"), "{refused}");
        assert!(named("postgress://u:pw@h/db", &env, "--db").is_err());
        assert!(matches!(
            named("sqlite:/tmp/x.db", &env, "--db"),
            Ok(Named::File(path)) if path == Path::new("/tmp/x.db")
        ));
        assert!(matches!(
            named("state/x.db", &env, "--db"),
            Ok(Named::File(_))
        ));
        // A libpq keyword/value string that is not well formed is refused without its
        // password, with or without PostgreSQL.
        let refused = named("host=db password='SECRETPW", &env, "--db")
            .err()
            .unwrap()
            .to_string();
        assert!(refused.contains("keyword = value"), "{refused}");
        assert!(!refused.contains("SECRETPW"), "{refused}");
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn a_url_or_a_keyword_value_string_names_postgres() {
        let env = Env::default();
        assert!(matches!(
            named("postgres://u@h/db", &env, "--db"),
            Ok(Named::Postgres(_))
        ));
        assert!(matches!(
            named("host=db user=u password=SECRETPW dbname=q", &env, "--db"),
            Ok(Named::Postgres(target)) if !target.shown.contains("SECRETPW")
                && target.shown.contains("dbname='q'")
        ));
    }

    /// Without the `postgres` feature a PostgreSQL store is refused by name: never a SQLite
    /// file named after the URL, never the password in the message.
    #[cfg(not(feature = "postgres"))]
    #[test]
    fn without_the_feature_a_postgres_store_is_refused_naming_the_feature() {
        let env = Env::default();
        for text in [
            "postgres://u:SECRETPW@h/db",
            "postgresql://u@h/db",
            "host=db user=u password=SECRETPW dbname=q",
        ] {
            let refused = named(text, &env, "db in gh-sweep.toml")
                .err()
                .unwrap()
                .to_string();
            assert!(
                refused.starts_with("invalid db in gh-sweep.toml: this gh-sweep was built without PostgreSQL support (cargo feature `postgres`)"),
                "{refused}"
            );
            assert!(!refused.contains("SECRETPW"), "{refused}");
        }
        // A SQLite file is still a SQLite file.
        assert!(matches!(
            named("sqlite:/tmp/x.db", &env, "--db"),
            Ok(Named::File(path)) if path == Path::new("/tmp/x.db")
        ));
    }
}
