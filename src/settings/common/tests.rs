//! The common layer's order: a flag beats its variable beats the config file beats the
//! default, for a setting of each source. Each test fails when two of them swap.

use std::path::PathBuf;

use super::*;
use crate::cli::DbArgs;
use crate::settings::store::StoreOrigin;

/// A folder to run in, with a config file when `config` is given, and an environment whose
/// home is inside it (so no config file of the machine's is found).
struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn new(config: Option<&str>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        if let Some(text) = config {
            std::fs::create_dir_all(dir.path().join(".github")).unwrap();
            std::fs::write(dir.path().join(".github/gh-sweep.toml"), text).unwrap();
        }
        World { dir }
    }

    fn env(&self, pairs: &[(&str, &str)]) -> Env {
        let home = self.dir.path().join("home").display().to_string();
        let mut all = vec![("HOME", home.as_str())];
        all.extend_from_slice(pairs);
        Env::from_pairs(&all)
    }

    fn resolve(
        &self,
        kind: CommandKind,
        read: &ReadArgs,
        write: &WriteArgs,
        sources: &Sources,
        env: &Env,
    ) -> CommonSettings {
        let args = CommonArgs {
            kind,
            read,
            write,
            json: false,
            sources,
        };
        CommonSettings::resolve(&args, env, self.dir.path()).unwrap()
    }

    /// A run's common settings.
    fn run(&self, read: &ReadArgs, write: &WriteArgs, sources: &Sources, env: &Env) -> RunCommon {
        self.resolve(CommandKind::ClassifyStale, read, write, sources, env)
            .run
            .unwrap()
    }
}

/// clap took these options' values from their variables.
fn from_env(pairs: &[(&str, &str)]) -> Sources {
    Sources::new(
        pairs
            .iter()
            .map(|(id, variable)| (id.to_string(), variable.to_string())),
    )
}

#[test]
fn the_budget_is_the_flag_then_its_variable_then_the_file_then_the_default() {
    let world = World::new(Some("item_failure_budget = '7'\n"));
    let env = world.env(&[]);
    let write = WriteArgs::default();
    let budget = |given: Option<&str>, sources: &Sources| {
        let read = ReadArgs {
            item_failure_budget: given.map(str::to_string),
            ..ReadArgs::default()
        };
        world.run(&read, &write, sources, &env).budget
    };
    let none = Sources::default();
    // The flag (clap gives it over the variable), then the variable, both over the file.
    assert_eq!(budget(Some("4"), &none), FailureBudget::Count(4));
    let variable = from_env(&[("item_failure_budget", "GH_SWEEP_ITEM_FAILURE_BUDGET")]);
    assert_eq!(budget(Some("5"), &variable), FailureBudget::Count(5));
    // The file over the default.
    assert_eq!(budget(None, &none), FailureBudget::Count(7));
    let bare = World::new(None);
    let read = ReadArgs::default();
    assert_eq!(
        bare.run(&read, &write, &none, &bare.env(&[])).budget,
        FailureBudget::default()
    );
    // A bad value from the variable is named by the variable.
    let read = ReadArgs {
        item_failure_budget: Some("lots".into()),
        ..ReadArgs::default()
    };
    let args = CommonArgs {
        kind: CommandKind::ClassifyStale,
        read: &read,
        write: &write,
        json: false,
        sources: &variable,
    };
    let error = CommonSettings::resolve(&args, &env, world.dir.path())
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.starts_with("invalid GH_SWEEP_ITEM_FAILURE_BUDGET `lots`"),
        "{error}"
    );
}

#[test]
fn the_api_is_the_flag_then_the_environment_then_the_default() {
    let world = World::new(None);
    let (write, sources) = (WriteArgs::default(), Sources::default());
    let api = |flag: Option<&str>, env: &[(&str, &str)]| {
        let read = ReadArgs {
            api_url: flag.map(str::to_string),
            ..ReadArgs::default()
        };
        world.run(&read, &write, &sources, &world.env(env)).api_base
    };
    let variables = [
        ("GITHUB_API_URL", "https://ghe.example.com/api/v3"),
        ("GH_HOST", "other.example.com"),
    ];
    assert_eq!(
        api(Some("https://flag.example.com/api/v3"), &variables),
        "https://flag.example.com/api/v3"
    );
    assert_eq!(api(None, &variables), "https://ghe.example.com/api/v3");
    assert_eq!(
        api(None, &variables[1..]),
        "https://other.example.com/api/v3"
    );
    assert_eq!(api(None, &[]), "https://api.github.com");
}

