//! Resolution: flags beat environment beat the config file beat defaults, for the subcommand
//! being run (`Spec`), into `Settings`. Everything is validated here, before anything is read;
//! a bad value is an error that names it and the fix. Also the rerun line's start.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::auth::api_base;
use super::env::{flag_or_variable, Env};
use super::file::{check_ranges, find_config, overlay_stale, parse_file, FileConfig};
use super::flags::{CommandAccess, Flags, Spec};
use super::paths::{check_output_folder, default_db};
use super::pool::{Pool, ResolvedPool};
use super::workflow;
use crate::exit::Fatal;
use crate::github::client::RetryPolicy;
use crate::github::snapshot::Snapshot;
use crate::item::{ItemRef, RepoRef};
use crate::policy::budget::FailureBudget;
use crate::policy::merge::PollRules;
use crate::policy::recap::shell_quote;
use crate::policy::stale::StaleRules;
use crate::policy::sweep::SweepRules;

/// actions/stale's inputs as a `[stale]` table, the notes on what was not carried over, and
/// where they came from.
type StaleInputs = (toml::Table, Vec<String>, String);

/// [`StaleInputs`] from the workflow or the action's step; `None` without either.
fn stale_inputs(
    workflow: Option<&Path>,
    action_inputs: bool,
    env: &Env,
) -> Option<Result<StaleInputs, String>> {
    if let Some(workflow) = workflow {
        return Some(
            workflow::stale_table(workflow)
                .map(|(table, notes)| (table, notes, workflow.display().to_string())),
        );
    }
    action_inputs.then(|| {
        workflow::action_table(|name| env.raw(name).map(str::to_string))
            .map(|(table, notes)| (table, notes, "the action's inputs".to_string()))
    })
}

/// The `[stale]` table in effect for `--print-config`: from the workflow (or the action's
/// inputs), else the config file.
pub fn stale_table_in_effect(
    args: &Flags,
    workflow: Option<&Path>,
    action_inputs: bool,
    env: &Env,
    cwd: &Path,
) -> Result<(String, Vec<String>), Fatal> {
    let usage = Fatal::Usage;
    if let Some(found) = stale_inputs(workflow, action_inputs, env) {
        let (table, warnings, source) = found.map_err(usage)?;
        overlay_stale(&StaleRules::default(), table.clone())
            .and_then(|rules| rules.validate())
            .map_err(|error| {
                Fatal::Usage(format!("invalid actions/stale inputs in {source}: {error}"))
            })?;
        return Ok((
            workflow::print_with_notes(&table, Path::new(&source), &warnings),
            warnings,
        ));
    }
    let path = find_config(args.config.as_deref(), env, cwd).map_err(usage)?;
    let rules = match &path {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|error| {
                Fatal::Usage(format!(
                    "cannot read config file {}: {error}",
                    path.display()
                ))
            })?;
            parse_file(&text, path).map_err(usage)?.stale
        }
        None => StaleRules::default(),
    };
    let mut wrapper = toml::Table::new();
    let table = toml::Value::try_from(&rules).map_err(|error| Fatal::Usage(error.to_string()))?;
    wrapper.insert("stale".into(), table);
    Ok((
        toml::to_string_pretty(&wrapper).unwrap_or_default(),
        Vec::new(),
    ))
}

/// An error about the config path, saying when the path came from `GH_SWEEP_CONFIG`.
fn config_source_error(error: String, args: &Flags, env: &Env) -> String {
    let from_variable = args.config.as_ref().is_some_and(|path| {
        flag_or_variable(
            "--config",
            "GH_SWEEP_CONFIG",
            &path.display().to_string(),
            env,
        ) == "GH_SWEEP_CONFIG"
    });
    if from_variable {
        format!("{error} (the path is GH_SWEEP_CONFIG's: fix or unset it)")
    } else {
        error
    }
}

