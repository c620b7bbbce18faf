//! Recovery's internals: finish or undo a landing a killed process left
//! behind, from its journal. `ops::applying::recover` (the use case, which every
//! `Session` runs first) calls `if_idle` or `waiting`.
//!
//! - branch still at H: roll back (the branch never moved, so no file did):
//!   put H's entries back into the index if the landing had already
//!   installed N's, drop the journal and the `index.lock` git-evolv created;
//! - branch at N: roll forward the remaining files, the index, the
//!   bookkeeping refs and the audit record, skipping (and reporting) any
//!   file that holds neither the pre- nor the post-image, nor what a power
//!   cut leaves of the post-image (`checkout::holds_torn`);
//! - branch elsewhere: someone moved it since; touch no file, finish the
//!   bookkeeping only if N is in the branch's history, and report.
//!
//! Idempotent: a recovery killed half-way is recovered by the next one.

use std::fs;

use crate::git::Oid;
use serde::Serialize;

use super::finish::finish_bookkeeping;
use super::journal::{Change, Journal, Kind};
use super::place::roll_forward;
use super::protocol::{stale_entries, swap_branch};
use super::turn::{landing_lock, try_landing_lock};
use crate::error::{Error, Result};
use crate::git::worktree::checkout;
use crate::git::worktree::index_write::{self, IndexLock};
use crate::git::{self, Repo, RepoPath};
use crate::progress::Progress;
use crate::store::AUDIT_REF;
use crate::store::audit::AuditRecord;
use crate::store::pending::Deferred;

/// What a recovery did with an interrupted landing.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryAction {
    /// No landing was pending.
    Nothing,
    /// The branch had not moved: the old content was put back.
    RolledBack,
    /// The branch had moved: the landing was finished.
    RolledForward,
    /// The branch moved elsewhere since: no file touched, bookkeeping only.
    Abandoned,
    /// Only journalled bookkeeping of earlier commands was completed.
    Bookkeeping,
}

/// What recovery did.
#[derive(Debug, Clone, Serialize)]
pub struct RecoverOutcome {
    pub action: RecoveryAction,
    pub branch: Option<String>,
    /// H and N of the interrupted landing.
    pub from: Option<String>,
    pub to: Option<String>,
    /// Where the branch is now.
    pub head: Option<String>,
    /// Paths brought to N by this recovery.
    pub restored: Vec<String>,
    /// Only when some name in `restored` is not UTF-8: per entry, its exact
    /// bytes in hex, or null (#16 item 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored_bytes: Option<Vec<Option<String>>>,
    /// Paths left alone because they hold the user's own content; check
    /// them with `git status` / `git diff`.
    pub skipped: Vec<String>,
    /// As `restored_bytes`, for `skipped`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped_bytes: Option<Vec<Option<String>>>,
    pub message: String,
    /// Bookkeeping that still waits (a foreign lock), journalled.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Deferred>,
}

impl RecoverOutcome {
    /// One line for people: what `git evolv recover` prints, and what
    /// every front end says (after `git-evolv: recovered: `) when its
    /// session recovered a landing first.
    pub fn describe(&self) -> String {
        let mut text = self.message.clone();
        if !self.restored.is_empty() {
            let shown = git::types::path::shown(&self.restored, self.restored_bytes.as_deref());
            text.push_str(&format!(" (restored: {})", shown.join(", ")));
        }
        text.push('.');
        text
    }

    /// Nothing was pending.
    pub fn nothing() -> Self {
        RecoverOutcome {
            action: RecoveryAction::Nothing,
            branch: None,
            from: None,
            to: None,
            head: None,
            restored: Vec::new(),
            restored_bytes: None,
            skipped: Vec::new(),
            skipped_bytes: None,
            message: "no interrupted landing to recover".into(),
            warnings: Vec::new(),
        }
    }

    fn set_restored(&mut self, paths: &[RepoPath]) {
        self.restored = git::types::path::lossy_list(paths);
        self.restored_bytes = git::types::path::bytes_column(paths);
    }

    fn set_skipped(&mut self, paths: &[RepoPath]) {
        self.skipped = git::types::path::lossy_list(paths);
        self.skipped_bytes = git::types::path::bytes_column(paths);
    }
}

