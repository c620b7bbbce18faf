//! Which of a landing's paths hold uncommitted work that it would overwrite.
//!
//! `git_status_file` walks the whole index for every path (a cost that
//! grows with the repository, times the paths), so each path is checked directly: its
//! index entry (from `repo::index`) against HEAD's tree, then its file
//! against the index entry by stat data, hashing only when the stat data
//! disagrees. A path that still looks modified is confirmed by git itself
//! (`git diff`), so a filter, `core.fileMode` or a racy timestamp never
//! turns into a false "dirty".

use std::collections::HashSet;
use std::fs::{self, Metadata};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use git2::Tree;

use crate::trees::compare::Change;

use crate::Repo;
use crate::error::Result;
use crate::formats::index::{Entry, IndexFile};
use crate::{ChangedPath, RepoPath, TreeLookup, types::mode};

/// Paths among `changed` that must not be touched: staged or unstaged
/// changes, untracked or ignored files where the new tree puts a file, and
/// anything in the way of a directory the new tree needs. `head_tree` is the
/// tree of the commit the landing starts from.
pub fn dirty_paths(
    repo: &Repo,
    head_tree: &crate::objects::view::Tree<'_>,
    new_tree: &crate::objects::view::Tree<'_>,
    changed: &[ChangedPath],
) -> Result<Vec<RepoPath>> {
    let head_tree = head_tree.raw();
    let new_tree = new_tree.raw();
    repo.with_index(|index| dirty_in(repo, index, head_tree, new_tree, changed))?
}

fn dirty_in(
    repo: &Repo,
    index: &IndexFile,
    head_tree: &Tree<'_>,
    new_tree: &Tree<'_>,
    changed: &[ChangedPath],
) -> Result<Vec<RepoPath>> {
    let workdir = crate::workdir(repo)?;
    let index_mtime = fs::metadata(repo.raw().path().join("index"))
        .ok()
        .map(|m| m.mtime());
    let removed: HashSet<&[u8]> = changed
        .iter()
        .filter(|c| c.status == Change::Deleted)
        .map(|c| c.path.as_bytes())
        .collect();
    // Each tree's directories opened once for all the paths.
    let (mut head, mut new) = (
        TreeLookup::from_raw(repo.raw(), head_tree),
        TreeLookup::from_raw(repo.raw(), new_tree),
    );
    let mut dirty = Vec::new();
    for change in changed {
        let path = &change.path;
        let writes_here = new.get(path).is_some();
        if writes_here && blocked_by_ancestor(workdir, path, &removed) {
            dirty.push(path.clone());
            continue;
        }
        let full = workdir.join(path.fs());
        let file = fs::symlink_metadata(&full).ok();
        if file.as_ref().is_some_and(Metadata::is_dir) {
            if writes_here && !only_removed_files_inside(&full, path, &removed) {
                dirty.push(path.clone());
            }
            continue;
        }
        let clean = match quick_verdict(repo, index, &mut head, path, file.as_ref(), index_mtime) {
            Some(verdict) => verdict,
            None => match index.get(path.as_bytes(), 0).filter(|e| is_flagged(e)) {
                Some(entry) if file.is_some() => flagged_file_is_clean(repo, path, entry)?,
                // A flagged entry whose file is gone: a deletion git hides.
                Some(_) => false,
                None => confirmed_clean(repo, path)?,
            },
        };
        if !clean {
            dirty.push(path.clone());
        }
    }
    Ok(dirty)
}

/// `Some(clean)` when the index and stat data decide; `None` to ask git.
fn quick_verdict(
    repo: &Repo,
    index: &IndexFile,
    head: &mut TreeLookup<'_>,
    path: &RepoPath,
    file: Option<&Metadata>,
    index_mtime: Option<i64>,
) -> Option<bool> {
    if index.conflicted(path.as_bytes()) {
        return Some(false);
    }
    let in_head = head.get(path);
    let Some(entry) = index.get(path.as_bytes(), 0) else {
        // Not in the index: staged deletion if HEAD has it; otherwise any
        // file here is untracked (or ignored) and would be overwritten.
        return Some(in_head.is_none() && file.is_none());
    };
    let staged = match &in_head {
        Some(h) => h.id != entry.oid() || h.mode != entry.mode,
        None => true,
    };
    if staged {
        return Some(false);
    }
    let skip_worktree = crate::worktree::index_write::skips_worktree(entry);
    if file.is_none() && skip_worktree {
        // Outside a sparse checkout: git keeps no file there, nothing to lose.
        return Some(true);
    }
    if skip_worktree || entry.flags & ASSUME_UNCHANGED != 0 {
        // git's diff believes the flag; the file itself must be read.
        return None;
    }
    let file = file?;
    if file_matches_entry(file, entry, index_mtime) {
        return Some(true);
    }
    if file.is_file() && file.len() == u64::from(entry.size) {
        let full = repo.raw().workdir()?.join(path.fs());
        if crate::hash_blob_file(&full).ok() == Some(entry.oid()) && mode_matches(file, entry) {
            return Some(true);
        }
    }
    None
}

