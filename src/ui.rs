//! The one object that talks to the maintainer. stdout carries data (the recap, as a table or
//! JSON); status, progress, warnings and prompts go to stderr. Terminal facts are resolved once
//! in `main` and handed in.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Set once standard output is found closed by its reader (`gh-sweep recap | head -0`).
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Set when standard output could not be written for another reason than its reader closing
/// it (`EFBIG` past a file size limit, `ENOSPC`): what was printed is incomplete, so the
/// command must not exit 0.
static STDOUT_FAILED: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Why standard output could not be written, when it could not (not a closed pipe).
pub fn stdout_failure() -> Option<String> {
    STDOUT_FAILED
        .lock()
        .map(|failed| failed.clone())
        .unwrap_or_default()
}

pub struct Ui {
    /// A maintainer can answer a prompt: stdin and stderr are terminals (or stdin and stdout,
    /// see `prompt_on_tty`).
    pub interactive: bool,
    pub stderr_terminal: bool,
    pub stdout_terminal: bool,
    /// stdin and stdout are a terminal but stderr is redirected (`2>log`): a maintainer is
    /// there, so the plan and the prompt go to the terminal itself (`/dev/tty`).
    pub prompt_on_tty: bool,
    pub quiet: bool,
    pub verbose: bool,
    pub json: bool,
    pub ci: bool,
    /// Colour on stdout, resolved once from --color, NO_COLOR and the terminal.
    pub color: bool,
    /// The pager a plan taller than the terminal goes through, as gh's: `GH_SWEEP_PAGER`, else
    /// `PAGER`; `None` when unset, empty or `cat`.
    pub pager: Option<String>,
}

/// The pager the environment names (`GH_SWEEP_PAGER`, else `PAGER`), as gh reads `GH_PAGER`
/// and `PAGER`: empty or `cat` means none.
pub fn pager_of(gh_sweep_pager: Option<&str>, pager: Option<&str>) -> Option<String> {
    let named = gh_sweep_pager.or(pager)?.trim();
    (!named.is_empty() && named != "cat").then(|| named.to_string())
}

/// Lines a plan leaves for what follows it on the screen: its totals, the estimate and the
/// prompt's three choices.
const BELOW_THE_PLAN: usize = 8;

/// What the maintainer chose at the confirmation prompt.
pub enum Choice {
    All,
    None,
    Some(Vec<usize>),
    /// SIGINT or SIGTERM arrived at the prompt (Ctrl-C there, too).
    Interrupted,
}

/// What the picker draws before each row (a cursor and a checkbox), with a column to spare.
const PICKER_MARGIN: usize = 7;

impl Ui {
    pub fn status(&self, message: &str) {
        if !self.quiet {
            let lines: Vec<String> = message.lines().map(crate::report::clean).collect();
            eprintln!("{}", lines.join("\n"));
        }
    }

    /// Status that `-q` does not hide: what a prompt right after it asks about.
    pub fn always(&self, message: &str) {
        let lines: Vec<String> = message.lines().map(crate::report::clean).collect();
        eprintln!("{}", lines.join("\n"));
    }

    /// The plan table, on stderr as [`Ui::status`] prints it; at a terminal, a plan taller than
    /// the screen goes through the pager (`LESS=FRX` when `LESS` is unset, as gh and git set
    /// it: quit when it fits, keep colours, leave the screen as it was), so its first rows are
    /// not scrolled away before the prompt. A pager that cannot be started prints it as usual.
    pub fn show_plan(&self, table: &str) {
        if self.quiet {
            return;
        }
        let rows = console::Term::stderr()
            .size_checked()
            .map(|(rows, _)| usize::from(rows));
        let tall = rows.is_some_and(|rows| table.lines().count() + BELOW_THE_PLAN > rows);
        match &self.pager {
            Some(pager) if self.stderr_terminal && tall => {
                if let Err(error) = page(pager, &crate::report::clean_lines(table)) {
                    self.warn(&format!(
                        "the pager `{pager}` did not run ({error}); the plan follows"
                    ));
                    self.status(table);
                }
            }
            _ => self.status(table),
        }
    }