/// Recovers the landing whose journal is left, unless a live process is
/// landing (it holds the landing lock; this does not wait for it, and
/// never reports its landing as recovered). `None` when there is nothing
/// to do (a stat) or the landing is live.
pub fn if_idle(repo: &Repo) -> Result<Option<RecoverOutcome>> {
    if !Journal::exists(repo) {
        return Ok(None);
    }
    let Some(flock) = try_landing_lock(repo)? else {
        return Ok(None);
    };
    let recovered = recover_locked(repo, &flock)?;
    Ok(Some(recovered).filter(|o| o.action != RecoveryAction::Nothing))
}

/// Recovers the landing whose journal is left, waiting for a landing in
/// progress (a dead one's flock is already gone).
pub fn waiting(repo: &Repo) -> Result<RecoverOutcome> {
    let flock = landing_lock(repo)?;
    match recover_locked(repo, &flock) {
        Err(Error::UnreadableJournal { path, detail }) => set_aside(repo, &path, &detail),
        other => other,
    }
}

/// `recover` of a journal nobody can read: what its landing did is
/// unknown, so no file is touched; the journal is set aside so that
/// git-evolv can land again, and the user is told what to check.
fn set_aside(repo: &Repo, path: &std::path::Path, detail: &str) -> Result<RecoverOutcome> {
    let kept = Journal::set_aside(repo)?;
    let mut outcome = RecoverOutcome::nothing();
    outcome.action = RecoveryAction::Abandoned;
    outcome.head = repo.head_target().map(|c| c.to_string());
    outcome.message = format!(
        "the journal {} was unreadable ({detail}), so what its landing did is unknown; no file was touched, the journal is kept as {}; check `git status` and `git log -1`: the branch is at the old head or at the landed commit, and files the landing had not finished show as changes",
        path.display(),
        kept.display()
    );
    Ok(outcome)
}

/// `recover` for a caller holding the landing lock.
fn recover_locked(repo: &Repo, _flock: &fs::File) -> Result<RecoverOutcome> {
    let Some(mut journal) = Journal::read(repo)? else {
        index_write::clean_leftovers(repo);
        return Ok(RecoverOutcome::nothing());
    };
    release_ref_locks(repo, &journal)?;
    // Attribute lookups (filters) read `.gitattributes` entries through it.
    index_write::load(repo)?;
    let current = repo.ref_target(&journal.branch);
    let mut outcome = RecoverOutcome {
        action: RecoveryAction::Nothing,
        branch: Some(journal.branch.clone()),
        from: Some(journal.old.to_string()),
        to: Some(journal.new.to_string()),
        head: current.map(|c| c.to_string()),
        restored: Vec::new(),
        restored_bytes: None,
        skipped: Vec::new(),
        skipped_bytes: None,
        message: String::new(),
        warnings: Vec::new(),
    };
    let (old, new) = (journal.old, journal.new);
    let rolls_back = current == Some(old) && journal.kind == Kind::Land;
    if !checked_out(repo, &journal) && !rolls_back {
        return abandon(repo, &journal, current, outcome);
    }
    if current == Some(old) && journal.kind == Kind::Undo {
        // An undo is completed, never left half-way.
        release_our_lock(repo, &journal)?;
        let lock = IndexLock::acquire(repo, &journal.nonce)?;
        swap_branch(repo, &journal)?;
        outcome.head = Some(new.to_string());
        return forward(repo, &mut journal, outcome, lock);
    }
    if rolls_back {
        return roll_back(repo, &mut journal, outcome);
    }
    if current == Some(new) {
        release_our_lock(repo, &journal)?;
        let lock = IndexLock::acquire(repo, &journal.nonce)?;
        return forward(repo, &mut journal, outcome, lock);
    }
    abandon(repo, &journal, current, outcome)
}

/// Whether the journal's branch is the one checked out here: files are
/// only written for the ref HEAD is on (if the user switched branches
/// since, this working tree is no longer the landing's).
fn checked_out(repo: &Repo, journal: &Journal) -> bool {
    match repo.head_branch() {
        None if repo.head_detached() => journal.branch == "HEAD" && repo.head_target().is_some(),
        None => false,
        Some(name) => name == journal.branch,
    }
}

