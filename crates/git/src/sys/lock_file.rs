//! The files git-evolv `flock`s (the landing queue, the audit append):
//! created on first use under `<dir>/evolv/`, never truncated, so a holder
//! that died leaves nothing to clean up; the kernel drops its lock.

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Opens (creating it and its folder if needed) `<git_dir>/evolv/<name>`
/// for locking (readable too: a lock may keep a little state); returns the file and its path, for messages.
pub fn open(git_dir: &Path, name: &str) -> Result<(File, PathBuf)> {
    let dir = git_dir.join("evolv");
    fs::create_dir_all(&dir).map_err(|e| Error::io("create", &dir, e))?;
    let path = dir.join(name);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io("open lock file", &path, e))?;
    Ok((file, path))
}
