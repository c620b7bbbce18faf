//! The landing step shared by apply and rollback: refuse to overwrite
//! uncommitted work, move the branch by compare-and-swap from the head that
//! was checked, then update only the changed paths in the working tree and
//! index.

use std::fs::{self, File, OpenOptions};

use git2::{Oid, Repository, Tree};

use crate::error::{Error, Result};
use crate::git::{self, ChangedPath, Head};

/// Names a test may pass in `GIT_EVOLV_TEST_FAILPOINT` to make the step
/// after it fail, so recovery paths are tested against the real binary.
pub const FAILPOINT_AFTER_BRANCH_MOVE: &str = "after-branch-move";

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

/// An injected failure, for tests of what happens after the branch moved.
pub fn failpoint(name: &str) -> Result<()> {
    if std::env::var("GIT_EVOLV_TEST_FAILPOINT").as_deref() == Ok(name) {
        return Err(Error::io(
            "continue after",
            name,
            std::io::Error::other("failure injected by GIT_EVOLV_TEST_FAILPOINT"),
        ));
    }
    Ok(())
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

/// A branch that has moved, whose working tree is still to be updated.
/// Holds the landing lock until dropped.
pub struct Landing {
    _lock: File,
}

/// Moves `head` to `new` (a descendant of `head.commit`) once `changed` is
/// known to hold no uncommitted work. Nothing is touched on failure.
pub fn move_branch(
    repo: &Repository,
    head: &Head,
    new: Oid,
    changed: &[ChangedPath],
    reflog: &str,
) -> Result<Landing> {
    let lock = landing_lock(repo)?;
    let new_tree = repo.find_commit(new)?.tree()?;
    let head_tree = repo.find_commit(head.commit)?.tree()?;
    // Checked again under the lock: a validation may have run for minutes.
    ensure_clean(repo, &head_tree, &new_tree, changed)?;
    git::compare_and_swap(repo, head.ref_name(), new, Some(head.commit), reflog)?;
    Ok(Landing { _lock: lock })
}

impl Landing {
    /// Brings `changed` in the working tree and index to `commit`'s content.
    pub fn update_worktree(
        &self,
        repo: &Repository,
        commit: Oid,
        changed: &[ChangedPath],
    ) -> Result<()> {
        let tree = repo.find_commit(commit)?.tree()?;
        git::update_paths(repo, &tree, changed)
    }
}

/// Moves `head` to `new` and updates the working tree: the whole landing.
pub fn land(
    repo: &Repository,
    head: &Head,
    new: Oid,
    changed: &[ChangedPath],
    reflog: &str,
) -> Result<()> {
    let landing = move_branch(repo, head, new, changed, reflog)?;
    landing.update_worktree(repo, new, changed)
}
