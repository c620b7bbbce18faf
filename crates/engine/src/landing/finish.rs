//! Step 6 of the landing protocol: the new index, the bookkeeping refs and
//! audit records (journalled for later when they cannot be done now), the
//! flush, and the journal's deletion.

use crate::git::Oid;

use super::journal::Journal;
use crate::crashpoint;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::git::worktree::index_write::{self, Entry, IndexLock};
use crate::git::{self, RepoPath};
use crate::store::audit;
use crate::store::pending::{self, Deferred, Pending, PendingRef};

/// A landing that is complete: its audit ids (one per record of the
/// epilogue; `None` for a record journalled for later), and what of its
/// bookkeeping had to wait.
#[derive(Debug, Default)]
pub struct Finished {
    pub audit_ids: Vec<Option<Oid>>,
    pub deferred: Option<Deferred>,
}

impl Finished {
    /// The audit id of record `i`, or `pending`.
    pub fn audit_id(&self, i: usize) -> String {
        match self.audit_ids.get(i) {
            Some(Some(oid)) => oid.to_string(),
            _ => "pending".into(),
        }
    }
}

/// What `roll_forward` did.
#[derive(Debug, Default)]
pub(super) struct Done {
    /// Paths written or removed.
    pub written: Vec<RepoPath>,
    /// Paths left alone: they hold neither the pre- nor the post-image (a
    /// user's edit), or something of the user's is in their way.
    pub skipped: Vec<RepoPath>,
    pub audit_ids: Vec<Option<Oid>>,
    /// Bookkeeping journalled for later (see `finish_bookkeeping`).
    pub deferred: Option<Deferred>,
}

/// The end of step 5 and step 6: builds the new index from `entries`, does
/// the bookkeeping, flushes, renames the index into place and drops the
/// journal (unless its bookkeeping must be done again).
pub(super) fn finish_index(
    repo: &Repo,
    journal: &mut Journal,
    lock: IndexLock,
    entries: &[(RepoPath, Entry)],
    fresh: bool,
    done: &mut Done,
) -> Result<()> {
    let new_index = index_write::build(repo, entries)?;
    journal.index_checksum = Some(index_write::trailing_checksum(&new_index)?);
    journal.write_unflushed(repo)?;
    // The bookkeeping and the flush happen while git's writers are still
    // locked out: a `git commit` that read the index before the early index
    // and writes it back after the lock is released (git's own race, see
    // RELIABILITY.md) must then have stalled for the whole landing.
    let bookkeeping = finish_bookkeeping(repo, journal, fresh);
    done.audit_ids = bookkeeping.audit_ids;
    done.deferred = bookkeeping.deferred;
    // Everything above reaches the disk before the journal goes (in the
    // file system's order where it keeps one: `flush_ending`); the index
    // rename after it at worst leaves the early index, which names N too.
    let files = super::flush::ending(repo, journal, &new_index, &done.audit_ids);
    git::repo::durable::flush_ending(repo, &files)?;
    lock.commit(repo, &new_index)?;
    crashpoint!("before-journal-delete");
    if !bookkeeping.journal_kept {
        Journal::delete(repo)?;
    }
    index_write::clean_leftovers(repo);
    Ok(())
}

/// What `finish_bookkeeping` did.
pub(super) struct Bookkeeping {
    pub audit_ids: Vec<Option<Oid>>,
    pub deferred: Option<Deferred>,
    /// Not even the pending journal could be written: the landing journal
    /// stays, so the next command's recovery does the bookkeeping again.
    pub journal_kept: bool,
}

/// Sets the journal's bookkeeping refs and appends its audit records, each
/// only once however often this runs (unless `fresh`, a record already in
/// the recent audit log, equal in every field, is not appended again). Never fails: the branch has moved, so a step that
/// cannot be done now (a foreign `<ref>.lock`, a writer that keeps winning
/// the audit ref) is journalled in `store::pending`, with every step after
/// it, for the next command to complete (issue 16 item 5).
pub(super) fn finish_bookkeeping(repo: &Repo, journal: &Journal, fresh: bool) -> Bookkeeping {
    let mut left = Pending {
        reflog: journal.reflog.clone(),
        ..Pending::default()
    };
    let mut cause: Option<(&'static str, Error)> = None;
    set_refs(repo, journal, &mut left, &mut cause);
    crashpoint!("before-audit");
    let ids = append_audit(repo, journal, fresh, &mut left, &mut cause);
    let mut journal_kept = false;
    let deferred = cause.map(|(what, cause)| match pending::write(repo, &left) {
        Ok(file) => Deferred::new(what, &cause, &file),
        Err(e) => {
            journal_kept = true;
            Deferred::new(what, &cause, &super::journal::path(repo)).with_note(&e)
        }
    });
    crashpoint!("after-audit");
    Bookkeeping {
        audit_ids: ids,
        deferred,
        journal_kept,
    }
}

/// Sets or deletes the journal's bookkeeping refs; those that fail go to
/// `left`, the first failure to `cause`.
fn set_refs(
    repo: &Repo,
    journal: &Journal,
    left: &mut Pending,
    cause: &mut Option<(&'static str, Error)>,
) {
    for update in &journal.refs {
        let done = match &update.target {
            Some(target) => Oid::parse(target)
                .and_then(|oid| crate::store::refs::set(repo, &update.name, oid, &journal.reflog)),
            None => crate::store::refs::delete(repo, &update.name).map(drop),
        };
        if let Err(e) = done {
            cause.get_or_insert(("the ref update", e));
            left.refs.push(PendingRef {
                target: update.target.clone(),
                ..PendingRef::set(&update.name, None)
            });
        }
    }
}

/// Appends the journal's audit records not already in the recent log
/// (unless `fresh`); once one cannot be appended, it and the rest go to
/// `left`, in order. Returns each record's audit id (`None`: waiting).
fn append_audit(
    repo: &Repo,
    journal: &Journal,
    fresh: bool,
    left: &mut Pending,
    cause: &mut Option<(&'static str, Error)>,
) -> Vec<Option<Oid>> {
    let recent = if fresh || journal.audit.is_empty() {
        Vec::new()
    } else {
        audit::read(repo, Some(256)).unwrap_or_default()
    };
    let mut ids = Vec::with_capacity(journal.audit.len());
    for record in &journal.audit {
        // The whole record, not its action, patch and commit: an undo and
        // a redo flip the branch between the same two commits, so an older
        // undo of the same landing looks the same but for `undoes`.
        let existing = recent.iter().find(|e| !e.foreign && &e.record == record);
        if let Some(e) = existing {
            ids.push(Oid::parse(&e.id).ok());
            continue;
        }
        // Records keep their order: once one waits, the rest wait with it.
        if left.audit.is_empty() {
            match audit::append(repo, record) {
                Ok(oid) => {
                    ids.push(Some(oid));
                    continue;
                }
                Err(e) => {
                    cause.get_or_insert(("the audit record", e));
                }
            }
        }
        left.audit.push(record.clone());
        ids.push(None);
    }
    ids
}
