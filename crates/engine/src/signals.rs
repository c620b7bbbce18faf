//! SIGINT, SIGTERM and SIGHUP while a validation command runs: instead of
//! dying at once (and leaving the command's process group writing into a
//! worktree the next apply uses), git-evolv notes the signal, kills the
//! group, waits for it, and ends with 128 + the signal's number, having
//! landed nothing (#16 item 4). Outside a [`Deferred`] section the default
//! actions apply: nothing else git-evolv does leaves a process behind, and
//! a killed landing is finished by its journal.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::sys::{self, SavedAction};

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// How many `Deferred` sections are open (threads of an MCP server may
/// validate concurrently); handlers are installed by the first.
static DEPTH: AtomicUsize = AtomicUsize::new(0);
/// The actions the first section replaced (a front end's own handler, such
/// as the MCP server's runtime, with its flags), put back by the last.
static PREVIOUS: Mutex<Vec<SavedAction>> = Mutex::new(Vec::new());

/// While alive, the three signals are noted instead of killing the process.
pub struct Deferred(());

impl Deferred {
    /// Installs the handlers (once for nested or concurrent sections).
    pub fn begin() -> Self {
        if DEPTH.fetch_add(1, Ordering::SeqCst) == 0 {
            let mut previous = PREVIOUS.lock().unwrap_or_else(|e| e.into_inner());
            previous.clear();
            // The first signal received while deferred is noted by `sys`.
            previous.extend(SIGNALS.into_iter().filter_map(sys::note_signal));
        }
        Deferred(())
    }
}

impl Drop for Deferred {
    fn drop(&mut self) {
        if DEPTH.fetch_sub(1, Ordering::SeqCst) == 1 {
            let previous = PREVIOUS.lock().unwrap_or_else(|e| e.into_inner());
            for old in previous.iter() {
                // Exactly the action `begin` replaced.
                old.restore();
            }
        }
    }
}

/// The signal received during a deferred section, if any. It stays noted
/// for the rest of the process: the command must end, landing nothing.
pub fn received() -> Option<i32> {
    sys::noted_signal()
}

/// The name of a signal, for messages.
pub fn name(signal: i32) -> &'static str {
    match signal {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}
