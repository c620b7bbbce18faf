//! Staging a landing's files before the branch moves. With
//! `evolv.fsyncWorktree`, what N adds or changes is written to temp files
//! next to their paths and flushed, so that the branch never moves before
//! the files are durable, and after the move the landing only renames
//! (`checkout::place_staged`). By default (the journal's `in_place`) only
//! the paths are decided and their missing directories created: the files
//! are written where they stand after the move (`checkout::InPlace`),
//! as git's checkout writes them, saving a rename per file.

use std::collections::HashSet;
use std::path::PathBuf;

use super::journal::Journal;
use crate::error::Result;
use crate::git::Repo;
use crate::git::worktree::index_write;
use crate::git::{RepoPath, repo::durable, worktree::checkout, worktree::filters};

/// The files prepared ahead of the compare-and-swap.
#[derive(Debug, Default)]
pub struct Staged {
    /// Paths whose new content waits in their temp file, or (the journal's
    /// `in_place`) is written where they stand after the move.
    pub paths: HashSet<RepoPath>,
    /// The attribute answers of the files written in place, asked before
    /// the branch moves (a `git check-attr` that fails then stops nothing
    /// that has begun) and kept until they are written.
    _primed: Option<Primed>,
    /// Directories created for them, outermost first.
    dirs: Vec<PathBuf>,
}

impl Staged {
    /// Writes the files of `journal`'s post-images to their temp files (or,
    /// in place, only decides which paths the move writes in bulk). Not
    /// for paths outside a sparse checkout (they get no file), nor when N
    /// changes a `.gitattributes` (files are converted under N's
    /// attributes, which are in place only during the landing); paths below
    /// a file the landing removes are left to the landing as well.
    ///
    /// With `evolv.fsyncWorktree`, the staged files are then made durable
    /// no later than the branch's move, which comes next.
    pub fn stage(&mut self, repo: &Repo, journal: &Journal) -> Result<()> {
        self.write(repo, journal)?;
        // With `evolv.fsyncWorktree`, the staged files' writebacks were
        // started one by one, and the threads that wrote them waited for
        // them (`Holding`): where the file system commits names in order,
        // the branch's move cannot be committed before them, and nothing
        // more is needed (`durable::order`); elsewhere the file system is
        // flushed. By default their data is left to the kernel, as git's
        // checkout leaves it: the journal names each one. The journal and
        // N's objects were ordered before it was written.
        if !self.paths.is_empty() && durable::flushes_worktree(repo) {
            durable::order(repo, std::iter::empty::<PathBuf>())?;
        }
        Ok(())
    }

    fn write(&mut self, repo: &Repo, journal: &Journal) -> Result<()> {
        let attributes = journal.changes.iter().any(|c| c.path.is_gitattributes());
        if attributes {
            return Ok(());
        }
        let paths = journal.changes.iter().map(|c| &c.path);
        let sparse = index_write::sparse_paths(repo, paths)?;
        let mut jobs = Vec::new();
        for change in &journal.changes {
            let Some(im) = change.after else {
                continue;
            };
            if sparse.contains(&change.path) {
                continue;
            }
            if checkout::prepare_stage(repo, &change.path, im.mode, &mut self.dirs)? {
                jobs.push((&change.path, im.id, im.mode));
            }
        }
        if journal.in_place {
            self._primed = Some(Primed::new(repo, jobs.iter().map(|j| j.0))?);
            self.paths.extend(jobs.into_iter().map(|j| j.0.clone()));
            return Ok(());
        }
        let workers = checkout::workers(repo, jobs.len())?;
        // One attribute pass for all of them (none without attribute files).
        filters::prime(repo, jobs.iter().map(|j| j.0))?;
        let written = if workers > 1 {
            write_in_parallel(repo, &jobs, workers)
        } else {
            write_in_turn(repo, &jobs)
        };
        filters::unprime();
        self.paths.extend(written.paths);
        match written.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Removes the temp files (none when the files are written in place)
    /// and new directories of a landing that did not happen (or whose
    /// staging failed half-way).
    pub fn discard(&self, repo: &Repo, journal: &Journal) {
        for path in self.paths.iter().filter(|_| !journal.in_place) {
            checkout::remove_temp(repo, path);
        }
        checkout::remove_created_dirs(&self.dirs);
    }
}

/// What a writer staged, and the error that stopped it.
#[derive(Default)]
struct Written {
    paths: Vec<RepoPath>,
    error: Option<crate::error::Error>,
}

/// Temp files a writer wrote and keeps open until it has waited for their
/// data (where that wait orders them before the branch's move,
/// `durable::ordered`; elsewhere the flush before the move is a whole file
/// system's, and they are closed at once). Waited for every `BATCH` files,
/// so a few hundred descriptors at most are open (8 writers), and once
/// more when the writer is done: by then the kernel has long written most
/// of them out, and the wait is short.
struct Holding {
    wait: bool,
    open: Vec<(PathBuf, std::fs::File)>,
}

/// Files a writer keeps open before it waits for them.
const BATCH: usize = 64;

impl Holding {
    fn new(repo: &Repo) -> Holding {
        Holding {
            wait: durable::ordered(repo) && durable::flushes_worktree(repo),
            open: Vec::new(),
        }
    }