/// `CE_VALID`, set by `git update-index --assume-unchanged`.
const ASSUME_UNCHANGED: u16 = 0x8000;

/// An entry git's diff does not compare with its file.
fn is_flagged(entry: &Entry) -> bool {
    entry.flags & ASSUME_UNCHANGED != 0 || crate::worktree::index_write::skips_worktree(entry)
}

/// git's stat check: same size, mtime, ctime, inode and mode, and not
/// "racily clean" (written in the same second as the index).
fn file_matches_entry(file: &Metadata, entry: &Entry, index_mtime: Option<i64>) -> bool {
    let same = file.len() as u32 == entry.size
        && file.mtime() as u32 == entry.mtime.0
        && file.mtime_nsec() as u32 == entry.mtime.1
        && file.ctime() as u32 == entry.ctime.0
        && file.ino() as u32 == entry.ino
        && mode_matches(file, entry);
    let racy = index_mtime.is_none_or(|m| file.mtime() >= m);
    same && !racy
}

fn mode_matches(file: &Metadata, entry: &Entry) -> bool {
    let executable = file.mode() & 0o111 != 0;
    match entry.mode {
        mode::EXECUTABLE => file.is_file() && executable,
        mode::BLOB => file.is_file() && !executable,
        mode::SYMLINK => file.file_type().is_symlink(),
        _ => false,
    }
}

/// Whether the file of a tracked path still matches its index entry, as
/// git itself decides (`git diff`: filters, `core.fileMode`, symlinks).
fn confirmed_clean(repo: &Repo, path: &RepoPath) -> Result<bool> {
    crate::worktree::filters::worktree_matches_index(repo, path)
}

/// Whether a leading component of `path` is a file or symlink that the
/// landing does not itself remove (writing there would fail or escape).
fn blocked_by_ancestor(workdir: &Path, path: &RepoPath, removed: &HashSet<&[u8]>) -> bool {
    crate::worktree::confine::blocked_prefix(workdir, path)
        .is_some_and(|p| !removed.contains(p.as_bytes()))
}

fn only_removed_files_inside(dir: &Path, rel: &RepoPath, removed: &HashSet<&[u8]>) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    for entry in entries.flatten() {
        // Names as bytes: a file whose name is not UTF-8 is a file too.
        let child = rel.join(entry.file_name().as_bytes());
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        let ok = if is_dir {
            only_removed_files_inside(&entry.path(), &child, removed)
        } else {
            removed.contains(child.as_bytes())
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Refuses while a merge, rebase, cherry-pick, revert, bisect or `git am`
/// is in progress: the branch and index belong to that operation, and a
/// landing in the middle of it would be folded into (or lost by) its
/// `--continue` / `--abort` (#16 item 6). Worded as git words it.
pub fn ensure_no_operation_in_progress(repo: &Repo) -> Result<()> {
    use git2::RepositoryState as S;
    let (message, way_out) = match repo.raw().state() {
        S::Clean => return Ok(()),
        S::Merge => (
            "You have not concluded your merge (MERGE_HEAD exists).",
            "conclude it with `git commit` or abort it with `git merge --abort`",
        ),
        S::Revert | S::RevertSequence => (
            "a revert is in progress",
            "finish it with `git revert --continue` or abort it with `git revert --abort`",
        ),
        S::CherryPick | S::CherryPickSequence => (
            "a cherry-pick is in progress",
            "finish it with `git cherry-pick --continue` or abort it with `git cherry-pick --abort`",
        ),
        S::Bisect => ("a bisect is in progress", "end it with `git bisect reset`"),
        S::Rebase | S::RebaseInteractive | S::RebaseMerge => (
            "a rebase is in progress",
            "finish it with `git rebase --continue` or abort it with `git rebase --abort`",
        ),
        S::ApplyMailbox | S::ApplyMailboxOrRebase => (
            "a `git am` session is in progress",
            "finish it with `git am --continue` or abort it with `git am --abort`",
        ),
    };
    Err(crate::error::Error::OperationInProgress {
        message: format!("{message} git-evolv lands nothing until it is over"),
        hint: format!("{way_out}, then run the command again; nothing was changed"),
    })
}

/// Whether the working-tree file of a flagged index entry (assume-unchanged
/// or skip-worktree, with a file on disk) still holds the entry's blob,
/// read through git's clean filters (`git hash-object`). git's own diff
/// trusts the flag and reports such a file clean whatever it holds, so the
/// file itself is read, as `git merge --ff-only` and `git revert` do
/// before they refuse to overwrite it (#16 item 1).
fn flagged_file_is_clean(repo: &Repo, path: &RepoPath, entry: &Entry) -> Result<bool> {
    Ok(crate::worktree::filters::cleaned_id(repo, path)? == entry.oid())
}
