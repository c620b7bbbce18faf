//! Which operations an undo request names, and whether each can be
//! undone: `undo` alone takes this actor's newest operation, `undo <op>`
//! the one named, `undo --to <op>` every one after it, `redo` the newest
//! undo not yet redone.

use std::collections::HashSet;

use super::UndoRequest;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::ops::operations::op_log;
use crate::store::audit::{AuditAction, AuditEntry, RefMove};

use crate::ops::operations::op_log::NOT_MARKED as FOREIGN;

/// What else the user can do about such a record.
const FOREIGN_HINT: &str = "— undo and redo act only on records this clone wrote and marked; one logged by a version of git-evolv before records were marked is refused too. To roll back by other means: `git evolv rollback <patch>` reverts a landing; `git reflog <branch>` shows what the branch held, and `git reset --keep <commit>` moves it back there.";

/// The operations to undo, newest first, and the records skipped as not
/// this clone's (listed apart in the outcome).
pub(super) struct Picked {
    pub targets: Vec<AuditEntry>,
    pub skipped: Vec<Skipped>,
}

/// A record an undo passed over, and why.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct Skipped {
    pub op: String,
    pub op_kind: String,
    pub reason: String,
}

/// The operations to undo, newest first. Only this clone's records count
/// (and only its undos undo them); another's is refused when named. Plain
/// `undo` takes the newest operation of `me`, the session's actor.
pub(super) fn targets(
    repo: &Repo,
    log: &[AuditEntry],
    req: &UndoRequest,
    me: &str,
) -> Result<Picked> {
    if req.op.is_some() && req.to.is_some() {
        return Err(Error::invalid_field(
            "to",
            "give either an operation or --to, not both",
            "`undo <op>` undoes one operation; `undo --to <op>` every one after it",
        ));
    }
    let mine: Vec<AuditEntry> = log.iter().filter(|e| !e.foreign).cloned().collect();
    let picked = |targets: Vec<AuditEntry>| Picked {
        targets,
        skipped: Vec::new(),
    };
    // Plain `undo` and `redo` list the records newer than what they undo
    // that they passed over as not this clone's.
    let newer = |t: AuditEntry| Picked {
        skipped: passed_over(log.iter().take_while(|e| e.id != t.id)),
        targets: vec![t],
    };
    if req.redo {
        return redo_target(&mine)
            .map(newer)
            .map_err(|e| with_skipped(e, log.iter()));
    }
    if let Some(to) = &req.to {
        return after(repo, log, &mine, to);
    }
    if let Some(op) = &req.op {
        let target = op_log::find(repo, op)?;
        if target.foreign {
            return Err(foreign(&target));
        }
        if let Some(by) = undone_by(&mine, &target.id) {
            return Err(Error::NotUndoable {
                op: target.id,
                reason: format!("it was already undone by {by}; undo that one to redo it"),
            });
        }
        return Ok(picked(vec![target]));
    }
    mine.iter()
        .find(|e| {
            e.record.actor.as_deref().unwrap_or("cli") == me
                && undoable(e)
                && undone_by(&mine, &e.id).is_none()
        })
        .cloned()
        .map(newer)
        .ok_or_else(|| {
            with_skipped(
                Error::NothingToUndo {
                    what: format!("no operation of {me} in the op log can be undone"),
                },
                log.iter(),
            )
        })
}

/// The refusal of `e`, a record not marked by this clone.
pub(super) fn foreign(e: &AuditEntry) -> Error {
    Error::NotUndoable {
        op: e.id.clone(),
        reason: FOREIGN.into(),
    }
    .with_hint(FOREIGN_HINT)
}

/// The records of `seen` not marked by this clone (test records aside).
fn foreign_in<'a>(seen: impl Iterator<Item = &'a AuditEntry>) -> Vec<&'a AuditEntry> {
    seen.filter(|e| e.foreign && e.record.action != AuditAction::Race)
        .collect()
}

/// The records of `seen` passed over as not this clone's, and why.
fn passed_over<'a>(seen: impl Iterator<Item = &'a AuditEntry>) -> Vec<Skipped> {
    foreign_in(seen)
        .into_iter()
        .map(|e| Skipped {
            op: e.id.clone(),
            op_kind: e.record.action.as_str().to_string(),
            reason: FOREIGN.into(),
        })
        .collect()
}

/// `NothingToUndo` naming the records of `seen` that were passed over as
/// not this clone's, if any.
fn with_skipped<'a>(e: Error, seen: impl Iterator<Item = &'a AuditEntry>) -> Error {
    let skipped = foreign_in(seen);
    let Error::NothingToUndo { what } = e else {
        return e;
    };
    if skipped.is_empty() {
        return Error::NothingToUndo { what };
    }
    let ids: Vec<String> = skipped
        .iter()
        .take(5)
        .map(|e| format!("{} ({})", short(&e.id), e.record.action))
        .collect();
    let more = skipped.len().saturating_sub(ids.len());
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    Error::NothingToUndo {
        what: format!(
            "{what}; {} record(s) not marked by this clone were passed over: {}{more} ({})",
            skipped.len(),
            ids.join(", "),
            FOREIGN.trim_start_matches("it is not marked by this clone: ")
        ),
    }
    .with_hint(FOREIGN_HINT)
}

fn short(id: &str) -> &str {
    &id[..12.min(id.len())]
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
/// Records not marked by this clone are passed over, and listed.
fn after(repo: &Repo, log: &[AuditEntry], mine: &[AuditEntry], to: &str) -> Result<Picked> {
    let stop = op_log::find(repo, to)?;
    let foreign = foreign_in(log.iter().take_while(|e| e.id != stop.id));
    let newer: Vec<&AuditEntry> = mine.iter().take_while(|e| e.id != stop.id).collect();
    let ids: HashSet<&str> = newer.iter().map(|e| e.id.as_str()).collect();
    let cancelled: HashSet<&str> = newer
        .iter()
        .filter_map(|e| e.record.undoes.as_deref().filter(|u| ids.contains(u)))
        .collect();
    let targets: Vec<AuditEntry> = newer
        .into_iter()
        .filter(|e| undoable(e) && !cancelled.contains(e.id.as_str()))
        .filter(|e| !e.record.undoes.as_deref().is_some_and(|u| ids.contains(u)))
        .filter(|e| undone_by(mine, &e.id).is_none())
        .cloned()
        .collect();
    if targets.is_empty() && !foreign.is_empty() {
        let what = format!("no operation after {} can be undone", short(&stop.id));
        return Err(with_skipped(
            Error::NothingToUndo { what },
            foreign.into_iter(),
        ));
    }
    Ok(Picked {
        targets,
        skipped: passed_over(foreign.into_iter()),
    })
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
    if e.foreign {
        return Err(foreign(e));
    }
    if r.action == AuditAction::Race {
        return refuse("it is a test record");
    }
    if r.action == AuditAction::Test {
        return refuse(
            "it only wrote verdicts, facts about a tree that undo leaves (`git evolv gc` prunes old ones)",
        );
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
