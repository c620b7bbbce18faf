//! rollback: undo what apply landed, by the strategy of the plan it was
//! applied under (or the one asked for): a revert commit, a commit restoring
//! the changed files from the pre-apply commit, or — for `manual` — nothing
//! but the plan's steps. Same care for the working tree as apply.

use crate::git::objects::view::{Commit, Tree};
use crate::git::{Merged, Oid, Order, TreeEdit};
use serde::Serialize;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git;
use crate::git::Repo;
use crate::landing::land;
use crate::ops::permissions::{Changes, Confirmation, confirmation};
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::plan::{ExecutionPlan, RollbackStrategy};
use crate::store::audit::AuditAction;
use crate::store::pending::Deferred;
use crate::store::proposals;
use crate::store::trailers;
use crate::store::transaction::Transaction;

/// What to roll back, and optionally how.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RollbackRequest {
    /// The applied proposal to undo.
    pub patch_id: String,
    /// Overrides the strategy recorded at apply time (default `git_revert`).
    #[serde(default)]
    pub strategy: Option<RollbackStrategy>,
    /// `file_backup`: restore even when later commits changed those files.
    #[serde(default)]
    pub force: bool,
}

/// What the rollback did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RollbackOutcome {
    pub patch_id: String,
    pub strategy: &'static str,
    /// The new commit; null for `manual`, which changes nothing.
    pub commit: Option<String>,
    /// The commit that was undone (what apply landed).
    pub reverted: String,
    pub previous_head: String,
    pub branch: String,
    /// The changed paths as text; see `modified_files_bytes`.
    pub modified_files: Vec<String>,
    /// Only when some changed name is not UTF-8: per entry of
    /// `modified_files`, its exact bytes in hex, or null (#16 item 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_files_bytes: Option<Vec<Option<String>>>,
    pub audit_log_id: String,
    /// Bookkeeping that had to wait (a foreign lock): journalled, completed
    /// by the next command; the rollback itself is complete.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Deferred>,
    /// For `manual`: the plan's steps to run by hand.
    pub commands: Vec<String>,
    /// `file_backup --force`: later commits whose changes to the restored
    /// files were undone too (`<commit> <summary>`).
    pub undone_commits: Vec<String>,
}

/// Undoes the landed commit of `req.patch_id`.
pub fn rollback(repo: &Repo, ctx: &Context, req: &RollbackRequest) -> Result<RollbackOutcome> {
    let patch_id = req.patch_id.as_str();
    if !proposals::is_valid_id(patch_id) {
        return Err(Error::PatchNotFound(patch_id.to_string()));
    }
    git::ensure_no_operation_in_progress(repo)?;
    // Its turn first, before the head is read: a rollback queues behind
    // concurrent landings like an apply (issue 14 item 4) instead of
    // replaying onto a head that moves under it and failing.
    let turn = land::take_turn(repo)?;
    let Some(landed) = landed_commit(repo, patch_id) else {
        return Err(
            if git::ref_exists(repo, &proposals::proposal_ref(patch_id))
                || proposals::applied_commit(repo, patch_id).is_some()
            {
                Error::NotApplied {
                    patch_id: patch_id.to_string(),
                }
            } else {
                Error::PatchNotFound(patch_id.to_string())
            },
        );
    };
    undo(repo, (turn, ctx), req, landed)
        .map_err(|e| Transaction::new(repo, ctx, AuditAction::Rollback, patch_id).fail(e))
}

/// The commit proposal `id` landed, when it is still on the branch: its
/// `refs/evolv/applied/<id>` marker names a commit reachable from HEAD.
/// A landing that `git reset` (or a branch switch) took off the branch is
/// not applied there, and list, apply and rollback all say so (#16 item 6).
///
/// The marker names the last landing only: the same proposal applied on a
/// second branch (another worktree) moves it there. So when the marker
/// exists but is not on this branch, the branch's own history since the
/// proposal's base decides: the newest commit there whose trailer names
/// `id` is its landing (`Evolv-Patch`) or its rollback (`Evolv-Rollback`).
pub fn landed_commit(repo: &Repo, id: &str) -> Option<Oid> {
    let landed = proposals::applied_commit(repo, id)?;
    let head = git::head(repo).ok()?.commit;
    landed_on(repo, id, landed, head)
}

