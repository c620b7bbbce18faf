//! One operation's ref updates and its one op-log record, committed
//! together (issue 39 item 1). A use case opens a `Transaction`, says
//! which refs move (and from what), fills in the record's metadata, and
//! commits; it never writes a ref or a record itself, so a record cannot
//! drift from what happened.
//!
//! Committing, under the audit lock (so `pending::complete` of another
//! command never races it):
//! 1. journals every update and the record (`store::pending`, as durably
//!    as git writes a ref);
//! 2. compare-and-swaps each ref from what the transaction read; one that
//!    moved meanwhile fails the whole transaction with `ConcurrentUpdate`,
//!    the refs already moved are put back and the journal goes;
//! 3. appends the record, which lists exactly the refs that moved, and
//!    removes the journal. A record that cannot be appended now (a foreign
//!    `refs/evolv/audit.lock`) stays journalled for the next command.
//!
//! A kill at any point leaves the journal: the next command finishes the
//! transaction when every ref is where it was or where it goes, and puts
//! it back otherwise (someone moved one meanwhile). A landing moves its
//! branch through the landing protocol instead: `Transaction::bookkeeping`
//! hands it the rest, which its own journal carries.
//!
//! Verdicts are facts about a tree, not effects of the operation: they are
//! listed apart (`AuditRecord::facts`) and undo leaves them.

use crate::git::{Oid, Repo};

use super::audit::{self, AuditAction, AuditRecord, RefMove};
use super::pending::{self, Deferred, Logged, Pending, PendingRef};
use super::refs;
use crate::context::Context;
use crate::crashpoint;
use crate::error::{Error, Result};

/// What a ref held before the transaction moves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Before {
    /// Exactly this (`None`: absent); anything else fails the commit.
    Was(Option<Oid>),
    /// Whatever it holds at commit (git-evolv's own bookkeeping refs).
    Whatever,
}

#[derive(Debug, Clone)]
struct Planned {
    name: String,
    before: Before,
    after: Option<Oid>,
    /// Undo restores it (an effect), or leaves it (a verdict).
    effect: bool,
    /// Moved by the landing protocol, not by the transaction.
    by_landing: bool,
}

/// One operation in the making: its ref updates and its record.
#[derive(Debug)]
pub struct Transaction<'r> {
    repo: &'r Repo,
    /// Who the record names, unless the operation named someone itself.
    actor: String,
    record: AuditRecord,
    reflog: String,
    planned: Vec<Planned>,
}

/// What a landing's own journal carries for it: the refs to set after
/// the branch moved (`None`: delete) and the record.
#[derive(Debug, Default)]
pub struct Bookkeeping {
    pub refs: Vec<(String, Option<Oid>)>,
    pub record: Option<AuditRecord>,
}

impl<'r> Transaction<'r> {
    /// A successful `action` on `patch_id` by the actor of `ctx`, with a
    /// reflog message naming both. The record gets its actor here, the
    /// one place every record passes (a record whose operation names
    /// someone else, a server's pusher, keeps that).
    pub fn new(repo: &'r Repo, ctx: &Context, action: AuditAction, patch_id: &str) -> Self {
        Transaction {
            repo,
            actor: ctx.actor().to_string(),
            record: AuditRecord::new(action, patch_id, true),
            reflog: format!("evolv: {action} {patch_id}").trim_end().to_string(),
            planned: Vec::new(),
        }
    }

    /// The record, for its metadata (branch, commit, files, plan …); its
    /// `refs` and `facts` are the transaction's to fill.
    pub fn record(&mut self) -> &mut AuditRecord {
        &mut self.record
    }

    /// The reflog message every ref it moves is given.
    pub fn set_reflog(&mut self, message: impl Into<String>) {
        self.reflog = message.into();
    }

    fn plan(&mut self, name: String, before: Before, after: Option<Oid>, effect: bool) {
        self.planned.push(Planned {
            name,
            before,
            after,
            effect,
            by_landing: false,
        });
    }

