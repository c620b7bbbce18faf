//! drop and gc: remove proposals (on request only) and warm worktrees.

use serde::Serialize;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::store::audit::AuditAction;
use crate::store::transaction::Transaction;
use crate::store::{kept, proposals};
use crate::worktree;

/// Which proposals to remove.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropRequest {
    /// The proposals to remove; all are checked before any is removed.
    #[serde(default)]
    pub patch_ids: Vec<String>,
    /// Remove every proposal instead (then `patch_ids` must be empty).
    #[serde(default)]
    pub all: bool,
    /// Also remove the pending proposals stacked on the named ones.
    #[serde(default)]
    pub all_above: bool,
}

/// What `gc` should clean; at least one of the two.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GcRequest {
    /// Drop proposals created more than this many days ago.
    #[serde(default)]
    pub older_than_days: Option<u64>,
    /// Remove the idle warm validation worktrees.
    #[serde(default)]
    pub worktrees: bool,
}

/// Which proposals `drop` removed.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DropOutcome {
    pub dropped: Vec<String>,
}

/// Removes the named proposals; all ids are checked before any is dropped.
/// A dropped proposal leaves nothing under `refs/evolv`: its `applied` and
/// `backup` markers go too (#16 item 20); what it landed stays in history,
/// where `git revert` can still undo it.
pub fn drop(repo: &Repo, ctx: &Context, ids: &[String]) -> Result<DropOutcome> {
    drop_stacked(repo, ctx, ids, false)
}

/// The refs of a proposal that drop removes, in order.
fn proposal_refs(id: &str) -> [String; 3] {
    [
        proposals::applied_ref(id),
        proposals::backup_ref(id),
        proposals::proposal_ref(id),
    ]
}

/// How often a drop plans again when another command moved one of its
/// refs between planning and committing.
const DROP_ATTEMPTS: usize = 8;

/// Plans the removal of proposal `id`'s refs in `tx`, each kept for undo
/// (`store::kept`). Whether the proposal itself is there.
fn plan_one(repo: &Repo, id: &str, tx: &mut Transaction<'_>) -> bool {
    let mut there = false;
    for name in proposal_refs(id) {
        let Some(old) = repo.ref_target(&name) else {
            continue;
        };
        there |= name == proposals::proposal_ref(id);
        tx.keep(old);
        tx.swap(name, Some(old), None);
    }
    there
}

