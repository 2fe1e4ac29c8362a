//! The start of a run's rerun line: the subcommand, its pool, and every setting given as a
//! flag. Values clap took from the environment ([`super::Sources`]) are left to it: the rerun
//! runs where this run did, cron's environment included.

use super::run::RunArgs;
use crate::item::RepoRef;
use crate::policy::recap::shell_quote;

/// The command line a rerun starts with (everything but `--only`).
pub(super) fn prefix(args: &RunArgs<'_>, repos: &[RepoRef], orgs: &[String]) -> String {
    let spec = &args.spec;
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
    for (flag, value) in carried(args) {
        if let Some(value) = value {
            rerun.push(flag.to_string());
            rerun.push(shell_quote(&value));
        }
    }
    // Pasted, `poll --confirm`'s rerun line asks again, as the first run did.
    if spec.confirm {
        rerun.push("--confirm".into());
    }
    if args.common.json {
        rerun.push("--json".into());
    }
    rerun.join(" ")
}

/// The flags a rerun carries, in the order it carries them, with this run's values.
fn carried(args: &RunArgs<'_>) -> [(&'static str, Option<String>); 10] {
    let (read, write) = (args.common.read, args.common.write);
    let sources = args.common.sources;
    // Only what was given as a flag is carried.
    let flag = |id: &str, value: Option<String>| value.filter(|_| sources.variable(id).is_none());
    let shown = |path: &std::path::Path| path.display().to_string();
    [
        (
            "--config",
            flag("config", read.config.as_deref().map(shown)),
        ),
        ("--from-workflow", args.spec.workflow.map(shown)),
        // A database URL is repeated without its password (it stays where it was given).
        (
            "--db",
            flag("db", read.db.db.as_deref().map(shown))
                .map(|db| crate::store::location::shown(&db)),
        ),
        // A replay's rerun line replays too: without the snapshot it would read GitHub live.
        ("--snapshot", read.snapshot.as_deref().map(shown)),
        ("--api-url", read.api_url.clone()),
        ("--read-api", read.read_api.clone()),
        (
            "--item-failure-budget",
            flag("item_failure_budget", read.item_failure_budget.clone()),
        ),
        (
            "--write-interval",
            write.write_interval.map(|value| value.to_string()),
        ),
        (
            "--max-writes",
            write.max_writes.map(|value| value.to_string()),
        ),
        ("--max-wait", write.max_wait.map(|value| value.to_string())),
    ]
}
