//! The common layer: what every command shares, resolved once from flags > environment >
//! config file > defaults, before the command's own settings are resolved from it. Clap gives
//! a flag over its variable (`GH_SWEEP_CONFIG`, `GH_SWEEP_DB`, `GH_SWEEP_ITEM_FAILURE_BUDGET`),
//! and [`Sources`] says which of them it took from the environment (its `ValueSource`); the
//! other variables (`GITHUB_API_URL`, `GH_HOST`, the test clock) are read from [`Env`] here.
//!
//! A command that only looks at the store (`recap`, `store status`) resolves the config file
//! (for its `db`, and only when no `--db` is given) and the store; a run resolves the rest too.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::auth::api_base;
use super::env::Env;
use super::error::SettingsError;
use super::file::{check_ranges, find_config, parse_file, FileConfig};
use super::flags::{CommandKind, Sources};
use super::store::{liveness, StoreChoice};
use crate::cli::{ReadArgs, WriteArgs};
use crate::github::client::RetryPolicy;
use crate::policy::budget::FailureBudget;
use crate::store::{Liveness, Runs};

/// What the command line gave the common layer: the options it takes, and which of them came
/// from the environment. A command without an option group gives its defaults.
pub struct CommonArgs<'a> {
    pub kind: CommandKind,
    pub read: &'a ReadArgs,
    pub write: &'a WriteArgs,
    pub json: bool,
    pub sources: &'a Sources,
}

/// What every command shares.
pub struct CommonSettings {
    pub kind: CommandKind,
    /// The config file in use, if any.
    pub config_path: Option<PathBuf>,
    pub(super) file: FileConfig,
    /// Which store: `--db` (or `GH_SWEEP_DB`), else the config's `db`, else the default file.
    pub store: StoreChoice,
    /// What every run (a command that reads GitHub) shares; `None` for `recap` and `store`.
    pub run: Option<RunCommon>,
}

/// What every run shares: the API, how it reads, the failure budget, the limits on writes,
/// its timings and its clock.
pub struct RunCommon {
    pub api_base: String,
    /// `--read-api`, else the config's `read_api`, else GraphQL; `None` for a snapshot's
    /// replay, which reads with the API that recorded it.
    pub read_api: Option<ReadApi>,
    pub budget: FailureBudget,
    pub limits: WriteLimits,
    pub timing: Timing,
    /// `--now`, parsed, else the real clock.
    pub now: chrono::DateTime<chrono::Utc>,
    /// The clock gh-sweep's own tests set (`GH_SWEEP_TEST_NOW`, debug builds only).
    pub test_now: Option<chrono::DateTime<chrono::Utc>>,
    /// The heartbeat settings, and who this host's runs are.
    pub liveness: Liveness,
    pub runs: Runs,
}

/// How fast and how much a run may write.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WriteLimits {
    /// Seconds between two writes (`--write-interval`, `write_interval`; 1 by default).
    pub interval_seconds: f64,
    /// `--max-writes`, `max_writes`.
    pub max_writes: Option<u64>,
    /// With `--yes`, the longest wait for GitHub's write ceilings (`--max-wait`,
    /// `max_wait_seconds`; ten minutes by default).
    pub max_wait_seconds: u64,
    /// Whether `--max-wait` gave it (for the error that names it).
    pub max_wait_flag: bool,
}

/// The config file's timings (no flag sets them).
#[derive(Clone, Debug)]
pub struct Timing {
    pub recheck_after: Duration,
    pub settle_after: Duration,
    pub retry: RetryPolicy,
    pub timeout: Duration,
    pub search_interval: Duration,
}

/// The API a run's reads go through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadApi {
    Rest,
    Graphql,
}

impl ReadApi {
    /// Its name as `--read-api` and a snapshot spell it.
    pub fn name(self) -> &'static str {
        match self {
            ReadApi::Rest => "rest",
            ReadApi::Graphql => "graphql",
        }
    }

    /// `--read-api`, else the config's `read_api`, else GraphQL.
    pub(super) fn of(flag: Option<&str>, file: Option<&str>) -> Result<ReadApi, SettingsError> {
        match flag.or(file) {
            None | Some("graphql") => Ok(ReadApi::Graphql),
            Some("rest") => Ok(ReadApi::Rest),
            Some(other) => Err(SettingsError::Config(format!(
                "invalid read_api = \"{other}\" in the config file: use \"graphql\" or \"rest\""
            ))),
        }
    }
}

