//! `gh-sweep stale-sweep`: the stale rules over a repository's open issues and PRs.

use super::{run_engine, Context};
use crate::cli::{GlobalArgs, StaleSweepArgs};
use crate::engine::stale::StaleKind;
use crate::engine::Mode;
use crate::settings::{self, CommandKind, Spec};

pub fn run(
    context: &Context,
    given: &StaleSweepArgs,
    global: &GlobalArgs,
    cwd: &std::path::Path,
) -> anyhow::Result<i32> {
    let args = &super::flags(
        global,
        &given.scope,
        &given.read,
        &given.dry_run,
        Some(&given.write),
    );
    let stale = &given.stale;
    if stale.print_config {
        return super::print_stale_config(context, stale, args, cwd);
    }
    let spec = Spec {
        workflow: stale.from_workflow.as_deref(),
        action_inputs: stale.from_action_inputs,
        ..Spec::new(CommandKind::StaleSweep)
    };
    let settings = settings::resolve(args, &spec, context.ui.interactive, &context.env, cwd)?;
    let rules = settings.stale.clone();
    let mut classifier = StaleKind::new(&rules, !settings.now_given);
    run_engine(
        context,
        settings,
        "stale-sweep",
        Mode::Sweep,
        &mut classifier,
    )
}