/// A write cap of 0 would plan every write and send none, and its rerun line would carry the
/// cap again: refused, naming where it came from.
/// Which API the run reads GitHub's facts with: `--read-api`, else the config's `read_api`,
/// else GraphQL. A snapshot replays with the API that read it (REST when it does not say, as
/// snapshots before GraphQL were), whatever the config says; a `--read-api` naming the other
/// one is refused, since the snapshot holds no answers for it.
fn read_api(
    flag: Option<&str>,
    file: Option<&str>,
    snapshot: Option<&Snapshot>,
) -> Result<ReadApi, String> {
    if let Some(snapshot) = snapshot {
        let recorded = snapshot.read_api.as_deref().unwrap_or("rest");
        return match flag {
            Some(flag) if flag != recorded => Err(format!(
                "invalid --read-api {flag} with --snapshot: the snapshot was read with {recorded}, so it replays only with --read-api {recorded}"
            )),
            _ => read_api(Some(recorded), None, None),
        };
    }
    match flag.or(file) {
        None | Some("graphql") => Ok(ReadApi::Graphql),
        Some("rest") => Ok(ReadApi::Rest),
        Some(other) => Err(format!(
            "invalid read_api = \"{other}\" in the config file: use \"graphql\" or \"rest\""
        )),
    }
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
}

fn check_max_writes(flag: Option<u64>, file: Option<u64>) -> Result<(), String> {
    match (flag, file) {
        (Some(0), _) => Err(
            "invalid --max-writes 0: a run capped at 0 writes sends nothing; use --dry-run to preview, or a cap of 1 or more"
                .to_string(),
        ),
        (None, Some(0)) => Err(
            "invalid max_writes = 0 in the config file: a run capped at 0 writes sends nothing; remove the key, or use 1 or more"
                .to_string(),
        ),
        _ => Ok(()),
    }
}

/// Everything a command needs, resolved and validated.
pub struct Settings {
    pub repos: Vec<RepoRef>,
    pub only: Option<BTreeSet<ItemRef>>,
    pub budget: FailureBudget,
    pub yes: bool,
    pub dry_run: bool,
    pub write_interval: Duration,
    pub max_writes: Option<u64>,
    /// With `--yes`, the longest wait for GitHub's write ceilings before the run leaves the
    /// rest unfinished (`--max-wait`, `max_wait_seconds`; ten minutes by default).
    pub max_wait: Duration,
    pub recheck_after: Duration,
    /// How long after a write of unknown outcome was sent "not found on GitHub" proves it did
    /// not happen: until then GitHub may still be carrying it out.
    pub settle_after: Duration,
    pub retry: RetryPolicy,
    pub timeout: Duration,
    /// Spacing of search requests (GitHub allows 30 a minute).
    pub search_interval: Duration,
    /// Which API reads go through.
    pub read_api: ReadApi,
    pub api_base: String,
    /// The SQLite file, or (with a PostgreSQL store) the local state file whose folder keeps
    /// the rerun files.
    pub db: PathBuf,
    /// The PostgreSQL store, when `--db`, `GH_SWEEP_DB` or the config's `db` names one.
    pub postgres: Option<crate::store::Target>,
    /// Who this host's runs are on a SQLite file: `GH_SWEEP_HOST` (else the hostname) and the
    /// heartbeat settings, as on PostgreSQL.
    pub runs: crate::store::Runs,
    /// Whether `--db` (or `GH_SWEEP_DB`) named the database, rather than the default.
    pub db_given: bool,
    /// The snapshot to replay, loaded and checked.
    pub snapshot: Option<(PathBuf, Snapshot)>,
    pub save_snapshot: Option<PathBuf>,
    pub config_path: Option<PathBuf>,
    pub stale: StaleRules,
    pub poll: PollRules,
    pub sweep: SweepRules,
    /// Organisations whose repositories make the pool (`poll`, `classify merge`).
    pub orgs: Vec<String>,
    /// Ask before local writes too (`poll --confirm`).
    pub confirm: bool,
    /// The run's clock.
    pub now: chrono::DateTime<chrono::Utc>,
    /// Whether `--now` set the clock (then it is taken as it is, not put on GitHub's).
    pub now_given: bool,
    /// What the maintainer should know about the settings (workflow inputs not carried over).
    pub warnings: Vec<String>,
    /// The command line a rerun starts with (everything but `--only`).
    pub rerun_prefix: String,
}

