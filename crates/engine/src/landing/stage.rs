//! Staging a landing's files: what N adds or changes is written to temp
//! files next to their paths, and flushed, while the branch has not moved
//! yet, so that from the early index to the index rename — the stretch a
//! racing `git commit` must not span, see RELIABILITY.md — the landing only
//! renames (`checkout::place_staged`).

use std::collections::HashSet;
use std::path::PathBuf;

use super::journal::Journal;
use crate::error::Result;
use crate::git::Repo;
use crate::git::index_write;
use crate::git::{RepoPath, checkout, durable, filters};

/// The files written ahead of the compare-and-swap.
#[derive(Debug, Default)]
pub struct Staged {
    /// Paths whose new content waits in their temp file.
    pub paths: HashSet<RepoPath>,
    /// Directories created for them, outermost first.
    dirs: Vec<PathBuf>,
}

impl Staged {
    /// Writes the files of `journal`'s post-images to their temp files. Not
    /// for paths outside a sparse checkout (they get no file), nor when N
    /// changes a `.gitattributes` (files are converted under N's
    /// attributes, which are in place only during the landing); paths below
    /// a file the landing removes are left to the landing as well.
    ///
    /// Then everything the landing wrote so far — its journal, N's objects,
    /// the staged files — is flushed: the branch moves next.
    pub fn stage(&mut self, repo: &Repo, journal: &Journal) -> Result<()> {
        self.write(repo, journal)?;
        // The staged files' writebacks were started one by one; one flush
        // waits for them all (and their names, and the journal's) before
        // the branch moves.
        if !self.paths.is_empty() || durable::defers_to_barrier(repo) {
            let temps = self
                .paths
                .iter()
                .map(|p| checkout::staged_temp_path(repo, p))
                .collect::<Result<Vec<_>>>()?;
            durable::flush(repo, &temps)?;
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

    /// Removes the temp files and new directories of a landing that did
    /// not happen (or whose staging failed half-way).
    pub fn discard(&self, repo: &Repo) {
        for path in &self.paths {
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

/// Writes the temp files one after another.
fn write_in_turn(repo: &Repo, jobs: &[(&RepoPath, crate::git::Oid, u32)]) -> Written {
    let mut out = Written::default();
    for &(path, id, mode) in jobs {
        if let Err(e) = checkout::write_staged(repo, path, id, mode) {
            out.error = Some(e);
            break;
        }
        out.paths.push(path.clone());
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
    let open = || reopener.open();
    let outcome = super::by_directory::run(
        jobs,
        |job| job.0,
        workers,
        open,
        |own, &(path, id, mode)| checkout::write_staged(own, path, id, mode),
        |_| {},
        |_| {},
    );
    Written {
        paths: outcome.done.iter().map(|&i| jobs[i].0.clone()).collect(),
        error: outcome.error,
    }
}
