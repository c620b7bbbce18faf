//! Steps 2 to 4 of the landing protocol (see `land`): the journal, the
//! early index and the compare-and-swap of the branch, and the `Landing`
//! that then brings the working tree, index and bookkeeping along (or
//! undoes the move after a failure).

use std::cell::RefCell;
use std::fs::File;

use crate::git::{Oid, objects::view::Tree};

use super::checks::{ensure_clean, ensure_confined, ensure_on_branch};
use super::finish::Finished;
use super::journal::{Change, Image, Journal, Kind, RefUpdate};
use super::place::roll_forward;
use super::stage::Staged;
use super::turn::Turn;
use crate::crashpoint;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::git::worktree::checkout;
use crate::git::worktree::index_write::{self, Entry, IndexLock};
use crate::git::{self, ChangedPath, Head, RepoPath};
use crate::progress::Progress;
use crate::store::audit::AuditRecord;
use crate::store::transaction::Transaction;

/// Names a test may pass in `GIT_EVOLV_TEST_FAILPOINT` to make the step
/// after it fail, so recovery paths are tested against the real binary.
pub const FAILPOINT_AFTER_BRANCH_MOVE: &str = "after-branch-move";

/// What a landing does once the working tree is done: bookkeeping refs to
/// set or delete and audit records to append (one audit id each, in order).
#[derive(Debug, Clone, Default)]
pub struct Epilogue {
    pub refs: Vec<RefUpdate>,
    pub audit: Vec<AuditRecord>,
}

impl Epilogue {
    /// What `tx` does besides the branch move (which it lists first).
    pub fn of(tx: Transaction<'_>) -> Self {
        let bookkeeping = tx.bookkeeping();
        Epilogue {
            refs: bookkeeping
                .refs
                .into_iter()
                .map(|(name, target)| RefUpdate {
                    name,
                    target: target.map(|o| o.to_string()),
                })
                .collect(),
            audit: bookkeeping.record.into_iter().collect(),
        }
    }
}

/// An injected failure, for tests of what happens after the branch moved.
pub fn failpoint(name: &str) -> Result<()> {
    if std::env::var("GIT_EVOLV_TEST_FAILPOINT").as_deref() == Ok(name) {
        return Err(Error::io(
            "continue after",
            name,
            std::io::Error::other("failure injected by GIT_EVOLV_TEST_FAILPOINT"),
        ));
    }
    Ok(())
}

/// A branch that has moved, whose working tree, index and bookkeeping are
/// still to be brought along. Holds the landing lock (and `index.lock`)
/// until dropped; dropped unfinished, it leaves the journal for `recover`.
pub struct Landing {
    _known_dirs: git::worktree::confine::KnownDirs,
    _flock: File,
    journal: RefCell<Journal>,
    index_lock: RefCell<Option<IndexLock>>,
    /// Paths whose files the landing writes after the move.
    staged: Staged,
}

/// What a landing moves: the branch `head` names from `head.commit` to
/// `new`, changing `changed`, with the reflog message and the bookkeeping
/// that follows the move.
pub struct BranchMove<'a> {
    pub head: &'a Head,
    pub new: Oid,
    pub changed: &'a [ChangedPath],
    pub reflog: &'a str,
    pub epilogue: Epilogue,
}

impl<'a> BranchMove<'a> {
    /// The move of the branch `head` names to `new`, as the operation
    /// `tx` (which lists the move; the landing makes it, then does the
    /// rest of `tx` after the working tree).
    pub fn new(
        head: &'a Head,
        new: Oid,
        changed: &'a [ChangedPath],
        reflog: &'a str,
        mut tx: Transaction<'_>,
    ) -> Self {
        tx.branch(head.ref_name(), head.commit, new);
        BranchMove {
            head,
            new,
            changed,
            reflog,
            epilogue: Epilogue::of(tx),
        }
    }
}

