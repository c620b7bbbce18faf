//! Undo of an operation that moved a branch (apply, rollback, an undo of
//! either). The branch moves back to where the operation found it, through
//! the landing protocol (turn, journal, compare-and-swap, the changed paths
//! restored in the work tree and index, recovery of a kill by the next
//! command), when that rewrites nothing that may be published: the branch
//! is still where the operation left it, and what it would take off the
//! branch is reachable from no `refs/remotes/*`. Otherwise the operation's
//! change is undone by a new commit on top (a revert), and the outcome
//! says why.

use super::{Method, Undone, record, undone};
use crate::error::{Error, Result};
use crate::git::{self, Head, Merged, Oid, Repo};
use crate::landing::land::{self, BranchMove, Epilogue, Turn};
use crate::store::audit::{AuditAction, AuditEntry, AuditRecord, RefMove};
use crate::store::{kept, proposals, trailers};

/// Undoes `target`, whose move `moves[branch]` is of a branch, in `turn`.
pub(super) fn undo_landing(
    repo: &Repo,
    turn: Turn,
    target: &AuditEntry,
    moves: &[RefMove],
    branch: usize,
    dry_run: bool,
) -> Result<Undone> {
    // A dry run's revert is computed in memory: it writes no object.
    let scratch;
    let repo = if dry_run {
        scratch = git::in_memory_writes(repo)?;
        &scratch
    } else {
        repo
    };
    let bm = &moves[branch];
    let head = git::head(repo)?;
    let refuse = |reason: String| Error::NotUndoable {
        op: target.id.clone(),
        reason,
    };
    if head.ref_name() != bm.name {
        return Err(refuse(format!(
            "it moved {}, which is not checked out here (HEAD is {}); switch to it first",
            bm.name,
            head.display_name()
        )));
    }
    let (Some(before), Some(after)) = (parse(&bm.old)?, parse(&bm.new)?) else {
        return Err(refuse(format!("it created or deleted {}", bm.name)));
    };
    let reason = why_revert(repo, &head, before, after)?;
    let mut record = record(target);
    record.branch = Some(bm.name.clone());
    record.previous_head = Some(head.commit.to_string());
    record.reason = reason.clone();
    let epilogue = bookkeeping(repo, moves, branch, &mut record);
    land::prepare_index(repo)?;
    let head_tree = repo.commit_tree(head.commit)?;
    let (new, method) = match &reason {
        None => (before, Method::MoveBack),
        Some(_) => {
            let tree = reverted_tree(repo, target, head.commit, before, after)?;
            if tree == head_tree.id() {
                return Err(refuse(
                    "its change is no longer on the branch (a later commit undid it)".into(),
                ));
            }
            let commit = revert_commit(repo, target, &record, (head.commit, after), tree)?;
            (commit, Method::Revert)
        }
    };
    let new_tree = repo.commit_tree(new)?;
    let changed = git::changed_paths(repo, &head_tree, &new_tree)?;
    record_move(&mut record, &bm.name, (head.commit, new), &changed);
    if dry_run {
        land::check_clean(repo, Some(&turn), &head, &head_tree, &new_tree, &changed)?;
        return Ok(undone(target, &record, method, String::new()));
    }
    // The landing itself refuses uncommitted work, under git's index lock
    // and before anything moves; a check here as well read and hashed
    // every racily clean file twice (all of a landing's, right after it).
    let mut epilogue = epilogue;
    if method == Method::MoveBack {
        // Taken off the branch: kept reachable for a redo, by the landing's
        // journalled bookkeeping (until then the branch's reflog holds it),
        // so an undo refused as dirty leaves no kept ref behind.
        epilogue.set(kept::ref_name(head.commit), head.commit);
    }
    let reflog = format!("evolv: {} {}", record.action, short(&target.id));
    epilogue.audit.push(record.clone());
    let mv = BranchMove::new(&head, new, &changed, &reflog, epilogue);
    let finished = land::land_in_turn(repo, turn, mv)?;
    let mut out = undone(target, &record, method, finished.audit_id(0));
    out.warnings.extend(finished.deferred);
    Ok(out)
}

/// `record` completed with the branch's move `old` → `new` (first among its
/// refs) and the paths it lands.
fn record_move(
    record: &mut AuditRecord,
    branch: &str,
    (old, new): (Oid, Oid),
    changed: &[git::ChangedPath],
) {
    let paths: Vec<git::RepoPath> = changed.iter().map(|c| c.path.clone()).collect();
    record.set_files(&paths);
    record.commit = Some(new.to_string());
    let mut refs = vec![RefMove::new(branch, Some(old), Some(new))];
    refs.extend(record.refs.take().unwrap_or_default());
    record.refs = Some(refs);
}

