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
    match shell {
        Shell::Bash => bash_hyphenated_name(&out),
        Shell::Fish => fish_positional_values(out, &command),
        Shell::Zsh | Shell::Powershell => out,
    }
}

/// clap_complete's bash script spells the state of a hyphenated binary two ways: the loop over
/// the words builds `gh__sweep__subcmd__poll`, the `case` arms test `gh__subcmd__sweep__subcmd__poll`,
/// so nothing past the first word ever completed (clap-rs/clap#6421). The arms are respelled the
/// loop's way.
fn bash_hyphenated_name(script: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(script)
        .replace("gh__subcmd__sweep", "gh__sweep")
        .into_bytes()
}

/// clap_complete's fish script offers no values for a subcommand's positional argument (the
/// shell of `completions SHELL`), so fish offered file names there. One line per such
/// argument offers its possible values.
fn fish_positional_values(mut script: Vec<u8>, command: &clap::Command) -> Vec<u8> {
    for subcommand in command.get_subcommands() {
        for argument in subcommand.get_positionals() {
            let values: Vec<String> = argument
                .get_possible_values()
                .iter()
                .filter(|value| !value.is_hide_set())
                .map(|value| value.get_name().to_string())
                .collect();
            if values.is_empty() {
                continue;
            }
            script.extend_from_slice(
                format!(
                    "complete -c gh-sweep -n \"__fish_gh_sweep_using_subcommand {}\" -f -a \"{}\"\n",
                    subcommand.get_name(),
                    values.join(" ")
                )
                .as_bytes(),
            );
        }
    }
    script
}
