//! drop and gc: remove proposals (on request only) and warm worktrees.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git;
use crate::git::Repo;
use crate::store::audit::{AuditAction, AuditRecord, RefMove};
use crate::store::{kept, pending, proposals};
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
pub fn drop(repo: &Repo, ids: &[String]) -> Result<DropOutcome> {
    drop_stacked(repo, ids, false)
}

/// The refs of a proposal that drop removes, in order.
fn proposal_refs(id: &str) -> [String; 3] {
    [
        proposals::applied_ref(id),
        proposals::backup_ref(id),
        proposals::proposal_ref(id),
    ]
}

/// Removes proposal `id`'s refs, each kept for undo first (`store::kept`),
/// adding each to `record`. Whether the proposal itself was there.
fn drop_one(repo: &Repo, id: &str, record: &mut AuditRecord) -> Result<bool> {
    let mut dropped = false;
    for name in proposal_refs(id) {
        let Some(old) = repo.ref_target(&name) else {
            continue;
        };
        kept::keep(repo, old)?;
        match git::delete_ref_if(repo, &name, old) {
            Ok(()) => {
                dropped |= name == proposals::proposal_ref(id);
                record.moved(RefMove::new(name, Some(old), None));
            }
            // Another drop took it first: it is gone, which is what was asked.
            Err(Error::ConcurrentUpdate { .. }) if repo.ref_target(&name).is_none() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(dropped)
}

/// Drops each of `ids` and logs them as ONE operation (`kind`: drop or
/// gc) with every ref removed, so one undo brings them all back. A failure
/// half-way still logs what was removed before it.
fn drop_logged(repo: &Repo, ids: &[String], kind: AuditAction) -> Result<Vec<String>> {
    let mut record = AuditRecord::new(kind, "", true);
    let moved = |r: &AuditRecord| r.refs.as_ref().map_or(0, Vec::len);
    // Those whose proposal went (the outcome), and those any ref of which
    // went (the record).
    let (mut dropped, mut touched) = (Vec::new(), Vec::new());
    let mut failed = None;
    for id in ids {
        let before = moved(&record);
        let result = drop_one(repo, id, &mut record);
        if moved(&record) > before {
            touched.push(id.clone());
        }
        match result {
            Ok(true) => dropped.push(id.clone()),
            Ok(false) => {}
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    if let Some(first) = touched.first() {
        record.patch_id = first.clone();
        if touched.len() > 1 {
            record.patch_ids = touched;
        }
        pending::log(repo, &record)?;
    }
    failed.map_or(Ok(dropped), Err)
}

/// `drop`: the named proposals, or with `all` every one (none at all is
/// then not an error).
pub fn drop_proposals(repo: &Repo, req: &DropRequest) -> Result<DropOutcome> {
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
        return drop_stacked(repo, &ids, req.all_above);
    }
    drop_stacked(repo, &req.patch_ids, req.all_above)
}

/// Like `drop`; a proposal with others stacked on it is refused unless
/// `all_above`, which drops those too (#13).
pub fn drop_stacked(repo: &Repo, ids: &[String], all_above: bool) -> Result<DropOutcome> {
    drop_as(repo, ids, all_above, AuditAction::Drop)
}

/// `drop_stacked`, logged as `kind` (drop, or gc for `gc`'s).
fn drop_as(repo: &Repo, ids: &[String], all_above: bool, kind: AuditAction) -> Result<DropOutcome> {
    if ids.is_empty() {
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
    let ids = &super::stack::drop_set(repo, ids, all_above)?;
    let dropped = drop_logged(repo, ids, kind)?;
    Ok(DropOutcome { dropped })
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
pub fn gc(repo: &Repo, req: &GcRequest) -> Result<GcOutcome> {
    let (older_than_days, worktrees) = (req.older_than_days, req.worktrees);
    let mut dropped = Vec::new();
    let mut pruned_verdicts = Vec::new();
    if older_than_days.is_none() {
        pruned_verdicts = crate::store::verdicts::prune(repo, None)?;
    }
    if let Some(days) = older_than_days {
        // Saturating: `--older-than 99999999999999` means "none", not a panic.
        let age = i64::try_from(days)
            .unwrap_or(i64::MAX)
            .saturating_mul(86_400);
        let cutoff = proposals::now_secs().saturating_sub(age);
        pruned_verdicts = crate::store::verdicts::prune(repo, Some(cutoff))?;
        let listing = proposals::listing(repo)?;
        // One this version cannot read is as old as its commit.
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
        // A proposal with newer ones stacked on it stays with them.
        let all = listing.proposals;
        let old: Vec<String> = old
            .iter()
            .filter(|id| {
                super::stack::above(&all, repo, id)
                    .iter()
                    .all(|a| old.contains(a))
            })
            .cloned()
            .collect();
        if !old.is_empty() {
            dropped = drop_as(repo, &old, false, AuditAction::Gc)?.dropped;
        }
    }
    // What undo kept reachable for its 14 days and no longer needs.
    kept::prune(repo)?;
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
