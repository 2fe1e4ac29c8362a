//! A run's own settings (`stale-sweep`, `classify`, `poll`, `sweep`), resolved from the common
//! layer and the run's own options: its pool, its rules, whether it is dry, its store, its
//! clock, and the rerun line. Everything is validated here, before anything is read; a bad
//! value is an error that names it and the fix.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::common::{CommonArgs, CommonSettings, ReadApi, RunCommon};
use super::env::Env;
use super::error::SettingsError;
use super::file::{overlay_stale, FileConfig};
use super::flags::{CommandAccess, CommandKind, Spec};
use super::paths::check_output_folder;
use super::pool::{Pool, ResolvedPool};
use super::store::StoreChoice;
use crate::cli::ScopeArgs;
use crate::github::snapshot::Snapshot;
use crate::item::{ItemRef, RepoRef};
use crate::policy::merge::PollRules;
use crate::policy::stale::StaleRules;
use crate::policy::sweep::SweepRules;

/// What a run was given: the common options, its pool, `--dry-run`, and its own options.
pub struct RunArgs<'a> {
    pub common: CommonArgs<'a>,
    pub scope: &'a ScopeArgs,
    pub dry_run: bool,
    pub spec: Spec<'a>,
}

/// Everything a run needs, resolved and validated.
pub struct Settings {
    pub kind: CommandKind,
    /// What every run shares: the API, the budget, the limits on writes, the timings.
    pub common: RunCommon,
    pub config_path: Option<PathBuf>,
    /// Which API reads go through.
    pub read_api: ReadApi,
    pub repos: Vec<RepoRef>,
    pub only: Option<BTreeSet<ItemRef>>,
    /// Organisations whose repositories make the pool (`poll`, `classify merge`).
    pub orgs: Vec<String>,
    /// Ask before local writes too (`poll --confirm`).
    pub confirm: bool,
    pub yes: bool,
    pub dry_run: bool,
    /// The SQLite file, or (with a PostgreSQL store) the local state file whose folder keeps
    /// the rerun files.
    pub db: PathBuf,
    /// The PostgreSQL store, when `--db`, `GH_SWEEP_DB` or the config's `db` names one.
    pub postgres: Option<crate::store::Target>,
    /// Whether `--db` (or `GH_SWEEP_DB`) named the database, rather than the default.
    pub db_given: bool,
    /// The snapshot to replay, loaded and checked.
    pub snapshot: Option<(PathBuf, Snapshot)>,
    pub save_snapshot: Option<PathBuf>,
    pub stale: StaleRules,
    pub poll: PollRules,
    pub sweep: SweepRules,
    /// The run's clock.
    pub now: chrono::DateTime<chrono::Utc>,
    /// Whether `--now` set the clock (then it is taken as it is, not put on GitHub's).
    pub now_given: bool,
    /// What the maintainer should know about the settings (workflow inputs not carried over).
    pub warnings: Vec<String>,
    /// The command line a rerun starts with (everything but `--only`).
    pub rerun_prefix: String,
}

impl Settings {
    /// The least time between two writes.
    pub fn write_interval(&self) -> Duration {
        Duration::from_secs_f64(self.common.limits.interval_seconds)
    }

    /// The longest a run under `--yes` waits for GitHub's write ceilings.
    pub fn max_wait(&self) -> Duration {
        Duration::from_secs(self.common.limits.max_wait_seconds)
    }

