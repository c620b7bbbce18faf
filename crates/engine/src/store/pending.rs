//! Bookkeeping that could not be done when it was due (issue 14 item 3,
//! issue 16 item 5): audit records and `refs/evolv/*` updates that met a
//! lock somebody else holds, or lost every race for the audit ref. They
//! are journalled here, `<common-dir>/evolv/pending/<ns>-<pid>-<seq>.json`
//! (temp file, fsync, rename, directory fsync), and completed by the next
//! git-evolv command, in the order they were journalled. A landing or a
//! proposal is never undone or failed because of them.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::git::{Oid, Repo};
use serde::{Deserialize, Serialize};

use super::audit::{self, AuditEntry, AuditRecord};
use crate::error::{Error, Result};
use crate::git;

/// A ref to set (`target`) or delete (`None`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingRef {
    pub name: String,
    pub target: Option<String>,
    /// A transaction's ref (`store::transaction`): moved from exactly
    /// `old` by compare-and-swap, never forced.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub swap: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
}

impl PendingRef {
    /// Bookkeeping set whatever the ref holds.
    pub fn set(name: &str, target: Option<Oid>) -> Self {
        PendingRef {
            name: name.to_string(),
            target: target.map(|o| o.to_string()),
            swap: false,
            old: None,
        }
    }

    /// A transaction's move of `name` from exactly `old` to `target`.
    pub fn swap(name: &str, old: Option<Oid>, target: Option<Oid>) -> Self {
        PendingRef {
            swap: true,
            old: old.map(|o| o.to_string()),
            ..PendingRef::set(name, target)
        }
    }

    fn old_oid(&self) -> Option<Oid> {
        self.old.as_deref().and_then(|o| Oid::parse(o).ok())
    }

    fn target_oid(&self) -> Option<Oid> {
        self.target.as_deref().and_then(|o| Oid::parse(o).ok())
    }
}

/// One journalled piece of bookkeeping: refs first, then audit records.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub reflog: String,
    pub refs: Vec<PendingRef>,
    pub audit: Vec<AuditRecord>,
    /// The audit log's tip when this was journalled (set by `write`): only
    /// an entry appended after it can be one of `audit` already appended,
    /// so completing it reads no further back (none in older files: the
    /// newest 256 entries are read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_tip: Option<String>,
}

impl Pending {
    /// Nothing left to do.
    pub fn is_empty(&self) -> bool {
        self.refs.is_empty() && self.audit.is_empty()
    }
}

/// What a command tells its user when some of its bookkeeping was
/// journalled instead of done: the cause in git's words and its own code
/// (`ref_locked`, …), and that the work itself is complete.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct Deferred {
    pub code: &'static str,
    pub message: String,
    pub hint: String,
}

impl Deferred {
    /// `cause` stopped the bookkeeping `what`, now journalled at `file`.
    pub fn new(what: &str, cause: &Error, file: &Path) -> Self {
        Deferred {
            code: cause.code(),
            message: format!("{what} could not be written yet: {cause}"),
            hint: format!(
                "nothing was undone; it is kept in {} and the next git-evolv command (or `git evolv recover`) completes it. {}",
                file.display(),
                cause.hint()
            ),
        }
    }
}

impl Deferred {
    /// Adds why it could not even be journalled on its own.
    pub fn with_note(mut self, e: &Error) -> Self {
        self.message
            .push_str(&format!(" (and journalling it failed: {e})"));
        self
    }
}

/// What `complete` did.
#[derive(Debug, Default)]
pub struct Completed {
    /// Journalled files completed and removed.
    pub files: usize,
    /// The audit records appended, with the ids the log gave them.
    pub appended: Vec<(Oid, AuditRecord)>,
    /// The error that stops what is still pending (a lock still there).
    pub blocked: Option<Error>,
}

/// Where the journalled bookkeeping lives.
pub fn dir(repo: &Repo) -> PathBuf {
    repo.common_dir().join("evolv").join("pending")
}

/// Removes a journal whose work is done (or undone).
pub fn discard(file: &Path) -> Result<()> {
    match fs::remove_file(file) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io("remove", file, e)),
    }
}

/// Journals `pending` durably; returns its file.
pub fn write(repo: &Repo, pending: &Pending) -> Result<PathBuf> {
    write_file(repo, pending, true)
}

