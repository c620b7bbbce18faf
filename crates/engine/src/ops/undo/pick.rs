//! Which operations an undo request names, and whether each can be
//! undone: `undo` alone takes this actor's newest operation, `undo <op>`
//! the one named, `undo --to <op>` every one after it, `redo` the newest
//! undo not yet redone.

use std::collections::HashSet;

use super::UndoRequest;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::ops::op_log;
use crate::store::actor;
use crate::store::audit::{AuditAction, AuditEntry, RefMove};

/// The operations to undo, newest first.
pub(super) fn targets(
    repo: &Repo,
    log: &[AuditEntry],
    req: &UndoRequest,
) -> Result<Vec<AuditEntry>> {
    if req.op.is_some() && req.to.is_some() {
        return Err(Error::invalid_field(
            "to",
            "give either an operation or --to, not both",
            "`undo <op>` undoes one operation; `undo --to <op>` every one after it",
        ));
    }
    if req.redo {
        return redo_target(log).map(|t| vec![t]);
    }
    if let Some(to) = &req.to {
        return after(repo, log, to);
    }
    if let Some(op) = &req.op {
        let target = op_log::find(repo, op)?;
        if let Some(by) = undone_by(log, &target.id) {
            return Err(Error::NotUndoable {
                op: target.id,
                reason: format!("it was already undone by {by}; undo that one to redo it"),
            });
        }
        return Ok(vec![target]);
    }
    let me = actor::current();
    log.iter()
        .find(|e| {
            e.record.actor.as_deref().unwrap_or("cli") == me
                && undoable(e)
                && undone_by(log, &e.id).is_none()
        })
        .cloned()
        .map(|t| vec![t])
        .ok_or_else(|| Error::NothingToUndo {
            what: format!("no operation of {me} in the op log can be undone"),
        })
}

/// `redo`: the newest undo whose work stands (not itself undone).
fn redo_target(log: &[AuditEntry]) -> Result<AuditEntry> {
    log.iter()
        .find(|e| e.record.action == AuditAction::Undo && undone_by(log, &e.id).is_none())
        .cloned()
        .ok_or_else(|| Error::NothingToUndo {
            what: "there is no undo to redo".into(),
        })
}

/// `--to <op>`: the operations after it, newest first, without the pairs
/// that already cancel out (an operation and its undo both after it).
fn after(repo: &Repo, log: &[AuditEntry], to: &str) -> Result<Vec<AuditEntry>> {
    let stop = op_log::find(repo, to)?;
    let newer: Vec<&AuditEntry> = log.iter().take_while(|e| e.id != stop.id).collect();
    let ids: HashSet<&str> = newer.iter().map(|e| e.id.as_str()).collect();
    let cancelled: HashSet<&str> = newer
        .iter()
        .filter_map(|e| e.record.undoes.as_deref().filter(|u| ids.contains(u)))
        .collect();
    Ok(newer
        .into_iter()
        .filter(|e| undoable(e) && !cancelled.contains(e.id.as_str()))
        .filter(|e| !e.record.undoes.as_deref().is_some_and(|u| ids.contains(u)))
        .filter(|e| undone_by(log, &e.id).is_none())
        .cloned()
        .collect())
}

/// The operation that undid `id` and still stands, if any.
fn undone_by(log: &[AuditEntry], id: &str) -> Option<String> {
    let undo = log
        .iter()
        .find(|e| e.record.success && e.record.undoes.as_deref() == Some(id))?;
    match undone_by(log, &undo.id) {
        Some(_) => None,
        None => Some(undo.id.clone()),
    }
}

/// Whether `e` changed something that can be put back.
fn undoable(e: &AuditEntry) -> bool {
    undoable_refs(e).is_ok()
}

/// The refs `e` moved, or why it cannot be undone.
pub(super) fn undoable_refs(e: &AuditEntry) -> Result<Vec<RefMove>> {
    let r = &e.record;
    let refuse = |reason: &str| {
        Err(Error::NotUndoable {
            op: e.id.clone(),
            reason: reason.to_string(),
        })
    };
    if r.action == AuditAction::Race {
        return refuse("it is a test record");
    }
    if !r.success {
        return refuse("it failed and changed nothing");
    }
    if r.dry_run {
        return refuse("it was a dry run and changed nothing");
    }
    match &r.refs {
        None => refuse(
            "it was logged by an earlier version of git-evolv, which did not record the refs it moved",
        ),
        Some(moves) if moves.is_empty() => refuse("it moved no ref"),
        Some(moves) => Ok(moves.clone()),
    }
}
