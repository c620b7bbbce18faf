//! Writing a landing's file where it stands, as git's checkout writes it:
//! the old file removed, the new one created in the free name and written.
//! For a landing whose branch has already moved: its journal names every
//! path's blob, so recovery writes again a path a kill left missing or cut
//! short (RELIABILITY.md, "Landing protocol", step 7). One metadata change
//! per file fewer than a temp file renamed into place, which on ext4 is a
//! third of a 3,000-file landing's system time.

use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;

use super::{MODE_GITLINK, MODE_SYMLINK, blob_for, check_path, file_permissions};
use crate::Oid;
use crate::error::{Error, Result};
use crate::{Repo, RepoPath, confine, filters};

/// Writes blob `id` with `mode` at `path`, whose parent directory exists:
/// whatever file is there is removed (an empty directory too; callers
/// refuse anything else in the way), then the new file is created with
/// `O_EXCL` and written. Any thread, with its own `Repo`.
pub fn write_in_place(repo: &Repo, path: &RepoPath, id: Oid, mode: u32) -> Result<()> {
    let workdir = crate::workdir(repo)?;
    check_path(workdir, path)?;
    let full = workdir.join(path.fs());
    if mode == MODE_GITLINK {
        return fs::create_dir_all(&full).map_err(|e| Error::io("create", &full, e));
    }
    // Read and converted first: the path is missing only while the new
    // file is created.
    let blob = blob_for(repo, id, &full)?;
    let smudged = match mode {
        MODE_SYMLINK => None,
        _ => filters::smudged(repo, path, id)?,
    };
    let bytes = smudged.as_deref().unwrap_or(blob.content());
    match fs::remove_file(&full) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => {
            if !fs::symlink_metadata(&full).is_ok_and(|m| m.is_dir()) {
                return Err(Error::io("remove", &full, e));
            }
            // Only an empty directory can be here (callers check first).
            confine::forget_known_dirs();
            fs::remove_dir(&full).map_err(|_| Error::io("remove", &full, e))?;
        }
    }
    if mode == MODE_SYMLINK {
        let target = std::ffi::OsStr::from_bytes(bytes);
        return std::os::unix::fs::symlink(target, &full)
            .map_err(|e| Error::io("create symlink", &full, e));
    }
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(file_permissions(mode))
        .open(&full)
        .map_err(|e| Error::io("create", &full, e))?;
    // Not flushed, as git's checkout: the journal names the blob, and
    // recovery rewrites a file a power cut emptied or cut short.
    file.write_all(bytes)
        .map_err(|e| Error::io("write", &full, e))
}