/// The revert of `after` on `head`, its tree `tree` already merged.
fn revert_commit(
    repo: &Repo,
    target: &AuditEntry,
    record: &AuditRecord,
    (head, after): (Oid, Oid),
    tree: Oid,
) -> Result<Oid> {
    let message = revert_message(repo, target, record, after)?;
    let author = git::author(repo)?;
    let committer = git::committer(repo)?;
    git::commit::create(repo, &author, &committer, &message, tree, &[head])
}

fn parse(id: &Option<String>) -> Result<Option<Oid>> {
    id.as_deref().map(Oid::parse).transpose()
}

fn short(id: &str) -> &str {
    &id[..12.min(id.len())]
}

/// Why the branch cannot simply move from `after` back to `before`
/// (`None`: it can). A move forward (a redo of an undo that moved back)
/// rewrites nothing; a move back must find the branch still at `after`,
/// and `after` on no remote-tracking ref.
fn why_revert(repo: &Repo, head: &Head, before: Oid, after: Oid) -> Result<Option<String>> {
    let branch = head.display_name();
    if head.commit != after {
        return Ok(Some(format!(
            "{branch} has moved on since (it is at {}, not {}): the commits on top are kept",
            short(&head.commit.to_string()),
            short(&after.to_string())
        )));
    }
    if repo.is_descendant_of(before, after)? {
        return Ok(None);
    }
    Ok(published_in(repo, after)?.map(|remote| {
        format!(
            "{} is reachable from {remote} (it was pushed): what may be published is never rewritten",
            short(&after.to_string())
        )
    }))
}

/// A remote-tracking ref from which `commit` is reachable, if any.
fn published_in(repo: &Repo, commit: Oid) -> Result<Option<String>> {
    for (name, tip) in repo.readable_refs_matching("refs/remotes/*") {
        if tip == commit || repo.is_descendant_of(tip, commit)? {
            return Ok(Some(name));
        }
    }
    Ok(None)
}

/// The bookkeeping refs (markers) of `moves` put back, those that still
/// hold what the operation left there; each is added to `record`.
fn bookkeeping(
    repo: &Repo,
    moves: &[RefMove],
    branch: usize,
    record: &mut AuditRecord,
) -> Epilogue {
    let mut epilogue = Epilogue::default();
    for (i, m) in moves.iter().enumerate().rev() {
        if i == branch {
            continue;
        }
        let inverse = m.inverse();
        if repo.ref_target(&m.name).map(|o| o.to_string()) != inverse.old {
            // Moved since (dropped, applied again): left as it is.
            continue;
        }
        match inverse.new.as_deref().map(Oid::parse) {
            Some(Ok(target)) => epilogue.set(m.name.clone(), target),
            Some(Err(_)) => continue,
            None => epilogue.delete(m.name.clone()),
        }
        record.moved(inverse);
    }
    epilogue
}

/// The head's tree with the change `before` → `after` undone: a three-way
/// merge of `before`'s tree onto the head, from `after`'s.
fn reverted_tree(
    repo: &Repo,
    target: &AuditEntry,
    head: Oid,
    before: Oid,
    after: Oid,
) -> Result<Oid> {
    let tree = |c: Oid| repo.commit_tree(c).map(|t| t.id());
    match repo.merge_trees(tree(after)?, tree(head)?, tree(before)?)? {
        Merged::Clean(tree) => Ok(tree),
        Merged::Conflicts(paths) => Err(Error::Conflict {
            patch_id: target.record.patch_id.clone(),
            paths,
            against: "the current HEAD".into(),
            operation: "undo",
        }),
    }
}

/// The revert's message; its trailer says whether the proposal is landed
/// (`Evolv-Patch`) or rolled back (`Evolv-Rollback`) after it, as the
/// applied marker the undo restores says.
fn revert_message(
    repo: &Repo,
    target: &AuditEntry,
    record: &AuditRecord,
    after: Oid,
) -> Result<String> {
    let summary = repo.find_commit(after)?.summary();
    let id = &target.record.patch_id;
    let body = format!(
        "This reverts commit {after}.\n\ngit evolv {} of operation {}: {}",
        record.action,
        target.id,
        record.reason.as_deref().unwrap_or_default()
    );
    let applied = proposals::applied_ref(id);
    let marker = record.refs.iter().flatten().find(|m| m.name == applied);
    let relands = marker.is_some_and(|m| m.new.is_some())
        || (marker.is_none() && target.record.action == AuditAction::Rollback);
    Ok(if relands {
        format!(
            "Reapply \"{summary}\"\n\n{body}\n\n{}{id}\n",
            trailers::PATCH
        )
    } else {
        trailers::rollback_message(&format!("Revert \"{summary}\""), &body, id)
    })
}
