//! SIGINT, SIGTERM and SIGHUP while a validation command runs: instead of
//! dying at once (and leaving the command's process group writing into a
//! worktree the next apply uses), git-evolv notes the signal, kills the
//! group, waits for it, and ends with 128 + the signal's number, having
//! landed nothing (#16 item 4). Outside a [`Deferred`] section the default
//! actions apply: nothing else git-evolv does leaves a process behind, and
//! a killed landing is finished by its journal.

use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The first signal received while deferred; 0 for none.
static RECEIVED: AtomicI32 = AtomicI32::new(0);
/// How many `Deferred` sections are open (threads of an MCP server may
/// validate concurrently); handlers are installed by the first.
static DEPTH: AtomicUsize = AtomicUsize::new(0);

extern "C" fn note(signal: libc::c_int) {
    // Async-signal-safe: one atomic store.
    let _ = RECEIVED.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
}

/// While alive, the three signals are noted instead of killing the process.
pub struct Deferred(());

impl Deferred {
    /// Installs the handlers (once for nested or concurrent sections).
    #[allow(unsafe_code)]
    pub fn begin() -> Self {
        if DEPTH.fetch_add(1, Ordering::SeqCst) == 0 {
            for signal in SIGNALS {
                // SAFETY: `note` is async-signal-safe (a single atomic
                // store) and has the signature signal(2) expects.
                unsafe {
                    libc::signal(signal, note as *const () as libc::sighandler_t);
                }
            }
        }
        Deferred(())
    }
}

impl Drop for Deferred {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        if DEPTH.fetch_sub(1, Ordering::SeqCst) == 1 {
            for signal in SIGNALS {
                // SAFETY: restores the default action; no preconditions.
                unsafe {
                    libc::signal(signal, libc::SIG_DFL);
                }
            }
        }
    }
}

/// The signal received during a deferred section, if any. It stays noted
/// for the rest of the process: the command must end, landing nothing.
pub fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
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