/// Journals `pending` as durably as git writes a ref (its refs and record
/// are about to be written next to it): temp file and rename, so a kill
/// at any moment leaves the whole journal or none; flushed (file and
/// directory) only where `core.fsync` has git flush refs too. Without the
/// flush a power cut may lose the journal, or leave it empty, as it may
/// lose the ref update itself; `complete` skips an empty one.
pub fn write_as_ref(repo: &Repo, pending: &Pending) -> Result<PathBuf> {
    write_file(repo, pending, git::repo::durable::flushes_refs(repo))
}

fn write_file(repo: &Repo, pending: &Pending, flush: bool) -> Result<PathBuf> {
    static SEQ: AtomicU32 = AtomicU32::new(0);
    let dir = dir(repo);
    fs::create_dir_all(&dir).map_err(|e| Error::io("create", &dir, e))?;
    let ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    let name = format!("{ns:020}-{}-{seq}", std::process::id());
    let path = dir.join(format!("{name}.json"));
    let tmp = dir.join(format!(".{name}.tmp"));
    let mut stamped = pending.clone();
    stamped.audit_tip = repo.ref_target(super::AUDIT_REF).map(|o| o.to_string());
    let json = serde_json::to_vec_pretty(&stamped).expect("pending bookkeeping serialises");
    let written = File::create(&tmp)
        .and_then(|mut f| f.write_all(&json).and_then(|()| sync_if(flush, &f)))
        .and_then(|()| fs::rename(&tmp, &path))
        .and_then(|()| sync_if(flush, &File::open(&dir)?));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(Error::io("write", &path, e));
    }
    Ok(path)
}

fn sync_if(flush: bool, file: &File) -> std::io::Result<()> {
    if flush { file.sync_all() } else { Ok(()) }
}

/// The journalled files, oldest first.
fn files(repo: &Repo) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir(repo)) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    out.sort();
    out
}

/// Whether anything is journalled (one `readdir`; every command asks).
pub fn exists(repo: &Repo) -> bool {
    fs::read_dir(dir(repo)).is_ok_and(|mut d| d.next().is_some())
}

/// A journal file holding nothing (or only zeros): all a power cut may
/// leave of one written by `write_as_ref` without a flush. A kill cannot
/// make one (every journal is renamed into place whole).
fn torn(bytes: &[u8]) -> bool {
    bytes.iter().all(|&c| c == 0)
}