impl CommonSettings {
    /// Resolves the common layer for `args.kind`. `cwd` is where the config file is looked for.
    pub fn resolve(args: &CommonArgs<'_>, env: &Env, cwd: &Path) -> Result<Self, SettingsError> {
        let runs = args.kind.reads_github();
        // A command that only looks at a store reads the config file for its `db` alone.
        let reads_config = runs || args.read.db.db.is_none();
        let (config_path, file) = if reads_config {
            load_config(args, env, cwd)?
        } else {
            (None, FileConfig::default())
        };
        let store = StoreChoice::of(
            args.read.db.db.as_deref(),
            args.sources,
            &file,
            &config_path,
            cwd,
        );
        let run = if runs {
            Some(RunCommon::resolve(args, &file, env)?)
        } else {
            None
        };
        Ok(CommonSettings {
            kind: args.kind,
            config_path,
            file,
            store,
            run,
        })
    }
}

/// The config file found and parsed (a run's checked against its ranges too), or none.
fn load_config(
    args: &CommonArgs<'_>,
    env: &Env,
    cwd: &Path,
) -> Result<(Option<PathBuf>, FileConfig), SettingsError> {
    let runs = args.kind.reads_github();
    let path = find_config(args.read.config.as_deref(), env, cwd).map_err(|error| {
        match args.sources.variable("config").filter(|_| runs) {
            Some(variable) => SettingsError::Config(format!(
                "{error} (the path is {variable}'s: fix or unset it)"
            )),
            None => error,
        }
    })?;
    let file = match &path {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|error| {
                SettingsError::Config(format!(
                    "cannot read config file {}: {error}",
                    path.display()
                ))
            })?;
            parse_file(&text, path.strip_prefix(cwd).unwrap_or(path))?
        }
        None => FileConfig::default(),
    };
    if runs {
        check_ranges(&file)?;
    }
    Ok((path, file))
}

impl RunCommon {
    fn resolve(args: &CommonArgs<'_>, file: &FileConfig, env: &Env) -> Result<Self, SettingsError> {
        let (read, write) = (args.read, args.write);
        let budget = budget(read.item_failure_budget.as_deref(), file, args.sources)?;
        let limits = WriteLimits::resolve(write, file)?;
        let api_base = api_base(read.api_url.as_deref(), env)?;
        let read_api = match read.snapshot {
            Some(_) => None,
            None => Some(ReadApi::of(
                read.read_api.as_deref(),
                file.read_api.as_deref(),
            )?),
        };
        let now = given_clock(read.now.as_deref())?;
        let timeout = Duration::from_secs(file.timeout_seconds.unwrap_or(30));
        let liveness = liveness(
            file.db_heartbeat_seconds,
            file.db_dead_after_seconds,
            timeout,
        )?;
        Ok(RunCommon {
            api_base,
            read_api,
            budget,
            limits,
            timing: Timing::of(file),
            now,
            test_now: test_clock(env)?,
            liveness,
            runs: Runs {
                host: super::store::host(env),
                liveness,
            },
        })
    }
}

impl WriteLimits {
    fn resolve(write: &WriteArgs, file: &FileConfig) -> Result<Self, SettingsError> {
        // A cap of 0 would plan every write and send none, and its rerun line would carry
        // the cap again: refused, naming where it came from.
        match (write.max_writes, file.max_writes) {
            (Some(0), _) => return Err(SettingsError::Limit(
                "invalid --max-writes 0: a run capped at 0 writes sends nothing; use --dry-run to preview, or a cap of 1 or more"
                    .to_string(),
            )),
            (None, Some(0)) => return Err(SettingsError::Limit(
                "invalid max_writes = 0 in the config file: a run capped at 0 writes sends nothing; remove the key, or use 1 or more"
                    .to_string(),
            )),
            _ => {}
        }
        if let Some(seconds) = write.max_wait.filter(|seconds| *seconds > 86_400) {
            return Err(SettingsError::Limit(format!(
                "invalid --max-wait {seconds}: use seconds from 0 to 86400 (a day; the hour's ceiling lets everything through long before)"
            )));
        }
        let interval = write.write_interval.or(file.write_interval).unwrap_or(1.0);
        if !(0.0..=3600.0).contains(&interval) || interval.is_nan() {
            return Err(SettingsError::value(
                "write interval",
                interval.to_string(),
                "use seconds from 0 to 3600 (0 sends writes back to back)",
            ));
        }
        Ok(WriteLimits {
            interval_seconds: interval,
            max_writes: write.max_writes.or(file.max_writes),
            max_wait_seconds: write.max_wait.or(file.max_wait_seconds).unwrap_or(600),
            max_wait_flag: write.max_wait.is_some(),
        })
    }
}

