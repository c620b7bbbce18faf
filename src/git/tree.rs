//! Reading trees in bulk.

use git2::{ObjectType, Oid, Tree, TreeWalkMode, TreeWalkResult};

use super::mode;
use crate::error::Result;

/// A regular file in a tree (symlinks and submodules are left out: an edit
/// engine has no business rewriting them).
#[derive(Debug, Clone)]
pub struct BlobEntry {
    pub path: String,
    pub oid: Oid,
    pub mode: i32,
}

/// Every regular file of `tree`, in tree order, with repo-relative paths.
pub fn list_blobs(tree: &Tree<'_>) -> Result<Vec<BlobEntry>> {
    let mut out = Vec::new();
    tree.walk(TreeWalkMode::PreOrder, |dir, entry| {
        if entry.kind() == Some(ObjectType::Blob) {
            let mode = entry.filemode();
            // Regular and executable files only; a symlink's blob is its target.
            if let (true, Some(name)) = (mode::is_file(mode as u32), entry.name()) {
                // Not format!: this runs once per file of the repository.
                let mut path = String::with_capacity(dir.len() + name.len());
                path.push_str(dir);
                path.push_str(name);
                out.push(BlobEntry {
                    path,
                    oid: entry.id(),
                    mode,
                });
            }
        }
        TreeWalkResult::Ok
    })?;
    Ok(out)
}

/// The libgit2 mode of a raw tree-entry mode.
pub fn file_mode(mode: i32) -> git2::FileMode {
    match mode as u32 {
        mode::EXECUTABLE => git2::FileMode::BlobExecutable,
        mode::SYMLINK => git2::FileMode::Link,
        mode::GITLINK => git2::FileMode::Commit,
        mode::TREE => git2::FileMode::Tree,
        _ => git2::FileMode::Blob,
    }
}
