//! Reading trees in bulk.

use git2::{ObjectType, Oid, Repository, Tree};

use super::mode;
use crate::error::Result;

/// A regular file in a tree (symlinks and submodules are left out: an edit
/// engine has no business rewriting them).
#[derive(Debug, Clone)]
pub struct BlobEntry {
    /// The repo-relative path; for a name that is not UTF-8, its lossy
    /// form (what scope globs are matched against, consistently).
    pub path: String,
    /// Whether every component of the path is valid UTF-8, so `path` is
    /// the exact name (the landing writes files by that name).
    pub utf8: bool,
    pub oid: Oid,
    pub mode: i32,
}

/// Every regular file of `tree`, in tree order, with repo-relative paths.
/// Names are read as bytes: a directory or file whose name is not UTF-8
/// is listed (lossily, `utf8: false`), never an error (#16 item 7).
pub fn list_blobs(repo: &Repository, tree: &Tree<'_>) -> Result<Vec<BlobEntry>> {
    let mut out = Vec::new();
    walk(repo, tree, "", true, &mut out)?;
    Ok(out)
}

fn walk(
    repo: &Repository,
    tree: &Tree<'_>,
    dir: &str,
    utf8: bool,
    out: &mut Vec<BlobEntry>,
) -> Result<()> {
    for entry in tree.iter() {
        let bytes = entry.name_bytes();
        let (name, name_utf8) = match std::str::from_utf8(bytes) {
            Ok(n) => (std::borrow::Cow::Borrowed(n), true),
            Err(_) => (String::from_utf8_lossy(bytes), false),
        };
        // Not format!: this runs once per file of the repository.
        let mut path = String::with_capacity(dir.len() + name.len() + 1);
        path.push_str(dir);
        path.push_str(&name);
        match entry.kind() {
            Some(ObjectType::Tree) => {
                let sub = repo.find_tree(entry.id())?;
                path.push('/');
                walk(repo, &sub, &path, utf8 && name_utf8, out)?;
            }
            Some(ObjectType::Blob) => {
                // Regular and executable files only; a symlink's blob is its target.
                let mode = entry.filemode();
                if mode::is_file(mode as u32) {
                    out.push(BlobEntry {
                        path,
                        utf8: utf8 && name_utf8,
                        oid: entry.id(),
                        mode,
                    });
                }
            }
            _ => {}
        }
    }
    Ok(())
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
