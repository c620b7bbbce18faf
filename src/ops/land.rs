//! The landing step shared by apply and rollback: refuse to overwrite
//! uncommitted work, move the branch by compare-and-swap from the head that
//! was checked, then update only the changed paths in the working tree and
//! index.

use std::fs::{self, File, OpenOptions};

use git2::{Oid, Repository, Tree};

use crate::error::{Error, Result};
use crate::git::{self, ChangedPath, Head};

/// Fails with `DirtyWorktree` when any of `changed` holds uncommitted work.
pub fn ensure_clean(
    repo: &Repository,
    head_tree: &Tree<'_>,
    new_tree: &Tree<'_>,
    changed: &[ChangedPath],
) -> Result<()> {
    let dirty = git::dirty_paths(repo, head_tree, new_tree, changed)?;
    if dirty.is_empty() {
        Ok(())
    } else {
        Err(Error::DirtyWorktree { paths: dirty })
    }
}

/// Serialises landings in one working tree. An `flock`, so the kernel
/// releases it when the holder dies.
fn landing_lock(repo: &Repository) -> Result<File> {
    let dir = repo.path().join("evolv");
    fs::create_dir_all(&dir).map_err(|e| Error::io("create", &dir, e))?;
    let path = dir.join("landing.lock");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io("open lock file", &path, e))?;
    file.lock().map_err(|e| Error::io("lock", &path, e))?;
    Ok(file)
}

/// Moves `head` to `new` (a child of `head.commit`) and updates `changed`.
pub fn land(
    repo: &Repository,
    head: &Head,
    new: Oid,
    changed: &[ChangedPath],
    reflog: &str,
) -> Result<()> {
    let _lock = landing_lock(repo)?;
    let new_tree = repo.find_commit(new)?.tree()?;
    let head_tree = repo.find_commit(head.commit)?.tree()?;
    // Checked again under the lock: a validation may have run for minutes.
    ensure_clean(repo, &head_tree, &new_tree, changed)?;
    git::compare_and_swap(repo, head.ref_name(), new, Some(head.commit), reflog)?;
    git::update_paths(repo, &new_tree, changed)
}
