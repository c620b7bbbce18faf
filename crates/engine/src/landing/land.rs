//! The landing protocol shared by apply and rollback (issue 5; see
//! RELIABILITY.md):
//!
//! 1. the caller has written N's objects (flushed before the journal);
//! 2. under git-evolv's `flock` (released by the kernel on SIGKILL), check
//!    that every changed path is one git-evolv may write;
//! 3. write the journal (H, N, the branch, each path's pre- and post-image,
//!    the bookkeeping refs and audit records) by temp file + fsync + rename;
//! 4. create git's `index.lock` (exclusively; a lock git-evolv did not
//!    create is never touched), check the paths for uncommitted work again,
//!    stage N's files in temp files (`ops::stage`), put an index naming
//!    N's blobs in place (still holding the lock), and move the branch
//!    H → N by compare-and-swap (`swap_branch`);
//! 5. rename the staged files into place (writing the few that could not
//!    be staged) and build the new index;
//! 6. set the bookkeeping refs, append the audit records, flush the file
//!    systems, put the new index into `index.lock` and rename that over
//!    `index`, delete the journal.
//!
//! Steps 5 and 6 are `roll_forward`, which `git evolv recover` also runs on
//! a journal a killed process left: it is idempotent, and skips (and
//! reports) any file that holds neither the pre- nor the post-image.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fs::File;
use std::path::Path;

use crate::git::{Oid, view::Tree};

use super::journal::{Change, Image, Journal, Kind, RefUpdate};
use super::stage::Staged;
use crate::crashpoint;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::git::checkout;
use crate::git::index_write::{self, Entry, IndexLock};
use crate::git::{self, ChangedPath, Head, RepoPath};
use crate::progress::{self, Task};
use crate::store::audit::{self, AuditRecord};
use crate::store::pending::{self, Deferred, Pending, PendingRef};

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
    /// Sets ref `name` to `target` at the end of the landing.
    pub fn set(&mut self, name: String, target: Oid) {
        self.refs.push(RefUpdate {
            name,
            target: Some(target.to_string()),
        });
    }

    /// Deletes ref `name` at the end of the landing.
    pub fn delete(&mut self, name: String) {
        self.refs.push(RefUpdate { name, target: None });
    }
}

/// Reads the repository's index once for the whole command (see
/// `git::index_cache`) before anything else would: attribute lookups, the
/// dirty checks and the new index share that parse.
pub fn prepare_index(repo: &Repo) -> Result<()> {
    index_write::load(repo)
}

/// Drops this process's parse of the index and its temp files (the CLI
/// calls this when a command ends; a landing drops them itself).
pub fn release_index(repo: &Repo) {
    index_write::release(repo);
}

/// This process's turn to land (issue 14 item 4): the landing lock, taken
/// before the replay onto the branch head and held until the landing is
/// complete, so git-evolv's writers queue for the branch instead of racing
/// for it and losing (the lock is an `flock`, which the kernel hands to a
/// waiter when its holder ends; nobody gives up after N attempts). Only a
/// writer that is not git-evolv (`git commit`, `git update-ref`) can still
/// move the branch under a turn, and then the landing replays.
pub struct Turn {
    flock: File,
}

/// Waits for this process's turn to land.
pub fn take_turn(repo: &Repo) -> Result<Turn> {
    Ok(Turn {
        flock: landing_lock(repo)?,
    })
}

/// Fails when any of `changed` holds uncommitted work (see
/// `ensure_clean`). The check runs in a turn, since a landing in flight
/// would otherwise show its half-written files as uncommitted work: the
/// caller's, or (`None`, the early check before a validation) one taken
/// just for the check, waiting for a landing in flight.
pub fn check_clean(
    repo: &Repo,
    turn: Option<&Turn>,
    head: &Head,
    head_tree: &Tree<'_>,
    new_tree: &Tree<'_>,
    changed: &[ChangedPath],
) -> Result<()> {
    let _own = match turn {
        Some(_) => None,
        None => Some(take_turn(repo)?),
    };
    ensure_clean(repo, head, head_tree, new_tree, changed)
}

