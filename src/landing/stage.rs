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
use crate::git::{RepoPath, checkout, durable};

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
    pub fn stage(&mut self, repo: &Repo, journal: &Journal) -> Result<()> {
        let attributes = journal.changes.iter().any(|c| c.path.is_gitattributes());
        if attributes {
            return Ok(());
        }
        let paths = journal.changes.iter().map(|c| &c.path);
        let sparse = index_write::sparse_paths(repo, paths)?;
        for change in &journal.changes {
            let Some(im) = change.after else {
                continue;
            };
            if sparse.contains(&change.path) {
                continue;
            }
            if checkout::stage_blob(repo, &change.path, im.id, im.mode, &mut self.dirs)? {
                self.paths.insert(change.path.clone());
            }
        }
        // Batch mode: the staged files' writebacks were started one by one;
        // one flush waits for them all before the branch moves.
        if !self.paths.is_empty() && durable::policy(repo) == durable::Flush::Batch {
            durable::flush_filesystems(repo)?;
        }
        Ok(())
    }

    /// Removes the temp files and new directories of a landing that did
    /// not happen.
    pub fn discard(&self, repo: &Repo) {
        for path in &self.paths {
            checkout::remove_temp(repo, path);
        }
        checkout::remove_created_dirs(&self.dirs);
    }
}