    /// Writes one temp file, and waits for the batch once it is full.
    fn write(
        &mut self,
        repo: &Repo,
        path: &RepoPath,
        id: crate::git::Oid,
        mode: u32,
    ) -> Result<()> {
        let written = checkout::write_staged_open(repo, path, id, mode)?;
        if self.wait {
            self.open.extend(written);
            if self.open.len() >= BATCH {
                durable::settle_open(repo, &mut self.open)?;
            }
        }
        Ok(())
    }

    /// Waits for the files still held.
    fn settle(&mut self, repo: &Repo) -> Result<()> {
        durable::settle_open(repo, &mut self.open)
    }
}

/// Writes the temp files one after another.
fn write_in_turn(repo: &Repo, jobs: &[(&RepoPath, crate::git::Oid, u32)]) -> Written {
    let mut out = Written::default();
    let mut holding = Holding::new(repo);
    for &(path, id, mode) in jobs {
        if let Err(e) = holding.write(repo, path, id, mode) {
            out.error = Some(e);
            return out;
        }
        out.paths.push(path.clone());
    }
    if let Err(e) = holding.settle(repo) {
        out.error = Some(e);
    }
    out
}

/// Writes the temp files from `workers` threads (`by_directory`), each
/// with its own handle on the repository (libgit2 handles are not shared
/// between threads). Like git's `checkout.workers`: blob inflation,
/// conversion and the file system's per-file work overlap.
fn write_in_parallel(
    repo: &Repo,
    jobs: &[(&RepoPath, crate::git::Oid, u32)],
    workers: usize,
) -> Written {
    let reopener = repo.reopener();
    let open = || {
        let own = reopener.open()?;
        let holding = Holding::new(&own);
        Ok((own, holding))
    };
    let outcome = super::by_directory::run(
        jobs,
        |job| job.0,
        workers,
        open,
        |(own, holding), &(path, id, mode)| holding.write(own, path, id, mode),
        |(own, holding)| holding.settle(own),
        |_| {},
        |_| {},
    );
    Written {
        paths: outcome.done.iter().map(|&i| jobs[i].0.clone()).collect(),
        error: outcome.error,
    }
}

/// The attribute answers of a landing's files (`filters::prime`), dropped
/// with the landing.
#[derive(Debug)]
struct Primed;

impl Primed {
    fn new<'a>(repo: &Repo, paths: impl IntoIterator<Item = &'a RepoPath>) -> Result<Primed> {
        filters::prime(repo, paths)?;
        Ok(Primed)
    }
}

impl Drop for Primed {
    fn drop(&mut self) {
        filters::unprime();
    }
}
