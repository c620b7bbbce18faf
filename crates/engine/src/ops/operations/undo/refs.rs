//! Undo of an operation that moved only git-evolv's refs (propose, edit,
//! drop, gc, comment, and undos of those): each ref goes back where it
//! was, only while it still holds what the operation left there.
//!
//! One `store::Transaction`: journalled, each ref moved back by
//! compare-and-swap, then the undo's record; a kill in between is
//! completed (or put back) by the next git-evolv command.

use super::sim::Sim;
use super::{Method, Undone, moved_since, record, undone};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::landing::land::Turn;
use crate::store::audit::{AuditEntry, AuditRecord, RefMove};
use crate::store::transaction::Transaction;

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

    /// Puts the refs back, in `turn`: one transaction, which keeps what
    /// it takes off a ref reachable for redo.
    pub(super) fn run(self, repo: &Repo, turn: Turn, ctx: &Context) -> Result<Undone> {
        let RefsUndo {
            target,
            record,
            inverse,
        } = self;
        let target = &target;
        let mut tx = Transaction::new(repo, ctx, record.action, &record.patch_id);
        *tx.record() = AuditRecord {
            refs: None,
            ..record.clone()
        };
        tx.set_reflog(reflog(target));
        // A kept ref it removes kept only what it puts back elsewhere.
        let kept = |m: &&RefMove| !m.name.starts_with(crate::store::kept::KEPT_PREFIX);
        for old in inverse.iter().filter(kept).filter_map(|m| m.old.as_deref()) {
            tx.keep(Oid::parse(old)?);
        }
        // A rewind's files follow its session's ref (checked first).
        let mut files = Vec::new();
        for m in &inverse {
            let parse = |o: &Option<String>| o.as_deref().map(Oid::parse).transpose();
            let (old, new) = (parse(&m.old)?, parse(&m.new)?);
            files.extend(crate::ops::checkpoints::undo::follow(
                repo, &m.name, old, new,
            )?);
            tx.swap(&m.name, old, new);
        }
        let logged = tx
            .commit()
            .map_err(|e| conflict(repo, target, &inverse, e))?;
        for moved in &files {
            moved.apply(repo)?;
        }
        drop(turn);
        let mut out = undone(target, &record, Method::Refs, logged.id());
        out.warnings.extend(logged.deferred().cloned());
        Ok(out)
    }
}

/// A ref the undo was to move back, moved by someone else meanwhile:
/// `UndoConflict` naming it.
fn conflict(repo: &Repo, target: &AuditEntry, inverse: &[RefMove], e: Error) -> Error {
    if !matches!(e, Error::ConcurrentUpdate { .. }) {
        return e;
    }
    let actual = |m: &RefMove| repo.ref_target(&m.name).map(|o| o.to_string());
    inverse
        .iter()
        .find(|m| actual(m) != m.old)
        .map_or(e, |m| moved_since(target, m, actual(m)))
}

fn reflog(target: &AuditEntry) -> String {
    format!("evolv: undo {}", &target.id[..12.min(target.id.len())])
}
