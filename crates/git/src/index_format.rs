//! Index formats git-evolv does not write. A split index
//! (`core.splitIndex`, `git update-index --split-index`: mandatory extension
//! `link`) holds the same entries as a plain one, so git itself turns it
//! back into a plain index and the landing goes on (git splits it again on
//! its next write if `core.splitIndex` says so). A sparse index
//! (`index.sparse`: extension `sdir`) folds whole directories into one
//! entry: it is refused with the way out.

use crate::error::{Error, Result};

/// Has git rewrite a split index as a plain one. Needs `index.lock` free:
/// git takes it for the rewrite.
pub fn unsplit(repo: &git2::Repository) -> Result<()> {
    // Not `git::workdir`: this sits below the handle (no import cycle).
    let workdir = repo.workdir().ok_or_else(|| Error::BareRepository {
        path: repo.path().to_path_buf(),
    })?;
    let lock = repo.path().join("index.lock");
    if lock.exists() {
        return Err(Error::IndexLocked { path: lock });
    }
    super::cli::run(workdir, &["update-index", "--no-split-index"])
}

/// The refusal of a sparse index.
pub fn sparse_refusal(repo: &git2::Repository) -> Error {
    Error::UnsupportedRepository {
        path: repo.workdir().unwrap_or(repo.path()).to_path_buf(),
        what: "has a sparse index (index.sparse)",
        hint: "keep the sparse checkout but store a full index with `git sparse-checkout reapply --no-sparse-index`, then run git-evolv again",
    }
}