/// The clock gh-sweep's own tests move between two sweeps (a backoff window passing), from
/// `GH_SWEEP_TEST_NOW`: honoured only by debug builds, which the tests run; a release build
/// refuses it, so an installed gh-sweep has no clock but the real one and `--now`.
fn test_clock(env: &Env) -> Result<Option<chrono::DateTime<chrono::Utc>>, String> {
    if let Some(skew) = env.get("GH_SWEEP_TEST_CLOCK_SKEW") {
        if !cfg!(debug_assertions) {
            return Err(
                "GH_SWEEP_TEST_CLOCK_SKEW is for gh-sweep's own tests (debug builds): unset it"
                    .to_string(),
            );
        }
        let seconds = skew
            .parse::<i64>()
            .map_err(|_| format!("invalid GH_SWEEP_TEST_CLOCK_SKEW `{skew}`: use whole seconds"))?;
        crate::clock::skew_for_tests(seconds);
    }
    let Some(text) = env.get("GH_SWEEP_TEST_NOW") else {
        return Ok(None);
    };
    if !cfg!(debug_assertions) {
        return Err(
            "GH_SWEEP_TEST_NOW is for gh-sweep's own tests (debug builds): unset it, and pass --now to classify or a dry run".to_string(),
        );
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|time| Some(time.with_timezone(&chrono::Utc)))
        .map_err(|_| format!("invalid GH_SWEEP_TEST_NOW `{text}`: use an RFC 3339 time"))
}

/// Resolves and validates all settings. `interactive` is whether a maintainer can answer a
/// prompt (stdin and stderr are terminals).
pub fn resolve(
    args: &Flags,
    spec: &Spec<'_>,
    interactive: bool,
    env: &Env,
    cwd: &Path,
) -> Result<Settings, Fatal> {
    resolve_inner(args, spec, interactive, env, cwd).map_err(Fatal::Usage)
}

