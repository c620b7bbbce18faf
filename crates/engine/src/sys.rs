//! The engine's system calls that std does not wrap, each behind a small
//! safe function named for what it does: signalling a process or a
//! process group (`kill`), noting SIGINT, SIGTERM and SIGHUP instead of
//! dying (`sigaction`), a file's modification time relative to an open
//! directory (`fstatat`).
//! `unsafe` is needed because they are `libc` calls; none
//! keeps a pointer past the call, and the signal handler installed here is
//! this module's own, async-signal-safe one. This is the only module of
//! the crate allowed `unsafe` (`tests/cli/unsafe_fence.rs` keeps it so).

#![allow(unsafe_code)]

use std::ffi::CStr;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicI32, Ordering};

/// Sends `signal` to process `pid` (kill(2)); signal 0 only checks that it
/// exists.
pub fn kill(pid: libc::pid_t, signal: libc::c_int) -> std::io::Result<()> {
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    if unsafe { libc::kill(pid, signal) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Sends `signal` to every process of group `pgid` (kill(2) with `-pgid`);
/// signal 0 only checks that the group exists.
pub fn kill_group(pgid: libc::pid_t, signal: libc::c_int) -> std::io::Result<()> {
    kill(-pgid, signal)
}

/// The first signal `note` received; 0 for none.
static NOTED: AtomicI32 = AtomicI32::new(0);

extern "C" fn note(signal: libc::c_int) {
    // Async-signal-safe: one atomic store.
    let _ = NOTED.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
}

/// The first signal received since [`note_signal`] was installed for it,
/// if any; it stays noted for the rest of the process.
pub fn noted_signal() -> Option<i32> {
    match NOTED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The action a signal had before [`note_signal`] replaced it.
pub struct SavedAction {
    signal: libc::c_int,
    action: libc::sigaction,
}

impl SavedAction {
    /// Puts the saved action back.
    pub fn restore(&self) {
        // SAFETY: `action` is exactly what sigaction(2) returned for
        // `signal` (a SavedAction is made only by `note_signal`), so it is
        // a valid action for it; no old action is asked for.
        unsafe {
            libc::sigaction(self.signal, &self.action, std::ptr::null_mut());
        }
    }
}

/// Makes `signal` noted ([`noted_signal`]) instead of taking its action,
/// with SA_RESTART; the action it replaced, `None` when sigaction fails.
pub fn note_signal(signal: libc::c_int) -> Option<SavedAction> {
    // SAFETY: a zeroed sigaction is a valid "default" action; `note` is
    // async-signal-safe (a single atomic store) and has the signature a
    // non-SA_SIGINFO handler needs; sigemptyset and sigaction write only
    // the structs they are given.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = note as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(signal, &action, &mut old) == 0 {
            return Some(SavedAction {
                signal,
                action: old,
            });
        }
    }
    None
}

/// Seconds since the epoch of the modification of `name` in the open
/// directory `dir`, not following a symlink (`fstatat`); `None` when the
/// call fails.
pub fn mtime_at(dir: &File, name: &CStr) -> Option<i64> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `dir` is an open descriptor, `name` a NUL-terminated
    // string, and `st` is written by the call before it is read (only
    // when the call succeeded).
    let rc = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            st.as_mut_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if rc != 0 {
        return None;
    }
    // SAFETY: fstatat succeeded, so it filled `st`.
    let st = unsafe { st.assume_init() };
    Some(st.st_mtime)
}
