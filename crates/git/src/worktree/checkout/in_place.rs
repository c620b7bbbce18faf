//! Writing a landing's file where it stands, as git's checkout writes it:
//! the old file removed, the new one created in the free name and written.
//! For a landing whose branch has already moved: its journal names every
//! path's blob, so recovery writes again a path a kill left missing or cut
//! short (RELIABILITY.md, "Landing protocol", step 7). One metadata change
//! per file fewer than a temp file renamed into place, which on ext4 is a
//! third of a 3,000-file landing's system time.
//!
//! Every directory is reached from the working tree one component at a
//! time, never through a symlink, and the file is then removed and created
//! in that directory (`sys::at`): a directory swapped for a symlink after
//! the landing's checks stops the write (`unsafe_path`) instead of taking
//! it out of the tree. git's checkout checks the leading path and then
//! writes by name, which such a swap can redirect.

use std::ffi::{CStr, CString};
use std::fs::File;
use std::io::{ErrorKind, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};

use super::{MODE_GITLINK, MODE_SYMLINK, blob_for, check_path, file_permissions};
use crate::Oid;
use crate::error::{Error, Result};
use crate::sys::calls::at;
use crate::worktree::index_write::Stat;
use crate::{Repo, RepoPath, worktree::confine, worktree::filters};

/// A writer of files in place for one thread, keeping the directory it
/// wrote into last: a landing's files come a directory at a time.
pub struct InPlace {
    workdir: PathBuf,
    root: OwnedFd,
    /// The last parent directory reached (its path in the tree) and its
    /// descriptor.
    parent: Option<(Vec<u8>, OwnedFd)>,
}

impl InPlace {
    /// A writer for `repo`'s working tree.
    pub fn new(repo: &Repo) -> Result<InPlace> {
        let workdir = crate::workdir(repo)?;
        let root = File::open(workdir).map_err(|e| Error::io("open", workdir, e))?;
        Ok(InPlace {
            workdir: workdir.to_path_buf(),
            root: root.into(),
            parent: None,
        })
    }

    /// Writes blob `id` with `mode` at `path`: whatever file is there is
    /// removed (an empty directory too; callers refuse anything else in
    /// the way), then the new file is created with `O_EXCL` and written.
    /// Missing parent directories are created. The stat data of a regular
    /// file written, taken from it as git's checkout takes it (`fstat`),
    /// for its index entry. Any thread, with its own `Repo`.
    pub fn write(
        &mut self,
        repo: &Repo,
        path: &RepoPath,
        id: Oid,
        mode: u32,
    ) -> Result<Option<Stat>> {
        check_path(&self.workdir, path)?;
        let full = self.workdir.join(path.fs());
        if mode == MODE_GITLINK {
            return std::fs::create_dir_all(&full)
                .map(|()| None)
                .map_err(|e| Error::io("create", &full, e));
        }
        filters::attributes_changed(repo, path);
        // Read and converted first: the path is missing only while the new
        // file is created.
        let blob = blob_for(repo, id, &full)?;
        let smudged = match mode {
            MODE_SYMLINK => None,
            _ => filters::smudged(repo, path, id)?,
        };
        let bytes = smudged.as_deref().unwrap_or(blob.content());
        let name = file_name(path)?;
        // Missing only if removed again between its creation and its opening.
        let gone = || Error::io("open", &full, ErrorKind::NotFound.into());
        let dir = self.parent_dir(path, true)?.ok_or_else(gone)?;
        clear(dir, &name, &full)?;
        if mode == MODE_SYMLINK {
            let target = CString::new(bytes).map_err(|_| unsafe_name(path, "a symlink target"))?;
            return at::symlink(&target, dir, &name)
                .map(|()| None)
                .map_err(|e| Error::io("create symlink", &full, e));
        }
        let mut file = at::create_new(dir, &name, file_permissions(mode))
            .map_err(|e| Error::io("create", &full, e))?;
        // Not flushed, as git's checkout: the journal names the blob, and
        // recovery rewrites a file a power cut emptied or cut short.
        file.write_all(bytes)
            .and_then(|()| file.metadata())
            .map(|meta| Some(Stat::of(&meta)))
            .map_err(|e| Error::io("write", &full, e))
    }

