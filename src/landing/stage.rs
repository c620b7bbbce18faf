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
        // One attribute pass for all of them (none without attribute files).
        filters::prime(repo, jobs.iter().map(|j| j.0))?;
        let workers = checkout::workers(repo, jobs.len());
        let written = if workers > 1 {
            write_in_parallel(repo, &jobs, workers)
        } else {
            write_in_turn(repo, &jobs)
        };
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
fn write_in_turn(repo: &Repo, jobs: &[(&RepoPath, git2::Oid, u32)]) -> Written {
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

/// Writes the temp files from `workers` threads, each with its own handle
/// on the repository (libgit2 handles are not shared between threads),
/// each taking the next path as it is done; the first error stops every
/// writer. Like git's
/// `checkout.workers`: blob inflation, conversion and the file system's
/// per-file work overlap.
fn write_in_parallel(repo: &Repo, jobs: &[(&RepoPath, git2::Oid, u32)], workers: usize) -> Written {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    // Each writer takes a whole directory's files at a time: two writers
    // creating files in one directory only wait for each other on its lock
    // (the kernel spins on it: a quarter of a 3,000-file landing's CPU).
    fn parent(p: &RepoPath) -> &[u8] {
        let b = p.as_bytes();
        &b[..b.iter().rposition(|c| *c == b'/').unwrap_or(0)]
    }
    let mut starts: Vec<usize> = (0..jobs.len())
        .filter(|&i| i == 0 || parent(jobs[i].0) != parent(jobs[i - 1].0))
        .collect();
    starts.push(jobs.len());
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let git_dir = repo.path().to_path_buf();
    let workdir = repo.workdir().map(std::path::Path::to_path_buf);
    let results: Vec<Written> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Written::default();
                    let own = match git2::Repository::open(&git_dir)
                        .and_then(|r| {
                            // The same working tree, however the caller found it.
                            if let Some(w) = &workdir {
                                r.set_workdir(w, false)?;
                            }
                            Ok(r)
                        })
                        .map_err(crate::error::Error::from)
                        .and_then(Repo::new)
                    {
                        Ok(r) => r,
                        Err(e) => {
                            failed.store(true, Ordering::Relaxed);
                            out.error = Some(e);
                            return out;
                        }
                    };
                    while !failed.load(Ordering::Relaxed) {
                        let d = next.fetch_add(1, Ordering::Relaxed);
                        let Some(range) = starts.get(d..d + 2) else {
                            break;
                        };
                        for &(path, id, mode) in &jobs[range[0]..range[1]] {
                            if let Err(e) = checkout::write_staged(&own, path, id, mode) {
                                failed.store(true, Ordering::Relaxed);
                                out.error = Some(e);
                                return out;
                            }
                            out.paths.push(path.clone());
                        }
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut all = Written::default();
    for w in results {
        all.paths.extend(w.paths);
        if all.error.is_none() {
            all.error = w.error;
        }
    }
    all
}