    pub fn warn(&self, message: &str) {
        eprintln!("warning: {}", crate::report::clean(message));
    }

    /// Prints data on stdout. A closed pipe (`| head`) is not an error: printing stops there,
    /// quietly, and the command ends with its own exit code (a run that stopped on a failed
    /// write still exits 11, `recap` 0); what a run does after printing (the job summary, the
    /// end by a signal) still happens.
    pub fn data(&self, text: &str) {
        if STDOUT_CLOSED.load(Ordering::SeqCst) {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        if let Err(error) = writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
            STDOUT_CLOSED.store(true, Ordering::SeqCst);
            if error.kind() != std::io::ErrorKind::BrokenPipe {
                if let Ok(mut failed) = STDOUT_FAILED.lock() {
                    failed.get_or_insert_with(|| error.to_string());
                }
            }
        }
    }

    /// A progress bar on stderr, shown only on a terminal, outside CI, without -q/-v, and only
    /// once the work has taken a moment (so fast runs never flash one).
    pub fn progress(&self, length: usize, message: &str) -> Progress {
        let enabled = self.stderr_terminal && !self.quiet && !self.verbose && !self.ci;
        let bar = ProgressBar::with_draw_target(Some(length as u64), ProgressDrawTarget::hidden());
        // The label is the bar's prefix; the message is the detail (the item at hand), shown
        // once after the count.
        if let Ok(style) =
            ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {wide_msg:.dim}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(message.to_string());
        Progress {
            bar,
            enabled,
            shown: false,
            started: Instant::now(),
        }
    }

    /// Asks which planned writes to send. Default: none. A signal at the prompt (Ctrl-C, which
    /// the prompt's raw mode turns into a key, or SIGTERM) is [`Choice::Interrupted`].
    pub fn confirm(&self, labels: &[String], writes: usize) -> std::io::Result<Choice> {
        let prompting = crate::signals::prompting();
        let choice = self.ask(labels, writes);
        drop(prompting);
        match choice {
            // `main` shows the cursor again before the process ends.
            Err(_) if crate::signals::received().is_some() => Ok(Choice::Interrupted),
            other => other,
        }
    }

    /// Undoes what a prompt cut short leaves on the terminal: the hidden cursor.
    pub fn restore_terminal(&self) {
        if self.stderr_terminal || self.prompt_on_tty {
            let _ = self.prompt_term().show_cursor();
        }
    }

    /// Where the prompt is drawn and its keys read: stderr, or the terminal itself when
    /// stderr is redirected.
    fn prompt_term(&self) -> console::Term {
        #[cfg(unix)]
        if self.prompt_on_tty {
            if let Some(tty) = open_tty() {
                if let Ok(read) = tty.try_clone() {
                    return console::Term::read_write_pair(read, tty);
                }
            }
        }
        console::Term::stderr()
    }

    fn ask(&self, labels: &[String], writes: usize) -> std::io::Result<Choice> {
        let theme = Questions;
        let term = self.prompt_term();
        if self.prompt_on_tty {
            // The plan table went to the redirected stderr: show what is asked here too.
            term.write_line("Planned writes:")?;
            for label in labels {
                term.write_line(&format!("  {}", crate::report::clean(label)))?;
            }
        }
        let options = [
            format!(
                "Write all {} (on {})",
                crate::report::count(writes as u64, "write"),
                crate::report::count(labels.len() as u64, "item")
            ),
            "Write nothing".to_string(),
            "Choose items".to_string(),
        ];
        let picked = dialoguer::Select::with_theme(&theme)
            .with_prompt("Send these writes?")
            .items(&options)
            .default(1)
            .interact_on_opt(&term)
            .map_err(std::io::Error::other)?;
        match picked {
            Some(0) => Ok(Choice::All),
            Some(2) => {
                // Each row fits the terminal: a row that wraps makes every keypress redraw
                // below the old page, and the cursor row and the header are lost.
                let columns = term.size_checked().map(|(_, columns)| usize::from(columns));
                let chosen = dialoguer::MultiSelect::with_theme(&theme)
                    .with_prompt("Space selects, Enter confirms")
                    .items(
                        &labels
                            .iter()
                            .map(|label| {
                                let label = crate::report::clean(label);
                                match columns {
                                    Some(columns) => crate::report::fit(
                                        &label,
                                        columns.saturating_sub(PICKER_MARGIN),
                                    ),
                                    None => label,
                                }
                            })
                            .collect::<Vec<_>>(),
                    )
                    .interact_on_opt(&term)
                    .map_err(std::io::Error::other)?;
                Ok(match chosen {
                    Some(chosen) if !chosen.is_empty() => Choice::Some(chosen),
                    _ => Choice::None,
                })
            }
            _ => Ok(Choice::None),
        }
    }
}

