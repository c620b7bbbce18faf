//! Which paths differ between two trees, descending only into subtrees whose
//! ids differ. libgit2's tree-to-tree diff visits every entry of both trees
//! however small the change; this costs what the change costs.

use crate::Context;
use crate::on_object;
use git2::{ObjectType, Repository, Tree, TreeEntry};

use crate::diff::Change;

use super::{ChangedPath, RepoPath};
use crate::error::Result;

/// Paths that differ between `old` and `new`, sorted. A file replaced by a
/// directory (or back) yields the file's path and every path under the
/// directory.
pub fn changed_paths(
    repo: &crate::Repo,
    old: &crate::view::Tree<'_>,
    new: &crate::view::Tree<'_>,
) -> Result<Vec<ChangedPath>> {
    let old = old.raw();
    let new = new.raw();
    let mut out = Vec::new();
    compare(repo, Some(old), Some(new), &RepoPath::default(), &mut out)?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.dedup_by(|a, b| a.path == b.path);
    Ok(out)
}

fn is_tree(entry: &TreeEntry<'_>) -> bool {
    entry.kind() == Some(ObjectType::Tree)
}

/// `prefix/name`, as bytes: a name that is not UTF-8 is a path like any
/// other (#16 item 7).
fn join(prefix: &RepoPath, entry: &TreeEntry<'_>) -> RepoPath {
    prefix.join(entry.name_bytes())
}

fn compare(
    repo: &crate::Repo,
    old: Option<&Tree<'_>>,
    new: Option<&Tree<'_>>,
    prefix: &RepoPath,
    out: &mut Vec<ChangedPath>,
) -> Result<()> {
    if let Some(new) = new {
        for entry in new.iter() {
            let before = old.and_then(|o| o.get_name_bytes(entry.name_bytes()));
            if before
                .as_ref()
                .is_some_and(|b| b.id() == entry.id() && b.filemode() == entry.filemode())
            {
                continue;
            }
            let path = join(prefix, &entry);
            match before {
                None => side(repo, &entry, &path, Change::Added, out)?,
                Some(b) if is_tree(&b) && is_tree(&entry) => {
                    let (bt, et) = (subtree(repo.raw(), &b)?, subtree(repo.raw(), &entry)?);
                    compare(repo, Some(&bt), Some(&et), &path, out)?;
                }
                Some(b) if is_tree(&b) || is_tree(&entry) => {
                    side(repo, &b, &path, Change::Deleted, out)?;
                    side(repo, &entry, &path, Change::Added, out)?;
                }
                Some(_) => out.push(ChangedPath {
                    path,
                    status: Change::Modified,
                }),
            }
        }
    }
    if let Some(old) = old {
        for entry in old.iter() {
            if new.is_none_or(|n| n.get_name_bytes(entry.name_bytes()).is_none()) {
                let path = join(prefix, &entry);
                side(repo, &entry, &path, Change::Deleted, out)?;
            }
        }
    }
    Ok(())
}

/// An entry present on one side only: the path itself, or every path
/// under it when it is a directory.
fn side(
    repo: &crate::Repo,
    entry: &TreeEntry<'_>,
    path: &RepoPath,
    status: Change,
    out: &mut Vec<ChangedPath>,
) -> Result<()> {
    if !is_tree(entry) {
        out.push(ChangedPath {
            path: path.clone(),
            status,
        });
        return Ok(());
    }
    let tree = subtree(repo.raw(), entry)?;
    let prefix = path;
    let (old, new) = match status {
        Change::Deleted => (Some(&tree), None),
        _ => (None, Some(&tree)),
    };
    compare(repo, old, new, prefix, out)
}

fn subtree<'r>(repo: &'r Repository, entry: &TreeEntry<'_>) -> Result<Tree<'r>> {
    repo.find_tree(entry.id())
        .context(|| on_object("read tree", entry.id()))
}