/// [`landed_commit`] with the marker's commit `landed` and HEAD's commit
/// already read (`list` reads every marker at once).
pub fn landed_on(repo: &Repo, id: &str, landed: Oid, head: Oid) -> Option<Oid> {
    let reachable = head == landed || repo.is_descendant_of(head, landed).unwrap_or(false);
    if reachable {
        return Some(landed);
    }
    landed_in_history(repo, id, head)
}

/// The newest landing of `id` in `head`'s history since the proposal's
/// base, unless a newer rollback of it is there too.
fn landed_in_history(repo: &Repo, id: &str, head: Oid) -> Option<Oid> {
    let base = proposals::load(repo, id).ok()?.base;
    for oid in repo.walk(&[head], &[base], Order::NewestFirst).ok()? {
        let Ok(commit) = repo.find_commit(oid) else {
            continue;
        };
        let message = String::from_utf8_lossy(commit.message_bytes());
        if trailers::find(&message, trailers::ROLLBACK).map(str::trim) == Some(id) {
            return None;
        }
        if trailers::find(&message, trailers::PATCH).map(str::trim) == Some(id) {
            return Some(oid);
        }
    }
    None
}

/// The plan recorded in a landed commit's message, if any.
fn recorded_plan(commit: &Commit<'_>) -> Option<ExecutionPlan> {
    let msg = String::from_utf8_lossy(commit.message_bytes()).into_owned();
    let json = trailers::find_folded(&msg, trailers::PLAN)?;
    serde_json::from_str(&json).ok()
}

/// Undoes `landed` in the turn taken: the strategy's new tree committed
/// on the head and landed (or, for `manual`, only the plan's steps).
fn undo(
    repo: &Repo,
    (turn, ctx): (land::Turn, &Context),
    req: &RollbackRequest,
    landed: Oid,
) -> Result<RollbackOutcome> {
    let patch_id = req.patch_id.as_str();
    let head = git::head(repo)?;
    let landed_commit = repo.find_commit(landed)?;
    let plan = recorded_plan(&landed_commit);
    let strategy = req
        .strategy
        .or(plan.as_ref().map(|p| p.rollback.strategy))
        .unwrap_or(RollbackStrategy::GitRevert);
    let mut tx = Transaction::new(repo, ctx, AuditAction::Rollback, patch_id);
    let record = tx.record();
    record.branch = Some(head.ref_name().to_string());
    record.previous_head = Some(head.commit.to_string());
    record.plan = plan.clone();
    let mut outcome = RollbackOutcome::begun(patch_id, strategy, landed, &head);
    if strategy == RollbackStrategy::Manual {
        outcome.commands = plan.map(|p| p.rollback.commands).unwrap_or_default();
        let logged = tx.commit()?;
        outcome.audit_log_id = logged.id();
        outcome.warnings.extend(logged.deferred().cloned());
        return Ok(outcome);
    }

    land::prepare_index(repo)?;
    let head_commit = repo.find_commit(head.commit)?;
    let head_tree = head_commit.tree()?;
    let (tree, message) = undone_tree(
        repo,
        req,
        strategy,
        &landed_commit,
        (&head_commit, &head_tree),
        &mut outcome,
    )?;
    let changed = git::changed_paths(repo, &head_tree, &tree)?;
    land::check_clean(repo, Some(&turn), &head, &head_tree, &tree, &changed)?;
    let new = commit_undo(repo, &message, tree.id(), head_commit.id())?;
    let paths: Vec<git::RepoPath> = changed.iter().map(|c| c.path.clone()).collect();
    outcome.modified_files = git::types::path::lossy_list(&paths);
    outcome.modified_files_bytes = git::types::path::bytes_column(&paths);
    outcome.commit = Some(new.to_string());
    tx.record().commit = Some(new.to_string());
    tx.record().set_files(&paths);
    unmark(repo, patch_id, landed, &mut tx);
    let reflog = format!("evolv: rollback {patch_id}");
    let mv = land::BranchMove::new(&head, new, &changed, &reflog, tx);
    let finished = land::land_in_turn(repo, turn, mv, ctx.progress())?;
    outcome.audit_log_id = finished.audit_id(0);
    outcome.warnings.extend(finished.deferred);
    Ok(outcome)
}

