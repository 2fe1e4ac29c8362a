//! Which store a run uses: `--db` (or `GH_SWEEP_DB`), else the config's `db`, else the SQLite
//! file in the state folder. A `postgres://` URL or a libpq `keyword = value` string names the
//! PostgreSQL store, with what the
//! environment says about it (`PGPASSWORD`, `PGPASSFILE` or `~/.pgpass`, `PGSSLROOTCERT`, and
//! `GH_SWEEP_HOST` for the name this host goes by); a path or `sqlite:PATH` names a SQLite file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use secrecy::SecretString;

use super::env::Env;
use crate::store::location::{conninfo_pairs, is_postgres, Liveness, Target};

/// The store named by `text`: a PostgreSQL target, or a SQLite file's path.
pub enum Named {
    Postgres(Target),
    File(PathBuf),
}

/// Reads what `--db` or the config's `db` says (`what`: where it came from, for the error).
/// A URL of another scheme (`mysql://`, a mistyped `postgress://`) is refused by its scheme
/// alone, never echoed whole: it may carry a password, and taken as a path it would make a
/// SQLite file named after it.
pub fn named(text: &str, env: &Env, what: &str) -> Result<Named, String> {
    if is_postgres(text) && text.contains("://") {
        return postgres(text, env, what);
    }
    if let Some((scheme, _)) = text.split_once("://") {
        let looks_like_a_scheme = !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if looks_like_a_scheme {
            return Err(format!(
                "invalid {what}: `{scheme}://` is not a store gh-sweep knows; use a path, `sqlite:PATH` or `postgres://USER@HOST/DATABASE`"
            ));
        }
    }
    if is_postgres(text) {
        // A libpq `keyword = value` string: refused here, naming the form, when it is none.
        conninfo_pairs(text).map_err(|why| format!("invalid {what}: {why}"))?;
        return postgres(text, env, what);
    }
    Ok(Named::File(PathBuf::from(
        text.strip_prefix("sqlite:").unwrap_or(text),
    )))
}

/// The PostgreSQL store `text` names, in a build with the `postgres` feature; refused by name
/// in one without, never taken for a SQLite file's path.
fn postgres(text: &str, env: &Env, what: &str) -> Result<Named, String> {
    if cfg!(feature = "postgres") {
        Ok(Named::Postgres(target(text, env)))
    } else {
        Err(format!(
            "invalid {what}: {}",
            crate::store::WITHOUT_POSTGRES
        ))
    }
}

/// The store a command that only looks at stores (`recap`, `store status`) opens, resolved as a
/// run resolves its own: `--db` (or `GH_SWEEP_DB`), else the config file's `db` (the file
/// `--config` or `GH_SWEEP_CONFIG` names, else `.github/gh-sweep.toml`, else
/// `$XDG_CONFIG_HOME/gh-sweep/config.toml`), else the default SQLite file. With it, where the
/// store came from, for messages.
pub fn looked_at(
    db: Option<&Path>,
    config: Option<&Path>,
    env: &Env,
    cwd: &Path,
) -> Result<(crate::store::Location, String), String> {
    let (text, source) = match db {
        Some(db) => (
            Some(db.display().to_string()),
            if env.get("GH_SWEEP_DB").is_some() {
                "--db (or GH_SWEEP_DB)".to_string()
            } else {
                "--db".to_string()
            },
        ),
        None => {
            let config = super::file::find_config(config, env, cwd)?;
            let db = match &config {
                Some(path) => {
                    let text = std::fs::read_to_string(path).map_err(|error| {
                        format!("cannot read config file {}: {error}", path.display())
                    })?;
                    super::file::parse_file(&text, path.strip_prefix(cwd).unwrap_or(path))?.db
                }
                None => None,
            };
            let source = config.map_or_else(String::new, |path| {
                format!(
                    "db in {}",
                    path.strip_prefix(cwd).unwrap_or(&path).display()
                )
            });
            (db, source)
        }
    };
    match text {
        Some(text) => match named(&text, env, &source)? {
            Named::Postgres(target) => {
                Ok((crate::store::Location::Postgres(Box::new(target)), source))
            }
            Named::File(path) => Ok((crate::store::Location::File(path), source)),
        },
        None => Ok((
            crate::store::Location::File(super::default_db(env)?),
            "the default store".to_string(),
        )),
    }
}

/// The name this host goes by among those sharing a store: `GH_SWEEP_HOST`, else its
/// hostname. A label for people: liveness never rests on it.
pub fn host(env: &Env) -> String {
    env.get("GH_SWEEP_HOST")
        .map(str::to_string)
        .unwrap_or_else(crate::store::sqlite::host_name)
}

/// The PostgreSQL target of `url`, with the environment's password, passfile, CA and host name.
pub fn target(url: &str, env: &Env) -> Target {
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
pub fn liveness(
    heartbeat_seconds: Option<u64>,
    dead_after_seconds: Option<u64>,
    write_timeout: Duration,
) -> Result<Liveness, String> {
    let defaults = Liveness::default();
    let renew_every = heartbeat_seconds.map_or(defaults.renew_every, Duration::from_secs);
    let bound = dead_after_seconds.map_or(defaults.bound, Duration::from_secs);
    if bound < renew_every * 3 {
        return Err(format!(
            "invalid db_dead_after_seconds `{}`: make it at least three heartbeats ({} s), so a run that renews on time is never counted dead",
            bound.as_secs(),
            renew_every.as_secs() * 3
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
            .unwrap();
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
            .unwrap();
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
            let refused = named(text, &env, "db in gh-sweep.toml").err().unwrap();
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