    /// Removes the file (or symlink, or empty directory) at `path`, and
    /// then, like git, the directories that become empty. Nothing there is
    /// no error.
    pub fn remove(&mut self, path: &RepoPath) -> Result<()> {
        check_path(&self.workdir, path)?;
        let full = self.workdir.join(path.fs());
        let name = file_name(path)?;
        let Some(dir) = self.parent_dir(path, false)? else {
            return Ok(());
        };
        match at::remove(dir, &name, false) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            // A gitlink's directory: removed only if empty.
            Err(_) if full.is_dir() => {
                let _ = at::remove(dir, &name, true);
            }
            Err(e) => return Err(Error::io("remove", &full, e)),
        }
        // Directories emptied below are removed: they are no longer known.
        confine::forget_known_dirs();
        self.parent = None;
        let bytes = path.as_bytes();
        let mut end = bytes.iter().rposition(|&b| b == b'/');
        while let Some(slash) = end {
            let dir_path = RepoPath::from_bytes(&bytes[..slash]);
            let name = file_name(&dir_path)?;
            let Some(parent) = self.parent_dir(&dir_path, false)? else {
                break;
            };
            if at::remove(parent, &name, true).is_err() {
                break;
            }
            self.parent = None;
            end = bytes[..slash].iter().rposition(|&b| b == b'/');
        }
        Ok(())
    }

    /// The directory `path` is in, reached without following a symlink:
    /// created where missing when `create`, else `None` where missing.
    fn parent_dir(&mut self, path: &RepoPath, create: bool) -> Result<Option<BorrowedFd<'_>>> {
        let bytes = path.as_bytes();
        let Some(slash) = bytes.iter().rposition(|&b| b == b'/') else {
            return Ok(Some(self.root.as_fd()));
        };
        let parent = &bytes[..slash];
        if self.parent.as_ref().is_none_or(|(p, _)| p != parent) {
            self.parent = None;
            match self.walk(path, parent, create)? {
                Some(fd) => self.parent = Some((parent.to_vec(), fd)),
                None => return Ok(None),
            }
        }
        Ok(self.parent.as_ref().map(|(_, fd)| fd.as_fd()))
    }

    /// Opens `parent` (the leading directories of `path`) one component at
    /// a time from the working tree.
    fn walk(&self, path: &RepoPath, parent: &[u8], create: bool) -> Result<Option<OwnedFd>> {
        let mut current: Option<OwnedFd> = None;
        let mut end = 0;
        for component in parent.split(|&b| b == b'/') {
            end += component.len();
            let prefix = &parent[..end];
            end += 1;
            let name = CString::new(component).map_err(|_| unsafe_name(path, "a path"))?;
            let dir = current.as_ref().map_or(self.root.as_fd(), |fd| fd.as_fd());
            let opened = match at::open_dir(dir, &name) {
                Err(e) if e.kind() == ErrorKind::NotFound && create => at::make_dir(dir, &name)
                    .or_else(|e| match e.kind() {
                        ErrorKind::AlreadyExists => Ok(()),
                        _ => Err(e),
                    })
                    .and_then(|()| at::open_dir(dir, &name)),
                other => other,
            };
            current = Some(match opened {
                Ok(fd) => fd,
                Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
                Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
                    return Err(Error::UnsafePath {
                        path: path.to_string(),
                        reason: format!(
                            "'{}' is a symlink or file in the working tree",
                            RepoPath::from_bytes(prefix)
                        ),
                    });
                }
                Err(e) => return Err(Error::io("open directory", self.full(prefix), e)),
            });
        }
        Ok(current)
    }

    fn full(&self, prefix: &[u8]) -> PathBuf {
        self.workdir.join(RepoPath::from_bytes(prefix).fs())
    }
}

/// Clears `name` in `dir` for a new file: a file or symlink is removed, an
/// empty directory too; nothing there is fine.
fn clear(dir: BorrowedFd<'_>, name: &CStr, full: &Path) -> Result<()> {
    match at::remove(dir, name, false) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => {
            // Only an empty directory can be here (callers check first).
            confine::forget_known_dirs();
            at::remove(dir, name, true).map_err(|_| Error::io("remove", full, e))
        }
    }
}

/// The last component of `path`, for the `at` calls.
fn file_name(path: &RepoPath) -> Result<CString> {
    let bytes = path.as_bytes();
    let start = bytes.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
    CString::new(&bytes[start..]).map_err(|_| unsafe_name(path, "a path"))
}

fn unsafe_name(path: &RepoPath, what: &str) -> Error {
    Error::UnsafePath {
        path: path.to_string(),
        reason: format!("{what} with a NUL byte cannot be written"),
    }
}
