//! `gh-sweep classify stale|merge`: the read phase of `stale-sweep` or `poll` alone. Writes
//! nothing to GitHub or the queue; the run is recorded like any other.

use super::{run_engine, Context};
use crate::cli::{ClassifyCommand, GlobalArgs};
use crate::config::{self, Access, Spec};
use crate::engine::merge::MergeClassifier;
use crate::engine::stale::StaleClassifier;
use crate::engine::Mode;

pub fn run(
    context: &Context,
    command: &ClassifyCommand,
    args: &GlobalArgs,
    cwd: &std::path::Path,
) -> anyhow::Result<i32> {
    match command {
        ClassifyCommand::Stale => {
            let spec = Spec::new("classify stale", Access::ReadOnly);
            let settings = config::resolve(args, &spec, context.ui.interactive, &context.env, cwd)?;
            let rules = settings.stale.clone();
            let mut classifier = StaleClassifier::new(&rules);
            run_engine(
                context,
                settings,
                "classify stale",
                Mode::Classify,
                &mut classifier,
            )
        }
        ClassifyCommand::Merge(scope) => {
            let spec = Spec {
                words: "classify merge",
                access: Access::ReadOnly,
                orgs: &scope.orgs,
                confirm: false,
            };
            let settings = config::resolve(args, &spec, context.ui.interactive, &context.env, cwd)?;
            let rules = settings.poll.clone();
            let mut classifier = MergeClassifier::new(&rules, true, false)?;
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
