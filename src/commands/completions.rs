//! `gh-sweep completions SHELL`: completions generated from the clap definitions. The files in
//! `completions/` are this output, checked by a test.

use clap::CommandFactory;
use clap_complete::{generate, shells};

use anyhow::Context as _;

use super::Context;
use crate::cli::{Cli, ManArgs, Shell};
use crate::exit::Fatal;

/// The main man page, from the same definitions.
pub fn man() -> anyhow::Result<Vec<u8>> {
    let mut pages = man_pages()?;
    Ok(pages.remove(0).roff)
}

/// One man page.
pub struct ManPage {
    /// The subcommand's words (`["classify", "stale"]`), empty for the main page.
    pub words: Vec<String>,
    /// `gh-sweep-classify-stale.1`.
    pub file: String,
    pub roff: Vec<u8>,
}

/// Every man page, the main one first, then one per subcommand (depth first), as (file name,
/// roff). Each lists its options (the global ones too), and ends with ENVIRONMENT, FILES,
/// EXIT STATUS and SEE ALSO; the subcommands a page lists are exactly the pages there are
/// (no `help` page: `--help` is an option).
pub fn man_pages() -> anyhow::Result<Vec<ManPage>> {
    fn collect(
        command: &clap::Command,
        words: Vec<String>,
        pages: &mut Vec<ManPage>,
    ) -> anyhow::Result<()> {
        // The release's version alone: the commit would change the committed pages with
        // every commit.
        let shown = if words.is_empty() {
            command.clone().version(env!("CARGO_PKG_VERSION"))
        } else {
            command.clone()
        };
        let man = clap_mangen::Man::new(shown);
        let mut roff = Vec::new();
        man.render(&mut roff)?;
        let roff = String::from_utf8_lossy(&roff).to_string();
        pages.push(ManPage {
            roff: with_sections(&roff, !words.is_empty()).into_bytes(),
            file: man.get_filename(),
            words: words.clone(),
        });
        for subcommand in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
            let mut words = words.clone();
            words.push(subcommand.get_name().to_string());
            collect(subcommand, words, pages)?;
        }
        Ok(())
    }
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    let mut pages = Vec::new();
    collect(&command, Vec::new(), &mut pages)?;
    Ok(pages)
}

/// `gh-sweep man [SUBCOMMAND...] [--out-dir DIR]`.
pub fn run_man(context: &Context, args: &ManArgs) -> anyhow::Result<i32> {
    let pages = man_pages()?;
    let text = |roff: &[u8]| format!("{}\n", String::from_utf8_lossy(roff).trim_end());
    if let Some(dir) = &args.out_dir {
        for page in &pages {
            let path = dir.join(&page.file);
            std::fs::write(&path, text(&page.roff))
                .with_context(|| format!("writing the man page {}", path.display()))?;
        }
        context.ui.status(&format!(
            "Wrote {} man pages to {}.",
            pages.len(),
            dir.display()
        ));
        return Ok(crate::exit::SUCCESS);
    }
    match pages.iter().find(|page| page.words == args.subcommand) {
        Some(page) => {
            context.ui.data(text(&page.roff).trim_end());
            Ok(crate::exit::SUCCESS)
        }
        None => {
            let known: Vec<String> = pages
                .iter()
                .skip(1)
                .map(|page| page.words.join(" "))
                .collect();
            Err(Fatal::Usage(format!(
                "no man page for `{}`: the pages are for {}",
                args.subcommand.join(" "),
                known.join(", ")
            ))
            .into())
        }
    }
}

/// Escapes text for roff: backslashes, hyphens (so they stay hyphens), and a leading dot or
/// quote (which would start a request).
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// The environment gh-sweep reads, in words.
const ENVIRONMENT: &[(&str, &str)] = &[
    ("GH_TOKEN, GITHUB_TOKEN", "The token for github.com and *.ghe.com, in this order; else `gh auth token --hostname HOST`. gh-sweep says where its token came from, never what it is."),
    ("GH_ENTERPRISE_TOKEN, GITHUB_ENTERPRISE_TOKEN", "The token for GitHub Enterprise Server, in this order."),
    ("GITHUB_API_URL, GH_HOST", "The API base when --api-url is not given (GitHub Actions sets GITHUB_API_URL); else https://api.github.com."),
    ("GH_SWEEP_CONFIG", "The config file, as --config."),
    ("GH_SWEEP_DB", "The state database, as --db: a SQLite file's path, or a postgres:// URL for the store several hosts share."),
    ("PGPASSWORD, PGPASSFILE", "The PostgreSQL password when the URL has none; else the passfile (default ~/.pgpass, ignored when others can read it). Never shown."),
    ("PGSSLROOTCERT", "A private CA that verifies the PostgreSQL server's certificate, as sslrootcert= in the URL."),
    ("GH_SWEEP_HOST", "The name this host goes by among those sharing a store; a label for people, never what a run's liveness rests on (default: its hostname)."),
    ("GH_SWEEP_PAGER, PAGER", "At a terminal, a plan taller than the screen goes through this pager (run by sh, LESS=FRX when LESS is unset); empty or cat: none."),
    ("GH_SWEEP_ITEM_FAILURE_BUDGET", "The item-failure budget, as --item-failure-budget."),
    ("GH_SWEEP_SWEEP_ENABLED", "true or false: over `enabled` in the config file's [sweep] table."),
    ("XDG_CONFIG_HOME, XDG_STATE_HOME, HOME", "Where the user's config file and the state database are (see FILES)."),
    ("NO_COLOR", "When set and not empty, no colour unless --color always."),
    ("CI", "When set, no progress bar."),
    ("GITHUB_STEP_SUMMARY", "Inside GitHub Actions, each run's recap is appended to this file as Markdown."),
];

