//! apply: replay a proposal onto the current head, validate it in an
//! isolated worktree if asked, and land it by fast-forward.

use std::time::Duration;

use git2::{MergeOptions, Oid, Repository, Tree};
use serde::Serialize;

use super::land;
use crate::error::{Error, Result};
use crate::git::{self, Head};
use crate::store::audit::{self, AuditRecord};
use crate::store::proposals::{self, Proposal};
use crate::validate::{self, CommandReport};
use crate::worktree;

/// The default validation budget when neither `--timeout` nor
/// `evolv.timeout` says otherwise.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// What to apply and how to check it.
#[derive(Debug, Clone, Default)]
pub struct ApplyRequest {
    pub patch_id: String,
    /// Validation commands; `None` reads git config `evolv.validate`.
    pub validate: Option<Vec<String>>,
    /// Seconds; `None` reads `evolv.timeout`, else 30.
    pub timeout_secs: Option<u64>,
    /// A throwaway worktree instead of the warm one; `None` reads
    /// `evolv.worktree` (`fresh` or `warm`).
    pub fresh_worktree: Option<bool>,
}

/// What landed.
#[derive(Debug, Clone, Serialize)]
pub struct ApplyOutcome {
    pub success: bool,
    pub patch_id: String,
    /// The landed commit N.
    pub commit: String,
    /// The branch head N was built on.
    pub previous_head: String,
    pub branch: String,
    pub modified_files: Vec<String>,
    /// The validation worktree, or null when nothing was validated.
    pub worktree_path: Option<String>,
    pub audit_log_id: String,
    pub validation: Vec<CommandReport>,
}

/// Applies a proposal. Any failure after the proposal is found is audited.
pub fn apply(repo: &Repository, req: &ApplyRequest) -> Result<ApplyOutcome> {
    let proposal = proposals::load(repo, &req.patch_id)?;
    apply_proposal(repo, &proposal, req).inspect_err(|e| {
        let _ = audit::append(repo, &AuditRecord::failure("apply", &proposal.id, e));
    })
}

fn apply_proposal(
    repo: &Repository,
    proposal: &Proposal,
    req: &ApplyRequest,
) -> Result<ApplyOutcome> {
    if let Some(landed) = proposals::applied_commit(repo, &proposal.id) {
        return Err(Error::AlreadyApplied {
            patch_id: proposal.id.clone(),
            commit: landed.to_string(),
        });
    }
    let head = git::head(repo)?;
    let committer = git::committer(repo)?;
    let head_tree = repo.find_commit(head.commit)?.tree()?;
    let tree = replay(repo, proposal, &head, &head_tree)?;
    if tree.id() == head_tree.id() {
        return Err(Error::NothingToApply {
            patch_id: proposal.id.clone(),
        });
    }
    let changed = git::changed_paths(repo, &head_tree, &tree)?;
    land::ensure_clean(repo, &head_tree, &tree, &changed)?;

    let p = repo.find_commit(proposal.commit)?;
    let message = format!("{}\n\nEvolv-Patch: {}\n", proposal.summary, proposal.id);
    let parent = repo.find_commit(head.commit)?;
    let new = repo.commit(None, &p.author(), &committer, &message, &tree, &[&parent])?;

    let commands = validation_commands(repo, req)?;
    let (worktree_path, validation) = if commands.is_empty() {
        (None, Vec::new())
    } else {
        let fresh = fresh_worktree(repo, req);
        let timeout = Duration::from_secs(timeout_secs(repo, req)?);
        let wt = worktree::acquire(repo, fresh)?;
        wt.checkout(new)?;
        let reports = validate::run_all(&commands, wt.path(), timeout)?;
        (Some(wt.path().display().to_string()), reports)
    };

    let reflog = format!("evolv: apply {}", proposal.id);
    land::land(repo, &head, new, &changed, &reflog)?;
    git::compare_and_swap_force(repo, &proposals::applied_ref(&proposal.id), new, &reflog)?;

    let modified_files: Vec<String> = changed.into_iter().map(|c| c.path).collect();
    let mut record = AuditRecord::new("apply", &proposal.id, true);
    record.branch = Some(head.ref_name().to_string());
    record.commit = Some(new.to_string());
    record.previous_head = Some(head.commit.to_string());
    record.files = modified_files.clone();
    let audit_id = audit::append(repo, &record)?;

    Ok(ApplyOutcome {
        success: true,
        patch_id: proposal.id.clone(),
        commit: new.to_string(),
        previous_head: head.commit.to_string(),
        branch: head.display_name().to_string(),
        modified_files,
        worktree_path,
        audit_log_id: audit_id.to_string(),
        validation,
    })
}

/// The tree N gets: P's tree when the head has not moved since propose,
/// else a three-way merge of base → head and base → P.
fn replay<'r>(
    repo: &'r Repository,
    proposal: &Proposal,
    head: &Head,
    head_tree: &Tree<'_>,
) -> Result<Tree<'r>> {
    let p = repo.find_commit(proposal.commit)?;
    if head.commit == proposal.base {
        return Ok(p.tree()?);
    }
    let base_tree = repo.find_commit(proposal.base)?.tree()?;
    let mut opts = MergeOptions::new();
    opts.find_renames(false);
    let mut index = repo.merge_trees(&base_tree, head_tree, &p.tree()?, Some(&opts))?;
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
            patch_id: proposal.id.clone(),
            paths,
        });
    }
    let oid: Oid = index.write_tree_to(repo)?;
    Ok(repo.find_tree(oid)?)
}

fn validation_commands(repo: &Repository, req: &ApplyRequest) -> Result<Vec<String>> {
    if let Some(cmds) = &req.validate {
        return Ok(cmds
            .iter()
            .filter(|c| !c.trim().is_empty())
            .cloned()
            .collect());
    }
    let config = repo.config()?;
    let mut out = Vec::new();
    if let Ok(entries) = config.multivar("evolv.validate", None) {
        entries.for_each(|e| {
            if let Some(v) = e.value().filter(|v| !v.trim().is_empty()) {
                out.push(v.to_string());
            }
        })?;
    }
    Ok(out)
}

fn timeout_secs(repo: &Repository, req: &ApplyRequest) -> Result<u64> {
    let secs = match req.timeout_secs {
        Some(s) => s,
        None => match repo.config()?.get_i64("evolv.timeout") {
            Ok(s) if s > 0 => s as u64,
            Ok(s) => {
                return Err(Error::invalid(
                    format!(
                        "git config evolv.timeout is {s}; it must be a positive number of seconds"
                    ),
                    "fix it with `git config evolv.timeout 30`",
                ));
            }
            Err(_) => DEFAULT_TIMEOUT_SECS,
        },
    };
    if secs == 0 {
        return Err(Error::invalid(
            "--timeout 0: the timeout must be at least 1 second",
            "pass --timeout with a positive number of seconds",
        ));
    }
    Ok(secs)
}

fn fresh_worktree(repo: &Repository, req: &ApplyRequest) -> bool {
    req.fresh_worktree.unwrap_or_else(|| {
        repo.config()
            .and_then(|c| c.get_string("evolv.worktree"))
            .is_ok_and(|v| v.eq_ignore_ascii_case("fresh"))
    })
}