fn resolve_inner(
    args: &Flags,
    spec: &Spec<'_>,
    interactive: bool,
    env: &Env,
    cwd: &Path,
) -> Result<Settings, String> {
    let (config_path, file, sweep, mut warnings) = load_rules(args, spec, env, cwd)?;
    let orgs = check_orgs(spec.orgs)?;
    let budget = resolve_budget(args, &file, env)?;
    check_max_writes(args.max_writes, file.max_writes)?;
    if let Some(seconds) = args.max_wait.filter(|seconds| *seconds > 86_400) {
        return Err(format!(
            "invalid --max-wait {seconds}: use seconds from 0 to 86400 (a day; the hour's ceiling lets everything through long before)"
        ));
    }
    let write_interval = args.write_interval.or(file.write_interval).unwrap_or(1.0);
    if !(0.0..=3600.0).contains(&write_interval) || write_interval.is_nan() {
        return Err(format!(
            "invalid write interval `{write_interval}`: use seconds from 0 to 3600 (0 sends writes back to back)"
        ));
    }
    let api_base = api_base(args.api_url.as_deref(), env)?;
    let pool = Pool {
        args,
        spec,
        interactive,
        env,
        cwd,
        api_base: &api_base,
        orgs: &orgs,
    };
    let ResolvedPool {
        repos,
        only,
        snapshot,
    } = pool.resolve(&mut warnings)?;
    let mut read_api = read_api(
        args.read_api.as_deref(),
        file.read_api.as_deref(),
        snapshot.as_ref(),
    )?;
    // The `[stale]` table is the stale commands' own: `poll` and `sweep` are not moved by it.
    let stale_command = spec.kind.stale_rules();
    if stale_command
        && snapshot.is_none()
        && read_api == ReadApi::Graphql
        && !file.stale.only_issue_types.is_empty()
    {
        // REST's issues carry their `type` (GitHub's OpenAPI `issue-type`); the GraphQL schema
        // gh-sweep's queries are checked against has no issue type to ask for.
        read_api = ReadApi::Rest;
        warnings.push(
            "[stale] only_issue_types needs each issue's type, which the REST API gives: this run reads through REST".to_string(),
        );
    }
    let now = given_clock(args)?;
    let (db, postgres) = check_outputs(args, env, file.db.as_deref())?;
    let liveness = super::store::liveness(
        file.db_heartbeat_seconds,
        file.db_dead_after_seconds,
        Duration::from_secs(file.timeout_seconds.unwrap_or(30)),
    )?;
    let postgres = postgres.map(|mut target| {
        target.liveness = liveness;
        target
    });
    let runs = crate::store::Runs {
        host: super::store::host(env),
        liveness,
    };
    let (dry_run, now) = check_run(
        args,
        spec,
        interactive,
        env,
        now,
        stale_command && file.stale.debug_only,
    )?;
    let max_wait = args.max_wait.or(file.max_wait_seconds).unwrap_or(600);
    // Under --yes a write that would wait longer than max_wait is left for a later run; when
    // even the interval between two writes is longer, no run could ever write its second one.
    if spec.kind.access() == CommandAccess::Writes
        && !dry_run
        && args.yes
        && (max_wait as f64) < write_interval
    {
        let named = if args.max_wait.is_some() {
            format!("--max-wait {max_wait}")
        } else {
            format!("max_wait_seconds = {max_wait}")
        };
        return Err(format!(
            "invalid {named}: shorter than the write interval ({write_interval} s) every write waits after the one before, so no run could ever send its second write; allow at least {} s, or lower the write interval",
            write_interval.ceil()
        ));
    }
    let rerun_prefix = rerun_prefix(args, spec, env, &repos, &orgs);
    Ok(Settings {
        repos,
        only,
        budget,
        yes: args.yes,
        dry_run,
        write_interval: Duration::from_secs_f64(write_interval),
        max_writes: args.max_writes.or(file.max_writes),
        max_wait: Duration::from_secs(max_wait),
        recheck_after: Duration::from_secs(file.recheck_after_seconds.unwrap_or(120)),
        settle_after: Duration::from_secs(file.settle_after_seconds.unwrap_or(120)),
        retry: RetryPolicy {
            retries: file.read_retries.unwrap_or(3),
            backoff: Duration::from_millis(file.retry_backoff_ms.unwrap_or(1000)),
            max_wait: Duration::from_secs(file.max_retry_wait_seconds.unwrap_or(60)),
        },
        timeout: Duration::from_secs(file.timeout_seconds.unwrap_or(30)),
        search_interval: Duration::from_millis(file.search_interval_ms.unwrap_or(2000)),
        read_api,
        api_base,
        db_given: args.db.is_some() || postgres.is_some(),
        db,
        postgres,
        runs,
        snapshot: args.snapshot.clone().zip(snapshot),
        save_snapshot: args.save_snapshot.clone(),
        config_path,
        stale: file.stale,
        poll: file.poll,
        sweep,
        orgs,
        confirm: spec.confirm,
        rerun_prefix,
        warnings,
        now,
        now_given: args.now.is_some() || env.get("GH_SWEEP_TEST_NOW").is_some(),
    })
}

/// The config file found and read, the workflow's `[stale]` inputs put over it, and every
/// table validated; `GH_SWEEP_SWEEP_ENABLED` beats `[sweep] enabled`.
fn load_rules(
    args: &Flags,
    spec: &Spec<'_>,
    env: &Env,
    cwd: &Path,
) -> Result<(Option<PathBuf>, FileConfig, SweepRules, Vec<String>), String> {
    let config_path = find_config(args.config.as_deref(), env, cwd)
        .map_err(|error| config_source_error(error, args, env))?;
    let mut file = match &config_path {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|error| format!("cannot read config file {}: {error}", path.display()))?;
            parse_file(&text, path.strip_prefix(cwd).unwrap_or(path))?
        }
        None => FileConfig::default(),
    };
    check_ranges(&file)?;
    let mut warnings = Vec::new();
    if let Some(found) = stale_inputs(spec.workflow, spec.action_inputs, env) {
        let (table, found, source) = found?;
        warnings.extend(found);
        file.stale = overlay_stale(&file.stale, table)
            .map_err(|error| format!("invalid actions/stale inputs in {source}: {error}"))?;
    }
    file.stale.validate()?;
    file.poll.validate()?;
    let mut sweep = std::mem::take(&mut file.sweep);
    if let Some(enabled) = env.get("GH_SWEEP_SWEEP_ENABLED") {
        sweep.enabled = match enabled.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => true,
            "false" | "0" | "no" => false,
            other => {
                return Err(format!(
                    "invalid GH_SWEEP_SWEEP_ENABLED `{other}`: use true or false"
                ))
            }
        };
    }
    sweep.validate()?;
    Ok((config_path, file, sweep, warnings))
}