/// Fails with `DirtyWorktree` when any of `changed` holds uncommitted work
/// relative to `head` — or with `ConcurrentUpdate` when HEAD is no longer
/// `head` (another landing moved it, so its files only look dirty to us;
/// a retry replays onto the new head). Reads the index first (or reuses
/// this process's parse of it).
fn ensure_clean(
    repo: &Repo,
    head: &Head,
    head_tree: &Tree<'_>,
    new_tree: &Tree<'_>,
    changed: &[ChangedPath],
) -> Result<()> {
    // A path git-evolv must not write (a hostile proposal's `.git/config`)
    // is that, not "uncommitted changes" in it: say so first.
    ensure_confined(changed)?;
    index_write::load(repo)?;
    let dirty = git::dirty_paths(repo, head_tree, new_tree, changed)?;
    if dirty.is_empty() {
        return Ok(());
    }
    if git::head(repo)? != *head {
        return Err(Error::ConcurrentUpdate {
            what: head.ref_name().to_string(),
            expected: head.commit.to_string(),
        });
    }
    Err(Error::DirtyWorktree {
        paths: dirty.iter().map(ToString::to_string).collect(),
    })
}

/// Refuses, with nothing changed, when HEAD no longer names the branch the
/// landing was built (and validated) for: the user switched branches
/// meanwhile (`git switch` needs `index.lock`, which the landing holds from
/// here on). Landing on the old branch would write its files into the
/// other branch's checkout (#16 item 2).
///
/// A detached HEAD has no branch name to compare: it counts as switched
/// when it now points at a commit that is not `head`'s commit or a
/// descendant of it (a `git checkout <other>`, not another landing).
pub fn ensure_on_branch(repo: &Repo, head: &Head) -> Result<()> {
    let now = git::head(repo)?;
    let moved_away = now.branch.is_none()
        && head.branch.is_none()
        && now.commit != head.commit
        && !repo.is_descendant_of(now.commit, head.commit)?;
    if now.branch == head.branch && !moved_away {
        return Ok(());
    }
    let describe = |h: &Head| match &h.branch {
        Some(_) => h.display_name().to_string(),
        None => format!("HEAD (detached at {})", &h.commit.to_string()[..12]),
    };
    Err(Error::BranchSwitched {
        expected: describe(head),
        actual: describe(&now),
    })
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

/// How often a landing that lost a race is replayed onto the new head.
const LANDING_ATTEMPTS: u32 = 20;

/// Runs `attempt` again, after a growing random pause, when it lost a race
/// that left everything untouched: the branch moved before the
/// compare-and-swap (`concurrent_update`), or git held `index.lock`. Each
/// retry replays onto the new head and validates again.
pub fn retrying<T>(dry_run: bool, mut attempt: impl FnMut() -> Result<T>) -> Result<T> {
    let mut n = 1;
    loop {
        match attempt() {
            Err(Error::ConcurrentUpdate { .. } | Error::IndexLocked { .. })
                if !dry_run && n < LANDING_ATTEMPTS =>
            {
                std::thread::sleep(jitter(n));
                n += 1;
            }
            other => return other,
        }
    }
}

/// 5 ms doubling per attempt up to 160 ms, times a random factor in
/// [0.5, 1.5), so racing processes spread out.
fn jitter(attempt: u32) -> std::time::Duration {
    let base_ms = 5u64 << attempt.min(5);
    let seed = crate::clock::unique_u64();
    let factor = 500 + (seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) % 1000;
    std::time::Duration::from_micros(base_ms * factor)
}

/// Serialises landings (and recoveries) in one working tree. An `flock`, so
/// the kernel releases it when the holder dies: it can never go stale.
pub(super) fn landing_lock(repo: &Repo) -> Result<File> {
    let (file, path) = open_landing_lock(repo)?;
    file.lock().map_err(|e| Error::io("lock", &path, e))?;
    Ok(file)
}

/// The landing lock if nobody holds it; `None` while a live process is
/// landing (or recovering).
pub(super) fn try_landing_lock(repo: &Repo) -> Result<Option<File>> {
    let (file, path) = open_landing_lock(repo)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io("lock", &path, e)),
    }
}

fn open_landing_lock(repo: &Repo) -> Result<(File, std::path::PathBuf)> {
    crate::git::lock_file::open(repo.git_dir(), "landing.lock")
}

/// A branch that has moved, whose working tree, index and bookkeeping are
/// still to be brought along. Holds the landing lock (and `index.lock`)
/// until dropped; dropped unfinished, it leaves the journal for `recover`.
pub struct Landing {
    _known_dirs: git::confine::KnownDirs,
    _flock: File,
    journal: RefCell<Journal>,
    index_lock: RefCell<Option<IndexLock>>,
    /// Paths whose new content already waits in their temp file.
    staged: HashSet<RepoPath>,
}