/// dialoguer's plain theme, but a prompt that is a question ends with its question mark rather
/// than `?:`.
struct Questions;

impl dialoguer::theme::Theme for Questions {
    fn format_prompt(&self, f: &mut dyn std::fmt::Write, prompt: &str) -> std::fmt::Result {
        if prompt.ends_with('?') {
            write!(f, "{prompt}")
        } else {
            write!(f, "{prompt}:")
        }
    }

    fn format_input_prompt_selection(
        &self,
        f: &mut dyn std::fmt::Write,
        prompt: &str,
        sel: &str,
    ) -> std::fmt::Result {
        self.format_prompt(f, prompt)?;
        write!(f, " {sel}")
    }

    fn format_multi_select_prompt_selection(
        &self,
        f: &mut dyn std::fmt::Write,
        prompt: &str,
        selections: &[&str],
    ) -> std::fmt::Result {
        self.format_prompt(f, prompt)?;
        write!(f, " {}", selections.join(", "))
    }
}

pub struct Progress {
    bar: ProgressBar,
    enabled: bool,
    shown: bool,
    started: Instant,
}

const PROGRESS_DELAY: Duration = Duration::from_millis(250);

impl Progress {
    pub fn advance(&mut self, detail: &str) {
        if self.enabled && !self.shown && self.started.elapsed() >= PROGRESS_DELAY {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        self.bar.inc(1);
        if self.shown {
            self.bar.set_message(detail.to_string());
        }
    }

    /// Shows why the work is waiting (a rate limit), on the bar when there is one.
    pub fn note(&mut self, message: &str) {
        if self.enabled && !self.shown {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        if self.shown {
            self.bar.set_message(message.to_string());
        }
    }

    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}

/// Runs `pager` through the shell (as git and gh do, so it may carry options) with `text` on its
/// standard input and stderr's terminal as its output, and waits for it.
#[cfg(unix)]
fn page(pager: &str, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::fd::AsFd;
    let terminal = std::io::stderr().as_fd().try_clone_to_owned()?;
    let mut command = std::process::Command::new("sh");
    command
        .arg("-c")
        .arg(pager)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::from(terminal));
    if std::env::var_os("LESS").is_none() {
        command.env("LESS", "FRX");
    }
    let mut child = command.spawn()?;
    if let Some(mut input) = child.stdin.take() {
        // A pager quit before the end (`q` in less) closes its input: not an error.
        let _ = input.write_all(text.as_bytes());
        let _ = input.write_all(b"\n");
    }
    // Any exit of its own is the pager's business (less quit with `q`); the shell's 126 and
    // 127 (not executable, not found) and a signal mean the plan was not shown.
    match child.wait()? {
        status if matches!(status.code(), Some(code) if code != 126 && code != 127) => Ok(()),
        status => Err(std::io::Error::other(format!("it ended with {status}"))),
    }
}

#[cfg(not(unix))]
fn page(_pager: &str, _text: &str) -> std::io::Result<()> {
    Err(std::io::Error::other("paging needs a Unix terminal"))
}

/// The process's controlling terminal, for reading and writing, when it has one.
#[cfg(unix)]
fn open_tty() -> Option<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()
}

/// Whether a prompt can use the controlling terminal (`/dev/tty`).
pub fn tty_available() -> bool {
    #[cfg(unix)]
    {
        open_tty().is_some()
    }
    #[cfg(not(unix))]
    {
        false
    }
}
