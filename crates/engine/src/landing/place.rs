//! Step 5 of the landing protocol: each changed path brought to its
//! post-image in the landing's order (removals first, then `.gitattributes`,
//! then parents before children), the prepared files written in place (or,
//! staged, renamed into place) from several threads, and the new index
//! entries that result.

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::Path;

use crate::git::Oid;

use super::finish::{Done, finish_index};
use super::journal::{Change, Journal};
use super::stage::Staged;
use crate::crashpoint;
use crate::error::Result;
use crate::git::Repo;
use crate::git::worktree::checkout;
use crate::git::worktree::index_write::{self, Entry, IndexLock};
use crate::git::{self, RepoPath};
use crate::progress::{Progress, Task};

/// Steps 5 and 6 with the branch at `journal.new`. `fresh` (the landing
/// that just moved the branch): the paths were just checked to hold their
/// pre-images, so no file is re-read, and the prepared ones are written
/// in place (or their staged files renamed into place). `None`: recovery,
/// which classifies every file afresh. The files written are reported to
/// `progress`.
pub(super) fn roll_forward(
    repo: &Repo,
    journal: &mut Journal,
    lock: IndexLock,
    fresh: Option<&Staged>,
    progress: &Progress,
) -> Result<Done> {
    let no_staged = HashSet::new();
    let pass = Pass {
        workdir: crate::git::workdir(repo)?,
        staged: fresh.map_or(&no_staged, |s| &s.paths),
        in_place: journal.in_place,
        writer: RefCell::new(None),
        fresh: fresh.is_some(),
        sparse: index_write::sparse_paths(repo, journal.changes.iter().map(|c| &c.path))?,
    };
    let mut done = Done::default();
    let order = landing_order(journal);
    let total = order.len();
    let mut entries = Vec::with_capacity(total);
    // The landing that just moved the branch writes (or renames) its
    // prepared files last, from several threads (`Bulk::run`); every
    // other path is done first, in order. The worker settings were
    // checked before the branch moved (`move_branch_in_turn`): never a
    // reason to fail after it.
    let threads = match fresh {
        Some(s) if pass.in_place => checkout::workers(repo, s.paths.len()).unwrap_or(1),
        Some(s) => checkout::rename_workers(repo, s.paths.len()).unwrap_or(1),
        None => 1,
    };
    let mut bulk = Bulk::default();
    progress.start(Task::Land, "files", Some(total as u64));
    let mut serial = 0;
    for &i in &order {
        let change = &journal.changes[i];
        if threads > 1
            && let Some(im) = change.after
            && pass.staged.contains(&change.path)
        {
            let at = entries.len();
            bulk.add(repo, (&change.path, at), im.id, im.mode, pass.in_place)?;
            let entry = Entry::Clean {
                id: im.id,
                mode: im.mode,
            };
            entries.push((change.path.clone(), entry));
            continue;
        }
        if serial % 64 == 0 {
            progress.update(Task::Land, serial as u64, Some(total as u64), None);
        }
        let entry = pass.bring_forward(repo, change, &mut done)?;
        entries.push((change.path.clone(), entry));
        files_done(serial, total);
        serial += 1;
    }
    let counts = (serial, total);
    bulk.run(repo, threads, counts, (&mut entries, &mut done), progress)?;
    progress.update(Task::Land, total as u64, Some(total as u64), None);
    progress.finish(Task::Land);
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

/// The files a fresh landing writes from several threads once every other
/// path is done: written in place, or (staged) renamed into place.
#[derive(Default)]
struct Bulk {
    /// Each file written in place, and where its entry is in the landing's.
    writes: Vec<(RepoPath, Oid, u32, usize)>,
    renames: Vec<checkout::Placing>,
}

impl Bulk {
    fn add(
        &mut self,
        repo: &Repo,
        (path, entry): (&RepoPath, usize),
        id: Oid,
        mode: u32,
        in_place: bool,
    ) -> Result<()> {
        if in_place {
            self.writes.push((path.clone(), id, mode, entry));
        } else {
            self.renames.push(checkout::Placing::new(repo, path)?);
        }
        Ok(())
    }

    /// Does every file from `threads` threads (`by_directory`): a removal
    /// or rename waits while the file system frees the old file, and
    /// threads in different directories wait together; a writer's own
    /// repository handle reads and converts the blobs. The paths done
    /// before them (`before` of `total`) count toward the crash points. A
    /// file written in place gets its stat data in `entries` as it was
    /// written. On an error the files already done stay: the journal's
    /// recovery, or the undo of the failed landing, sorts every path.
    fn run(
        &self,
        repo: &Repo,
        threads: usize,
        (before, total): (usize, usize),
        (entries, done): (&mut [(RepoPath, Entry)], &mut Done),
        progress: &Progress,
    ) -> Result<()> {
        let each = |n| files_done(before + n - 1, total);
        let tick = |n| progress.update(Task::Land, (before + n) as u64, Some(total as u64), None);
        let outcome = if !self.renames.is_empty() {
            let outcome = super::by_directory::run(
                &self.renames,
                checkout::Placing::path,
                threads,
                || Ok(git::worktree::confine::remember_dirs()),
                |_, placing| placing.place(),
                |_| Ok(()),
                each,
                tick,
            );
            let paths = outcome.done.iter().map(|&i| self.renames[i].path().clone());
            done.written.extend(paths);
            outcome
        } else if !self.writes.is_empty() {
            let reopener = repo.reopener();
            let stats = std::sync::Mutex::new(Vec::with_capacity(self.writes.len()));
            let outcome = super::by_directory::run(
                &self.writes,
                |w| &w.0,
                threads,
                || {
                    let own = reopener.open()?;
                    let writer = checkout::InPlace::new(&own)?;
                    Ok((own, writer, git::worktree::confine::remember_dirs()))
                },
                |(own, writer, _), (path, id, mode, at)| {
                    let stat = writer.write(own, path, *id, *mode)?;
                    let mut stats = stats.lock().unwrap_or_else(|e| e.into_inner());
                    stats.extend(stat.map(|s| (*at, s)));
                    Ok(())
                },
                |_| Ok(()),
                each,
                tick,
            );
            for (at, stat) in stats.into_inner().unwrap_or_else(|e| e.into_inner()) {
                if let Entry::Clean { id, mode } = entries[at].1 {
                    entries[at].1 = Entry::Written { id, mode, stat };
                }
            }
            let paths = outcome.done.iter().map(|&i| self.writes[i].0.clone());
            done.written.extend(paths);
            outcome
        } else {
            return Ok(());
        };
        match outcome.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
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
    /// Paths the fresh landing prepared (`Staged`).
    staged: &'a HashSet<RepoPath>,
    /// The journal's `in_place`: files are written where they stand, and
    /// a missing path is one the landing removed.
    in_place: bool,
    /// The writer of files in place, made at the first.
    writer: RefCell<Option<checkout::InPlace>>,
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
        // A temp file left beside a missing path: the landing had removed
        // the old file and not yet renamed the new one in (`Placing::place`).
        // Written in place, the missing path is all there is to go by: a
        // file deleted after the kill cannot be told from it, and is
        // written again with N's content, which loses nothing.
        let temp_left = !is_staged && checkout::remove_temp(repo, path);
        let half_placed = !is_staged
            && ((temp_left && checkout::has_no_file(repo, path))
                || (self.in_place && checkout::is_missing(repo, path)));
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
        // The pre-image, or what a power cut left of the post-image
        // (written without a flush, as git's checkout writes).
        let ours = self.fresh
            || ((half_placed
                || checkout::holds(repo, path, before)?
                || checkout::holds_torn(repo, path, id, mode)?)
                && git::worktree::confine::blocked_prefix(self.workdir, path).is_none());
        if !ours {
            done.skipped.push(path.clone());
            return Ok(Entry::Stale { id, mode });
        }
        let mut stat = None;
        if self.in_place {
            stat = self.write_in_place(repo, path, id, mode)?;
        } else if is_staged {
            checkout::place_staged(repo, path)?;
        } else {
            checkout::write_blob(repo, path, id, mode)?;
        }
        done.written.push(path.clone());
        Ok(match stat {
            Some(stat) => Entry::Written { id, mode, stat },
            None => Entry::Clean { id, mode },
        })
    }

    /// Writes `path` in place, through the one writer of the pass.
    fn write_in_place(
        &self,
        repo: &Repo,
        path: &RepoPath,
        id: Oid,
        mode: u32,
    ) -> Result<Option<git::worktree::index_write::Stat>> {
        let mut writer = self.writer.borrow_mut();
        let writer = match writer.as_mut() {
            Some(w) => w,
            None => writer.insert(checkout::InPlace::new(repo)?),
        };
        writer.write(repo, path, id, mode)
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