/// `--org` logins, checked, each once.
fn check_orgs(given: &[String]) -> Result<Vec<String>, String> {
    let mut orgs: Vec<String> = Vec::new();
    for org in given {
        let valid = !org.is_empty() && org.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !valid {
            return Err(format!(
                "invalid organisation `{org}`: write its login, e.g. `rust-lang`"
            ));
        }
        if !orgs.contains(org) {
            orgs.push(org.clone());
        }
    }
    Ok(orgs)
}

/// The item-failure budget: the flag (or its variable, named as such in an error), the file,
/// the default.
fn resolve_budget(args: &Flags, file: &FileConfig, env: &Env) -> Result<FailureBudget, String> {
    match (&args.item_failure_budget, &file.item_failure_budget) {
        (Some(flag), _) => flag.parse::<FailureBudget>().map_err(|error| {
            let source = flag_or_variable(
                "item_failure_budget",
                "GH_SWEEP_ITEM_FAILURE_BUDGET",
                flag,
                env,
            );
            error.replacen("item_failure_budget", &source, 1)
        }),
        (None, Some(value)) => value.parse::<FailureBudget>(),
        (None, None) => Ok(FailureBudget::default()),
    }
}

/// `--now`, parsed, else the real clock.
fn given_clock(args: &Flags) -> Result<chrono::DateTime<chrono::Utc>, String> {
    match &args.now {
        Some(text) => chrono::DateTime::parse_from_rfc3339(text)
            .map(|time| time.with_timezone(&chrono::Utc))
            .map_err(|_| {
                format!("invalid --now `{text}`: use an RFC 3339 time such as 2026-11-29T12:00:00Z")
            }),
        None => Ok(crate::clock::wall()),
    }
}

/// The database's path (a PostgreSQL store's too, for the local rerun files), and every file
/// this run will write checked for a folder to go in.
fn check_outputs(
    args: &Flags,
    env: &Env,
    file_db: Option<&str>,
) -> Result<(PathBuf, Option<crate::store::Target>), String> {
    let given = args
        .db
        .as_ref()
        .map(|path| (path.display().to_string(), true))
        .or_else(|| file_db.map(|text| (text.to_string(), false)));
    let (db, postgres) = match given {
        Some((text, flag)) => {
            let name = if flag {
                flag_or_variable("--db", "GH_SWEEP_DB", &text, env)
            } else {
                "db in the config".to_string()
            };
            match super::store::named(&text, env, &name)? {
                super::store::Named::Postgres(target) => (
                    default_db(env).unwrap_or_else(|_| PathBuf::from("state.db")),
                    Some(target),
                ),
                super::store::Named::File(path) => {
                    check_output_folder(&path, &name)?;
                    (path, None)
                }
            }
        }
        None => (default_db(env)?, None),
    };
    if let Some(path) = &args.save_snapshot {
        check_output_folder(path, "--save-snapshot")?;
    }
    if let Some(summary) = env.get("GITHUB_STEP_SUMMARY") {
        check_output_folder(Path::new(summary), "GITHUB_STEP_SUMMARY")?;
    }
    Ok((db, postgres))
}

