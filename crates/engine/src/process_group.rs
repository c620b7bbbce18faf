//! The process group of the validation command running in a worktree,
//! recorded in the worktree's lock file. The `flock` dies with git-evolv,
//! but a command's group lives on after a SIGKILL of git-evolv, still
//! writing into the worktree; the next apply must not reuse the worktree
//! until that group is gone (#16 item 4).

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where a worktree's validation group is written down: its lock file.
#[derive(Debug, Clone)]
pub struct GroupRecord {
    path: PathBuf,
}

impl GroupRecord {
    pub fn new(path: PathBuf) -> Self {
        GroupRecord { path }
    }

    /// Records `pgid` as running (or clears the record with `None`).
    pub fn set(&self, pgid: Option<u32>) {
        let Ok(mut file) = OpenOptions::new().write(true).open(&self.path) else {
            return;
        };
        let _ = file.set_len(0);
        if let Some(pgid) = pgid {
            let _ = writeln!(file, "pgid {pgid}").and_then(|()| file.sync_data());
        }
    }
}

/// The process group recorded in lock file `path` when it still has a
/// live member.
pub fn live_group(path: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(path).ok()?;
    let pgid: u32 = text.trim().strip_prefix("pgid ")?.parse().ok()?;
    (pgid > 1 && is_alive(pgid)).then_some(pgid)
}

/// Whether process group `pgid` has a member that is not a zombie. A
/// zombie writes nothing, and where no init reaps orphans (a container)
/// killed members stay zombies for good; on Linux `/proc` tells them
/// apart, elsewhere any member counts.
pub fn is_alive(pgid: u32) -> bool {
    if !group_exists(pgid) {
        return false;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    let mut scanned = false;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        scanned = true;
        // `pid (comm) state ppid pgrp …`; comm may hold spaces and parens.
        let Some(rest) = stat.rsplit_once(") ").map(|(_, r)| r) else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next().unwrap_or("Z");
        let pgrp = fields.nth(1).and_then(|f| f.parse::<u32>().ok());
        if pgrp == Some(pgid) && state != "Z" && state != "X" {
            return true;
        }
    }
    !scanned
}

fn group_exists(pgid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pgid) else {
        return false;
    };
    // Signal 0 only checks that the group exists.
    match crate::sys::kill_group(pid, 0) {
        Ok(()) => true,
        // EPERM: the group exists, it is only someone else's.
        Err(e) => e.raw_os_error() == Some(libc::EPERM),
    }
}