/// Steps 2 to 4 of the protocol, for the holder of a turn (which the
/// landing keeps): moves `head` to `new` (a descendant of `head.commit`)
/// once `changed` is known to hold no uncommitted work. Nothing is touched
/// on failure.
pub fn move_branch_in_turn(repo: &Repo, turn: Turn, mv: BranchMove<'_>) -> Result<Landing> {
    let BranchMove { head, changed, .. } = mv;
    // Each directory above the changed paths is verified once for the
    // whole landing, not once per path and step.
    let known_dirs = git::worktree::confine::remember_dirs();
    checkout::check_worker_settings(repo)?;
    git::repo::durable::check_worktree_setting(repo)?;
    let new_tree = repo.find_commit(mv.new)?.tree()?;
    let head_tree = repo.find_commit(head.commit)?.tree()?;
    let journal = write_journal(repo, mv, &head_tree, &new_tree)?;
    let index_lock = match IndexLock::acquire(repo, &journal.nonce) {
        Ok(lock) => lock,
        Err(e) => {
            let _ = Journal::delete(repo);
            return Err(e);
        }
    };
    // Checked again under both locks, as git does: a validation may have
    // run for minutes, and now no `git add` can change the index under us.
    // The early index goes in as soon as the checks are done, before the
    // files are staged: a `git commit` that read the index before it must
    // then stall through the staging too before it can write it back (see
    // RELIABILITY.md, "Concurrent landings").
    let mut staged = Staged::default();
    let moved = ensure_on_branch(repo, head)
        .and_then(|()| ensure_clean(repo, head, &head_tree, &new_tree, changed))
        .and_then(|()| install_early_index(repo, &journal))
        .and_then(|replaced| match staged.stage(repo, &journal) {
            Ok(()) => swap_or_restore(repo, &journal, replaced),
            Err(e) => Err(restore_or_interrupt(repo, replaced, e)),
        });
    if let Err(e) = moved {
        index_write::discard_early(repo);
        staged.discard(repo, &journal);
        if matches!(e, Error::Interrupted { .. }) {
            // The old index could not be put back: the journal and our
            // lock stay for `recover`, which rolls the index back.
            std::mem::forget(index_lock);
        } else {
            drop(index_lock);
            let _ = Journal::delete(repo);
        }
        return Err(e);
    }
    Ok(Landing {
        _known_dirs: known_dirs,
        _flock: turn.flock,
        journal: RefCell::new(journal),
        index_lock: RefCell::new(Some(index_lock)),
        staged,
    })
}

/// Step 3: refuses while an interrupted landing's journal is left, checks
/// the paths are confined, and writes the journal of the move from `head`
/// to `new` (after flushing N's objects, which it names).
fn write_journal(
    repo: &Repo,
    mv: BranchMove<'_>,
    head_tree: &Tree<'_>,
    new_tree: &Tree<'_>,
) -> Result<Journal> {
    let BranchMove {
        head,
        new,
        changed,
        reflog,
        epilogue,
    } = mv;
    if Journal::exists(repo) {
        return Err(Error::Interrupted {
            detail: format!(
                "its journal {} is still there",
                super::journal::path(repo).display()
            ),
        });
    }
    ensure_confined(repo, new_tree, changed)?;
    let paths: Vec<RepoPath> = changed.iter().map(|c| c.path.clone()).collect();
    let mut journal = Journal::new(
        repo,
        Kind::Land,
        head.ref_name(),
        head.commit,
        new,
        head_tree,
        new_tree,
        &paths,
        reflog,
    );
    journal.refs = epilogue.refs;
    journal.audit = epilogue.audit;
    // With `evolv.fsyncWorktree`, files are staged and flushed before the
    // move and renamed over the old ones after it; by default they are
    // written in place after it, as git's checkout writes them.
    journal.in_place = !git::repo::durable::flushes_worktree(repo);
    // N's objects are on disk before a journal (or a ref) names them: their
    // data is waited for here, then the journal's. Where the file system
    // commits names in order (`durable::ordered`), that is all: the
    // branch's move is committed with them or after them, never alone.
    match super::flush::new_objects(repo, &journal, new_tree)? {
        Some(files) => git::repo::durable::settle(repo, &files)?,
        None => git::repo::durable::flush_filesystems(repo)?,
    }
    journal.write_ordered(repo)?;
    crashpoint!("after-journal");
    Ok(journal)
}

/// Moves `journal.branch` from `journal.old` to `journal.new` by
/// compare-and-swap, with `index.lock` held by the caller. git reads the
/// index without its lock, and `git commit` reads HEAD before the index,
/// then takes `index.lock` and moves HEAD only from the commit it read. So
/// an index naming N's blobs (without stat data: git re-reads those files)
/// is put in place *before* the branch moves: a commit that sees the branch
/// at N then also sees N's index, and one that read H commits nothing (its
/// own compare-and-swap fails, or it finds our lock). If the branch had
/// moved meanwhile, the old index is put back.
pub(super) fn swap_branch(repo: &Repo, journal: &Journal) -> Result<()> {
    let replaced = install_early_index(repo, journal)?;
    swap_or_restore(repo, journal, replaced)
}

/// Puts N's early index (N's entries without stat data) in place, keeping
/// the one it replaces.
fn install_early_index(repo: &Repo, journal: &Journal) -> Result<index_write::Replaced> {
    let early = index_write::build(repo, &stale_entries(journal, |c| c.after))?;
    let replaced = index_write::install_early(repo, &early)?;
    crashpoint!("after-early-index");
    Ok(replaced)
}

/// The compare-and-swap of `swap_branch`, after the early index: on
/// failure the replaced index is put back.
fn swap_or_restore(repo: &Repo, journal: &Journal, replaced: index_write::Replaced) -> Result<()> {
    let swapped = crate::store::refs::swap(
        repo,
        &journal.branch,
        journal.new,
        Some(journal.old),
        &journal.reflog,
    );
    match swapped {
        Ok(()) => {
            replaced.keep_new();
            crashpoint!("after-cas");
            Ok(())
        }
        Err(e) => Err(restore_or_interrupt(repo, replaced, e)),
    }
}