/// Whether the run is dry, and its clock; refuses a clock of one's choosing on a run that
/// writes, and a run that would write or ask with no terminal to confirm on.
fn check_run(
    args: &Flags,
    spec: &Spec<'_>,
    interactive: bool,
    env: &Env,
    now: chrono::DateTime<chrono::Utc>,
    debug_only: bool,
) -> Result<(bool, chrono::DateTime<chrono::Utc>), String> {
    let access = spec.kind.access();
    // `[stale] debug_only` (actions/stale's `debug-only`) is a dry run.
    let dry_run = args.dry_run || args.snapshot.is_some() || debug_only;
    // A clock of one's choosing would put wrong dates on real writes (and in the journal that
    // settles them): only runs that write nothing take one.
    if args.now.is_some() && access != CommandAccess::ReadOnly && !dry_run {
        return Err(
            "--now moves the run's clock, which only classify and dry runs may do: drop --now, or add --dry-run"
                .to_string(),
        );
    }
    let now = match test_clock(env)? {
        Some(clock) => clock,
        None => now,
    };
    if access == CommandAccess::Writes && !dry_run && !args.yes && !interactive {
        return Err(
            "refusing to write without a terminal to confirm on: pass --yes to write, or --dry-run to preview"
                .to_string(),
        );
    }
    if spec.confirm && !interactive && !args.yes && !dry_run {
        return Err("--confirm asks on a terminal, and there is none: drop --confirm, or pass --dry-run to preview".to_string());
    }
    Ok((dry_run, now))
}

/// The command line a rerun starts with: the subcommand, its pool, and every setting given as a
/// flag (values from the environment are left to it).
fn rerun_prefix(
    args: &Flags,
    spec: &Spec<'_>,
    env: &Env,
    repos: &[RepoRef],
    orgs: &[String],
) -> String {
    let mut rerun = vec!["gh-sweep".to_string(), spec.kind.words().to_string()];
    for repo in repos {
        rerun.push("--repo".into());
        rerun.push(repo.to_string());
    }
    for org in orgs {
        rerun.push("--org".into());
        rerun.push(org.clone());
    }
    if spec.action_inputs {
        rerun.push("--from-action-inputs".into());
    }
    let mut flag = |name: &str, value: Option<String>| {
        if let Some(value) = value {
            rerun.push(name.to_string());
            rerun.push(shell_quote(&value));
        }
    };
    // Values that came from the environment are left to it (the rerun runs where this run
    // did, cron's environment included); only what was given as a flag is carried.
    let from_flag = |flag: &str, variable: &str, value: Option<String>| {
        value.filter(|value| flag_or_variable(flag, variable, value, env) == flag)
    };
    let config_flag = from_flag(
        "--config",
        "GH_SWEEP_CONFIG",
        args.config.as_ref().map(|path| path.display().to_string()),
    );
    // A database URL is repeated without its password (it stays where it was given).
    let db_flag = from_flag(
        "--db",
        "GH_SWEEP_DB",
        args.db.as_ref().map(|path| path.display().to_string()),
    )
    .map(|db| crate::store::location::shown(&db));
    let budget_flag = from_flag(
        "--item-failure-budget",
        "GH_SWEEP_ITEM_FAILURE_BUDGET",
        args.item_failure_budget.clone(),
    );
    flag("--config", config_flag);
    flag(
        "--from-workflow",
        spec.workflow.map(|path| path.display().to_string()),
    );
    flag("--db", db_flag);
    // A replay's rerun line replays too: without the snapshot it would read GitHub live.
    flag(
        "--snapshot",
        args.snapshot
            .as_ref()
            .map(|path| path.display().to_string()),
    );
    flag("--api-url", args.api_url.clone());
    flag("--read-api", args.read_api.clone());
    flag("--item-failure-budget", budget_flag);
    flag(
        "--write-interval",
        args.write_interval.map(|value| value.to_string()),
    );
    flag(
        "--max-writes",
        args.max_writes.map(|value| value.to_string()),
    );
    flag("--max-wait", args.max_wait.map(|value| value.to_string()));
    // Pasted, `poll --confirm`'s rerun line asks again, as the first run did.
    if spec.confirm {
        rerun.push("--confirm".into());
    }
    if args.json {
        rerun.push("--json".into());
    }
    rerun.join(" ")
}