/// The branch never moved: puts back what the landing had changed (the
/// index, and files a power cut may have kept) and drops the journal.
fn roll_back(
    repo: &Repo,
    journal: &mut Journal,
    mut outcome: RecoverOutcome,
) -> Result<RecoverOutcome> {
    release_our_lock(repo, journal)?;
    let restored = restore_files(repo, journal)?;
    outcome.set_restored(&restored);
    restore_index(repo, journal)?;
    for change in &journal.changes {
        checkout::remove_temp(repo, &change.path);
    }
    Journal::delete(repo)?;
    index_write::clean_leftovers(repo);
    outcome.action = RecoveryAction::RolledBack;
    outcome.message = format!(
        "the landing of {} was interrupted before {} moved; {}",
        short(journal.new),
        journal.branch,
        if restored.is_empty() {
            "nothing was changed".to_string()
        } else {
            format!("put back its old content: {}", names(&restored))
        }
    );
    Ok(outcome)
}

fn forward(
    repo: &Repo,
    journal: &mut Journal,
    mut outcome: RecoverOutcome,
    lock: IndexLock,
) -> Result<RecoverOutcome> {
    // Recovery reports no progress: it runs before the command asked for.
    let done = roll_forward(repo, journal, lock, None, &Progress::none())?;
    outcome.action = RecoveryAction::RolledForward;
    outcome.set_restored(&done.written);
    outcome.set_skipped(&done.skipped);
    outcome.warnings.extend(done.deferred);
    outcome.message = format!(
        "completed the interrupted landing of {} on {}",
        short(journal.new),
        journal.branch
    );
    if !done.skipped.is_empty() {
        outcome.message.push_str(&format!(
            "; left alone (they hold your own changes): {}",
            names(&done.skipped)
        ));
    }
    Ok(outcome)
}

/// With the branch still at H, puts H's entries back into the index for the
/// journal's paths if the landing had already installed its early index
/// (see `land::swap_branch`); no file was written yet.
fn restore_index(repo: &Repo, journal: &mut Journal) -> Result<()> {
    let entries = stale_entries(journal, |c| c.before);
    if index_write::holds(repo, &entries)? {
        return Ok(());
    }
    let lock = IndexLock::acquire(repo, &journal.nonce)?;
    let restored = index_write::build(repo, &entries)?;
    // A kill between the two renames leaves these bytes in the lock: the
    // journal names them, so the next recovery knows the lock is ours.
    journal.index_checksum = Some(index_write::trailing_checksum(&restored)?);
    journal.write(repo)?;
    lock.commit(repo, &restored)
}

/// With the branch still at H no file has moved, unless a power cut kept a
/// rename but lost the ref update before it (the landing flushes both only
/// at its end): a path holding N's content, and not H's, gets H's back.
/// Returns those paths (none after a kill).
fn restore_files(repo: &Repo, journal: &Journal) -> Result<Vec<RepoPath>> {
    let sparse = index_write::sparse_paths(repo, journal.changes.iter().map(|c| &c.path))?;
    let mut order: Vec<&Change> = journal
        .changes
        .iter()
        .filter(|c| !sparse.contains(&c.path))
        .collect();
    // Paths H lacks are removed first, then H's files written, parents
    // before children.
    order.sort_by_key(|c| (c.before.is_some(), c.path.as_bytes()));
    let mut restored = Vec::new();
    for change in order {
        let path = &change.path;
        let before = change.before.map(|im| (im.id, im.mode));
        let after = change.after.map(|im| (im.id, im.mode));
        checkout::remove_temp(repo, path);
        if checkout::holds(repo, path, before)? || !checkout::holds(repo, path, after)? {
            continue;
        }
        match before {
            Some((id, mode)) => checkout::write_blob(repo, path, id, mode)?,
            None => checkout::remove(repo, path)?,
        }
        restored.push(path.clone());
    }
    Ok(restored)
}

/// The branch is neither at H nor at N: no file is touched.
fn abandon(
    repo: &Repo,
    journal: &Journal,
    current: Option<Oid>,
    mut outcome: RecoverOutcome,
) -> Result<RecoverOutcome> {
    release_our_lock(repo, journal)?;
    for change in &journal.changes {
        checkout::remove_temp(repo, &change.path);
    }
    let landed = current.is_some_and(|c| repo.is_descendant_of(c, journal.new).unwrap_or(false));
    if landed && let Some(d) = finish_bookkeeping(repo, journal, false).deferred {
        outcome.warnings.push(d);
    }
    Journal::delete(repo)?;
    index_write::clean_leftovers(repo);
    outcome.action = RecoveryAction::Abandoned;
    let skipped: Vec<RepoPath> = journal.changes.iter().map(|c| c.path.clone()).collect();
    outcome.set_skipped(&skipped);
    outcome.message = format!(
        "{} is at {} (not the old head, or no longer checked out) since the landing of {} was interrupted; no file was touched{}; check {} with `git status`",
        journal.branch,
        current.map_or_else(|| "nothing".to_string(), short),
        short(journal.new),
        if landed {
            " (its bookkeeping was finished: the commit is in the branch's history)"
        } else {
            ""
        },
        names(&skipped)
    );
    Ok(outcome)
}