/// Steps 2 to 4 of the protocol, for the holder of a turn (which the
/// landing keeps): moves `head` to `new` (a descendant of `head.commit`)
/// once `changed` is known to hold no uncommitted work. Nothing is touched
/// on failure.
pub fn move_branch_in_turn(
    repo: &Repo,
    turn: Turn,
    head: &Head,
    new: Oid,
    changed: &[ChangedPath],
    reflog: &str,
    epilogue: Epilogue,
) -> Result<Landing> {
    // Each directory above the changed paths is verified once for the
    // whole landing, not once per path and step.
    let known_dirs = git::confine::remember_dirs();
    checkout::check_worker_settings(repo)?;
    let new_tree = repo.find_commit(new)?.tree()?;
    let head_tree = repo.find_commit(head.commit)?.tree()?;
    let journal = write_journal(
        repo, head, new, &head_tree, &new_tree, changed, reflog, epilogue,
    )?;
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
        staged.discard(repo);
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
        staged: staged.paths,
    })
}

/// Step 3: refuses while an interrupted landing's journal is left, checks
/// the paths are confined, and writes the journal of the move from `head`
/// to `new` (after flushing N's objects, which it names).
#[allow(clippy::too_many_arguments)]
fn write_journal(
    repo: &Repo,
    head: &Head,
    new: Oid,
    head_tree: &Tree<'_>,
    new_tree: &Tree<'_>,
    changed: &[ChangedPath],
    reflog: &str,
    epilogue: Epilogue,
) -> Result<Journal> {
    if Journal::exists(repo) {
        return Err(Error::Interrupted {
            detail: format!(
                "its journal {} is still there",
                super::journal::path(repo).display()
            ),
        });
    }
    ensure_confined(changed)?;
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
    // N's objects are on disk before a journal (or a ref) names them: their
    // data is waited for here, then the journal's; the barrier after the
    // staged files (`Staged::stage`), before the branch moves, commits
    // them all.
    match super::flush::new_objects(repo, &journal, new_tree)? {
        Some(files) => git::durable::settle(repo, &files)?,
        None => git::durable::flush_filesystems(repo)?,
    }
    journal.write_before_barrier(repo)?;
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
    let swapped = git::compare_and_swap(
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

/// Every changed path must be one git-evolv may write (its spelling: no
/// `..`, no `.git`). A leading component that is a symlink or a file the
/// landing keeps is the dirty check's to refuse (`ensure_clean`, under
/// both locks: something of the user's is in the way), and each file's
/// placement checks again (`checkout::check_path`).
fn ensure_confined(changed: &[ChangedPath]) -> Result<()> {
    for change in changed {
        if let Some(reason) = git::confine::refusal(&change.path) {
            return Err(Error::UnsafePath {
                path: change.path.to_string(),
                reason: reason.to_string(),
            });
        }
    }
    Ok(())
}

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

impl Landing {
    /// Steps 5 and 6: files, index, bookkeeping refs, audit. Bookkeeping
    /// that cannot be done now is journalled, never a failure (issue 16
    /// item 5): the branch has moved, and the landing is finished.
    pub fn finish(&self, repo: &Repo) -> Result<Finished> {
        let mut journal = self.journal.borrow_mut();
        let lock = match self.index_lock.borrow_mut().take() {
            Some(lock) => lock,
            None => IndexLock::acquire(repo, &journal.nonce)?,
        };
        let done = roll_forward(repo, &mut journal, lock, Some(&self.staged))?;
        Ok(Finished {
            audit_ids: done.audit_ids,
            deferred: done.deferred,
        })
    }

    /// Brings the working tree and index to N but drops the bookkeeping
    /// (the landing failed, and is audited as such): for a plan whose
    /// rollback is manual, whose steps expect the checkout to match N.
    pub fn settle(&self, repo: &Repo) -> Result<()> {
        let mut journal = self.journal.borrow_mut();
        journal.refs.clear();
        journal.audit.clear();
        journal.write(repo)?;
        let lock = match self.index_lock.borrow_mut().take() {
            Some(lock) => lock,
            None => IndexLock::acquire(repo, &journal.nonce)?,
        };
        roll_forward(repo, &mut journal, lock, None)?;
        Ok(())
    }

    /// Undoes the landing after a failure: journals the move from N to
    /// `undo` (whose tree restores H's content of the changed paths), moves
    /// the branch and brings the working tree and index along.
    pub fn retarget(&self, repo: &Repo, undo: Oid) -> Result<()> {
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
        // A lock we may still hold carries the old nonce.
        next.nonce = journal.nonce.clone();
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
        roll_forward(repo, &mut journal, lock, None)?;
        Ok(())
    }
}

/// Moves `head` to `new` and brings everything along: the whole landing,
/// for the holder of a turn (rollback takes its turn before it reads the
/// head, so it queues behind concurrent landings instead of racing). A
/// failure after the branch moved leaves the journal for `git evolv recover`.
pub fn land_in_turn(
    repo: &Repo,
    turn: Turn,
    head: &Head,
    new: Oid,
    changed: &[ChangedPath],
    reflog: &str,
    epilogue: Epilogue,
) -> Result<Finished> {
    let landing = move_branch_in_turn(repo, turn, head, new, changed, reflog, epilogue)?;
    landing.finish(repo).map_err(|cause| Error::LandingFailed {
        cause: Box::new(cause),
        recovery: format!("the branch is at {new}; `git evolv recover` completes the landing"),
    })
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

/// Steps 5 and 6 with the branch at `journal.new`. `fresh` (the landing
/// that just moved the branch): the paths were just checked to hold their
/// pre-images, so no file is re-read, and the staged ones are renamed into
/// place. `None`: recovery, which classifies every file afresh.
pub(super) fn roll_forward(
    repo: &Repo,
    journal: &mut Journal,
    lock: IndexLock,
    fresh: Option<&HashSet<RepoPath>>,
) -> Result<Done> {
    let no_staged = HashSet::new();
    let pass = Pass {
        workdir: crate::git::workdir(repo)?,
        staged: fresh.unwrap_or(&no_staged),
        fresh: fresh.is_some(),
        sparse: index_write::sparse_paths(repo, journal.changes.iter().map(|c| &c.path))?,
    };
    let mut done = Done::default();
    let order = landing_order(journal);
    let total = order.len();
    let mut entries = Vec::with_capacity(total);
    // The landing that just moved the branch renames its staged files
    // into place last, from several threads (`place_in_parallel`); every
    // other path is done first, in order.
    let threads = match fresh {
        // Checked before the branch moved (`move_branch_in_turn`): never
        // a reason to fail after it.
        Some(staged) => checkout::rename_workers(repo, staged.len()).unwrap_or(1),
        None => 1,
    };
    let mut renames = Vec::new();
    progress::start(Task::Land, "files", Some(total as u64));
    let mut serial = 0;
    for &i in &order {
        let change = &journal.changes[i];
        if threads > 1
            && let Some(im) = change.after
            && pass.staged.contains(&change.path)
        {
            renames.push(checkout::Placing::new(repo, &change.path)?);
            entries.push((
                change.path.clone(),
                Entry::Clean {
                    id: im.id,
                    mode: im.mode,
                },
            ));
            continue;
        }
        if serial % 64 == 0 {
            progress::update(Task::Land, serial as u64, Some(total as u64), None);
        }
        let entry = pass.bring_forward(repo, change, &mut done)?;
        entries.push((change.path.clone(), entry));
        files_done(serial, total);
        serial += 1;
    }
    place_in_parallel(&renames, threads, serial, total, &mut done)?;
    progress::update(Task::Land, total as u64, Some(total as u64), None);
    progress::finish(Task::Land);
    finish_index(repo, journal, lock, &entries, pass.fresh, &mut done)?;
    Ok(done)
}

/// The crash points after the `k`-th of a landing's `total` paths
/// (counted from 0): the first, the middle and the last.
fn files_done(k: usize, total: usize) {
    if k == 0 {
        crashpoint!("after-first-file");
    }
    if k == total / 2 {
        crashpoint!("after-middle-file");
    }
    if k + 1 == total {
        crashpoint!("after-last-file");
    }
}

/// Renames the staged files of `renames` into place from `threads`
/// threads (`by_directory`): each rename waits while the file system frees
/// the old file, and threads in different directories wait together. The
/// paths done before them (`before` of `total`) count toward the crash
/// points. On an error the files already renamed stay: the journal's
/// recovery, or the undo of the failed landing, sorts every path.
fn place_in_parallel(
    renames: &[checkout::Placing],
    threads: usize,
    before: usize,
    total: usize,
    done: &mut Done,
) -> Result<()> {
    if renames.is_empty() {
        return Ok(());
    }
    let outcome = super::by_directory::run(
        renames,
        checkout::Placing::path,
        threads,
        || Ok(git::confine::remember_dirs()),
        |_, placing| placing.place(),
        |n| files_done(before + n - 1, total),
        |n| progress::update(Task::Land, (before + n) as u64, Some(total as u64), None),
    );
    done.written
        .extend(outcome.done.iter().map(|&i| renames[i].path().clone()));
    match outcome.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The order a landing writes its paths in: removals first (so a file can
/// replace a directory and back), then N's `.gitattributes` files (git
/// converts every other file under N's attributes), then the other
/// writes, parents before children. Indices into `journal.changes`.
fn landing_order(journal: &Journal) -> Vec<usize> {
    let mut order: Vec<usize> = (0..journal.changes.len()).collect();
    let key = |i: usize| {
        let c = &journal.changes[i];
        (
            c.after.is_some(),
            !c.path.is_gitattributes(),
            c.path.as_bytes(),
        )
    };
    order.sort_by(|&a, &b| key(a).cmp(&key(b)));
    order
}

/// What one `roll_forward` knows about all its paths.
struct Pass<'a> {
    workdir: &'a Path,
    /// Paths whose new content already waits in their temp file.
    staged: &'a HashSet<RepoPath>,
    /// The landing that just moved the branch (see `roll_forward`).
    fresh: bool,
    /// Paths outside the sparse checkout: the entry changes, no file does.
    sparse: HashSet<RepoPath>,
}

impl Pass<'_> {
    /// Brings one path to its post-image (or leaves it, recorded as
    /// skipped, when it holds the user's own content) and returns its new
    /// index entry.
    fn bring_forward(&self, repo: &Repo, change: &Change, done: &mut Done) -> Result<Entry> {
        let path = &change.path;
        let before = change.before.map(|im| (im.id, im.mode));
        let is_staged = self.staged.contains(path);
        if !is_staged {
            checkout::remove_temp(repo, path);
        }
        let Some((id, mode)) = change.after.map(|im| (im.id, im.mode)) else {
            if !self.sparse.contains(path) {
                self.remove(repo, path, before, done)?;
            }
            return Ok(Entry::Absent);
        };
        if self.sparse.contains(path) {
            return Ok(Entry::Stale { id, mode });
        }
        if !self.fresh && checkout::holds(repo, path, Some((id, mode)))? {
            return Ok(Entry::Clean { id, mode });
        }
        let ours = self.fresh
            || (checkout::holds(repo, path, before)?
                && git::confine::blocked_prefix(self.workdir, path).is_none());
        if !ours {
            done.skipped.push(path.clone());
            return Ok(Entry::Stale { id, mode });
        }
        if is_staged {
            checkout::place_staged(repo, path)?;
        } else {
            checkout::write_blob(repo, path, id, mode)?;
        }
        done.written.push(path.clone());
        Ok(Entry::Clean { id, mode })
    }

    /// Removes a path N deletes, if it still holds its pre-image.
    fn remove(
        &self,
        repo: &Repo,
        path: &RepoPath,
        before: Option<(Oid, u32)>,
        done: &mut Done,
    ) -> Result<()> {
        let present = self.fresh || !checkout::has_no_file(repo, path);
        if present && (self.fresh || checkout::holds(repo, path, before)?) {
            checkout::remove(repo, path)?;
            done.written.push(path.clone());
        } else if present {
            done.skipped.push(path.clone());
        }
        Ok(())
    }
}

/// The end of step 5 and step 6: builds the new index from `entries`, does
/// the bookkeeping, flushes, renames the index into place and drops the
/// journal (unless its bookkeeping must be done again).
fn finish_index(
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
    // Everything above reaches the disk before the journal goes; the index
    // rename after it at worst leaves the early index, which names N too.
    let files = super::flush::ending(repo, journal, &new_index, &done.audit_ids);
    git::durable::flush(repo, &files)?;
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
/// the recent audit log for the same action, patch and commit is not
/// appended again). Never fails: the branch has moved, so a step that
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
            Some(target) => Oid::parse(target).and_then(|oid| {
                git::compare_and_swap_force(repo, &update.name, oid, &journal.reflog)
            }),
            None => git::delete_ref(repo, &update.name).map(drop),
        };
        if let Err(e) = done {
            cause.get_or_insert(("the ref update", e));
            left.refs.push(PendingRef {
                name: update.name.clone(),
                target: update.target.clone(),
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
        let existing = recent.iter().find(|e| {
            e.record.action == record.action
                && e.record.patch_id == record.patch_id
                && e.record.success == record.success
                && e.record.commit == record.commit
        });
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
