//! Undo of an operation that moved a branch (apply, rollback, an undo of
//! either). The branch moves back to where the operation found it, through
//! the landing protocol (turn, journal, compare-and-swap, the changed paths
//! restored in the work tree and index, recovery of a kill by the next
//! command), when that rewrites nothing that may be published: the branch
//! is still where the operation left it, and what it would take off the
//! branch is reachable from no `refs/remotes/*`; and only to a commit the
//! branch's reflog (which no fetch writes) shows it held. A redo of an
//! undo that moved back moves the branch forward. Otherwise the change is
//! undone (or redone) by a new commit on top, and the outcome says why.
//!
//! `decide` is the whole decision, for the plan (on the state the steps
//! before it leave, reverts computed in memory) and for the run alike.

use super::sim::Sim;
use super::{Method, Undone, record, undone};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{self, ChangedPath, Head, Merged, Oid, Repo};
use crate::landing::land::{self, BranchMove, Turn};
use crate::store::audit::{AuditAction, AuditEntry, AuditRecord, RefMove};
use crate::store::transaction::Transaction;
use crate::store::{proposals, trailers};

/// The undo of a landing, decided: where the branch goes and how.
pub(super) struct LandingUndo {
    target: AuditEntry,
    record: AuditRecord,
    method: Method,
    head: Head,
    new: Oid,
    changed: Vec<ChangedPath>,
    /// The markers put back once the branch moved (`None`: deleted).
    markers: Vec<(String, Option<Oid>)>,
}

/// Decides the undo of `target`, whose move `moves[branch]` is of a
/// branch, on the refs as `sim` has them; `sim` then has them as it leaves
/// them. `check` (the plan's, with the turn): refuse uncommitted work in a
/// path it writes, as the landing itself will.
pub(super) fn decide(
    repo: &Repo,
    sim: &mut Sim,
    target: &AuditEntry,
    (moves, branch): (&[RefMove], usize),
    check: Option<&Turn>,
) -> Result<LandingUndo> {
    let bm = &moves[branch];
    let real = git::head(repo)?;
    let refuse = |reason: String| Error::NotUndoable {
        op: target.id.clone(),
        reason,
    };
    if real.ref_name() != bm.name {
        return Err(refuse(format!(
            "it moved {}, which is not checked out here (HEAD is {}); switch to it first",
            bm.name,
            real.display_name()
        )));
    }
    let head = Head {
        commit: sim.moved(real.ref_name())?.unwrap_or(real.commit),
        ..real.clone()
    };
    let (Some(before), Some(after)) = (parse(&bm.old)?, parse(&bm.new)?) else {
        return Err(refuse(format!("it created or deleted {}", bm.name)));
    };
    let way = way(repo, &head, before, after)?;
    if way == Way::Back {
        ensure_held(repo, target, &bm.name, before)?;
    }
    let mut record = record(target);
    record.branch = Some(bm.name.clone());
    record.previous_head = Some(head.commit.to_string());
    if let Way::Commit(reason) = &way {
        record.reason = Some(reason.clone());
    }
    let markers = bookkeeping(repo, sim, moves, branch, &mut record)?;
    land::prepare_index(repo)?;
    let head_tree = repo.commit_tree(head.commit)?;
    let (new, method) = match &way {
        Way::Back => (before, Method::MoveBack),
        Way::Forward => (before, Method::MoveForward),
        Way::Commit(_) => {
            let tree = reverted_tree(repo, target, head.commit, before, after)?;
            if tree == head_tree.id() {
                return Err(refuse(
                    "its change is no longer on the branch (a later commit undid it)".into(),
                ));
            }
            undo_commit(repo, target, &record, (before, after), tree, head.commit)?
        }
    };
    let new_tree = repo.commit_tree(new)?;
    let changed = git::changed_paths(repo, &head_tree, &new_tree)?;
    if let Some(turn) = check {
        // Uncommitted work is judged against the real HEAD: a step planned
        // after another on this branch writes a work tree that step leaves.
        let real_tree = repo.commit_tree(real.commit)?;
        land::check_clean(repo, Some(turn), &real, &real_tree, &new_tree, &changed)?;
    }
    record_move(&mut record, &bm.name, (head.commit, new), &changed);
    sim.set(&bm.name, Some(new.to_string()));
    Ok(LandingUndo {
        target: target.clone(),
        record,
        method,
        head,
        new,
        changed,
        markers,
    })
}

