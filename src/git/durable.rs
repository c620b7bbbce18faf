//! Durability across a power cut, beyond git's defaults (git flushes packs
//! but not loose objects, refs, the index or working-tree files). A
//! landing's journal is flushed before anything moves; everything the
//! landing writes is flushed before the journal is deleted, so after a
//! power cut either the journal is still there (and recovery finishes the
//! landing) or every write it records is on disk.

use std::fs::File;
use std::path::Path;

use crate::error::{Error, Result};

/// Makes libgit2 flush the loose objects and refs it writes (and their
/// directories) from now on. It reads the setting when a repository is
/// opened, so this is called before `git::open` by the commands that land.
#[allow(unsafe_code)]
pub fn flush_git_dir_writes() {
    // Opening a repository initialises libgit2; the option must be set
    // before that open, so initialise it here first.
    let _ = git2::Config::new();
    // SAFETY: GIT_OPT_ENABLE_FSYNC_GITDIR takes exactly one int argument
    // and only sets a global flag; libgit2 is initialised above.
    let status = unsafe {
        libgit2_sys::git_libgit2_opts(
            libgit2_sys::GIT_OPT_ENABLE_FSYNC_GITDIR as libc::c_int,
            1 as libc::c_int,
        )
    };
    debug_assert!(status >= 0);
}

/// Flushes the file at `path` (written by someone else, e.g. libgit2).
pub fn flush_file(path: &Path) -> Result<()> {
    File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| Error::io("flush to disk", path, e))
}

/// Flushes directory `dir`, so the renames and removals in it are on disk.
pub fn flush_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|f| f.sync_all())
        .map_err(|e| Error::io("flush to disk", dir, e))
}
