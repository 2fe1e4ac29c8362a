//! `gh-sweep sweep`: carry out the merges `poll` queued, and recover approved PRs whose trigger
//! was lost (seeds 001 and 002).

use super::{run_engine, Context};
use crate::cli::{GlobalArgs, SweepArgs};
use crate::engine::sweep::SweepKind;
use crate::settings::{self, CommandKind, RunArgs, Spec};

pub fn run(
    context: &Context,
    sweep: &SweepArgs,
    global: &GlobalArgs,
    cwd: &std::path::Path,
) -> anyhow::Result<i32> {
    let kind = CommandKind::Sweep;
    let args = RunArgs {
        common: context.common_args(kind, global, &sweep.read, &sweep.write),
        scope: &sweep.scope,
        dry_run: sweep.dry_run.dry_run,
        spec: Spec::new(kind),
    };
    let settings = settings::resolve(&args, context.ui.interactive, &context.env, cwd)?;
    let (sweep, poll) = (settings.sweep.clone(), settings.poll.clone());
    let now = settings.now;
    // The lease owner until the run is recorded; then its leases name the run (`run-N`), which
    // is unique per store, so an overlapping run cannot finish our rows and the next run can
    // tell whether we are still at work.
    let owner = format!("sweep-{}-{}", std::process::id(), now.timestamp_micros());
    let mut classifier = SweepKind::new(&sweep, &poll, !settings.dry_run, owner, now)?;
    run_engine(context, settings, &mut classifier)
}
