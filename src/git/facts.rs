//! Facts about the working tree and branches that `check` and the pre-push
//! hook report: uncommitted files, upstreams, commits ahead and behind.

use git2::{BranchType, ObjectType, Oid, Repository, StatusOptions};

use crate::error::Result;

/// Paths with uncommitted changes (staged, unstaged, untracked, conflicted),
/// as `git status --porcelain` would list them; ignored files are left out.
pub fn uncommitted_files(repo: &Repository) -> Result<Vec<String>> {
    let mut opts = StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(false)
        .include_ignored(false)
        .exclude_submodules(false);
    let statuses = repo.statuses(Some(&mut opts))?;
    let mut paths: Vec<String> = statuses
        .iter()
        .filter(|s| !s.status().is_ignored())
        .filter_map(|s| s.path().map(str::to_string))
        .collect();
    paths.sort();
    paths.dedup();
    Ok(paths)
}

/// The commit an object id names, annotated tags peeled; `None` when the
/// object is not in this repository (or is not a commit-ish).
pub fn peel_commit(repo: &Repository, oid: &str) -> Option<Oid> {
    let oid = Oid::from_str(oid).ok()?;
    let object = repo.find_object(oid, None).ok()?;
    let peeled = object.peel(ObjectType::Commit).ok()?;
    Some(peeled.id())
}

/// Whether an object exists locally.
pub fn object_known(repo: &Repository, oid: &str) -> bool {
    Oid::from_str(oid)
        .ok()
        .is_some_and(|oid| repo.find_object(oid, None).is_ok())
}

/// `(ahead, behind)`: commits `local` has that `upstream` lacks, and the
/// reverse.
pub fn ahead_behind(repo: &Repository, local: Oid, upstream: Oid) -> Result<(usize, usize)> {
    Ok(repo.graph_ahead_behind(local, upstream)?)
}

/// Whether `ancestor` is `descendant` or one of its ancestors.
pub fn is_ancestor(repo: &Repository, ancestor: Oid, descendant: Oid) -> Result<bool> {
    Ok(ancestor == descendant || repo.graph_descendant_of(descendant, ancestor)?)
}

/// The upstream of a local branch (`refs/heads/x`): its short name
/// (`origin/x`) and commit, when one is configured and exists.
pub fn upstream(repo: &Repository, branch_ref: &str) -> Result<Option<(String, Oid)>> {
    let short = branch_ref.strip_prefix("refs/heads/").unwrap_or(branch_ref);
    let Ok(branch) = repo.find_branch(short, BranchType::Local) else {
        return Ok(None);
    };
    let Ok(up) = branch.upstream() else {
        return Ok(None);
    };
    let name = up.name()?.map(str::to_string).unwrap_or_default();
    let Some(target) = up.get().target() else {
        return Ok(None);
    };
    Ok(Some((name, target)))
}
