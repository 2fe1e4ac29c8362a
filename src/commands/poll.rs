//! `gh-sweep poll`: one merge-on-green tick (seed 000) over the queue (seed 002).

use super::{run_engine, Context};
use crate::cli::{GlobalArgs, PollArgs};
use crate::engine::merge::MergeKind;
use crate::engine::Mode;
use crate::settings::{self, CommandKind, Spec};

pub fn run(
    context: &Context,
    poll: &PollArgs,
    global: &GlobalArgs,
    cwd: &std::path::Path,
) -> anyhow::Result<i32> {
    let args = &super::flags(
        global,
        &poll.scope,
        &poll.read,
        &poll.dry_run,
        Some(&poll.write),
    );
    let spec = Spec {
        orgs: &poll.org.orgs,
        confirm: poll.confirm,
        ..Spec::new(CommandKind::Poll)
    };
    let settings = settings::resolve(args, &spec, context.ui.interactive, &context.env, cwd)?;
    let rules = settings.poll.clone();
    let mut classifier = MergeKind::new(&rules, false, !settings.dry_run)?;
    run_engine(context, settings, "poll", Mode::Sweep, &mut classifier)
}
