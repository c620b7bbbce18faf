//! Index formats libgit2 cannot read. A split index (`core.splitIndex`,
//! `git update-index --split-index`: mandatory extension `link`) holds the
//! same entries as a plain one, so git itself turns it back into a plain
//! index and the landing goes on (git splits it again on its next write if
//! `core.splitIndex` says so). A sparse index (`index.sparse`: extension
//! `sdir`) folds whole directories into one entry, which libgit2 would drop:
//! it is refused with the way out.

use std::path::Path;

use git2::Repository;

use crate::error::{Error, Result};

/// What a libgit2 failure to read the index means.
pub enum Unreadable {
    /// A split index: `git update-index --no-split-index` makes it plain.
    Split,
    /// A sparse index: refused.
    Sparse,
}

/// Classifies libgit2's message for an index it failed to read (`None`:
/// some other failure).
pub fn unreadable(message: &str) -> Option<Unreadable> {
    if !message.contains("mandatory extension") {
        return None;
    }
    if message.contains("'link'") {
        Some(Unreadable::Split)
    } else if message.contains("'sdir'") {
        Some(Unreadable::Sparse)
    } else {
        None
    }
}

/// Has git rewrite a split index as a plain one, or refuses a sparse one.
/// Needs `index.lock` free: git takes it for the rewrite.
pub fn make_readable(repo: &Repository, kind: Unreadable) -> Result<()> {
    let workdir = repo.workdir().expect("open() refuses bare repositories");
    match kind {
        Unreadable::Split => {
            let lock = repo.path().join("index.lock");
            if lock.exists() {
                return Err(Error::IndexLocked { path: lock });
            }
            super::cli::run(workdir, &["update-index", "--no-split-index"])
        }
        Unreadable::Sparse => Err(Error::UnsupportedRepository {
            path: Path::new(workdir).to_path_buf(),
            what: "has a sparse index (index.sparse)",
            hint: "keep the sparse checkout but store a full index with `git sparse-checkout reapply --no-sparse-index`, then run git-evolv again",
        }),
    }
}