/// Puts the index the early index replaced back after `e` stopped the
/// landing; `e`, or `Interrupted` (recovery's job) if it cannot.
fn restore_or_interrupt(repo: &Repo, replaced: index_write::Replaced, e: Error) -> Error {
    match replaced.restore(repo) {
        Ok(()) => e,
        Err(restore) => Error::Interrupted {
            detail: format!(
                "the landing stopped ({e}) and the index it had replaced could not be put back ({restore})"
            ),
        },
    }
}

/// The index entries one side of the journal implies for its paths
/// (`side` picks the pre- or post-image), without stat data.
pub(super) fn stale_entries(
    journal: &Journal,
    side: impl Fn(&Change) -> Option<Image>,
) -> Vec<(RepoPath, Entry)> {
    journal
        .changes
        .iter()
        .map(|c| {
            let entry = match side(c) {
                Some(im) => Entry::Stale {
                    id: im.id,
                    mode: im.mode,
                },
                None => Entry::Absent,
            };
            (c.path.clone(), entry)
        })
        .collect()
}

impl Landing {
    /// Steps 5 and 6: files, index, bookkeeping refs, audit. Bookkeeping
    /// that cannot be done now is journalled, never a failure (issue 16
    /// item 5): the branch has moved, and the landing is finished. The
    /// files written are reported to `progress`.
    pub fn finish(&self, repo: &Repo, progress: &Progress) -> Result<Finished> {
        let mut journal = self.journal.borrow_mut();
        let lock = match self.index_lock.borrow_mut().take() {
            Some(lock) => lock,
            None => IndexLock::acquire(repo, &journal.nonce)?,
        };
        let done = roll_forward(repo, &mut journal, lock, Some(&self.staged), progress)?;
        Ok(Finished {
            audit_ids: done.audit_ids,
            deferred: done.deferred,
        })
    }

    /// Brings the working tree and index to N but drops the bookkeeping
    /// (the landing failed, and is audited as such): for a plan whose
    /// rollback is manual, whose steps expect the checkout to match N.
    pub fn settle(&self, repo: &Repo, progress: &Progress) -> Result<()> {
        let mut journal = self.journal.borrow_mut();
        journal.refs.clear();
        journal.audit.clear();
        journal.write(repo)?;
        let lock = match self.index_lock.borrow_mut().take() {
            Some(lock) => lock,
            None => IndexLock::acquire(repo, &journal.nonce)?,
        };
        roll_forward(repo, &mut journal, lock, None, progress)?;
        Ok(())
    }

    /// Undoes the landing after a failure: journals the move from N to
    /// `undo` (whose tree restores H's content of the changed paths), moves
    /// the branch and brings the working tree and index along.
    pub fn retarget(&self, repo: &Repo, undo: Oid, progress: &Progress) -> Result<()> {
        let mut journal = self.journal.borrow_mut();
        let landed = journal.new;
        let old_tree = repo.find_commit(landed)?.tree()?;
        let new_tree = repo.find_commit(undo)?.tree()?;
        let paths: Vec<RepoPath> = journal.changes.iter().map(|c| c.path.clone()).collect();
        let reflog = "evolv: undo failed landing";
        let mut next = Journal::new(
            repo,
            Kind::Undo,
            &journal.branch,
            landed,
            undo,
            &old_tree,
            &new_tree,
            &paths,
            reflog,
        );
        // A lock we may still hold carries the old nonce; a path the
        // landing left missing is written again, as its recovery would.
        next.nonce = journal.nonce.clone();
        next.in_place = journal.in_place;
        next.write(repo)?;
        *journal = next;
        let lock = match self.index_lock.borrow_mut().take() {
            Some(lock) => lock,
            None => IndexLock::acquire(repo, &journal.nonce)?,
        };
        if let Err(e) = swap_branch(repo, &journal) {
            // The undo journal stays for `recover`, which completes it; so
            // does our lock if the index could not be put back.
            if matches!(e, Error::Interrupted { .. }) {
                std::mem::forget(lock);
            }
            return Err(e);
        }
        roll_forward(repo, &mut journal, lock, None, progress)?;
        Ok(())
    }
}

/// Moves `head` to `new` and brings everything along: the whole landing,
/// for the holder of a turn (rollback takes its turn before it reads the
/// head, so it queues behind concurrent landings instead of racing). A
/// failure after the branch moved leaves the journal for `git evolv recover`.
/// The files written are reported to `progress`.
pub fn land_in_turn(
    repo: &Repo,
    turn: Turn,
    mv: BranchMove<'_>,
    progress: &Progress,
) -> Result<Finished> {
    let new = mv.new;
    let landing = move_branch_in_turn(repo, turn, mv)?;
    landing
        .finish(repo, progress)
        .map_err(|cause| Error::LandingFailed {
            cause: Box::new(cause),
            recovery: format!("the branch is at {new}; `git evolv recover` completes the landing"),
        })
}
