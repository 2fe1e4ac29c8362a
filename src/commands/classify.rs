//! `gh-sweep classify stale|merge`: the read phase of `stale-sweep` or `poll` alone. Writes
//! nothing to GitHub or the queue; the run is recorded like any other.

use super::{run_engine, Context};
use crate::cli::{ClassifyCommand, GlobalArgs};
use crate::engine::merge::MergeKind;
use crate::engine::stale::StaleKind;
use crate::engine::Mode;
use crate::settings::{self, CommandKind, Spec};

pub fn run(
    context: &Context,
    command: &ClassifyCommand,
    global: &GlobalArgs,
    cwd: &std::path::Path,
) -> anyhow::Result<i32> {
    match command {
        ClassifyCommand::Stale(given) => {
            let args = &super::flags(global, &given.scope, &given.read, &given.dry_run, None);
            let stale = &given.stale;
            if stale.print_config {
                return super::print_stale_config(context, stale, args, cwd);
            }
            let spec = Spec {
                workflow: stale.from_workflow.as_deref(),
                action_inputs: stale.from_action_inputs,
                ..Spec::new(CommandKind::ClassifyStale)
            };
            let settings =
                settings::resolve(args, &spec, context.ui.interactive, &context.env, cwd)?;
            let rules = settings.stale.clone();
            let mut classifier = StaleKind::new(&rules, !settings.now_given);
            run_engine(
                context,
                settings,
                "classify stale",
                Mode::Classify,
                &mut classifier,
            )
        }
        ClassifyCommand::Merge(given) => {
            let args = &super::flags(global, &given.scope, &given.read, &given.dry_run, None);
            let spec = Spec {
                orgs: &given.org.orgs,
                ..Spec::new(CommandKind::ClassifyMerge)
            };
            let settings =
                settings::resolve(args, &spec, context.ui.interactive, &context.env, cwd)?;
            let rules = settings.poll.clone();
            let mut classifier = MergeKind::new(&rules, true, false)?;
            run_engine(
                context,
                settings,
                "classify merge",
                Mode::Classify,
                &mut classifier,
            )
        }
    }
}
