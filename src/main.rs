//! gh-sweep: parse the command line, resolve the terminal and the environment once, dispatch,
//! and map the result to an exit code in one place.

use std::io::IsTerminal;
use std::process::ExitCode;

use gh_sweep::cli::{self, Cli, Command};
use gh_sweep::commands::{self, Context};
use gh_sweep::exit::{self, Fatal};
use gh_sweep::{report, settings, ui};

fn main() -> ExitCode {
    let (cli, matches) = match parse() {
        Ok(parsed) => parsed,
        Err(code) => return ExitCode::from(exit::process_code(code)),
    };
    let env = settings::Env::capture();
    let context = Context {
        clock: gh_sweep::clock::Clock::system(),
        ui: ui_of(&cli.global, &env),
        env,
        // Each word quoted for the shell as needed, so `recap --list` shows a line to paste; a
        // database URL's password is left out (the runs are kept in that database).
        argv: shown_argv(std::env::args()),
        sources: settings::Sources::new(cli::from_environment(&matches)),
    };
    let mut code = match dispatch(&cli, &context) {
        Ok(code) => code,
        Err(error) => report_error(&error),
    };
    // Output that could not be written (past a file size limit, a full disk) is not a
    // success: the run is stored, and its unknown writes are settled by the next run.
    if let Some(why) = ui::stdout_failure() {
        eprintln!("error: standard output could not be written ({why}); `gh-sweep recap` prints the stored recap");
        if code == exit::SUCCESS {
            code = exit::UNEXPECTED;
        }
    }
    // A run stopped by SIGINT or SIGTERM has printed and stored its recap; now it ends the
    // way the signal asks, so the calling shell (and a loop in it) sees that signal.
    if let Some(signal) = gh_sweep::signals::received() {
        context.ui.restore_terminal();
        gh_sweep::signals::end_by(signal);
    }
    ExitCode::from(exit::process_code(code))
}

/// The command line, parsed; else what was printed instead (help, a usage error) and the code
/// it exits with.
fn parse() -> Result<(Cli, clap::ArgMatches), i32> {
    let parsed = <Cli as clap::CommandFactory>::command()
        .try_get_matches()
        .and_then(|matches| {
            <Cli as clap::FromArgMatches>::from_arg_matches(&matches).map(|cli| (cli, matches))
        });
    let error = match parsed {
        Ok((cli, matches)) => {
            return match cli::unused_option(&matches) {
                Some(message) => Err(report_error(&Fatal::Usage(message).into())),
                None => Ok((cli, matches)),
            }
        }
        Err(error) => error,
    };
    let argv: Vec<String> = std::env::args().collect();
    // Bare `gh-sweep`: a short usage, not the whole help.
    if argv.len() == 1 {
        eprintln!("{}", cli::SHORT_USAGE);
        return Err(exit::USAGE);
    }
    // `gh-sweep help --help` asks for help, as `git help --help` does: it gets it.
    if argv.len() == 3 && argv[1] == "help" && matches!(argv[2].as_str(), "--help" | "-h") {
        let _ = <Cli as clap::CommandFactory>::command().print_long_help();
        return Err(exit::SUCCESS);
    }
    if let Some(message) = cli::misplaced_flag(&error, &argv) {
        return Err(report_error(&Fatal::Usage(message).into()));
    }
    let _ = error.print();
    Err(exit::of_clap(&error))
}

/// The terminal and the output options, resolved once.
fn ui_of(global: &cli::GlobalArgs, env: &settings::Env) -> ui::Ui {
    let stdin_terminal = std::io::stdin().is_terminal();
    let stderr_terminal = std::io::stderr().is_terminal();
    // At a terminal with stderr redirected (`2>log`) a maintainer is still there to ask.
    let prompt_on_tty = stdin_terminal
        && !stderr_terminal
        && std::io::stdout().is_terminal()
        && ui::tty_available();
    ui::Ui {
        interactive: stdin_terminal && (stderr_terminal || prompt_on_tty),
        prompt_on_tty,
        stderr_terminal,
        stdout_terminal: std::io::stdout().is_terminal(),
        quiet: global.quiet,
        verbose: global.verbose,
        json: global.json,
        // A `TERM=dumb` terminal (Emacs' shell, some CI logs) draws no escape sequences:
        // no progress bar redrawn in place, no colour unless asked for.
        ci: std::env::var_os("CI").is_some() || dumb_terminal(),
        pager: ui::pager_of(env.get("GH_SWEEP_PAGER"), env.get("PAGER")),
        color: match global.color {
            cli::ColorChoice::Always => true,
            cli::ColorChoice::Never => false,
            cli::ColorChoice::Auto => {
                std::io::stdout().is_terminal()
                    && !dumb_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
            }
        },
    }
}

fn dispatch(cli: &Cli, context: &Context) -> anyhow::Result<i32> {
    let cwd = std::env::current_dir()?;
    let global = &cli.global;
    match &cli.command {
        Command::StaleSweep(stale) => commands::stale_sweep::run(context, stale, global, &cwd),
        Command::Poll(poll) => commands::poll::run(context, poll, global, &cwd),
        Command::Sweep(sweep) => commands::sweep::run(context, sweep, global, &cwd),
        Command::Classify(command) => commands::classify::run(context, command, global, &cwd),
        Command::Recap(args) => commands::recap::run(context, args, global, &cwd),
        Command::Store(cli::StoreCommand::Status(args)) => {
            commands::store_admin::status(context, args, global, &cwd)
        }
        Command::Store(cli::StoreCommand::Copy(args)) => commands::store_admin::copy(context, args),
        Command::Man(args) => commands::completions::run_man(context, args),
        Command::Completions { shell } => {
            let text = commands::completions::render(*shell);
            context.ui.data(String::from_utf8_lossy(&text).trim_end());
            Ok(exit::SUCCESS)
        }
    }
}

/// Prints an error chain and its hint, and returns the exit code its kind calls for.
fn report_error(error: &anyhow::Error) -> i32 {
    match error.downcast_ref::<Fatal>() {
        // A usage error is about what the maintainer wrote (flags, config, files), never
        // GitHub's text: its line breaks (a TOML parser's report) are printed as lines.
        Some(Fatal::Usage(message)) => eprintln!("error: {}", report::clean_lines(message)),
        _ => eprintln!("error: {}", report::clean(&error.to_string())),
    }
    for cause in error.chain().skip(1) {
        eprintln!("  Caused by: {}", report::clean(&cause.to_string()));
    }
    exit::of_error(error)
}

/// The command line as `recap --list` shows it: each word quoted for the shell as needed, and
/// the `--db` value (a URL, or libpq's `keyword = value` string) without its password; a URL
/// anywhere else loses its password too.
fn shown_argv(words: impl Iterator<Item = String>) -> String {
    use gh_sweep::store::location::{shown, without_password};
    let mut after_db = false;
    let mut out = Vec::new();
    for word in words {
        let kept = if after_db {
            shown(&word)
        } else if let Some(value) = word.strip_prefix("--db=") {
            format!("--db={}", shown(value))
        } else {
            without_password(&word)
        };
        after_db = word == "--db";
        out.push(gh_sweep::policy::recap::shell_quote(&kept));
    }
    out.join(" ")
}

/// `TERM=dumb`: a terminal that understands no escape sequences.
fn dumb_terminal() -> bool {
    std::env::var_os("TERM").is_some_and(|term| term == "dumb")
}
