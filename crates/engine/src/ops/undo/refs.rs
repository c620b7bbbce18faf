//! Undo of an operation that moved only git-evolv's refs (propose, edit,
//! drop, gc, comment, and undos of those): each ref goes back where it
//! was, only while it still holds what the operation left there.
//!
//! Crash safety comes from the journalled bookkeeping of `store::pending`:
//! the ref updates and the undo's own record are journalled first, then
//! done; a kill in between (after a ref moved, before the record) is
//! completed by the next git-evolv command. One ref, the common case (a
//! propose, an edit, a comment), is moved by compare-and-swap before the
//! journal is completed.

use std::path::Path;

use super::sim::Sim;
use super::{Method, Undone, moved_since, record, undone};
use crate::error::{Error, Result};
use crate::git::{self, Oid, Repo};
use crate::landing::land::Turn;
use crate::store::audit::{self, AuditEntry, AuditRecord, RefMove};
use crate::store::kept;
use crate::store::pending::{self, Pending, PendingRef};

/// The undo of refs only, decided: each ref back where it was.
pub(super) struct RefsUndo {
    target: AuditEntry,
    record: AuditRecord,
    inverse: Vec<RefMove>,
}

/// Decides putting back the refs `moves` of `target`, newest move first,
/// on the refs as `sim` has them (`sim` then has them as it leaves them):
/// refused while any holds anything but what the operation left there.
pub(super) fn decide(
    repo: &Repo,
    sim: &mut Sim,
    target: &AuditEntry,
    moves: &[RefMove],
) -> Result<RefsUndo> {
    let mut record = record(target);
    let inverse: Vec<RefMove> = moves.iter().rev().map(RefMove::inverse).collect();
    for m in &inverse {
        let actual = sim.get(repo, &m.name);
        if actual != m.old {
            return Err(moved_since(target, m, actual));
        }
    }
    for m in &inverse {
        sim.set(&m.name, m.new.clone());
    }
    record.refs = Some(inverse.clone());
    Ok(RefsUndo {
        target: target.clone(),
        record,
        inverse,
    })
}

impl RefsUndo {
    /// What it does (or would do).
    pub(super) fn outcome(&self) -> Undone {
        undone(&self.target, &self.record, Method::Refs, String::new())
    }

    /// Puts the refs back, in `turn`.
    pub(super) fn run(self, repo: &Repo, turn: Turn) -> Result<Undone> {
        let RefsUndo {
            target,
            record,
            inverse,
        } = self;
        let target = &target;
        // What the undo takes off a ref stays reachable for redo.
        for old in inverse.iter().filter_map(|m| m.old.as_deref()) {
            kept::keep(repo, Oid::parse(old)?)?;
        }
        let journal = Pending {
            reflog: reflog(target),
            refs: inverse
                .iter()
                .map(|m| PendingRef {
                    name: m.name.clone(),
                    target: m.new.clone(),
                })
                .collect(),
            audit: vec![record.clone()],
            audit_tip: None,
        };
        // Journalled first: a kill after a ref moved, before the record, is
        // completed by the next command. Flushed only as git flushes the
        // refs it stands for (`core.fsync`): it has to outlive a kill, and
        // a power cut may lose it only where it may lose the ref update too.
        let file = pending::write_as_ref(repo, &journal)?;
        crate::crashpoint!("undo-after-journal");
        if let [one] = inverse.as_slice() {
            // One ref: by compare-and-swap, so a ref moved since the check
            // is refused, not clobbered.
            if let Err(e) = swap_one(repo, target, one, &file) {
                let _ = std::fs::remove_file(&file);
                return Err(e);
            }
            crate::crashpoint!("undo-after-ref");
        }
        let completed = pending::complete(repo)?;
        drop(turn);
        let mut out = undone(target, &record, Method::Refs, String::new());
        match completed.blocked {
            Some(cause) if file.exists() => {
                out.id = "pending".into();
                out.warnings
                    .push(pending::Deferred::new("the undo", &cause, &file));
            }
            _ => {
                let mine = completed.appended.iter().find(|(_, r)| *r == record);
                out.id = match mine {
                    Some((id, _)) => id.to_string(),
                    None => logged_id(repo, &record),
                }
            }
        }
        Ok(out)
    }
}

/// Moves the one ref of an undo from the value the operation left there
/// (`m.old`) to `m.new`, journalled in `file`; `UndoConflict` if it holds
/// anything else, unless another command already completed the journal.
fn swap_one(repo: &Repo, target: &AuditEntry, m: &RefMove, file: &Path) -> Result<()> {
    let expected = m.old.as_deref().map(Oid::parse).transpose()?;
    let reflog = reflog(target);
    let moved = match (m.new.as_deref(), expected) {
        (Some(new), _) => git::compare_and_swap(repo, &m.name, Oid::parse(new)?, expected, &reflog),
        (None, Some(old)) => git::delete_ref_if(repo, &m.name, old),
        (None, None) => Ok(()),
    };
    let actual = || repo.ref_target(&m.name).map(|o| o.to_string());
    match moved {
        Err(Error::ConcurrentUpdate { .. }) if !file.exists() && actual() == m.new => Ok(()),
        Err(Error::ConcurrentUpdate { .. }) => Err(moved_since(target, m, actual())),
        other => other,
    }
}

fn reflog(target: &AuditEntry) -> String {
    format!("evolv: undo {}", &target.id[..12.min(target.id.len())])
}

/// The id the log gave `record` when another command completed its
/// journal (just now, so among the newest).
fn logged_id(repo: &Repo, record: &crate::store::audit::AuditRecord) -> String {
    audit::read(repo, Some(64))
        .unwrap_or_default()
        .into_iter()
        .find(|e| !e.foreign && &e.record == record)
        .map_or_else(|| "pending".into(), |e| e.id)
}
