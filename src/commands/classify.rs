//! `gh-sweep classify stale|merge`: the read phase of `stale-sweep` or `poll` alone. Writes
//! nothing to GitHub or the queue; the run is recorded like any other.

use super::{run_engine, Context};
use crate::cli::{ClassifyCommand, GlobalArgs, WriteArgs};
use crate::engine::merge::MergeKind;
use crate::engine::stale::StaleKind;
use crate::settings::{self, CommandKind, RunArgs, Spec};

pub fn run(
    context: &Context,
    command: &ClassifyCommand,
    global: &GlobalArgs,
    cwd: &std::path::Path,
) -> anyhow::Result<i32> {
    // Classifying writes nothing: the limits on writes stay at their defaults.
    let no_writes = WriteArgs::default();
    let interactive = context.ui.interactive;
    match command {
        ClassifyCommand::Stale(given) => {
            let stale = &given.stale;
            if stale.print_config {
                return super::print_stale_config(context, stale, &given.read, cwd);
            }
            let kind = CommandKind::ClassifyStale;
            let args = RunArgs {
                common: context.common_args(kind, global, &given.read, &no_writes),
                scope: &given.scope,
                dry_run: given.dry_run.dry_run,
                spec: Spec {
                    workflow: stale.from_workflow.as_deref(),
                    action_inputs: stale.from_action_inputs,
                    ..Spec::new(kind)
                },
            };
            let settings = settings::resolve(&args, interactive, &context.env, cwd)?;
            let rules = settings.stale.clone();
            let mut classifier = StaleKind::new(&rules, !settings.now_given);
            run_engine(context, settings, &mut classifier)
        }
        ClassifyCommand::Merge(given) => {
            let kind = CommandKind::ClassifyMerge;
            let args = RunArgs {
                common: context.common_args(kind, global, &given.read, &no_writes),
                scope: &given.scope,
                dry_run: given.dry_run.dry_run,
                spec: Spec {
                    orgs: &given.org.orgs,
                    ..Spec::new(kind)
                },
            };
            let settings = settings::resolve(&args, interactive, &context.env, cwd)?;
            let rules = settings.poll.clone();
            let mut classifier = MergeKind::new(&rules, true, false)?;
            run_engine(context, settings, &mut classifier)
        }
    }
}
