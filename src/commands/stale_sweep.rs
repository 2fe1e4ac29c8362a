//! `gh-sweep stale-sweep`: the stale rules over a repository's open issues and PRs.

use super::{run_engine, Context};
use crate::cli::{GlobalArgs, StaleSweepArgs};
use crate::engine::stale::StaleKind;
use crate::settings::{self, CommandKind, RunArgs, Spec};

pub fn run(
    context: &Context,
    given: &StaleSweepArgs,
    global: &GlobalArgs,
    cwd: &std::path::Path,
) -> anyhow::Result<i32> {
    let stale = &given.stale;
    if stale.print_config {
        return super::print_stale_config(context, stale, &given.read, cwd);
    }
    let kind = CommandKind::StaleSweep;
    let args = RunArgs {
        common: context.common_args(kind, global, &given.read, &given.write),
        scope: &given.scope,
        dry_run: given.dry_run.dry_run,
        spec: Spec {
            workflow: stale.from_workflow.as_deref(),
            action_inputs: stale.from_action_inputs,
            ..Spec::new(kind)
        },
    };
    let settings = settings::resolve(&args, context.ui.interactive, &context.env, cwd)?;
    let rules = settings.stale.clone();
    let mut classifier = StaleKind::new(&rules, !settings.now_given);
    run_engine(context, settings, &mut classifier)
}