/// The commit that undoes `target`'s move `(before, after)` on top of
/// `head` with `tree`: a revert, or the reapply of a landing taken off.
fn undo_commit(
    repo: &Repo,
    target: &AuditEntry,
    record: &AuditRecord,
    (before, after): (Oid, Oid),
    tree: Oid,
    head: Oid,
) -> Result<(Oid, Method)> {
    let method = match repo.is_descendant_of(before, after)? {
        true => Method::Reapply,
        false => Method::Revert,
    };
    let message = commit_message(repo, target, record, method, (before, after))?;
    let author = git::author(repo)?;
    let committer = git::committer(repo)?;
    let commit = git::objects::commit::create(repo, &author, &committer, &message, tree, &[head])?;
    Ok((commit, method))
}

impl LandingUndo {
    /// What it does (or would do).
    pub(super) fn outcome(&self) -> Undone {
        undone(&self.target, &self.record, self.method, String::new())
    }

    /// Lands it, in `turn`.
    pub(super) fn run(self, repo: &Repo, turn: Turn, ctx: &Context) -> Result<Undone> {
        // The landing itself refuses uncommitted work, under git's index
        // lock and before anything moves.
        let LandingUndo {
            target,
            record,
            method,
            head,
            new,
            changed,
            markers,
        } = self;
        let mut tx = Transaction::new(repo, ctx, record.action, &record.patch_id);
        *tx.record() = AuditRecord {
            refs: None,
            ..record.clone()
        };
        for (name, target) in markers {
            tx.set(name, target);
        }
        if matches!(method, Method::MoveBack) {
            // Taken off the branch: kept reachable for a redo, by the
            // landing's journalled bookkeeping (until then the branch's
            // reflog holds it), so an undo refused as dirty leaves no kept
            // ref behind.
            tx.keep(head.commit);
        }
        let reflog = format!("evolv: {} {}", record.action, short(&target.id));
        let mv = BranchMove::new(&head, new, &changed, &reflog, tx);
        let finished = land::land_in_turn(repo, turn, mv, ctx.progress())?;
        let mut out = undone(&target, &record, method, finished.audit_id(0));
        out.warnings.extend(finished.deferred);
        Ok(out)
    }
}

/// How the branch goes from `after` (where the operation left it) to
/// `before`.
#[derive(Debug, PartialEq, Eq)]
enum Way {
    /// Back: it rewrites the branch, so it is still at `after` and `after`
    /// is on no remote-tracking ref.
    Back,
    /// Forward (a redo of an undo that moved back): it only adds history.
    Forward,
    /// A new commit on top, and why.
    Commit(String),
}

/// Which way the branch goes: forward when `before` has `after` in its
/// history; back when the branch is still at `after` and `after` is on no
/// remote-tracking ref; else a new commit.
fn way(repo: &Repo, head: &Head, before: Oid, after: Oid) -> Result<Way> {
    let branch = head.display_name();
    if head.commit != after {
        return Ok(Way::Commit(format!(
            "{branch} has moved on since (it is at {}, not {}): the commits on top are kept",
            short(&head.commit.to_string()),
            short(&after.to_string())
        )));
    }
    if repo.is_descendant_of(before, after)? {
        return Ok(Way::Forward);
    }
    Ok(match published_in(repo, after)? {
        Some(remote) => Way::Commit(format!(
            "{} is reachable from {remote} (it was pushed): what may be published is never rewritten",
            short(&after.to_string())
        )),
        None => Way::Back,
    })
}

