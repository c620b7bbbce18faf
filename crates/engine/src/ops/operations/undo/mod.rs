//! undo and redo (issue 26): reverse an operation of the op log. An undo
//! is itself an operation (kind `undo`, or `redo` when it undoes an undo),
//! so undoing an undo is a redo, as in jj.
//!
//! - An operation that moved only git-evolv's refs (propose, edit, drop,
//!   gc, comment) is undone by putting each ref back where it was, only
//!   while it still holds what the operation left there (`refs`).
//! - A landing (apply, rollback, an undo of either) moves its branch back
//!   through the landing machinery when nothing was built on it and
//!   nothing it would take off the branch was pushed; else it is undone
//!   by a revert commit, and the outcome says why (`landing`).
//!
//! Every undo takes the landing turn first, as a landing does, so undos,
//! applies and rollbacks of many processes queue instead of racing. Every
//! step is decided before any is taken (`plan`), so a refusal changes
//! nothing and a dry run shows what the run does.
//!
//! Only records marked by this clone are acted on (issue 38 item 2): the
//! op log travels with `refs/evolv/*`, and a record from another clone (or
//! written by hand, or before records were marked) could name any commit
//! and any ref. Those are skipped by `undo`, `undo --to` and `redo`, and
//! refused when named, saying why (`pick`).

mod confirm;
mod landing;
mod pick;
mod plan;
mod refs;
mod sim;

use serde::Serialize;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::landing::land;
use crate::ops::permissions::Confirmation;
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::store::audit::{AuditAction, AuditEntry, AuditRecord, RefMove};
use crate::store::pending::Deferred;

/// `undo` / `redo`.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoRequest {
    /// The operation to undo (its id or a unique prefix); default: the
    /// newest one this actor (cli, mcp:<client>, web) did that can be
    /// undone.
    #[serde(default)]
    pub op: Option<String>,
    /// Undo every operation after this one instead, newest first.
    #[serde(default)]
    pub to: Option<String>,
    /// Redo what the newest undo not yet redone undid.
    #[serde(default)]
    pub redo: bool,
    /// List every ref and path that would change; change nothing.
    #[serde(default)]
    pub dry_run: bool,
}

/// How an operation was undone.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Refs put back where they were.
    Refs,
    /// The branch moved back, the landed paths restored.
    MoveBack,
    /// The branch moved forward again (a redo of an undo that moved it
    /// back), the landed paths written again.
    MoveForward,
    /// A new commit that reverts the operation's change (never a rewrite
    /// of what may be published).
    Revert,
    /// A new commit that reapplies a change an undo had taken off the
    /// branch (a redo that could not move the branch forward).
    Reapply,
}

/// One operation undone (or, in a dry run, that would be).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Undone {
    /// The operation undone.
    pub op: String,
    /// Its kind (propose, apply, …).
    pub op_kind: String,
    pub patch_id: String,
    /// `undo`, or `redo` when the operation undone was an undo.
    pub kind: String,
    /// The id of the new operation; empty in a dry run.
    pub id: String,
    pub method: Method,
    /// For a revert or reapply: why the branch could not simply move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Every ref changed (or that would be).
    pub refs: Vec<RefMove>,
    /// Every path of the work tree and index changed (or that would be).
    pub paths: Vec<String>,
    /// Bookkeeping that had to wait (a foreign lock); the undo is done.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Deferred>,
}

/// What `undo` / `redo` did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct UndoOutcome {
    /// Newest first, as they were undone.
    pub undone: Vec<Undone>,
    /// Records `undo --to` passed over: not marked by this clone, never
    /// acted on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<pick::Skipped>,
    pub dry_run: bool,
}

/// `git evolv undo` / `redo`; `ctx`'s progress hears a landing's files.
pub fn undo(repo: &Repo, ctx: &Context, req: &UndoRequest) -> Result<UndoOutcome> {
    crate::git::ensure_no_operation_in_progress(repo)?;
    let turn = land::take_turn(repo)?;
    let pick::Picked { targets, skipped } = targets(repo, req, ctx.actor())?;
    let planned = plan::plan(repo, &turn, &targets, req.dry_run)?;
    let undone = match req.dry_run {
        true => planned,
        false => plan::run(repo, (turn, ctx), &targets, &planned)?,
    };
    Ok(UndoOutcome {
        undone,
        skipped,
        dry_run: req.dry_run,
    })
}

/// The newest entries suffice for `undo` or `redo` alone (an operation's
/// undo is newer than it, so what decides is among the entries read so
/// far): they are read a few at a time, newest first, until they decide —
/// usually the newest one does. The whole log is read only when none does.
fn targets(repo: &Repo, req: &UndoRequest, me: &str) -> Result<pick::Picked> {
    if req.op.is_none() && req.to.is_none() {
        let mut reader = crate::store::audit::Reader::new(repo);
        let (mut log, mut batch) = (Vec::new(), 1);
        while reader.read_more(batch, &mut log)? {
            match pick::targets(repo, &log, req, me) {
                Err(e) if e.code() == "nothing_to_undo" => batch *= 4,
                found => return found,
            }
        }
        return pick::targets(repo, &log, req, me);
    }
    pick::targets(repo, &crate::store::audit::read(repo, None)?, req, me)
}

/// The record of the undo of `target`.
fn record(target: &AuditEntry) -> AuditRecord {
    let kind = match target.record.action {
        AuditAction::Undo => AuditAction::Redo,
        _ => AuditAction::Undo,
    };
    let mut r = AuditRecord::new(kind, &target.record.patch_id, true);
    r.patch_ids = target.record.patch_ids.clone();
    r.undoes = Some(target.id.clone());
    r.refs = Some(Vec::new());
    r
}

/// The outcome of undoing `target` as `record` says.
fn undone(target: &AuditEntry, record: &AuditRecord, method: Method, id: String) -> Undone {
    Undone {
        op: target.id.clone(),
        op_kind: target.record.action.as_str().to_string(),
        patch_id: target.record.patch_id.clone(),
        kind: record.action.as_str().to_string(),
        id,
        method,
        reason: record.reason.clone(),
        refs: record.refs.clone().unwrap_or_default(),
        paths: record.files.clone(),
        warnings: Vec::new(),
    }
}

/// `UndoConflict` for `m`, which should hold `m.old` but holds `actual`.
fn moved_since(target: &AuditEntry, m: &RefMove, actual: Option<String>) -> Error {
    Error::UndoConflict {
        op: target.id.clone(),
        name: m.name.clone(),
        expected: m.old.clone(),
        actual,
    }
}

impl UseCase for UndoRequest {
    const OPEN: Open = Open::Recovering;
    const WRITES_OBJECTS: bool = true;
    type Outcome = UndoOutcome;

    fn run(&self, session: &Session) -> Result<UndoOutcome> {
        undo(session.repo()?, session.context(), self)
    }

    fn confirmation(&self, session: &Session) -> Result<Option<Confirmation>> {
        let how = (session.settings()?, session.context());
        confirm::undo_confirmation(session.repo()?, how, self)
    }
}