impl RollbackOutcome {
    /// The outcome of a rollback of `landed` by `strategy` that has
    /// changed nothing yet.
    fn begun(patch_id: &str, strategy: RollbackStrategy, landed: Oid, head: &git::Head) -> Self {
        RollbackOutcome {
            patch_id: patch_id.to_string(),
            strategy: strategy.as_str(),
            commit: None,
            reverted: landed.to_string(),
            previous_head: head.commit.to_string(),
            branch: head.display_name().to_string(),
            modified_files: Vec::new(),
            modified_files_bytes: None,
            audit_log_id: String::new(),
            warnings: Vec::new(),
            commands: Vec::new(),
            undone_commits: Vec::new(),
        }
    }
}

/// The head's tree with `landed` undone by `strategy`, and the commit
/// message. `file_backup` refuses to undo later commits' changes to the
/// same files unless forced (and names them in `outcome`); a tree equal
/// to the head's is nothing to do.
fn undone_tree<'r>(
    repo: &'r Repo,
    req: &RollbackRequest,
    strategy: RollbackStrategy,
    landed: &Commit<'_>,
    (head_commit, head_tree): (&Commit<'_>, &Tree<'_>),
    outcome: &mut RollbackOutcome,
) -> Result<(Tree<'r>, String)> {
    let patch_id = req.patch_id.as_str();
    let undo = Undo {
        repo,
        patch_id,
        landed,
    };
    let (tree, message) = match strategy {
        RollbackStrategy::FileBackup => {
            let later = later_changes(repo, landed, head_commit.id())?;
            if !later.is_empty() && !req.force {
                return Err(Error::LaterChanges {
                    patch_id: patch_id.to_string(),
                    commits: later,
                });
            }
            outcome.undone_commits = later;
            undo.restore_from_backup(head_tree)?
        }
        _ => undo.revert(head_commit)?,
    };
    if tree.id() == head_tree.id() {
        return Err(Error::NothingToApply {
            patch_id: patch_id.to_string(),
        });
    }
    Ok((tree, message))
}

/// The rollback commit, on the head, by the configured identities.
fn commit_undo(repo: &Repo, message: &str, tree: Oid, head: Oid) -> Result<Oid> {
    let author = git::author(repo)?;
    let committer = git::committer(repo)?;
    crate::crashpoint!("before-objects");
    let new = git::objects::commit::create(repo, &author, &committer, message, tree, &[head])?;
    crate::crashpoint!("after-objects");
    Ok(new)
}

/// What the landing does after the branch moved besides the record: the
/// proposal's markers removed. The markers name the last landing; one on
/// another branch stays applied there (see `landed_commit`).
fn unmark(repo: &Repo, patch_id: &str, landed: Oid, tx: &mut Transaction<'_>) {
    if proposals::applied_commit(repo, patch_id) == Some(landed) {
        for name in [
            proposals::applied_ref(patch_id),
            proposals::backup_ref(patch_id),
        ] {
            tx.set(name, None);
        }
    }
}

/// The commits after `landed` up to `head` (first-parent and merged ones
/// alike) that changed any file `landed` changed: a `file_backup` restore
/// would silently undo their changes to those files (#16 item 14). Each as
/// `<short id> <summary> (<paths>)`, oldest first.
fn later_changes(repo: &Repo, landed: &Commit<'_>, head: Oid) -> Result<Vec<String>> {
    let files: std::collections::HashSet<git::RepoPath> =
        git::changed_paths(repo, &landed.parent(0)?.tree()?, &landed.tree()?)?
            .into_iter()
            .map(|c| c.path)
            .collect();
    let mut out = Vec::new();
    for oid in repo.walk(&[head], &[landed.id()], Order::OldestFirst)? {
        let commit = repo.find_commit(oid)?;
        let tree = commit.tree()?;
        let mut touched: Vec<git::RepoPath> = Vec::new();
        for parent in commit.parent_ids() {
            for change in git::changed_paths(repo, &repo.commit_tree(parent)?, &tree)? {
                if files.contains(&change.path) && !touched.contains(&change.path) {
                    touched.push(change.path);
                }
            }
        }
        if !touched.is_empty() {
            let id = commit.id().to_string();
            out.push(format!(
                "{} {} ({})",
                &id[..12],
                commit.summary(),
                evolv_core::comma_list::comma_list(&touched)
            ));
        }
    }
    Ok(out)
}