/// Drops each of `ids` as ONE operation (`kind`: drop or gc) with every
/// ref removed, so one undo brings them all back; `extra` adds what else
/// the operation removes (gc's expired verdicts and kept refs). All or
/// nothing: a ref another command moved meanwhile makes it plan again.
fn drop_logged(
    repo: &Repo,
    ctx: &Context,
    ids: &[String],
    kind: AuditAction,
    extra: &dyn Fn(&mut Transaction<'_>) -> Result<()>,
) -> Result<Vec<String>> {
    for _ in 0..DROP_ATTEMPTS {
        let mut tx = Transaction::new(repo, ctx, kind, "");
        let (mut dropped, mut touched) = (Vec::new(), Vec::new());
        for id in ids {
            let before = tx.len();
            if plan_one(repo, id, &mut tx) {
                dropped.push(id.clone());
            }
            if tx.len() > before {
                touched.push(id.clone());
            }
        }
        extra(&mut tx)?;
        let record = tx.record();
        record.patch_id = touched.first().cloned().unwrap_or_default();
        if touched.len() > 1 {
            record.patch_ids = touched;
        }
        if tx.is_empty() {
            return Ok(dropped);
        }
        match tx.commit() {
            Ok(_) => return Ok(dropped),
            Err(Error::ConcurrentUpdate { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(Error::ConcurrentUpdate {
        what: "refs/evolv/proposals".into(),
        expected: "the proposals to drop, unmoved".into(),
    })
}

/// `drop`: the named proposals, or with `all` every one (none at all is
/// then not an error).
pub fn drop_proposals(repo: &Repo, ctx: &Context, req: &DropRequest) -> Result<DropOutcome> {
    if req.all {
        if !req.patch_ids.is_empty() {
            return Err(Error::invalid_field(
                "all",
                "all removes every proposal, so patch_ids must be empty",
                "give either patch_ids or all",
            ));
        }
        let ids = all_ids(repo)?;
        if ids.is_empty() {
            return Ok(DropOutcome {
                dropped: Vec::new(),
            });
        }
        return drop_stacked(repo, ctx, &ids, req.all_above);
    }
    drop_stacked(repo, ctx, &req.patch_ids, req.all_above)
}

/// Like `drop`; a proposal with others stacked on it is refused unless
/// `all_above`, which drops those too (#13).
pub fn drop_stacked(
    repo: &Repo,
    ctx: &Context,
    ids: &[String],
    all_above: bool,
) -> Result<DropOutcome> {
    drop_with(repo, ctx, ids, all_above, AuditAction::Drop, &|_| Ok(()))
}

/// `drop_stacked` logged as `kind` (drop, or gc for `gc`'s), with
/// `extra` planning what else the operation removes.
fn drop_with(
    repo: &Repo,
    ctx: &Context,
    ids: &[String],
    all_above: bool,
    kind: AuditAction,
    extra: &dyn Fn(&mut Transaction<'_>) -> Result<()>,
) -> Result<DropOutcome> {
    if ids.is_empty() && kind != AuditAction::Gc {
        return Err(Error::invalid_field(
            "patch_ids",
            "no patch id given",
            "give one or more ids (see `git evolv list`), or all",
        ));
    }
    for id in ids {
        // One this version cannot read may still be dropped by its id.
        if let Err(e) = proposals::load(repo, id)
            && !proposals::exists(repo, id)
        {
            return Err(e);
        }
    }
    let ids = &super::applying::stack::drop_set(repo, ids, all_above)?;
    let dropped = drop_logged(repo, ctx, ids, kind, extra)?;
    Ok(DropOutcome { dropped })
}

/// The proposals created before `cutoff` (one this version cannot read is
/// as old as its commit), less those with newer ones stacked on them.
fn expired(repo: &Repo, cutoff: i64) -> Result<Vec<String>> {
    let listing = proposals::listing(repo)?;
    let old: Vec<String> = listing
        .proposals
        .iter()
        .filter(|p| p.meta.created_at < cutoff)
        .map(|p| p.id.to_string())
        .chain(
            listing
                .unreadable
                .iter()
                .filter(|u| u.time < cutoff)
                .map(|u| u.id.clone()),
        )
        .collect();
    let all = listing.proposals;
    Ok(old
        .iter()
        .filter(|id| {
            super::applying::stack::above(&all, repo, id)
                .iter()
                .all(|a| old.contains(a))
        })
        .cloned()
        .collect())
}

/// Every proposal id, readable or not, for `drop --all`.
pub fn all_ids(repo: &Repo) -> Result<Vec<String>> {
    let listing = proposals::listing(repo)?;
    Ok(listing
        .proposals
        .into_iter()
        .map(|p| p.id.into())
        .chain(listing.unreadable.into_iter().map(|u| u.id))
        .collect())
}

/// What `gc` removed.
#[derive(Debug, Clone, Serialize)]
pub struct GcOutcome {
    pub dropped: Vec<String>,
    pub removed_worktrees: Vec<String>,
    /// Verdict refs removed: every one that is not a commit (a blob, a
    /// tree, a tag: never a verdict), and those made before the cutoff
    /// (`older_than_days`).
    pub pruned_verdicts: Vec<String>,
}

/// Drops proposals older than `older_than_days` (if given) and removes the
/// idle warm worktrees (if `worktrees`). Always (as `git gc` with no
/// option still does its housekeeping): removes the verdict refs that are
/// not commits and the kept refs undo no longer needs.
pub fn gc(repo: &Repo, ctx: &Context, req: &GcRequest) -> Result<GcOutcome> {
    let cutoff = req.older_than_days.map(|days| {
        // Saturating: `--older-than 99999999999999` means "none", not a panic.
        let age = i64::try_from(days)
            .unwrap_or(i64::MAX)
            .saturating_mul(86_400);
        proposals::now_secs().saturating_sub(age)
    });
    let old = match cutoff {
        Some(cutoff) => expired(repo, cutoff)?,
        None => Vec::new(),
    };
    // One operation: the expired proposals, verdicts (facts: undo leaves
    // them) and the kept refs undo no longer needs.
    let pruned = std::cell::RefCell::new(Vec::new());
    let extra = |tx: &mut Transaction<'_>| -> Result<()> {
        let mut names = pruned.borrow_mut();
        names.clear();
        for (name, oid) in crate::store::verdicts::prunable(repo, cutoff)? {
            tx.fact_deleted(&name, oid);
            names.push(name);
        }
        for (name, oid) in kept::prunable(repo) {
            tx.swap(name, Some(oid), None);
        }
        Ok(())
    };
    let dropped = drop_with(repo, ctx, &old, false, AuditAction::Gc, &extra)?.dropped;
    let pruned_verdicts = pruned.into_inner();
    let worktrees = req.worktrees;
    let removed_worktrees = if worktrees {
        worktree::remove_warm(repo)?
            .into_iter()
            .map(|p| p.display().to_string())
            .collect()
    } else {
        Vec::new()
    };
    Ok(GcOutcome {
        dropped,
        removed_worktrees,
        pruned_verdicts,
    })
}

impl UseCase for DropRequest {
    const OPEN: Open = Open::Recovering;
    type Outcome = DropOutcome;

    fn run(&self, session: &Session) -> Result<DropOutcome> {
        drop_proposals(session.repo()?, session.context(), self)
    }
}

impl UseCase for GcRequest {
    const OPEN: Open = Open::Recovering;
    type Outcome = GcOutcome;

    fn run(&self, session: &Session) -> Result<GcOutcome> {
        gc(session.repo()?, session.context(), self)
    }
}