    /// Moves `name` from exactly `old` to `new` (either `None`: absent).
    pub fn swap(&mut self, name: impl Into<String>, old: Option<Oid>, new: Option<Oid>) {
        self.plan(name.into(), Before::Was(old), new, true);
    }

    /// Creates `name` at `new`; fails if it exists by then.
    pub fn create(&mut self, name: impl Into<String>, new: Oid) {
        self.swap(name, None, Some(new));
    }

    /// Points git-evolv's own ref `name` at `new` (`None`: deletes it),
    /// whatever it holds by then.
    pub fn set(&mut self, name: impl Into<String>, new: Option<Oid>) {
        self.plan(name.into(), Before::Whatever, new, true);
    }

    /// Keeps `id` reachable for undo (`store::kept`).
    pub fn keep(&mut self, id: Oid) {
        self.set(super::kept::ref_name(id), Some(id));
    }

    /// A verdict ref already written by the operation (its validation
    /// stores its verdicts as it runs): only listed among the facts.
    pub fn fact_written(&mut self, moved: RefMove) {
        self.record.facts.get_or_insert_with(Vec::new).push(moved);
    }

    /// The branch a landing moves from `old` to `new` itself (by its own
    /// protocol): listed, not moved by the transaction.
    pub fn branch(&mut self, name: impl Into<String>, old: Oid, new: Oid) {
        // First in the record, as the landing makes it first.
        self.planned.insert(
            0,
            Planned {
                name: name.into(),
                before: Before::Was(Some(old)),
                after: Some(new),
                effect: true,
                by_landing: true,
            },
        );
    }

    /// A verdict ref deleted from exactly `old` (`gc`'s pruning): listed
    /// among the facts.
    pub fn fact_deleted(&mut self, name: &str, old: Oid) {
        self.plan(name.to_string(), Before::Was(Some(old)), None, false);
    }

    /// A ref this operation moved before its transaction opened (a server
    /// landing's queue records, written when the push arrived): listed,
    /// not moved again.
    pub fn already(&mut self, name: impl Into<String>, old: Option<Oid>, new: Option<Oid>) {
        self.planned.push(Planned {
            name: name.into(),
            before: Before::Was(old),
            after: new,
            effect: true,
            by_landing: true,
        });
    }

    /// Whether it moves no ref (its record alone is the operation).
    pub fn is_empty(&self) -> bool {
        self.planned.is_empty() && self.record.facts.is_none()
    }

    /// How many ref updates it plans.
    pub fn len(&self) -> usize {
        self.planned.len()
    }

    /// Reads what each `Whatever` ref holds, drops updates that change
    /// nothing, and lists the rest in the record, in order.
    fn settle(&mut self) -> Vec<(Planned, Option<Oid>)> {
        self.stamp();
        // Listed even when empty: `None` marks records of earlier versions.
        self.record.refs.get_or_insert_with(Vec::new);
        let mut out = Vec::new();
        for p in merged(std::mem::take(&mut self.planned)) {
            let old = match p.before {
                Before::Was(old) => old,
                Before::Whatever => self.repo.ref_target(&p.name),
            };
            if old == p.after {
                continue;
            }
            let moved = RefMove::new(&p.name, old, p.after);
            if p.effect {
                self.record.moved(moved);
            } else {
                self.record.facts.get_or_insert_with(Vec::new).push(moved);
            }
            out.push((p, old));
        }
        out
    }

    /// The refs and the record a landing journals and sets once its branch
    /// moved (`landing::Epilogue`); the branch itself is only listed.
    pub fn bookkeeping(mut self) -> Bookkeeping {
        let refs = self
            .settle()
            .into_iter()
            .filter(|(p, _)| !p.by_landing)
            .map(|(p, _)| (p.name, p.after))
            .collect();
        Bookkeeping {
            refs,
            record: Some(self.record),
        }
    }

