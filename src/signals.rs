//! Ctrl-C (SIGINT) and SIGTERM. The first one does not end the process: it is recorded, and the
//! engine, which asks [`received`] at its safe points (before an item's reads, before an
//! item's first write, after the prompt), stops there, so the write in flight finishes and is
//! journaled and the run still ends with its stored recap. Then `main` ends the process by that
//! very signal ([`end_by`]), so a calling shell sees 130 or 143 and a shell loop stops too.
//! A second signal ends the process at once. Nothing here decides what a run does.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// The first signal received, 0 until then.
static FIRST: AtomicI32 = AtomicI32::new(0);

/// While the confirmation prompt reads keys. The terminal library raises SIGINT itself when
/// its read is interrupted (by Ctrl-C, or by the SIGTERM that interrupted the wait for a key),
/// so a signal there is the first one's echo, not a second signal.
static AT_PROMPT: AtomicBool = AtomicBool::new(false);

/// A signal that asks the run to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    Interrupt,
    Terminate,
}

impl Signal {
    fn from_number(number: i32) -> Option<Signal> {
        match number {
            signal_hook::consts::SIGINT => Some(Signal::Interrupt),
            signal_hook::consts::SIGTERM => Some(Signal::Terminate),
            _ => None,
        }
    }

    pub fn number(self) -> i32 {
        match self {
            Signal::Interrupt => signal_hook::consts::SIGINT,
            Signal::Terminate => signal_hook::consts::SIGTERM,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
        }
    }

    /// What a shell reports for a process ended by this signal (128 + its number), as the
    /// recap records it.
    pub fn exit_code(self) -> i32 {
        match self {
            Signal::Interrupt => crate::exit::INTERRUPTED,
            Signal::Terminate => crate::exit::TERMINATED,
        }
    }
}

/// The first SIGINT or SIGTERM received since [`install`], if any.
pub fn received() -> Option<Signal> {
    Signal::from_number(FIRST.load(Ordering::SeqCst))
}

/// Set once a write went past the file size limit (`ulimit -f`, systemd's `LimitFSIZE`).
static FILE_SIZE_LIMIT: AtomicBool = AtomicBool::new(false);

/// Whether a write of this process went past its file size limit (SIGXFSZ was caught): that
/// write failed with `EFBIG` ("File too large") instead of the process being killed.
pub fn file_size_limit_reached() -> bool {
    FILE_SIZE_LIMIT.load(Ordering::SeqCst)
}

/// Catches SIGXFSZ, whose default action kills the process without its recap: caught, the
/// write that went past the limit fails with `EFBIG`, and the store or the output says so.
#[cfg(unix)]
fn catch_file_size_limit() -> std::io::Result<()> {
    let action = || FILE_SIZE_LIMIT.store(true, Ordering::SeqCst);
    // SAFETY: the action only stores to an atomic, which is async-signal-safe.
    unsafe { signal_hook::low_level::register(signal_hook::consts::SIGXFSZ, action) }?;
    Ok(())
}

/// Catches SIGINT and SIGTERM for the rest of the process. On the first one a line on stderr
/// says what happens next; a second one (outside the prompt) ends the process at once.
#[cfg(unix)]
pub fn install() -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    catch_file_size_limit()?;
    for signal in [SIGINT, SIGTERM] {
        let action = move || {
            let first = FIRST
                .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok();
            if !first && !AT_PROMPT.load(Ordering::SeqCst) {
                let _ = signal_hook::low_level::emulate_default_handler(signal);
            }
        };
        // SAFETY: the action only touches atomics and calls `emulate_default_handler`, which
        // signal-hook documents as usable in a signal handler (its own
        // `register_conditional_default` does exactly this).
        unsafe { signal_hook::low_level::register(signal, action) }?;
    }
    // The line is printed from a thread, never from the handler itself.
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            if let Some(signal) = received() {
                eprintln!(
                    "\n{} received: finishing what is in flight (a read, or an item's writes), then the recap; send it again to end at once",
                    signal.name()
                );
            }
        }
    });
    Ok(())
}

#[cfg(not(unix))]
pub fn install() -> std::io::Result<()> {
    Ok(())
}

/// Marks the time the prompt reads keys; dropping it ends that time.
pub struct Prompting(());

/// See [`AT_PROMPT`].
pub fn prompting() -> Prompting {
    AT_PROMPT.store(true, Ordering::SeqCst);
    Prompting(())
}

impl Drop for Prompting {
    fn drop(&mut self) {
        AT_PROMPT.store(false, Ordering::SeqCst);
    }
}

/// Ends the process by `signal`, with its default action, as if it had never been caught.
pub fn end_by(signal: Signal) -> ! {
    let _ = signal_hook::low_level::emulate_default_handler(signal.number());
    // Only reached if the default action did not end the process.
    std::process::exit(signal.exit_code())
}