    /// Resolves a run's settings from the common layer. `interactive` is whether a maintainer
    /// can answer a prompt (stdin and stderr are terminals).
    pub fn resolve(
        args: &RunArgs<'_>,
        common: CommonSettings,
        interactive: bool,
        env: &Env,
        cwd: &Path,
    ) -> Result<Settings, SettingsError> {
        let spec = &args.spec;
        let CommonSettings {
            config_path,
            file,
            store,
            run,
            ..
        } = common;
        let run = run.ok_or_else(|| {
            SettingsError::Refused(format!("{} reads nothing from GitHub", spec.kind.words()))
        })?;
        let (file, sweep, mut warnings) = rules(file, spec, env)?;
        let orgs = check_orgs(spec.orgs)?;
        let read = args.common.read;
        let pool = Pool {
            repos: &args.scope.repos,
            only: args.scope.only.as_deref(),
            snapshot: read.snapshot.as_deref(),
            dry_run: args.dry_run,
            spec,
            interactive,
            env,
            cwd,
            api_base: &run.api_base,
            orgs: &orgs,
        };
        let ResolvedPool {
            repos,
            only,
            snapshot,
        } = pool.resolve(&mut warnings)?;
        let read_api = read_api(
            &run,
            read.read_api.as_deref(),
            snapshot.as_ref(),
            spec,
            &file,
            &mut warnings,
        )?;
        let (db, postgres) = store_for_run(&store, &run, env)?;
        check_outputs(read.save_snapshot.as_deref(), env)?;
        let debug_only = spec.kind.stale_rules() && file.stale.debug_only;
        let (dry_run, now) = check_run(args, &run, interactive, debug_only)?;
        check_wait(args, &run, dry_run)?;
        let rerun_prefix = super::rerun::prefix(args, &repos, &orgs);
        Ok(Settings {
            kind: spec.kind,
            config_path,
            read_api,
            repos,
            only,
            orgs,
            confirm: spec.confirm,
            yes: args.common.write.yes,
            dry_run,
            db_given: store.named_by_db() || postgres.is_some(),
            db,
            postgres,
            snapshot: read.snapshot.clone().zip(snapshot),
            save_snapshot: read.save_snapshot.clone(),
            stale: file.stale,
            poll: file.poll,
            sweep,
            now,
            now_given: read.now.is_some() || env.get("GH_SWEEP_TEST_NOW").is_some(),
            warnings,
            rerun_prefix,
            common: run,
        })
    }
}

/// The config file's rules with the workflow's `[stale]` inputs put over them, and every table
/// validated; `GH_SWEEP_SWEEP_ENABLED` beats `[sweep] enabled`.
fn rules(
    mut file: FileConfig,
    spec: &Spec<'_>,
    env: &Env,
) -> Result<(FileConfig, SweepRules, Vec<String>), SettingsError> {
    let mut warnings = Vec::new();
    if let Some(found) = super::stale_config::stale_inputs(spec.workflow, spec.action_inputs, env) {
        let (table, found, source) = found?;
        warnings.extend(found);
        file.stale = overlay_stale(&file.stale, table, &source)?;
    }
    file.stale
        .validate()
        .map_err(|e| SettingsError::Config(e.to_string()))?;
    file.poll
        .validate()
        .map_err(|e| SettingsError::Config(e.to_string()))?;
    let mut sweep = std::mem::take(&mut file.sweep);
    if let Some(enabled) = env.get("GH_SWEEP_SWEEP_ENABLED") {
        sweep.enabled = match enabled.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => true,
            "false" | "0" | "no" => false,
            other => {
                return Err(SettingsError::value(
                    "GH_SWEEP_SWEEP_ENABLED",
                    other,
                    "use true or false",
                ))
            }
        };
    }
    sweep
        .validate()
        .map_err(|e| SettingsError::Config(e.to_string()))?;
    Ok((file, sweep, warnings))
}

/// `--org` logins, checked, each once.
fn check_orgs(given: &[String]) -> Result<Vec<String>, SettingsError> {
    let mut orgs: Vec<String> = Vec::new();
    for org in given {
        let valid = !org.is_empty() && org.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !valid {
            return Err(SettingsError::value(
                "organisation",
                org,
                "write its login, e.g. `rust-lang`",
            ));
        }
        if !orgs.contains(org) {
            orgs.push(org.clone());
        }
    }
    Ok(orgs)
}

/// Which API the run reads GitHub's facts with (moved to REST, with a warning, for the issue
/// types). A snapshot replays with the API that read it (REST when it does not say, as
/// snapshots before GraphQL were), whatever the config says; a `--read-api` naming the other
/// one is refused, since the snapshot holds no answers for it.
fn read_api(
    run: &RunCommon,
    flag: Option<&str>,
    snapshot: Option<&Snapshot>,
    spec: &Spec<'_>,
    file: &FileConfig,
    warnings: &mut Vec<String>,
) -> Result<ReadApi, SettingsError> {
    if let Some(snapshot) = snapshot {
        let recorded = snapshot.read_api.as_deref().unwrap_or("rest");
        return match flag {
            Some(flag) if flag != recorded => Err(SettingsError::Refused(format!(
                "invalid --read-api {flag} with --snapshot: the snapshot was read with {recorded}, so it replays only with --read-api {recorded}"
            ))),
            _ => ReadApi::of(Some(recorded), None),
        };
    }
    let chosen = run.read_api.unwrap_or(ReadApi::Graphql);
    // The `[stale]` table is the stale commands' own: `poll` and `sweep` are not moved by it.
    // REST's issues carry their `type` (GitHub's OpenAPI `issue-type`); the GraphQL schema
    // gh-sweep's queries are checked against has no issue type to ask for.
    if spec.kind.stale_rules()
        && chosen == ReadApi::Graphql
        && !file.stale.only_issue_types.is_empty()
    {
        warnings.push(
            "[stale] only_issue_types needs each issue's type, which the REST API gives: this run reads through REST".to_string(),
        );
        return Ok(ReadApi::Rest);
    }
    Ok(chosen)
}