    /// Commits: journal, compare-and-swap every ref, append the record
    /// (see the module). `ConcurrentUpdate` when a ref moved meanwhile;
    /// then nothing of it stays.
    pub fn commit(mut self) -> Result<Logged> {
        let repo = self.repo;
        let _lock = audit::lock(repo)?;
        // A branch a landing moved itself is listed, not moved again.
        let moves: Vec<_> = self
            .settle()
            .into_iter()
            .filter(|(p, _)| !p.by_landing)
            .collect();
        if moves.is_empty() {
            return log_locked(repo, &self.record);
        }
        let journal = Pending {
            reflog: self.reflog.clone(),
            refs: moves
                .iter()
                .map(|(p, old)| PendingRef::swap(&p.name, *old, p.after))
                .collect(),
            audit: vec![self.record.clone()],
            audit_tip: None,
        };
        let file = pending::write_as_ref(repo, &journal)?;
        crashpoint!("transaction-journalled");
        for (i, (p, old)) in moves.iter().enumerate() {
            if let Err(e) = refs::swap_any(repo, &p.name, *old, p.after, &self.reflog) {
                put_back(repo, &moves[..i], &self.reflog)?;
                pending::discard(&file)?;
                return Err(e);
            }
        }
        crashpoint!("transaction-refs-moved");
        match audit::append_locked(repo, &self.record) {
            Ok(id) => {
                // Appended: a journal that could not go now is finished by
                // the next command, which finds its record in the log.
                let _ = pending::discard(&file);
                Ok(Logged::Appended(id))
            }
            Err(cause) => Ok(Logged::Pending(Deferred::new(
                "the audit record",
                &cause,
                &file,
            ))),
        }
    }

    /// Logs the failure `cause` of the operation (no ref moved) and hands
    /// `cause` back for the caller to return. Appended, or journalled for
    /// the next command; should even the journal be refused, the user
    /// still gets `cause`, the error that matters.
    pub fn fail(mut self, cause: Error) -> Error {
        self.stamp();
        let failed = AuditRecord::failure(self.record.action, &self.record.patch_id, &cause);
        let mut record = self.record;
        record.success = false;
        record.error_code = failed.error_code;
        record.error_message = failed.error_message;
        record.refs = None;
        // Only a disk that refuses even the journal loses the record; the
        // user then sees `cause` all the same, and that disk on their next
        // command.
        if pending::log(self.repo, &record).is_err() {
            return cause;
        }
        cause
    }
}

impl Transaction<'_> {
    /// Names the actor in the record, unless the operation named one.
    fn stamp(&mut self) {
        if self.record.actor.is_none() {
            self.record.actor = Some(self.actor.clone());
        }
    }
}

/// `planned` with the moves of each ref made one, in the place of its
/// first: from what the first expects (or, when it takes the ref as it
/// is, what the next expects) to where the last leaves it. An undo that
/// keeps an object and puts back the kept ref naming it, in the same
/// second, plans one ref twice.
fn merged(planned: Vec<Planned>) -> Vec<Planned> {
    let mut out: Vec<Planned> = Vec::with_capacity(planned.len());
    for p in planned {
        match out.iter_mut().find(|q| q.name == p.name) {
            Some(q) => {
                if q.before == Before::Whatever {
                    q.before = p.before;
                }
                q.after = p.after;
                q.effect |= p.effect;
                q.by_landing &= p.by_landing;
            }
            None => out.push(p),
        }
    }
    out
}

/// Appends `record` with the audit lock held, or journals it.
fn log_locked(repo: &Repo, record: &AuditRecord) -> Result<Logged> {
    match audit::append_locked(repo, record) {
        Ok(id) => Ok(Logged::Appended(id)),
        Err(cause) => {
            let file = pending::write(
                repo,
                &Pending {
                    audit: vec![record.clone()],
                    ..Pending::default()
                },
            )?;
            Ok(Logged::Pending(Deferred::new(
                "the audit record",
                &cause,
                &file,
            )))
        }
    }
}

/// Moves `done` back to where each was, newest first.
fn put_back(repo: &Repo, done: &[(Planned, Option<Oid>)], reflog: &str) -> Result<()> {
    for (p, old) in done.iter().rev() {
        refs::swap_any(repo, &p.name, p.after, *old, &format!("{reflog} (undone)"))?;
    }
    Ok(())
}
