//! `gh-sweep classify stale`: the read phase of `stale-sweep` alone. Writes nothing to GitHub;
//! the run is recorded like any other.

use super::{run_engine, Context};
use crate::cli::{ClassifyCommand, GlobalArgs};
use crate::config::{self, Access};
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
            let settings = config::resolve(
                args,
                "classify stale",
                Access::ReadOnly,
                context.ui.interactive,
                &context.env,
                cwd,
            )?;
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
    }
}
