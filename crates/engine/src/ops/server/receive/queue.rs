//! The server's landing queue: the `queued` outcome records, landed in
//! arrival order by whoever holds the drain lock (an `flock` under the
//! git dir, so a drainer killed with SIGKILL leaves nothing to clean up).
//! A waiting push drains the queue up to its own proposals; a push with
//! `evolv.wait=false` starts a detached drainer and returns. Whatever a
//! dead drainer left queued (or half-landed: see `landing::bare`) is
//! landed by the next push or by `git evolv recover`. No daemon.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{Repo, sys::lock_file};
use crate::landing::recover::{RecoverOutcome, RecoveryAction};
use crate::ops::settings::Settings;

use super::{land, records};

const DRAIN_LOCK: &str = "receive-drain.lock";
/// Held while a push stamps and writes its records, and while a drainer
/// lists the queue: a listing then holds every record stamped before its
/// newest one, so arrival order (the stamp) is landing order.
const ARRIVAL_LOCK: &str = "receive-arrival.lock";

fn open_lock(repo: &Repo) -> Result<(File, std::path::PathBuf)> {
    lock_file::open(repo.common_dir(), DRAIN_LOCK)
}

/// The arrival lock, held until dropped. The file keeps the last stamp
/// given, so stamps only grow even if the wall clock steps back.
pub(super) struct Arrivals {
    file: File,
    path: std::path::PathBuf,
}

/// Takes the arrival lock, waiting for it.
pub(super) fn arrival_lock(repo: &Repo) -> Result<Arrivals> {
    let (file, path) = lock_file::open(repo.common_dir(), ARRIVAL_LOCK)?;
    file.lock().map_err(|e| Error::io("lock", &path, e))?;
    Ok(Arrivals { file, path })
}

impl Arrivals {
    /// The next arrival stamp: now in nanoseconds, or one past the last
    /// stamp given if the clock is behind it.
    pub(super) fn stamp(&mut self) -> Result<u64> {
        use std::io::{Read, Seek, SeekFrom, Write};
        let io = |e| Error::io("update", &self.path, e);
        let mut last = [0u8; 8];
        self.file.seek(SeekFrom::Start(0)).map_err(io)?;
        let got = self.file.read(&mut last).map_err(io)?;
        let last = if got == 8 {
            u64::from_le_bytes(last)
        } else {
            0
        };
        let now = crate::clock::now_nanos().max(last + 1);
        self.file.seek(SeekFrom::Start(0)).map_err(io)?;
        self.file.write_all(&now.to_le_bytes()).map_err(io)?;
        Ok(now)
    }
}

/// The queue in arrival order, listed under the arrival lock.
fn listed(repo: &Repo) -> Result<Vec<crate::store::outcomes::Outcome>> {
    let _arrivals = arrival_lock(repo)?;
    Ok(records::queued(repo))
}

/// Lands every queued proposal, in arrival order, waiting for a live
/// drainer to finish first. How many were decided.
pub fn drain_waiting(repo: &Repo, settings: &Settings, ctx: &Context) -> Result<usize> {
    let (file, path) = open_lock(repo)?;
    file.lock().map_err(|e| Error::io("lock", &path, e))?;
    drain_locked(repo, settings, ctx)
}

fn drain_locked(repo: &Repo, settings: &Settings, ctx: &Context) -> Result<usize> {
    let mut n = 0;
    loop {
        let queue = listed(repo)?;
        if queue.is_empty() {
            return Ok(n);
        }
        for rec in queue {
            land::land(repo, settings, ctx, rec)?;
            n += 1;
        }
    }
}

/// The detached drainer: lands the queue unless a live drainer holds the
/// lock (that one lands it), and looks again after letting go, so a
/// proposal queued while it finished is never left behind.
pub fn drain_detached(repo: &Repo, settings: &Settings, ctx: &Context) -> Result<usize> {
    let mut total = 0;
    loop {
        let (file, path) = open_lock(repo)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Ok(total),
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io("lock", &path, e)),
        }
        total += drain_locked(repo, settings, ctx)?;
        drop(file);
        if records::queued(repo).is_empty() {
            return Ok(total);
        }
    }
}

/// Starts `git-evolv hook proc-receive --drain` detached from the push: its
/// own process group, stdio on /dev/null (git waits for the hook's stdout
/// and stderr to close before it answers the pusher).
pub fn spawn_drainer(git_dir: &Path) -> Result<()> {
    use std::os::unix::process::CommandExt;
    let exe =
        std::env::current_exe().map_err(|e| Error::io("locate", "the git-evolv executable", e))?;
    Command::new(exe)
        .args(["hook", "proc-receive", "--drain"])
        .current_dir(git_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| Error::io("start", "the landing queue's drainer", e))?;
    Ok(())
}

/// `git evolv recover` in a bare repository: indexes records the queue's
/// index lacks, then lands what a dead drainer or a killed hook left queued (a landing killed after its swap is marked
/// landed, not landed twice).
pub fn recover(repo: &Repo, settings: &Settings, ctx: &Context) -> Result<RecoverOutcome> {
    {
        let _arrivals = arrival_lock(repo)?;
        records::reindex(repo)?;
    }
    let n = drain_waiting(repo, settings, ctx)?;
    let mut out = RecoverOutcome::nothing();
    if n > 0 {
        out.action = RecoveryAction::RolledForward;
        out.message = format!("decided {n} queued pushed proposal(s) (landed or refused)");
    } else {
        out.message = "no queued pushed proposal to land".into();
    }
    Ok(out)
}
