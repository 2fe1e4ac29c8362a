//! `gh-sweep completions SHELL`: completions generated from the clap definitions. The files in
//! `completions/` are this output, checked by a test.

use clap::CommandFactory;
use clap_complete::{generate, shells};

use crate::cli::{Cli, Shell};

/// The man page, from the same definitions.
pub fn man() -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut out)?;
    Ok(out)
}

pub fn render(shell: Shell) -> Vec<u8> {
    let mut command = Cli::command();
    let mut out = Vec::new();
    match shell {
        Shell::Bash => generate(shells::Bash, &mut command, "gh-sweep", &mut out),
        Shell::Zsh => generate(shells::Zsh, &mut command, "gh-sweep", &mut out),
        Shell::Fish => generate(shells::Fish, &mut command, "gh-sweep", &mut out),
        Shell::Powershell => generate(shells::PowerShell, &mut command, "gh-sweep", &mut out),
    }
    out
}