/// The landed commit of a proposal, being undone.
#[derive(Clone, Copy)]
struct Undo<'a, 'r> {
    repo: &'r Repo,
    patch_id: &'a str,
    landed: &'a Commit<'a>,
}

impl<'r> Undo<'_, 'r> {
    /// `git_revert`: the inverse of the landed commit, three-way onto the head.
    fn revert(&self, head: &Commit<'_>) -> Result<(Tree<'r>, String)> {
        let (repo, patch_id, landed) = (self.repo, self.patch_id, self.landed);
        let tree = match repo.revert_commit(landed.id(), head.id())? {
            Merged::Clean(tree) => repo.find_tree(tree)?,
            Merged::Conflicts(paths) => {
                return Err(Error::Conflict {
                    patch_id: patch_id.to_string(),
                    paths,
                    against: "the current HEAD".into(),
                    operation: "rollback",
                });
            }
        };
        let message = trailers::rollback_message(
            &format!("Revert \"{}\"", landed.summary()),
            &format!("This reverts commit {}.", landed.id()),
            patch_id,
        );
        Ok((tree, message))
    }

    /// `file_backup`: the head's tree with every file the landed commit changed
    /// put back as it was in the pre-apply commit (`refs/evolv/backup/<id>`,
    /// else the landed commit's parent). Later edits to those files are undone
    /// too; that is what a file backup means.
    fn restore_from_backup(&self, head_tree: &Tree<'_>) -> Result<(Tree<'r>, String)> {
        let (repo, patch_id, landed) = (self.repo, self.patch_id, self.landed);
        // The backup ref belongs to the landing the applied marker names; a
        // landing on another branch has its own parent.
        let marked = proposals::applied_commit(repo, patch_id) == Some(landed.id());
        let backup = match repo.ref_target(&proposals::backup_ref(patch_id)) {
            Some(oid) if marked => repo.find_commit(oid)?,
            _ => landed.parent(0)?,
        };
        let backup_tree = backup.tree()?;
        let landed_changes = git::changed_paths(repo, &landed.parent(0)?.tree()?, &landed.tree()?)?;
        let edits: Vec<TreeEdit> = landed_changes
            .iter()
            .map(|change| {
                let path = change.path.as_bytes().to_vec();
                match backup_tree.get_path(change.path.fs()) {
                    Some(entry) => TreeEdit::Put {
                        path,
                        id: entry.id,
                        mode: entry.mode,
                    },
                    None => TreeEdit::Remove { path },
                }
            })
            .collect();
        let tree = repo.find_tree(repo.edit_tree(head_tree.id(), &edits)?)?;
        // Named as `git log` would quote them (the message is text).
        let files: Vec<String> = landed_changes.iter().map(|c| c.path.to_string()).collect();
        let message = trailers::rollback_message(
            &format!("revert: restore files changed by {patch_id}"),
            &format!("Restores {} from {}.", files.join(", "), backup.id()),
            patch_id,
        );
        Ok((tree, message))
    }
}

impl UseCase for RollbackRequest {
    const OPEN: Open = Open::Recovering;
    const WRITES_OBJECTS: bool = true;
    type Outcome = RollbackOutcome;

    fn run(&self, session: &Session) -> Result<RollbackOutcome> {
        rollback(session.repo()?, session.context(), self)
    }

    fn confirmation(&self, session: &Session) -> Result<Option<Confirmation>> {
        let (repo, settings, id) = (session.repo()?, session.settings()?, &self.patch_id);
        // Asked only of an applied proposal (rollback itself reports the
        // rest), about what undoing it changes.
        confirmation(
            repo,
            settings,
            ("roll back", std::slice::from_ref(id)),
            || {
                proposals::applied_commit(repo, id)?;
                let p = proposals::load(repo, id).ok()?;
                Some(Changes {
                    files: p.meta.affected_files.clone(),
                    // Undoing removes what the apply added.
                    lines_added: p.meta.lines_removed,
                    lines_removed: p.meta.lines_added,
                    commands: Vec::new(),
                })
            },
        )
    }
}