fn read(path: &Path) -> Result<Pending> {
    let bytes = fs::read(path).map_err(|e| Error::io("read", path, e))?;
    parse(path, &bytes)
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Pending> {
    serde_json::from_slice(bytes).map_err(|e| {
        Error::io(
            "parse",
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })
}

/// Audit records still waiting, oldest first (`git evolv log` shows them).
pub fn records(repo: &Repo) -> Vec<AuditRecord> {
    files(repo)
        .iter()
        .filter_map(|p| read(p).ok())
        .flat_map(|p| p.audit)
        .collect()
}

/// Completes the journalled bookkeeping, oldest first, under the audit
/// lock (so two commands never complete the same file twice). Idempotent:
/// a record already in the log (killed after its append, before its file
/// went) is not appended again. Stops at the first step that still fails.
pub fn complete(repo: &Repo) -> Result<Completed> {
    let mut done = Completed::default();
    if !exists(repo) {
        return Ok(done);
    }
    let _lock = audit::lock(repo)?;
    for path in files(repo) {
        let bytes = fs::read(&path).map_err(|e| Error::io("read", &path, e))?;
        if torn(&bytes) {
            // All a power cut left of a journal written as a ref (not
            // flushed): nothing is known of it, so it blocks nothing.
            fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
            continue;
        }
        let mut pending = parse(&path, &bytes)?;
        let stopped = complete_one(repo, &mut pending, &mut done);
        if pending.is_empty() {
            fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
            done.files += 1;
            continue;
        }
        // What is left is journalled again, in place (temp + rename).
        let rewritten = write(repo, &pending)?;
        fs::rename(&rewritten, &path).map_err(|e| Error::io("rename", &rewritten, e))?;
        done.blocked = stopped;
        break;
    }
    Ok(done)
}

/// A transaction a kill interrupted (its refs are swaps): finished when
/// each ref is where it was or where it goes, else put back whole and its
/// record dropped (someone moved one of its refs meanwhile: it did not
/// happen).
fn settle_transaction(repo: &Repo, pending: &mut Pending) -> Option<Error> {
    let at = |r: &PendingRef| repo.ref_target(&r.name);
    let lost = pending
        .refs
        .iter()
        .any(|r| at(r) != r.target_oid() && at(r) != r.old_oid());
    if !lost {
        return None;
    }
    let reflog = format!("{} (interrupted, undone)", pending.reflog);
    for r in pending.refs.iter().rev() {
        if at(r) == r.target_oid() {
            let back = super::refs::swap_any(repo, &r.name, r.target_oid(), r.old_oid(), &reflog);
            if let Err(e) = back {
                return Some(e);
            }
        }
    }
    pending.refs.clear();
    pending.audit.clear();
    None
}

/// Does what it can of `pending`, removing each step it did.
fn complete_one(repo: &Repo, pending: &mut Pending, done: &mut Completed) -> Option<Error> {
    if pending.refs.iter().any(|r| r.swap)
        && let Some(e) = settle_transaction(repo, pending)
    {
        return Some(e);
    }
    while let Some(update) = pending.refs.first() {
        // Already there (the undo of one ref moves it itself, by
        // compare-and-swap, before completing its journal): no second write.
        let at = repo.ref_target(&update.name).map(|o| o.to_string());
        let result = match &update.target {
            _ if at == update.target => Ok(()),
            _ if update.swap => super::refs::swap_any(
                repo,
                &update.name,
                update.old_oid(),
                update.target_oid(),
                &pending.reflog,
            ),
            Some(t) => Oid::parse(t)
                .and_then(|oid| super::refs::set(repo, &update.name, oid, &pending.reflog)),
            None => super::refs::delete(repo, &update.name).map(drop),
        };
        if let Err(e) = result {
            return Some(e);
        }
        pending.refs.remove(0);
    }
    let tip = pending
        .audit_tip
        .as_deref()
        .and_then(|t| Oid::parse(t).ok());
    let recent = audit::read_after(repo, tip, Some(256)).unwrap_or_default();
    while let Some(record) = pending.audit.first() {
        // Only a record of this clone's counts as appended already: one
        // fetched from elsewhere may copy it.
        if !recent.iter().any(|e| !e.foreign && &e.record == record) {
            match audit::append_locked(repo, record) {
                Ok(id) => done.appended.push((id, record.clone())),
                Err(e) => return Some(e),
            }
        }
        pending.audit.remove(0);
    }
    None
}

/// Where a record went.
#[derive(Debug, Clone)]
pub enum Logged {
    /// Appended: its audit id.
    Appended(Oid),
    /// Journalled for the next command to append, and why.
    Pending(Deferred),
}

impl Logged {
    /// The audit id, or `pending`.
    pub fn id(&self) -> String {
        match self {
            Logged::Appended(oid) => oid.to_string(),
            Logged::Pending(_) => "pending".into(),
        }
    }

    /// What to tell the user when the record had to wait.
    pub fn deferred(&self) -> Option<&Deferred> {
        match self {
            Logged::Appended(_) => None,
            Logged::Pending(d) => Some(d),
        }
    }
}

/// Logs `record`: appends it, or journals it when it cannot be appended
/// now. Fails only when it can be neither appended nor journalled (the
/// disk refuses a write).
pub fn log(repo: &Repo, record: &AuditRecord) -> Result<Logged> {
    match audit::append(repo, record) {
        Ok(oid) => Ok(Logged::Appended(oid)),
        Err(cause) => {
            let journalled = Pending {
                audit: vec![record.clone()],
                ..Pending::default()
            };
            let file = write(repo, &journalled)?;
            Ok(Logged::Pending(Deferred::new(
                "the audit record",
                &cause,
                &file,
            )))
        }
    }
}

/// The whole log for `git evolv log`: records still journalled first
/// (newest first, marked `pending`), then the chain, at most `limit`.
pub fn read_all(repo: &Repo, limit: Option<usize>) -> Result<Vec<AuditEntry>> {
    let mut out: Vec<AuditEntry> = records(repo)
        .into_iter()
        .rev()
        .map(|record| AuditEntry {
            id: "pending".into(),
            pending: true,
            foreign: false,
            record,
        })
        .collect();
    if let Some(l) = limit {
        out.truncate(l);
    }
    let rest = limit.map(|l| l - out.len());
    out.extend(audit::read(repo, rest)?);
    Ok(out)
}
