//! A run at a terminal whose stderr is redirected (`gh-sweep ... 2>log`): stdin and stdout are
//! the terminal, so a maintainer is there, and the prompt goes to the terminal itself
//! (`/dev/tty`), as ssh and gpg ask for passwords.

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{marked, Test, REPO};

const ENTER: &[u8] = b"\r";
const UP: &[u8] = b"\x1b[A";

#[test]
fn with_stderr_redirected_a_run_at_a_terminal_still_asks_there() {
    let test = Test::new(|world| {
        world.open_issue(1, 74);
        world.open_issue(2, 74);
    });
    let (mut master, slave) = crate::support::open_pty(120);
    let log = test.dir.path().join("stderr.log");
    let mut command = test.std_command(&["stale-sweep", "--repo", REPO]);
    command
        .env("TERM", "xterm")
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave))
        .stderr(std::fs::File::create(&log).unwrap());
    // The terminal is the child's controlling terminal, as a shell's is: its own session,
    // with the terminal on stdin made controlling, so `/dev/tty` is that terminal.
    crate::support::with_controlling_terminal(&mut command);
    let mut child = command.spawn().unwrap();
    let screen = crate::support::collect(master.try_clone().unwrap());
    let deadline = Instant::now() + Duration::from_secs(20);
    while !screen.lock().unwrap().contains("Send these writes?") {
        if let Some(status) = child.try_wait().unwrap() {
            panic!(
                "ended ({status:?}) without asking:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        assert!(Instant::now() < deadline, "no prompt on the terminal");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The plan is on the terminal too, so the maintainer sees what is asked.
    assert!(
        screen
            .lock()
            .unwrap()
            .contains("octo/demo#2  Issue 2  mark-stale"),
        "{}",
        screen.lock().unwrap()
    );
    for key in [UP, ENTER] {
        master.write_all(key).unwrap();
        master.flush().unwrap();
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = child.wait().unwrap();
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("Send these writes?"), "{stderr}");
    test.expect_writes(&[marked(1), marked(2)].concat());
}
