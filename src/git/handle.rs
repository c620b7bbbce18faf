//! The repository handle: the libgit2 repository, its work tree (a bare
//! repository has none, and is refused once, when a command that needs
//! one opens it) and what a command learns about the repository once and
//! reuses. Not `Sync` (libgit2 repositories are not); one per session.

use std::ops::Deref;
use std::path::{Path, PathBuf};

use git2::Repository;

use crate::error::{Error, Result};

/// An open repository. Derefs to the libgit2 `Repository` for the
/// adapter code that reads objects and refs.
pub struct Repo {
    repo: Repository,
    workdir: Option<PathBuf>,
}

impl Repo {
    /// Wraps a repository a library user opened; a bare one is refused.
    pub fn new(repo: Repository) -> Result<Repo> {
        let repo = Repo::new_any(repo);
        repo.work_tree()?;
        Ok(repo)
    }

    /// Wraps a repository that may be bare (the read-only views).
    pub fn new_any(repo: Repository) -> Repo {
        let workdir = match repo.is_bare() {
            true => None,
            false => repo.workdir().map(Path::to_path_buf),
        };
        Repo { repo, workdir }
    }

    /// The libgit2 repository.
    pub fn raw(&self) -> &Repository {
        &self.repo
    }

    /// The top of the work tree; `BareRepository` for a bare repository.
    pub fn work_tree(&self) -> Result<&Path> {
        self.workdir
            .as_deref()
            .ok_or_else(|| Error::BareRepository {
                path: self.repo.path().to_path_buf(),
            })
    }

    /// git itself, run at the top of the work tree (or in the git dir of a
    /// bare repository): for what libgit2 cannot do (filters, hooks).
    pub fn git(&self) -> Result<super::cli::Git> {
        let dir = self.workdir.as_deref().unwrap_or(self.repo.path());
        super::cli::Git::open(dir)
    }
}

impl Deref for Repo {
    type Target = Repository;

    fn deref(&self) -> &Repository {
        &self.repo
    }
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo")
            .field("git_dir", &self.repo.path())
            .field("work_tree", &self.workdir)
            .finish()
    }
}
