//! Revision ranges as git reads them (`A..B`, `A...B`), and finding the
//! repository around a folder as git does (honouring `GIT_DIR`).

use std::path::Path;

use crate::{Oid, Repo};

/// A range's two ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RevRange {
    pub from: Oid,
    pub to: Oid,
    /// `A...B`: the commits of either side since their merge base.
    pub symmetric: bool,
}

/// Why a text is not a usable range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RangeProblem {
    /// One revision, no `..`.
    SingleRevision,
    /// `A..` or `..B`.
    EmptySide,
    /// git could not resolve it: its message.
    Unresolved(String),
}

impl Repo {
    /// The commit `rev` names (`HEAD~2`, a branch, an id), if it names one.
    pub fn resolve_commit(&self, rev: &str) -> Option<Oid> {
        let object = self.raw().revparse_single(rev).ok()?;
        object.peel_to_commit().ok().map(|c| c.id().into())
    }

    /// The ends of `range`, resolved to commits.
    pub fn parse_range(&self, range: &str) -> Result<RevRange, RangeProblem> {
        let spec = self
            .raw()
            .revparse(range)
            .map_err(|e| RangeProblem::Unresolved(e.message().to_string()))?;
        if !spec.mode().contains(git2::RevparseMode::RANGE) {
            return Err(RangeProblem::SingleRevision);
        }
        let (Some(from), Some(to)) = (spec.from(), spec.to()) else {
            return Err(RangeProblem::EmptySide);
        };
        Ok(RevRange {
            from: from.id().into(),
            to: to.id().into(),
            symmetric: spec.mode().contains(git2::RevparseMode::MERGE_BASE),
        })
    }
}

/// The repository around `dir`, if any, read-only views allowed (bare
/// too). Honours `GIT_DIR`, which git sets for some hooks.
pub fn discover(dir: &Path) -> Option<Repo> {
    let repo = if std::env::var_os("GIT_DIR").is_some() {
        git2::Repository::open_from_env()
    } else {
        git2::Repository::discover(dir)
    };
    repo.ok().map(Repo::new_any)
}