#[test]
fn the_store_is_the_flag_then_its_variable_then_the_file_then_the_default() {
    let world = World::new(Some("db = 'from-file.db'\n"));
    let env = world.env(&[]);
    let write = WriteArgs::default();
    let store = |db: Option<&str>, sources: &Sources, kind: CommandKind| {
        let read = ReadArgs {
            db: DbArgs {
                db: db.map(PathBuf::from),
            },
            ..ReadArgs::default()
        };
        world.resolve(kind, &read, &write, sources, &env).store
    };
    let none = Sources::default();
    let variable = from_env(&[("db", "GH_SWEEP_DB")]);
    for kind in [CommandKind::StaleSweep, CommandKind::Recap] {
        assert_eq!(
            store(Some("flag.db"), &none, kind).given,
            Some(("flag.db".to_string(), StoreOrigin::Flag))
        );
        assert_eq!(
            store(Some("variable.db"), &variable, kind).given,
            Some((
                "variable.db".to_string(),
                StoreOrigin::Variable("GH_SWEEP_DB".into())
            ))
        );
        // `recap` and `store status` honour the config file's `db`, as a run does.
        assert_eq!(
            store(None, &none, kind).given,
            Some(("from-file.db".to_string(), StoreOrigin::File))
        );
    }
    let (path, postgres) = store(None, &none, CommandKind::StaleSweep)
        .for_run(&env)
        .unwrap();
    assert_eq!(
        (path, postgres.is_none()),
        (PathBuf::from("from-file.db"), true)
    );
    // Without either, the default file in the state folder.
    let bare = World::new(None);
    let read = ReadArgs::default();
    let env = bare.env(&[]);
    let choice = bare
        .resolve(CommandKind::Recap, &read, &write, &none, &env)
        .store;
    assert_eq!(choice.given, None);
    let (location, source) = choice.looked_at(&env).unwrap();
    assert_eq!(source, "the default store");
    assert_eq!(
        location,
        crate::store::Location::File(super::super::default_db(&env).unwrap())
    );
}

#[test]
fn write_limits_and_the_read_api_are_the_flag_then_the_file_then_the_default() {
    let world = World::new(Some(
        "write_interval = 2.5\nmax_wait_seconds = 30\nmax_writes = 8\nread_api = 'rest'\n",
    ));
    let env = world.env(&[]);
    let sources = Sources::default();
    let flags = WriteArgs {
        write_interval: Some(0.5),
        max_wait: Some(5),
        max_writes: Some(3),
        ..WriteArgs::default()
    };
    let graphql = ReadArgs {
        read_api: Some("graphql".into()),
        ..ReadArgs::default()
    };
    let given = world.run(&graphql, &flags, &sources, &env);
    assert_eq!(
        (given.limits.interval_seconds, given.limits.max_wait_seconds),
        (0.5, 5)
    );
    assert_eq!(given.limits.max_writes, Some(3));
    assert!(given.limits.max_wait_flag);
    assert_eq!(given.read_api, Some(ReadApi::Graphql));
    let read = ReadArgs::default();
    let write = WriteArgs::default();
    let filed = world.run(&read, &write, &sources, &env);
    assert_eq!(
        (filed.limits.interval_seconds, filed.limits.max_wait_seconds),
        (2.5, 30)
    );
    assert_eq!(filed.limits.max_writes, Some(8));
    assert!(!filed.limits.max_wait_flag);
    assert_eq!(filed.read_api, Some(ReadApi::Rest));
    let bare = World::new(None);
    let defaults = bare.run(&read, &write, &sources, &bare.env(&[]));
    assert_eq!(
        (
            defaults.limits.interval_seconds,
            defaults.limits.max_wait_seconds
        ),
        (1.0, 600)
    );
    assert_eq!(defaults.limits.max_writes, None);
    assert_eq!(defaults.read_api, Some(ReadApi::Graphql));
}

/// `recap` with `--db` never reads the config file (a broken one is no reason not to print a
/// recap); without it, the file is read for its `db` alone, its values not checked as a run's.
#[test]
fn a_look_at_the_store_reads_the_config_only_for_its_db() {
    let world = World::new(Some("timeout_seconds = 0\ndb = 'x.db'\n"));
    let env = world.env(&[]);
    let (write, sources) = (WriteArgs::default(), Sources::default());
    let read = ReadArgs::default();
    let look = world.resolve(CommandKind::StoreStatus, &read, &write, &sources, &env);
    assert!(look.run.is_none());
    assert_eq!(look.store.given.unwrap().0, "x.db");
    let args = CommonArgs {
        kind: CommandKind::Sweep,
        read: &read,
        write: &write,
        json: false,
        sources: &sources,
    };
    let error = CommonSettings::resolve(&args, &env, world.dir.path())
        .err()
        .unwrap();
    assert!(matches!(
        error,
        SettingsError::OutOfRange {
            key: "timeout_seconds",
            ..
        }
    ));
    let broken = World::new(Some("not toml = [\n"));
    let read = ReadArgs {
        db: DbArgs {
            db: Some("given.db".into()),
        },
        ..ReadArgs::default()
    };
    let look = broken.resolve(
        CommandKind::Recap,
        &read,
        &write,
        &sources,
        &broken.env(&[]),
    );
    assert_eq!(look.config_path, None);
}