/// The files gh-sweep reads and writes.
const FILES: &[(&str, &str)] = &[
    (".github/gh-sweep.toml", "The repository's config file, looked for in the current folder first."),
    ("$XDG_CONFIG_HOME/gh-sweep/config.toml", "The user's config file (default ~/.config/gh-sweep/config.toml), when the repository has none."),
    ("$XDG_STATE_HOME/gh-sweep/state.db", "The state database (default ~/.local/state/gh-sweep/state.db): runs and their recaps, the merge queue, the write journal, HTTP validators. Created with mode 0600."),
    ("$XDG_STATE_HOME/gh-sweep/rerun/run-N.txt", "The items of run N's rerun line, when they are too many for one command line (--only @FILE)."),
];

/// Appends ENVIRONMENT, FILES, EXIT STATUS and SEE ALSO to a page clap_mangen rendered, in place
/// of its EXTRA section (the `--help` epilogue: the exit codes and the token, said here in their
/// own sections).
fn with_sections(roff: &str, subcommand: bool) -> String {
    let (body, version) = match roff.find("\n.SH VERSION\n") {
        Some(at) => roff.split_at(at + 1),
        None => (roff, ""),
    };
    let body = match body.find("\n.SH EXTRA\n") {
        Some(at) => &body[..at + 1],
        None => body,
    };
    let mut out = body.to_string();
    let list = |out: &mut String, title: &str, entries: &[(&str, &str)]| {
        out.push_str(&format!(".SH {title}\n"));
        for (term, text) in entries {
            out.push_str(&format!(
                ".TP\n\\fB{}\\fR\n{}\n",
                roff_text(term),
                roff_text(text)
            ));
        }
    };
    list(&mut out, "ENVIRONMENT", ENVIRONMENT);
    list(&mut out, "FILES", FILES);
    out.push_str(".SH \"EXIT STATUS\"\n");
    for line in crate::exit::HELP
        .lines()
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
    {
        let line = line.trim();
        let (code, meaning) = line.split_once(' ').unwrap_or((line, ""));
        if code.chars().all(|c| c.is_ascii_digit()) {
            out.push_str(&format!(
                ".TP\n\\fB{code}\\fR\n{}\n",
                roff_text(meaning.trim())
            ));
        } else {
            // A meaning continued on the next line.
            out.push_str(&format!("{}\n", roff_text(line)));
        }
    }
    out.push_str(version);
    if subcommand {
        out.push_str(".SH \"SEE ALSO\"\n\\fBgh\\-sweep\\fR(1)\n");
    }
    out
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
        Shell::Bash => bash_folders(bash_hyphenated_name(&out)),
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

/// A path's completion in clap_complete's bash script is `compgen -f`: a folder comes back as
/// a finished word (`.github ` with a space), so Tab never goes on into it. Folders end with
/// `/`, and when the one match is a folder no space follows it, as bash's own file completion
/// does.
fn bash_folders(script: Vec<u8>) -> Vec<u8> {
    const FILES: &str = r#"
_gh_sweep_files() {
    local IFS=$'\n' entry
    COMPREPLY=()
    for entry in $(compgen -f -- "$1"); do
        if [[ -d "$entry" ]]; then
            COMPREPLY+=("$entry/")
        else
            COMPREPLY+=("$entry")
        fi
    done
    if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]]; then
        compopt -o nospace 2>/dev/null
    fi
    return 0
}
"#;
    let text = String::from_utf8_lossy(&script).replace(
        r#"COMPREPLY=($(compgen -f "${cur}"))"#,
        r#"_gh_sweep_files "${cur}""#,
    );
    format!("{}{text}", FILES.trim_start()).into_bytes()
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
