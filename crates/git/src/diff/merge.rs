//! Three-way merges of trees and reverts of commits, as libgit2 computes
//! them, answered as a tree id or the conflicting paths.

use crate::error::Result;
use crate::on_object;
use crate::{Context, Oid, Repo};

/// What a merge came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Merged {
    /// The merged tree, written.
    Clean(Oid),
    /// The paths in conflict, sorted, named as git names them.
    Conflicts(Vec<String>),
}

impl Repo {
    /// Merges `ancestor → ours` and `ancestor → theirs` (no rename
    /// detection: a proposal names the paths it changes).
    pub fn merge_trees(&self, ancestor: Oid, ours: Oid, theirs: Oid) -> Result<Merged> {
        // The merged tree names blobs no merge reads (those at most one
        // side changed), which a partial clone, or any repository git
        // still merges in, may lack: do not require them to exist, as
        // git's `merge-tree --write-tree` does not (libgit2's strict
        // object creation checked every entry of the merged index).
        git2::opts::strict_object_creation(false);
        if self.promisor_remote().is_some() {
            // The blobs both sides changed are read: fetched in one go.
            self.fetch_merge_inputs(ancestor, ours, theirs)?;
        }
        let raw = self.raw();
        let tree = |id: Oid| {
            raw.find_tree(id.raw())
                .context(|| on_object("read tree", id))
        };
        let mut opts = git2::MergeOptions::new();
        opts.find_renames(false);
        let index = raw
            .merge_trees(&tree(ancestor)?, &tree(ours)?, &tree(theirs)?, Some(&opts))
            .context(|| {
                on_object("merge trees", ancestor)
                    .said(format!("merge tree {ancestor} → {ours} with → {theirs}"))
            })?;
        self.merged(index)
    }

    /// Reverts commit `commit` on top of commit `onto` (mainline 0).
    pub fn revert_commit(&self, commit: Oid, onto: Oid) -> Result<Merged> {
        let raw = self.raw();
        let read = |id: Oid| {
            raw.find_commit(id.raw())
                .context(|| on_object("read commit", id))
        };
        let index = raw
            .revert_commit(&read(commit)?, &read(onto)?, 0, None)
            .context(|| {
                on_object("revert commit", commit).said(format!("revert commit {commit} on {onto}"))
            })?;
        self.merged(index)
    }

    /// Fetches, in a partial clone, the blobs of the paths both sides of a
    /// merge changed: the only ones a three-way merge reads.
    fn fetch_merge_inputs(&self, ancestor: Oid, ours: Oid, theirs: Oid) -> Result<()> {
        let (base, left, right) = (
            self.find_tree(ancestor)?,
            self.find_tree(ours)?,
            self.find_tree(theirs)?,
        );
        let theirs_changed = crate::trees::compare::changed_paths(self, &base, &right)?;
        let both: Vec<crate::RepoPath> = crate::trees::compare::changed_paths(self, &base, &left)?
            .into_iter()
            .filter(|c| theirs_changed.iter().any(|t| t.path == c.path))
            .map(|c| c.path)
            .collect();
        let ids = both.iter().flat_map(|path| {
            [&base, &left, &right]
                .into_iter()
                .filter_map(|tree| tree.get_path(path.fs()))
                .filter(|entry| entry.kind == crate::objects::view::Kind::Blob)
                .map(|entry| entry.id)
                .collect::<Vec<_>>()
        });
        self.fetch_missing(ids.collect::<Vec<_>>())
    }

    fn merged(&self, mut index: git2::Index) -> Result<Merged> {
        if index.has_conflicts() {
            return Ok(Merged::Conflicts(crate::conflict_paths(&index)?));
        }
        index
            .write_tree_to(self.raw())
            .map(|id| Merged::Clean(id.into()))
            .context(|| "write the merged tree")
    }
}
