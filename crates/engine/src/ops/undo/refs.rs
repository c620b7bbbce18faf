//! Undo of an operation that moved only git-evolv's refs (propose, edit,
//! drop, gc, comment, and undos of those): each ref goes back where it
//! was, only while it still holds what the operation left there.
//!
//! Crash safety comes from the journalled bookkeeping of `store::pending`:
//! the ref updates and the undo's own record are journalled first, then
//! done; a kill in between is completed by the next git-evolv command.

use super::{Method, Undone, moved_since, record, undone};
use crate::error::Result;
use crate::git::{Oid, Repo};
use crate::landing::land::Turn;
use crate::store::audit::{self, AuditEntry, RefMove};
use crate::store::kept;
use crate::store::pending::{self, Pending, PendingRef};

/// Puts back the refs `moves` of `target`, newest move first, in `turn`.
pub(super) fn undo_refs(
    repo: &Repo,
    turn: Turn,
    target: &AuditEntry,
    moves: &[RefMove],
    dry_run: bool,
) -> Result<Undone> {
    let mut record = record(target);
    let inverse: Vec<RefMove> = moves.iter().rev().map(RefMove::inverse).collect();
    for m in &inverse {
        let actual = repo.ref_target(&m.name).map(|o| o.to_string());
        if actual != m.old {
            return Err(moved_since(target, m, actual));
        }
    }
    record.refs = Some(inverse.clone());
    if dry_run {
        return Ok(undone(target, &record, Method::Refs, String::new()));
    }
    // What the undo takes off a ref stays reachable for redo.
    for old in inverse.iter().filter_map(|m| m.old.as_deref()) {
        kept::keep(repo, Oid::parse(old)?)?;
    }
    let journal = Pending {
        reflog: format!("evolv: undo {}", &target.id[..12.min(target.id.len())]),
        refs: inverse
            .iter()
            .map(|m| PendingRef {
                name: m.name.clone(),
                target: m.new.clone(),
            })
            .collect(),
        audit: vec![record.clone()],
    };
    let file = pending::write(repo, &journal)?;
    crate::crashpoint!("undo-after-journal");
    let completed = pending::complete(repo)?;
    drop(turn);
    let mut out = undone(target, &record, Method::Refs, String::new());
    match completed.blocked {
        Some(cause) if file.exists() => {
            out.id = "pending".into();
            out.warnings
                .push(pending::Deferred::new("the undo", &cause, &file));
        }
        _ => out.id = logged_id(repo, &record),
    }
    Ok(out)
}

/// The id the log gave `record` (appended just now, so among the newest).
fn logged_id(repo: &Repo, record: &crate::store::audit::AuditRecord) -> String {
    audit::read(repo, Some(64))
        .unwrap_or_default()
        .into_iter()
        .find(|e| &e.record == record)
        .map_or_else(|| "pending".into(), |e| e.id)
}