impl Timing {
    fn of(file: &FileConfig) -> Self {
        Timing {
            recheck_after: Duration::from_secs(file.recheck_after_seconds.unwrap_or(120)),
            settle_after: Duration::from_secs(file.settle_after_seconds.unwrap_or(120)),
            retry: RetryPolicy {
                retries: file.read_retries.unwrap_or(3),
                backoff: Duration::from_millis(file.retry_backoff_ms.unwrap_or(1000)),
                max_wait: Duration::from_secs(file.max_retry_wait_seconds.unwrap_or(60)),
            },
            timeout: Duration::from_secs(file.timeout_seconds.unwrap_or(30)),
            search_interval: Duration::from_millis(file.search_interval_ms.unwrap_or(2000)),
        }
    }
}

/// The item-failure budget: the flag (or its variable, named as such in an error), the file,
/// the default.
fn budget(
    given: Option<&str>,
    file: &FileConfig,
    sources: &Sources,
) -> Result<FailureBudget, SettingsError> {
    let parsed = match (given, &file.item_failure_budget) {
        (Some(flag), _) => flag.parse::<FailureBudget>().map_err(|error| {
            let source = sources.name("item_failure_budget", "item_failure_budget");
            error.to_string().replacen("item_failure_budget", source, 1)
        }),
        (None, Some(value)) => value
            .parse::<FailureBudget>()
            .map_err(|error| error.to_string()),
        (None, None) => Ok(FailureBudget::default()),
    };
    parsed.map_err(SettingsError::Config)
}

/// `--now`, parsed, else the real clock.
fn given_clock(given: Option<&str>) -> Result<chrono::DateTime<chrono::Utc>, SettingsError> {
    match given {
        Some(text) => chrono::DateTime::parse_from_rfc3339(text)
            .map(|time| time.with_timezone(&chrono::Utc))
            .map_err(|_| {
                SettingsError::value(
                    "--now",
                    text,
                    "use an RFC 3339 time such as 2026-11-29T12:00:00Z",
                )
            }),
        None => Ok(crate::clock::wall()),
    }
}

/// The clock gh-sweep's own tests move between two sweeps (a backoff window passing), from
/// `GH_SWEEP_TEST_NOW`: honoured only by debug builds, which the tests run; a release build
/// refuses it, so an installed gh-sweep has no clock but the real one and `--now`.
fn test_clock(env: &Env) -> Result<Option<chrono::DateTime<chrono::Utc>>, SettingsError> {
    if let Some(skew) = env.get("GH_SWEEP_TEST_CLOCK_SKEW") {
        if !cfg!(debug_assertions) {
            return Err(SettingsError::Refused(
                "GH_SWEEP_TEST_CLOCK_SKEW is for gh-sweep's own tests (debug builds): unset it"
                    .to_string(),
            ));
        }
        let seconds = skew.parse::<i64>().map_err(|_| {
            SettingsError::value("GH_SWEEP_TEST_CLOCK_SKEW", skew, "use whole seconds")
        })?;
        crate::clock::skew_for_tests(seconds);
    }
    let Some(text) = env.get("GH_SWEEP_TEST_NOW") else {
        return Ok(None);
    };
    if !cfg!(debug_assertions) {
        return Err(SettingsError::Refused(
            "GH_SWEEP_TEST_NOW is for gh-sweep's own tests (debug builds): unset it, and pass --now to classify or a dry run".to_string(),
        ));
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|time| Some(time.with_timezone(&chrono::Utc)))
        .map_err(|_| SettingsError::value("GH_SWEEP_TEST_NOW", text, "use an RFC 3339 time"))
}

#[cfg(test)]
mod tests;