/// Refuses to move `name` back to `commit` unless its reflog shows it
/// held it: a record names any commit it likes; the reflog is this
/// repository's own account.
fn ensure_held(repo: &Repo, target: &AuditEntry, name: &str, commit: Oid) -> Result<()> {
    let reason = match git::reflog_held(repo, name, commit)? {
        Some(true) => return Ok(()),
        Some(false) => format!(
            "the reflog of {name} never shows it at {commit}: the branch never held that commit, so it is not moved there"
        ),
        None => format!(
            "{name} has no reflog (core.logAllRefUpdates is off, or it was expired), so nothing shows that it ever held {commit}; it is not moved there"
        ),
    };
    Err(Error::NotUndoable {
        op: target.id.clone(),
        reason,
    }
    .with_hint(&format!(
        "— if you are sure, look at that commit (`git show {commit}`) and move the branch yourself: `git reset --keep {commit}`."
    )))
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

fn parse(id: &Option<String>) -> Result<Option<Oid>> {
    id.as_deref().map(Oid::parse).transpose()
}

fn short(id: &str) -> &str {
    &id[..12.min(id.len())]
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
/// hold what the operation left there (as `sim` has them); each is added
/// to `record`, and to `sim`.
fn bookkeeping(
    repo: &Repo,
    sim: &mut Sim,
    moves: &[RefMove],
    branch: usize,
    record: &mut AuditRecord,
) -> Result<Vec<(String, Option<Oid>)>> {
    let mut markers = Vec::new();
    for (i, m) in moves.iter().enumerate().rev() {
        if i == branch {
            continue;
        }
        let inverse = m.inverse();
        if sim.get(repo, &m.name) != inverse.old {
            // Moved since (dropped, applied again): left as it is.
            continue;
        }
        match inverse.new.as_deref().map(Oid::parse) {
            Some(Ok(target)) => markers.push((m.name.clone(), Some(target))),
            Some(Err(_)) => continue,
            None => markers.push((m.name.clone(), None)),
        }
        sim.set(&inverse.name, inverse.new.clone());
        record.moved(inverse);
    }
    Ok(markers)
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

/// The message of the commit that undoes the move `after` → `before` on
/// top of the branch, in git's words for what it does: a revert of
/// `before..after` (`Revert "<subject>"`, or `Reapply "<subject>"` for a
/// revert of a revert, as `git revert` titles it), or, when the operation
/// had moved the branch back, a reapply of `after..before` that names the
/// commit it brings back. Its trailer says whether the proposal is landed
/// (`Evolv-Patch`) or rolled back (`Evolv-Rollback`) after it, as the
/// applied marker the undo restores says.
fn commit_message(
    repo: &Repo,
    target: &AuditEntry,
    record: &AuditRecord,
    method: Method,
    (before, after): (Oid, Oid),
) -> Result<String> {
    let range = |from: Oid, to: Oid| -> Result<String> {
        let parent = repo.find_commit(to)?.parent_id(0).ok();
        Ok(match parent == Some(from) {
            true => format!("commit {to}"),
            false => format!("the commits {from}..{to}"),
        })
    };
    let (subject, says) = if method == Method::Reapply {
        let summary = repo.find_commit(before)?.summary();
        (
            format!("Reapply \"{summary}\""),
            format!(
                "This reapplies {}, which operation {} took off the branch.",
                range(after, before)?,
                target.id
            ),
        )
    } else {
        let summary = repo.find_commit(after)?.summary();
        let subject = match summary
            .strip_prefix("Revert \"")
            .and_then(|s| s.strip_suffix('"'))
        {
            Some(reverted) => format!("Reapply \"{reverted}\""),
            None => format!("Revert \"{summary}\""),
        };
        (subject, format!("This reverts {}.", range(before, after)?))
    };
    let body = format!(
        "{says}\n\ngit evolv {} of operation {}: {}",
        record.action,
        target.id,
        record.reason.as_deref().unwrap_or_default()
    );
    let id = &target.record.patch_id;
    let applied = proposals::applied_ref(id);
    let marker = record.refs.iter().flatten().find(|m| m.name == applied);
    let relands = marker.is_some_and(|m| m.new.is_some())
        || (marker.is_none() && target.record.action == AuditAction::Rollback);
    Ok(if relands {
        format!("{subject}\n\n{body}\n\n{}{id}\n", trailers::PATCH)
    } else {
        trailers::rollback_message(&subject, &body, id)
    })
}