/// Paths as a person reads them, quoted as git quotes them.
fn names(paths: &[RepoPath]) -> String {
    evolv_core::comma_list::comma_list(paths)
}

/// Removes `index.lock` if git-evolv created it for this journal; a lock
/// anyone else created stays, and is git's `IndexLocked` error.
fn release_our_lock(repo: &Repo, journal: &Journal) -> Result<()> {
    let path = index_write::lock_path(repo);
    if !path.exists() {
        return Ok(());
    }
    if index_write::lock_is_ours(repo, &journal.nonce, journal.index_checksum.as_deref()) {
        fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
        return Ok(());
    }
    Err(Error::IndexLocked { path })
}

/// Removes the `<ref>.lock` files libgit2 left when the landing was killed
/// during a ref update: the branch (holding H or N), the bookkeeping refs
/// (holding their journalled target, or nothing for a delete) and the audit
/// ref (holding an audit commit of one of the journalled records). Any
/// other content is someone else's lock and stays.
fn release_ref_locks(repo: &Repo, journal: &Journal) -> Result<()> {
    let mut candidates: Vec<(&str, Vec<String>)> = vec![(
        journal.branch.as_str(),
        vec![journal.old.to_string(), journal.new.to_string()],
    )];
    for update in &journal.refs {
        candidates.push((
            update.name.as_str(),
            update.target.iter().cloned().collect(),
        ));
    }
    candidates.push((AUDIT_REF, Vec::new()));
    for (name, accepted) in candidates {
        let lock = ref_lock_path(repo, name);
        let Ok(content) = fs::read_to_string(&lock) else {
            continue;
        };
        let ours = if content.is_empty() {
            stale_empty_lock(&lock, journal.started_ns)
        } else if name == AUDIT_REF {
            is_journalled_audit_commit(repo, journal, content.trim())
        } else {
            accepted.iter().any(|a| a == content.trim())
        };
        if ours {
            fs::remove_file(&lock).map_err(|e| Error::io("remove", &lock, e))?;
        }
    }
    Ok(())
}

/// libgit2 creates a ref lock empty and fills it just before the rename,
/// so a kill in between leaves an empty one. It is taken for this
/// landing's when it was created after the landing began and stays empty
/// for a second (a live writer holds a ref lock for microseconds).
fn stale_empty_lock(lock: &std::path::Path, started_ns: u64) -> bool {
    use std::time::{Duration, UNIX_EPOCH};
    let Ok(meta) = fs::metadata(lock) else {
        return false;
    };
    let Ok(modified) = meta.modified() else {
        return false;
    };
    let created_ns = modified
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // File systems with coarse timestamps round down: allow 10 ms.
    if created_ns + 10_000_000 < started_ns {
        return false;
    }
    let age = crate::clock::real_now()
        .duration_since(modified)
        .unwrap_or(Duration::ZERO);
    if age < Duration::from_secs(1) {
        std::thread::sleep(Duration::from_secs(1) - age);
    }
    fs::metadata(lock).is_ok_and(|m| m.len() == 0 && m.modified().ok() == Some(modified))
}

/// Whether `content` names an audit commit of one of the journal's records.
fn is_journalled_audit_commit(repo: &Repo, journal: &Journal, content: &str) -> bool {
    Oid::parse(content)
        .ok()
        .and_then(|oid| repo.find_commit(oid).ok())
        .and_then(|c| serde_json::from_slice::<AuditRecord>(c.message_bytes()).ok())
        .is_some_and(|r| journal.audit.contains(&r))
}

/// Where libgit2 locks ref `name`: per-worktree `HEAD` in the git dir,
/// everything else in the common dir.
fn ref_lock_path(repo: &Repo, name: &str) -> std::path::PathBuf {
    let base = if name == "HEAD" {
        repo.git_dir()
    } else {
        repo.common_dir()
    };
    base.join(format!("{name}.lock"))
}

fn short(oid: Oid) -> String {
    oid.to_string()[..12].to_string()
}
