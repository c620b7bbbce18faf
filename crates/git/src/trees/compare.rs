//! Which paths differ between two trees, by gix-diff's tree-to-tree
//! changes: it descends only into subtrees whose ids differ, so this costs
//! what the change costs, not what the trees hold. No rename tracking: a
//! renamed file is the old path deleted and the new one added.

use gix_diff::tree::{Recorder, State, recorder::Change as Recorded};
use gix_object::FindExt;

use crate::objects::odb_find::{OdbFind, gix_id};
use crate::on_object;

use crate::RepoPath;
use crate::error::Result;

/// A path whose entry differs between two trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedPath {
    pub path: RepoPath,
    pub status: Change,
}

/// How a path changed between two trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Added,
    Deleted,
    Modified,
}

/// Paths that differ between `old` and `new`, sorted. A file replaced by a
/// directory (or back) yields the file's path and every path under the
/// directory. A file whose mode changes (not its kind) is `Modified`.
pub fn changed_paths(
    repo: &crate::Repo,
    old: &crate::objects::view::Tree<'_>,
    new: &crate::objects::view::Tree<'_>,
) -> Result<Vec<ChangedPath>> {
    let (old, new) = (old.id(), new.id());
    let find = OdbFind::new(repo.raw())?;
    let doing =
        || on_object("compare trees", old).said(format!("compare tree {old} with tree {new}"));
    let mut recorder = Recorder::default();
    let (mut old_buf, mut new_buf) = (Vec::new(), Vec::new());
    let walked = (|| {
        let lhs = find.find_tree_iter(&gix_id(old), &mut old_buf)?;
        let rhs = find.find_tree_iter(&gix_id(new), &mut new_buf)?;
        gix_diff::tree(lhs, rhs, State::default(), &find, &mut recorder)
            .map_err(gix_error::Error::from_error)
    })();
    if let Err(e) = walked {
        return Err(find.failure(&e, doing));
    }
    let mut out: Vec<ChangedPath> = recorder.records.into_iter().filter_map(changed).collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.dedup_by(|a, b| a.path == b.path);
    Ok(out)
}

/// The path a recorded change names, unless it is a directory's (its files
/// are recorded too) or a mode change libgit2 read as none (`100664` and
/// `100644` are both a plain file).
fn changed(change: Recorded) -> Option<ChangedPath> {
    let (path, status) = match change {
        Recorded::Addition {
            entry_mode, path, ..
        } if !entry_mode.is_tree() => (path, Change::Added),
        Recorded::Deletion {
            entry_mode, path, ..
        } if !entry_mode.is_tree() => (path, Change::Deleted),
        Recorded::Modification {
            previous_entry_mode,
            previous_oid,
            entry_mode,
            oid,
            path,
        } if !entry_mode.is_tree()
            && (previous_oid != oid
                || mode_as_libgit2(previous_entry_mode) != mode_as_libgit2(entry_mode)) =>
        {
            (path, Change::Modified)
        }
        _ => return None,
    };
    Some(ChangedPath {
        path: RepoPath::from(&path[..]),
        status,
    })
}

/// `mode` as libgit2 reads a tree entry's mode (`git_tree_entry_filemode`),
/// which the comparison before gix-diff compared: a folder, else the
/// owner's execute bit makes an executable, else a submodule, a symlink or
/// a file.
fn mode_as_libgit2(mode: gix_object::tree::EntryMode) -> u32 {
    let raw = u32::from(mode.value());
    match raw & 0o170000 {
        0o040000 => crate::types::mode::TREE,
        _ if raw & 0o100 != 0 => crate::types::mode::EXECUTABLE,
        0o160000 => crate::types::mode::GITLINK,
        0o120000 => crate::types::mode::SYMLINK,
        _ => crate::types::mode::BLOB,
    }
}

impl crate::Repo {
    /// Fetches, in a partial clone, the blobs on both sides of `changed`
    /// (paths between `old` and `new`) that are not here: what a diff of
    /// the two trees and a landing of `new` read.
    pub fn fetch_changed(
        &self,
        old: &crate::objects::view::Tree<'_>,
        new: &crate::objects::view::Tree<'_>,
        changed: &[ChangedPath],
    ) -> Result<()> {
        if self.promisor_remote().is_none() {
            return Ok(());
        }
        let ids: Vec<crate::Oid> = changed
            .iter()
            .flat_map(|c| [old.get_path(c.path.fs()), new.get_path(c.path.fs())])
            .flatten()
            .filter(|entry| entry.kind == crate::objects::view::Kind::Blob)
            .map(|entry| entry.id)
            .collect();
        self.fetch_missing(ids)
    }
}

#[cfg(test)]
#[path = "compare_tests.rs"]
mod tests;
