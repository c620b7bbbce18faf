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

/// Flushes every file system the repository lives on (its git dir and its
/// working tree): objects, refs, the index and working-tree files alike,
/// with one call each, outside the stretch where a landing holds the index
/// in an intermediate state.
#[allow(unsafe_code)]
pub fn flush_filesystems(repo: &Repository) -> Result<()> {
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
