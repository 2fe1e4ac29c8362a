//! `gh-sweep poll`: one merge-on-green tick (seed 000) over the queue (seed 002).

use super::{run_engine, Context};
use crate::cli::{GlobalArgs, PollArgs};
use crate::engine::merge::MergeKind;
use crate::settings::{self, CommandKind, RunArgs, Spec};

pub fn run(
    context: &Context,
    poll: &PollArgs,
    global: &GlobalArgs,
    cwd: &std::path::Path,
) -> anyhow::Result<i32> {
    let kind = CommandKind::Poll;
    let args = RunArgs {
        common: context.common_args(kind, global, &poll.read, &poll.write),
        scope: &poll.scope,
        dry_run: poll.dry_run.dry_run,
        spec: Spec {
            orgs: &poll.org.orgs,
            confirm: poll.confirm,
            ..Spec::new(kind)
        },
    };
    let settings = settings::resolve(&args, context.ui.interactive, &context.env, cwd)?;
    let rules = settings.poll.clone();
    let mut classifier = MergeKind::new(&rules, false, !settings.dry_run)?;
    run_engine(context, settings, &mut classifier)
}
