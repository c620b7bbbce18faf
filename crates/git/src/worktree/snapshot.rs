//! The whole work tree as one tree object, HEAD, the index and the files
//! left as they are (a checkpoint, `git evolv checkpoint`). What differs
//! from HEAD is found as `git status` finds it (`capture`: the index's
//! stat data, its untracked cache and fsmonitor where set, git's ignore
//! rules), so an unchanged file is never read: its blob is HEAD's. Only
//! the changed files are hashed (through git's clean filters), and only
//! the trees on their paths are written, HEAD's tree edited by path.

use std::path::Path;

use crate::error::Result;
use crate::trees::edit::TreeEdit;
use crate::trees::lookup::TreeLookup;
use crate::{Oid, Repo};

/// The work tree written as a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    /// The tree: tracked and untracked files, not ignored ones.
    pub tree: Oid,
    /// The commit HEAD was on (`None`: an unborn branch).
    pub head: Option<Oid>,
}

/// The work tree of `repo` as a tree, its changed files' blobs written.
/// Submodules are taken as HEAD has them; a nested repository that is
/// not one is left out, as `git add -A` leaves it.
pub fn snapshot(repo: &Repo) -> Result<Snapshot> {
    let workdir: &Path = crate::workdir(repo)?;
    let changes = super::capture::changes(repo, workdir, &[], true, true)?;
    let head = repo.head_target();
    let base = match head {
        Some(commit) => repo.find_commit(commit)?.tree_id(),
        None => repo.empty_tree()?,
    };
    if changes.is_empty() {
        return Ok(Snapshot { tree: base, head });
    }
    let base_tree = repo.find_tree(base)?;
    let mut lookup = TreeLookup::new(repo, &base_tree);
    let mut edits = Vec::with_capacity(changes.len());
    for change in changes {
        match change.now {
            Some((id, mode)) => edits.push(TreeEdit::Put {
                path: change.path.as_bytes().to_vec(),
                id,
                mode: mode as i32,
            }),
            // A removal of what HEAD lacks (a conflicted path git status
            // names without HEAD's side) is no change.
            None if lookup.get(&change.path).is_some() => edits.push(TreeEdit::Remove {
                path: change.path.as_bytes().to_vec(),
            }),
            None => {}
        }
    }
    let tree = if edits.is_empty() {
        base
    } else {
        repo.edit_tree(base, &edits)?
    };
    Ok(Snapshot { tree, head })
}
