//! The op log (issue 26): the audit log read as operations, newest first,
//! each with its kind, time, actor, the refs it moved (old and new ids)
//! and the paths a landing wrote. One log, not two: records written
//! before the op log existed are listed too, with the refs their fields
//! imply (`derived`), and `undo` refuses them.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::Repo;
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::store::audit::{AuditAction, AuditEntry, RefMove};
use crate::store::{pending, proposals};

/// Why a record not marked by this clone is listed apart and never acted
/// on (issue 38 item 2).
pub const NOT_MARKED: &str = "it is not marked by this clone: it came from another clone (fetched or pushed), was written by hand, or was logged by an earlier version of git-evolv, before records were marked; undo and redo never act on it";

/// `op log`: at most `limit` operations, newest first (default: all).
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpLogRequest {
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
}

/// `op show`: one operation, by its id or a unique prefix of it.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpShowRequest {
    pub op: String,
}

/// One operation.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema, PartialEq, Eq)]
pub struct Operation {
    /// The audit commit's id (`pending` while journalled).
    pub id: String,
    /// propose, edit, drop, gc, comment, apply, rollback, undo, redo, test.
    pub kind: String,
    /// When it ran, RFC 3339 UTC.
    pub time: String,
    /// cli, mcp:<client>, web, hook; null for records of earlier versions.
    pub actor: Option<String>,
    /// Every ref it moved; `old` null where created, `new` null where
    /// deleted.
    pub refs: Vec<RefMove>,
    /// Verdict refs it wrote: facts about a tree, not effects, so undo
    /// leaves them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<RefMove>,
    /// What a landing (apply, rollback, an undo of either) wrote.
    pub paths: Vec<String>,
    pub patch_id: String,
    /// Every proposal of a drop or gc of several (one operation, undone
    /// at once); `patch_id` is the first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub patch_ids: Vec<String>,
    pub success: bool,
    /// For an undo or redo: the operation it undid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    /// For an undo or redo of a landing made as a new commit (a revert or
    /// a reapply): why the branch was not simply moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Written by an earlier version: `refs` are what its fields imply,
    /// and it cannot be undone.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub derived: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// Not marked by this clone: why it is never undone or redone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub foreign: Option<String>,
}

/// `op log`'s answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct OpLogOutcome {
    /// This clone's operations (marked by it, or still journalled).
    pub operations: Vec<Operation>,
    /// Records among the same newest ones that are not marked by this
    /// clone, listed apart: each says why (`foreign`) it is never acted on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub foreign: Vec<Operation>,
    /// Where the listing ends: `start` (the first operation ever logged;
    /// the log is never compacted) or `limit` (older ones exist).
    pub ends_at: &'static str,
}

impl Operation {
    /// The operation an audit entry records.
    pub fn from_entry(entry: &AuditEntry) -> Operation {
        let r = &entry.record;
        let lands = matches!(r.action, AuditAction::Apply | AuditAction::Rollback)
            || (matches!(r.action, AuditAction::Undo | AuditAction::Redo) && !r.files.is_empty());
        Operation {
            id: entry.id.clone(),
            kind: r.action.as_str().to_string(),
            time: evolv_core::clock::utc_rfc3339(r.timestamp),
            actor: r.actor.clone(),
            refs: r.refs.clone().unwrap_or_else(|| derived_refs(entry)),
            facts: r.facts.clone().unwrap_or_default(),
            paths: if lands { r.files.clone() } else { Vec::new() },
            patch_id: r.patch_id.clone(),
            patch_ids: r.patch_ids.clone(),
            success: r.success,
            undoes: r.undoes.clone(),
            reason: r.reason.clone(),
            derived: r.refs.is_none(),
            dry_run: r.dry_run,
            pending: entry.pending,
            foreign: entry.foreign.then(|| NOT_MARKED.to_string()),
        }
    }
}

/// What a record of an earlier version implies it moved: a proposal
/// created, a branch moved by a landing. A drop's deleted ids were not
/// recorded, so it lists none.
fn derived_refs(entry: &AuditEntry) -> Vec<RefMove> {
    let r = &entry.record;
    if !r.success || r.dry_run {
        return Vec::new();
    }
    let id = |s: &Option<String>| s.clone();
    match r.action {
        AuditAction::Propose | AuditAction::Edit => vec![RefMove {
            name: proposals::proposal_ref(&r.patch_id),
            old: None,
            new: id(&r.commit),
        }],
        AuditAction::Apply | AuditAction::Rollback => match &r.branch {
            Some(branch) if r.commit.is_some() => vec![RefMove {
                name: branch.clone(),
                old: id(&r.previous_head),
                new: id(&r.commit),
            }],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// `git evolv op log`.
pub fn op_log(repo: &Repo, req: &OpLogRequest) -> Result<OpLogOutcome> {
    // One more than asked: whether older operations exist.
    let entries = pending::read_all(repo, req.limit.map(|l| l + 1))?;
    let more = req.limit.is_some_and(|l| entries.len() > l);
    let (foreign, operations): (Vec<Operation>, Vec<Operation>) = entries
        .iter()
        .take(req.limit.unwrap_or(usize::MAX))
        .filter(|e| e.record.action != AuditAction::Race)
        .map(Operation::from_entry)
        .partition(|o| o.foreign.is_some());
    Ok(OpLogOutcome {
        operations,
        foreign,
        ends_at: if more { "limit" } else { "start" },
    })
}

/// `git evolv op show <op>`.
pub fn op_show(repo: &Repo, req: &OpShowRequest) -> Result<Operation> {
    Ok(Operation::from_entry(&find(repo, &req.op)?))
}

/// The logged operation whose id is `op` or starts with it (at least 4
/// hex digits, as git's short ids).
pub fn find(repo: &Repo, op: &str) -> Result<AuditEntry> {
    let op = op.trim();
    let hex = op.len() >= 4 && op.len() <= 40 && op.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex {
        return Err(Error::invalid_field(
            "op",
            format!("'{op}' is not an operation id (4 to 40 hex digits)"),
            "run `git evolv op log` to see the operations",
        ));
    }
    let op = op.to_ascii_lowercase();
    let found: Vec<AuditEntry> = crate::store::audit::read(repo, None)?
        .into_iter()
        .filter(|e| e.id.starts_with(&op))
        .collect();
    match found.len() {
        0 => Err(Error::OpNotFound { op }),
        1 => Ok(found.into_iter().next().expect("one")),
        _ => Err(Error::OpAmbiguous {
            op,
            matches: found.into_iter().map(|e| e.id).collect(),
        }),
    }
}

impl UseCase for OpLogRequest {
    const OPEN: Open = Open::View;
    type Outcome = OpLogOutcome;

    fn run(&self, session: &Session) -> Result<OpLogOutcome> {
        op_log(session.repo()?, self)
    }
}

impl UseCase for OpShowRequest {
    const OPEN: Open = Open::View;
    type Outcome = Operation;

    fn run(&self, session: &Session) -> Result<Operation> {
        op_show(session.repo()?, self)
    }
}
