//! rollback: revert what apply landed, as a new commit on the current head,
//! with the same care for the working tree as apply.

use git2::Repository;
use serde::Serialize;

use super::land;
use crate::error::{Error, Result};
use crate::git;
use crate::store::audit::{self, AuditRecord};
use crate::store::proposals;

/// What the rollback committed.
#[derive(Debug, Clone, Serialize)]
pub struct RollbackOutcome {
    pub success: bool,
    pub patch_id: String,
    /// The revert commit.
    pub commit: String,
    /// The commit that was reverted (what apply landed).
    pub reverted: String,
    pub previous_head: String,
    pub branch: String,
    pub modified_files: Vec<String>,
    pub audit_log_id: String,
}

/// Reverts the landed commit of `patch_id`.
pub fn rollback(repo: &Repository, patch_id: &str) -> Result<RollbackOutcome> {
    if !proposals::is_valid_id(patch_id) {
        return Err(Error::PatchNotFound(patch_id.to_string()));
    }
    let Some(landed) = proposals::applied_commit(repo, patch_id) else {
        return Err(
            if git::ref_exists(repo, &proposals::proposal_ref(patch_id)) {
                Error::NotApplied {
                    patch_id: patch_id.to_string(),
                }
            } else {
                Error::PatchNotFound(patch_id.to_string())
            },
        );
    };
    revert(repo, patch_id, landed).inspect_err(|e| {
        let _ = audit::append(repo, &AuditRecord::failure("rollback", patch_id, e));
    })
}

fn revert(repo: &Repository, patch_id: &str, landed: git2::Oid) -> Result<RollbackOutcome> {
    let head = git::head(repo)?;
    let author = git::author(repo)?;
    let committer = git::committer(repo)?;
    let landed_commit = repo.find_commit(landed)?;
    let head_commit = repo.find_commit(head.commit)?;
    let mut index = repo.revert_commit(&landed_commit, &head_commit, 0, None)?;
    if index.has_conflicts() {
        let mut paths: Vec<String> = index
            .conflicts()?
            .flatten()
            .filter_map(|c| c.our.or(c.their).or(c.ancestor))
            .map(|e| String::from_utf8_lossy(&e.path).into_owned())
            .collect();
        paths.sort();
        paths.dedup();
        return Err(Error::Conflict {
            patch_id: patch_id.to_string(),
            paths,
        });
    }
    let tree = repo.find_tree(index.write_tree_to(repo)?)?;
    let head_tree = head_commit.tree()?;
    if tree.id() == head_tree.id() {
        return Err(Error::NothingToApply {
            patch_id: patch_id.to_string(),
        });
    }
    let changed = git::changed_paths(repo, &head_tree, &tree)?;
    land::ensure_clean(repo, &head_tree, &tree, &changed)?;
    let summary = landed_commit.summary().unwrap_or_default().to_string();
    let message = format!(
        "Revert \"{summary}\"\n\nThis reverts commit {landed}.\n\nEvolv-Rollback: {patch_id}\n"
    );
    let new = repo.commit(None, &author, &committer, &message, &tree, &[&head_commit])?;
    let reflog = format!("evolv: rollback {patch_id}");
    land::land(repo, &head, new, &changed, &reflog)?;
    git::delete_ref(repo, &proposals::applied_ref(patch_id))?;

    let modified_files: Vec<String> = changed.into_iter().map(|c| c.path).collect();
    let mut record = AuditRecord::new("rollback", patch_id, true);
    record.branch = Some(head.ref_name().to_string());
    record.commit = Some(new.to_string());
    record.previous_head = Some(head.commit.to_string());
    record.files = modified_files.clone();
    let audit_id = audit::append(repo, &record)?;
    Ok(RollbackOutcome {
        success: true,
        patch_id: patch_id.to_string(),
        commit: new.to_string(),
        reverted: landed.to_string(),
        previous_head: head.commit.to_string(),
        branch: head.display_name().to_string(),
        modified_files,
        audit_log_id: audit_id.to_string(),
    })
}
