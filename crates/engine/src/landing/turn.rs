//! This process's turn to land: the landing lock (an `flock`, handed by the
//! kernel to the next waiter, first come first served) and the retry of a
//! landing that lost a race to a writer that is not git-evolv.

use std::fs::File;

use crate::error::{Error, Result};
use crate::git::Repo;

/// This process's turn to land (issue 14 item 4): the landing lock, taken
/// before the replay onto the branch head and held until the landing is
/// complete, so git-evolv's writers queue for the branch instead of racing
/// for it and losing (the lock is an `flock`, which the kernel hands to a
/// waiter when its holder ends; nobody gives up after N attempts). Only a
/// writer that is not git-evolv (`git commit`, `git update-ref`) can still
/// move the branch under a turn, and then the landing replays.
pub struct Turn {
    pub(super) flock: File,
}

/// Waits for this process's turn to land.
pub fn take_turn(repo: &Repo) -> Result<Turn> {
    Ok(Turn {
        flock: landing_lock(repo)?,
    })
}

/// How often a landing that lost a race is replayed onto the new head.
const LANDING_ATTEMPTS: u32 = 20;

/// Runs `attempt` again, after a growing random pause, when it lost a race
/// that left everything untouched: the branch moved before the
/// compare-and-swap (`concurrent_update`), or git held `index.lock`. Each
/// retry replays onto the new head and validates again.
pub fn retrying<T>(dry_run: bool, mut attempt: impl FnMut() -> Result<T>) -> Result<T> {
    let mut n = 1;
    loop {
        match attempt() {
            Err(Error::ConcurrentUpdate { .. } | Error::IndexLocked { .. })
                if !dry_run && n < LANDING_ATTEMPTS =>
            {
                std::thread::sleep(jitter(n));
                n += 1;
            }
            other => return other,
        }
    }
}

/// 5 ms doubling per attempt up to 160 ms, times a random factor in
/// [0.5, 1.5), so racing processes spread out.
fn jitter(attempt: u32) -> std::time::Duration {
    let base_ms = 5u64 << attempt.min(5);
    let seed = crate::clock::unique_u64();
    let factor = 500 + (seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) % 1000;
    std::time::Duration::from_micros(base_ms * factor)
}

/// Serialises landings (and recoveries) in one working tree. An `flock`, so
/// the kernel releases it when the holder dies: it can never go stale.
pub(super) fn landing_lock(repo: &Repo) -> Result<File> {
    let (file, path) = open_landing_lock(repo)?;
    file.lock().map_err(|e| Error::io("lock", &path, e))?;
    Ok(file)
}

/// The landing lock if nobody holds it; `None` while a live process is
/// landing (or recovering).
pub(super) fn try_landing_lock(repo: &Repo) -> Result<Option<File>> {
    let (file, path) = open_landing_lock(repo)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io("lock", &path, e)),
    }
}

fn open_landing_lock(repo: &Repo) -> Result<(File, std::path::PathBuf)> {
    crate::git::sys::lock_file::open(repo.git_dir(), "landing.lock")
}
