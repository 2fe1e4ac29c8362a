//! `gh-sweep stale-sweep`: the stale rules over a repository's open issues and PRs.

use super::{run_engine, Context};
use crate::cli::GlobalArgs;
use crate::config::{self, Access, Spec};
use crate::engine::stale::StaleClassifier;
use crate::engine::Mode;

pub fn run(context: &Context, args: &GlobalArgs, cwd: &std::path::Path) -> anyhow::Result<i32> {
    let spec = Spec::new("stale-sweep", Access::Writes);
    let settings = config::resolve(args, &spec, context.ui.interactive, &context.env, cwd)?;
    let rules = settings.stale.clone();
    let mut classifier = StaleClassifier::new(&rules);
    run_engine(
        context,
        settings,
        "stale-sweep",
        Mode::Sweep,
        &mut classifier,
    )
}
