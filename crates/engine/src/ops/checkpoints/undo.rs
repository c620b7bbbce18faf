//! What `git evolv undo` (and redo) of a rewind does to the work tree. A
//! rewind's record moved its session's ref to the rewind's checkpoint,
//! whose first parent holds the work tree as the rewind found it; undo
//! moves the ref back (`operations::undo::refs`) and, through this,
//! puts the rewound paths back as they were; redo writes them again.
//! A path changed since (it no longer holds what the rewind, or its undo,
//! left) is refused by name before any ref moves, as a rewind refuses.

use super::chain::{self, Checkpoint};
use super::files::{self, Image};
use super::record::tree_changes;
use crate::error::{Error, Result};
use crate::git::{Oid, Repo, RepoPath};

/// Paths to bring from one checkpoint's tree to another's.
#[derive(Debug)]
pub struct TreeMove {
    paths: Vec<RepoPath>,
    to: Oid,
}

/// The work-tree move that goes with moving ref `name` from `old` to
/// `new`: `Some` when one side is a rewind's checkpoint and the other is
/// not, checked against the work tree now.
pub fn follow(
    repo: &Repo,
    name: &str,
    old: Option<Oid>,
    new: Option<Oid>,
) -> Result<Option<TreeMove>> {
    if !name.starts_with(chain::PREFIX) {
        return Ok(None);
    }
    let (Some(old), Some(new)) = (old, new) else {
        return Ok(None);
    };
    // Undo moves the ref back from a rewind to a checkpoint before it;
    // redo forward to it (a rewind may follow another).
    let (rewind, undoing) = if repo.is_descendant_of(old, new)? {
        match rewind_at(repo, old)? {
            Some(r) => (r, true),
            None => return Ok(None),
        }
    } else {
        match rewind_at(repo, new)? {
            Some(r) => (r, false),
            None => return Ok(None),
        }
    };
    let Some(before) = rewind.previous else {
        return Ok(None);
    };
    let before = repo.find_commit(before)?.tree_id();
    let paths = tree_changes(repo, before, rewind.tree)?;
    let (expected, to) = if undoing {
        (rewind.tree, before)
    } else {
        (before, rewind.tree)
    };
    let now = crate::git::worktree::snapshot::snapshot(repo)?.tree;
    let (now_tree, expected_tree) = (repo.find_tree(now)?, repo.find_tree(expected)?);
    let (mut here, mut wanted) = (
        Image::new(repo, &now_tree),
        Image::new(repo, &expected_tree),
    );
    let changed: Vec<String> = paths
        .iter()
        .filter(|p| here.at(p) != wanted.at(p))
        .map(|p| p.lossy().into_owned())
        .collect();
    if !changed.is_empty() {
        return Err(Error::CheckpointDrift {
            checkpoint: rewind.id.to_string()[..12].to_string(),
            paths: changed,
        });
    }
    Ok(Some(TreeMove { paths, to }))
}

impl TreeMove {
    /// Writes the paths.
    pub fn apply(&self, repo: &Repo) -> Result<()> {
        files::write_paths(repo, self.to, &self.paths)
    }
}

fn rewind_at(repo: &Repo, id: Oid) -> Result<Option<Checkpoint>> {
    Ok(chain::read(repo, id)?.filter(|c| c.meta.event == "rewind"))
}