/// The run's store (see [`StoreChoice::for_run`]), a PostgreSQL one with the heartbeat
/// settings.
fn store_for_run(
    store: &StoreChoice,
    run: &RunCommon,
    env: &Env,
) -> Result<(PathBuf, Option<crate::store::Target>), SettingsError> {
    let (db, postgres) = store.for_run(env)?;
    let postgres = postgres.map(|mut target| {
        target.liveness = run.liveness;
        target
    });
    Ok((db, postgres))
}

/// Every other file this run will write checked for a folder to go in.
fn check_outputs(save_snapshot: Option<&Path>, env: &Env) -> Result<(), SettingsError> {
    if let Some(path) = save_snapshot {
        check_output_folder(path, "--save-snapshot")?;
    }
    if let Some(summary) = env.get("GITHUB_STEP_SUMMARY") {
        check_output_folder(Path::new(summary), "GITHUB_STEP_SUMMARY")?;
    }
    Ok(())
}

/// Whether the run is dry, and its clock; refuses a clock of one's choosing on a run that
/// writes, and a run that would write or ask with no terminal to confirm on.
fn check_run(
    args: &RunArgs<'_>,
    run: &RunCommon,
    interactive: bool,
    debug_only: bool,
) -> Result<(bool, chrono::DateTime<chrono::Utc>), SettingsError> {
    let access = args.spec.kind.access();
    let read = args.common.read;
    let yes = args.common.write.yes;
    // `[stale] debug_only` (actions/stale's `debug-only`) is a dry run.
    let dry_run = args.dry_run || read.snapshot.is_some() || debug_only;
    // A clock of one's choosing would put wrong dates on real writes (and in the journal that
    // settles them): only runs that write nothing take one.
    if read.now.is_some() && access != CommandAccess::ReadOnly && !dry_run {
        return Err(SettingsError::Refused(
            "--now moves the run's clock, which only classify and dry runs may do: drop --now, or add --dry-run"
                .to_string(),
        ));
    }
    let now = run.test_now.unwrap_or(run.now);
    if access == CommandAccess::Writes && !dry_run && !yes && !interactive {
        return Err(SettingsError::Refused(
            "refusing to write without a terminal to confirm on: pass --yes to write, or --dry-run to preview"
                .to_string(),
        ));
    }
    if args.spec.confirm && !interactive && !yes && !dry_run {
        return Err(SettingsError::Refused("--confirm asks on a terminal, and there is none: drop --confirm, or pass --dry-run to preview".to_string()));
    }
    Ok((dry_run, now))
}

/// Under --yes a write that would wait longer than max_wait is left for a later run; when even
/// the interval between two writes is longer, no run could ever write its second one.
fn check_wait(args: &RunArgs<'_>, run: &RunCommon, dry_run: bool) -> Result<(), SettingsError> {
    let limits = run.limits;
    let (max_wait, write_interval) = (limits.max_wait_seconds, limits.interval_seconds);
    if args.spec.kind.access() == CommandAccess::Writes
        && !dry_run
        && args.common.write.yes
        && (max_wait as f64) < write_interval
    {
        let named = if limits.max_wait_flag {
            format!("--max-wait {max_wait}")
        } else {
            format!("max_wait_seconds = {max_wait}")
        };
        return Err(SettingsError::Limit(format!(
            "invalid {named}: shorter than the write interval ({write_interval} s) every write waits after the one before, so no run could ever send its second write; allow at least {} s, or lower the write interval",
            write_interval.ceil()
        )));
    }
    Ok(())
}
