//! Who a run is, in terms that cannot collide (two hosts, containers or reboots never take
//! one run for another): a random run id, the kernel's boot id (unique per running kernel),
//! the inode of the run's PID namespace (which means something only with the boot id: the
//! initial namespace has the same inode on every host) and its process's start time (clock
//! ticks since boot, so a PID used again by a later process is not taken for the run's). A
//! host name tells nothing: containers, CI runners and copies of one machine share them.
//!
//! The one shortcut a store takes on it: a run of this kernel and this PID namespace whose
//! process (that PID with that start time) is gone is dead at once. Any other run is alive
//! until its heartbeat says otherwise.

use std::io::Read;

/// What a store records of the process that runs a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Identity {
    /// 128 random bits, hex.
    pub run_uid: String,
    pub boot_id: String,
    /// `pid:[INODE]`, as `/proc/self/ns/pid` reads.
    pub pid_ns: String,
    pub pid: i64,
    pub start_time: Option<i64>,
}

impl Identity {
    /// This process, with a fresh random run id.
    pub(crate) fn this_process() -> Identity {
        let pid = i64::from(std::process::id());
        Identity {
            run_uid: random_id(),
            boot_id: boot_id(),
            pid_ns: pid_namespace(),
            pid,
            start_time: start_time(pid),
        }
    }
}

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|id| id.trim().to_string())
        .unwrap_or_default()
}

fn pid_namespace() -> String {
    std::fs::read_link("/proc/self/ns/pid")
        .map(|link| link.display().to_string())
        .unwrap_or_default()
}

/// The start time of process `pid` in clock ticks since boot (`/proc/PID/stat`, field 22),
/// when this PID namespace has such a process.
pub(crate) fn start_time(pid: i64) -> Option<i64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: fields count after it.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

fn random_id() -> String {
    let mut bytes = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut file| file.read_exact(&mut bytes));
    if read.is_err() {
        // No /dev/urandom: the time and the process, which at least do not repeat on one host.
        let now = crate::clock::wall()
            .timestamp_nanos_opt()
            .unwrap_or_default()
            .to_le_bytes();
        bytes[..8].copy_from_slice(&now);
        bytes[8..12].copy_from_slice(&std::process::id().to_le_bytes());
    }
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// What a store read of a run's process: its PID, boot id, PID namespace and start time (any
/// of them missing on rows older than these columns).
#[derive(Clone, Debug, Default)]
pub(crate) struct Process {
    pub pid: Option<i64>,
    pub boot_id: Option<String>,
    pub pid_ns: Option<String>,
    pub start_time: Option<i64>,
}

impl Process {
    /// Whether the run's process is known to be gone: it ran on this kernel, in this PID
    /// namespace, and no process with its PID and start time is there any more. Anything else
    /// (another kernel or namespace, a row that does not say) is not known.
    pub(crate) fn gone(&self, me: &Identity) -> bool {
        let (Some(pid), Some(boot_id), Some(pid_ns)) = (self.pid, &self.boot_id, &self.pid_ns)
        else {
            return false;
        };
        if boot_id.is_empty() || pid_ns.is_empty() || *boot_id != me.boot_id || *pid_ns != me.pid_ns
        {
            return false;
        }
        if !std::path::Path::new("/proc/self").exists() {
            return false;
        }
        if pid == me.pid && self.start_time == me.start_time {
            return false;
        }
        match (start_time(pid), self.start_time) {
            (None, _) => true,
            (Some(now), Some(then)) => now != then,
            (Some(_), None) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_process_of_this_kernel_and_namespace_can_be_known_gone() {
        let me = Identity::this_process();
        assert_eq!(me.run_uid.len(), 32);
        assert_ne!(me.run_uid, Identity::this_process().run_uid);
        let mine = Process {
            pid: Some(me.pid),
            boot_id: Some(me.boot_id.clone()),
            pid_ns: Some(me.pid_ns.clone()),
            start_time: me.start_time,
        };
        assert!(!mine.gone(&me), "this process is there");
        // A PID no process has here, on this kernel and namespace: gone.
        let dead = Process {
            pid: Some(i64::from(i32::MAX)),
            ..mine.clone()
        };
        assert!(dead.gone(&me));
        // The same PID started at another time: a later process that reuses the number.
        let reused = Process {
            start_time: me.start_time.map(|ticks| ticks + 1),
            ..mine.clone()
        };
        assert!(reused.gone(&me));
        // Another namespace or kernel, or a row that does not say: never known gone.
        for other in [
            Process {
                pid_ns: Some("pid:[1]".into()),
                ..dead.clone()
            },
            Process {
                boot_id: Some("another-kernel".into()),
                ..dead.clone()
            },
            Process {
                boot_id: None,
                ..dead.clone()
            },
        ] {
            assert!(!other.gone(&me), "{other:?}");
        }
    }
}
