//! SIGINT, SIGTERM and SIGHUP while a validation command runs: instead of
//! dying at once (and leaving the command's process group writing into a
//! worktree the next apply uses), git-evolv notes the signal, kills the
//! group, waits for it, and ends with 128 + the signal's number, having
//! landed nothing (#16 item 4). Outside a [`Deferred`] section the default
//! actions apply: nothing else git-evolv does leaves a process behind, and
//! a killed landing is finished by its journal.

use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The first signal received while deferred; 0 for none.
static RECEIVED: AtomicI32 = AtomicI32::new(0);
/// How many `Deferred` sections are open (threads of an MCP server may
/// validate concurrently); handlers are installed by the first.
static DEPTH: AtomicUsize = AtomicUsize::new(0);
/// The actions the first section replaced (a front end's own handler, such
/// as the MCP server's runtime, with its flags), put back by the last.
static PREVIOUS: Mutex<Vec<(libc::c_int, libc::sigaction)>> = Mutex::new(Vec::new());

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
            let mut previous = PREVIOUS.lock().unwrap_or_else(|e| e.into_inner());
            previous.clear();
            for signal in SIGNALS {
                // SAFETY: a zeroed sigaction is a valid "default" action;
                // `note` is async-signal-safe (a single atomic store) and
                // has the signature a non-SA_SIGINFO handler needs.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = note as *const () as libc::sighandler_t;
                    action.sa_flags = libc::SA_RESTART;
                    libc::sigemptyset(&mut action.sa_mask);
                    let mut old: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(signal, &action, &mut old) == 0 {
                        previous.push((signal, old));
                    }
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
            let previous = PREVIOUS.lock().unwrap_or_else(|e| e.into_inner());
            for (signal, old) in previous.iter() {
                // SAFETY: restores exactly the action `begin` replaced.
                unsafe {
                    libc::sigaction(*signal, old, std::ptr::null_mut());
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
