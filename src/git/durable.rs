//! Durability across a power cut, beyond git's defaults (git flushes packs
//! but not loose objects, refs, the index or working-tree files). A
//! landing's journal is flushed before anything moves; everything the
//! landing writes is flushed before the journal is deleted, so after a
//! power cut either the journal is still there (and recovery finishes the
//! landing) or every write it records is on disk.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;

use git2::Repository;

use crate::error::{Error, Result};

/// How the landing flushes, from git's own `core.fsync` and
/// `core.fsyncMethod` (read once per process, `git -c` included):
///
/// - `Batch` (the default, and `core.fsyncMethod=batch` or
///   `writeout-only`): like git's batch mode, each staged file's writeback
///   is started as it is written, and one flush of the file system waits
///   for them all before the branch moves;
/// - `PerFile` (`core.fsyncMethod=fsync`): one `fdatasync` per staged file;
/// - `Off` (`core.fsync=none`, or a list that removes every component):
///   no flush at all, git's speed. A power cut may then lose a landing's
///   writes in any order; recovery still finishes or undoes the landing
///   from whatever survived, but a file emptied by the cut holds neither
///   image and is left for the user, and a landed commit may be lost.
///   A crash (not a power cut) loses nothing either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flush {
    Batch,
    PerFile,
    Off,
}

/// The flush policy of this process (see `Flush`).
pub fn policy(repo: &Repository) -> Flush {
    static POLICY: super::PerRepo<Flush> = super::PerRepo::new();
    POLICY.get(repo, || {
        let Ok(config) = super::config::Config::for_git_dir(repo.path()) else {
            return Flush::Batch;
        };
        if config.string("core.fsync").is_some_and(flushes_nothing) {
            return Flush::Off;
        }
        match config.string("core.fsyncMethod") {
            Some(m) if m.eq_ignore_ascii_case("fsync") => Flush::PerFile,
            _ => Flush::Batch,
        }
    })
}

/// Whether a `core.fsync` list leaves no component to flush (`none`, or
/// every one added removed again), as git reads the list left to right.
fn flushes_nothing(list: &str) -> bool {
    let mut any = false;
    for item in list.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        match item {
            "none" => any = false,
            i if i.starts_with('-') => {
                if matches!(&i[1..], "all" | "committed" | "added") {
                    any = false;
                }
            }
            _ => any = true,
        }
    }
    !any
}

/// Starts writing `file`'s data back to disk without waiting (the first
/// half of git's batch flush; `flush_filesystems` is the second).
#[allow(unsafe_code)]
pub fn start_writeback(file: &File) {
    #[cfg(target_os = "linux")]
    // SAFETY: sync_file_range(2) takes a descriptor we own and keep open
    // for the call; it touches no memory of ours. A failure only means
    // the final flush does all the work.
    unsafe {
        libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// Flushes every file system the repository lives on (its git dir and its
/// working tree): objects, refs, the index and working-tree files alike,
/// with one call each, outside the stretch where a landing holds the index
/// in an intermediate state.
#[allow(unsafe_code)]
pub fn flush_filesystems(repo: &Repository) -> Result<()> {
    if policy(repo) == Flush::Off {
        return Ok(());
    }
    let git_dir = repo.path();
    let mut dirs = vec![git_dir.to_path_buf()];
    if let Some(workdir) = repo.workdir() {
        let same = std::fs::metadata(workdir)
            .and_then(|w| std::fs::metadata(git_dir).map(|g| w.dev() == g.dev()))
            .unwrap_or(false);
        if !same {
            dirs.push(workdir.to_path_buf());
        }
    }
    for dir in dirs {
        let file = File::open(&dir).map_err(|e| Error::io("open", &dir, e))?;
        #[cfg(target_os = "linux")]
        {
            // SAFETY: syncfs(2) takes a file descriptor we own and keep
            // open for the call; it touches no memory of ours.
            if unsafe { libc::syncfs(file.as_raw_fd()) } != 0 {
                return Err(Error::io(
                    "flush to disk",
                    &dir,
                    std::io::Error::last_os_error(),
                ));
            }
        }
        #[cfg(not(target_os = "linux"))]
        file.sync_all()
            .map_err(|e| Error::io("flush to disk", &dir, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::flushes_nothing;

    #[test]
    fn core_fsync_lists_are_read_as_git_reads_them() {
        assert!(flushes_nothing("none"));
        assert!(flushes_nothing("all,-all"));
        assert!(flushes_nothing("committed,none"));
        assert!(!flushes_nothing("none,index"));
        assert!(!flushes_nothing("committed"));
        assert!(!flushes_nothing("all,-index"));
    }
}
