//! The options every subcommand takes, before or after its name: how much is printed, in what
//! form, and in colour or not.

use clap::{Args, ValueEnum};

/// The heading they are listed under in every `--help`.
const GLOBAL: &str = "Global options (before or after the subcommand's name)";

/// Options every subcommand takes, before or after its name.
#[derive(Debug, Args, Clone, Default)]
pub struct GlobalArgs {
    /// Print the recap as one JSON object
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub json: bool,

    /// Log each request to stderr (never the token)
    #[arg(long, short = 'v', global = true, conflicts_with = "quiet", help_heading = GLOBAL)]
    pub verbose: bool,

    /// Print only the recap's counts
    #[arg(long, short = 'q', global = true, help_heading = GLOBAL)]
    pub quiet: bool,

    /// Colour: auto (on a terminal, unless NO_COLOR is set), always or never
    #[arg(long, value_name = "WHEN", global = true, value_enum, default_value_t = ColorChoice::Auto, help_heading = GLOBAL)]
    pub color: ColorChoice,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}
