//! The repository handle: the libgit2 repository, its work tree (a bare
//! repository has none, and is refused once, when a command that needs
//! one opens it) and what a command learns about the repository once and
//! reuses. Not `Sync` (libgit2 repositories are not); one per session.

use std::cell::{OnceCell, RefCell};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use git2::Repository;

use crate::RepoPath;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::formats::index::IndexFile;
use crate::repo::attr_index;
use crate::repo::attr_sources::{self, Sources};
use crate::repo::index::Snapshot;
use crate::repo::learnt::{Learnt, Memo};

/// An open repository. The libgit2 repository inside stays inside this
/// crate: the layers above ask the handle for what they need, by name.
pub struct Repo {
    repo: Repository,
    workdir: Option<PathBuf>,
    /// The parsed index, reloaded when the file changes (`index`).
    index: RefCell<Snapshot>,
    /// What attribute lookups may skip (`attr_sources`), learnt once.
    attributes: RefCell<Option<Sources>>,
    /// `core.autocrlf=true` and `core.eol=crlf`, read once.
    eol: OnceCell<(bool, bool)>,
    /// Git's configuration, every layer, read once when first asked for
    /// (forgotten when this handle writes a setting).
    config: RefCell<Option<Arc<Config>>>,
    /// Settings and facts learnt once (`learnt`), shared with the handles
    /// reopened from this one.
    learnt: Memo,
}

impl Repo {
    /// Wraps a repository a library user opened; a bare one is refused.
    pub(crate) fn new(repo: Repository) -> Result<Repo> {
        let repo = Repo::new_any(repo);
        repo.work_tree()?;
        Ok(repo)
    }

    /// Wraps a repository that may be bare (the read-only views).
    pub(crate) fn new_any(repo: Repository) -> Repo {
        let workdir = match repo.is_bare() {
            true => None,
            false => repo.workdir().map(Path::to_path_buf),
        };
        Repo {
            repo,
            workdir,
            index: RefCell::default(),
            attributes: RefCell::default(),
            eol: OnceCell::new(),
            config: RefCell::default(),
            learnt: Memo::default(),
        }
    }

    /// This handle, sharing what `learnt` knew (a reopened handle).
    pub(crate) fn sharing(mut self, learnt: Memo) -> Repo {
        self.learnt = learnt;
        self
    }

    /// What this handle and those reopened from it learnt.
    pub(crate) fn memo(&self) -> &Memo {
        &self.learnt
    }

    /// The value of kind `T` for this repository, computed by `init` the
    /// first time this handle (or one it was reopened from) asks.
    pub(crate) fn learnt<T: Learnt>(&self, init: impl FnOnce() -> T) -> T {
        self.learnt.get(init)
    }

    /// The libgit2 repository.
    pub(crate) fn raw(&self) -> &Repository {
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

    /// Git's configuration as git sees it (every layer, `git -c`
    /// included), read once per handle: every use case of a session reads
    /// this one value. A config that cannot be read is an error each time
    /// it is asked for, and is not kept.
    pub fn config(&self) -> Result<Arc<Config>> {
        if let Some(config) = self.config.borrow().as_ref() {
            return Ok(config.clone());
        }
        let config = Arc::new(Config::for_git_dir(self.repo.path())?);
        *self.config.borrow_mut() = Some(config.clone());
        Ok(config)
    }

    /// Forgets the configuration read, and what was learnt from it, after
    /// this handle wrote a setting.
    pub(crate) fn forget_config(&self) {
        self.config.borrow_mut().take();
        self.learnt.forget();
    }

    /// git itself, run at the top of the work tree (or in the git dir of a
    /// bare repository): for what libgit2 cannot do (filters, hooks).
    pub fn git(&self) -> Result<crate::process::cli::Git> {
        let dir = self.workdir.as_deref().unwrap_or(self.repo.path());
        crate::process::cli::Git::open(dir)
    }
}

/// The parsed index (see `index`).
impl Repo {
    /// Reads the index, or keeps the parse while the file is unchanged.
    pub fn load_index(&self) -> Result<()> {
        self.index.borrow_mut().load(&self.repo)
    }

    /// Runs `f` on the current index.
    pub fn with_index<T>(&self, f: impl FnOnce(&IndexFile) -> T) -> Result<T> {
        // Not borrowed while `f` runs, which may read the index itself.
        let current = self.index.borrow_mut().current(&self.repo)?;
        Ok(f(&current))
    }

    /// Takes the current index out to change it, with the mtime (seconds)
    /// of the file it was read from.
    pub fn take_index(&self) -> Result<(IndexFile, Option<i64>)> {
        self.index.borrow_mut().take(&self.repo)
    }

    /// Keeps `file` as the parse of the index just written at `written`.
    pub fn put_index(&self, file: IndexFile, written: &Path) -> Result<()> {
        self.index.borrow_mut().put(&self.repo, file, written)
    }

    /// Drops the parse of the index.
    pub fn forget_index(&self) {
        self.index.borrow_mut().forget();
    }
}

/// What attribute lookups and conversions learn once per handle.
impl Repo {
    /// Whether no attribute can apply to `path` (see `attr_sources`).
    pub fn surely_unattributed(&self, path: &RepoPath) -> bool {
        let Some(workdir) = self.workdir.as_deref() else {
            return false;
        };
        self.learn_attribute_sources();
        let mut sources = self.attributes.borrow_mut();
        sources
            .as_mut()
            .is_some_and(|s| s.surely_unattributed(workdir, path))
    }

    /// [`Repo::surely_unattributed`] as a test of its own, for another
    /// thread (propose's editor): a copy of what the handle learnt, which
    /// goes on learning directories by itself. Always `false` in a bare
    /// repository.
    pub fn unattributed_test(&self) -> impl FnMut(&RepoPath) -> bool + Send + 'static {
        self.learn_attribute_sources();
        let mut sources = self.attributes.borrow().clone();
        let workdir = self.workdir.clone();
        move |path| match (sources.as_mut(), workdir.as_deref()) {
            (Some(s), Some(w)) => s.surely_unattributed(w, path),
            _ => false,
        }
    }

    /// Learns the attribute sources once. Where the index tracks a
    /// `.gitattributes` comes from a parse this handle already holds, else
    /// from one pass over the index file's raw entries (`attr_index`);
    /// only when that cannot tell (a split or sparse index) is the index
    /// parsed, which also points libgit2's lookups at those entries.
    fn learn_attribute_sources(&self) {
        if self.attributes.borrow().is_some() {
            return;
        }
        let parsed = self.index.borrow().is_loaded();
        let scanned = match parsed {
            true => None,
            false => attr_index::tracked_attribute_dirs(self.repo.path()),
        };
        let indexed = match scanned {
            Some(dirs) if dirs.is_empty() => attr_sources::Indexed::Dirs(dirs),
            // Tracked somewhere (or the scan cannot tell): parse after all,
            // so that libgit2's lookups read those entries from the parse,
            // not the whole file again.
            _ => self
                .with_index(attr_sources::indexed_dirs)
                .unwrap_or(attr_sources::Indexed::Unknown),
        };
        *self.attributes.borrow_mut() = Some(Sources::new(
            &self.repo,
            indexed,
            self.config()
                .ok()
                .and_then(|c| c.path("core.attributesFile")),
        ));
    }

    /// Forgets the attribute sources: a `.gitattributes` was written or
    /// removed.
    pub fn forget_attribute_sources(&self) {
        *self.attributes.borrow_mut() = None;
    }

    /// `core.autocrlf=true` and `core.eol=crlf`, computed by `init` once.
    pub fn eol(&self, init: impl FnOnce() -> (bool, bool)) -> (bool, bool) {
        *self.eol.get_or_init(init)
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

#[cfg(test)]
mod tests {
    use crate::test_git::git;

    use super::Repo;

    fn blob_of(repo: &Repo, path: &str) -> Option<crate::Oid> {
        repo.with_index(|ix| ix.get(path.as_bytes(), 0).map(|e| e.oid()))
            .unwrap()
    }

    /// The handle keeps its parse while the index file is the same, and
    /// reads it again when git changes it: a new file (another inode), or
    /// the same inode, size and mtime with other bytes (the checksum).
    #[test]
    fn the_index_is_read_again_when_its_identity_or_checksum_changes() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let index = d.join(".git/index");
        git(d, &["init", "-q"]);
        std::fs::write(d.join("a.txt"), "aaaa\n").unwrap();
        git(d, &["add", "a.txt"]);
        git(d, &["commit", "-qm", "a"]);
        std::fs::write(d.join("a.txt"), "bbbb\n").unwrap();
        git(d, &["add", "a.txt"]);
        let b_bytes = std::fs::read(&index).unwrap();

        let repo = crate::open(d).unwrap();
        let b = blob_of(&repo, "a.txt").unwrap();
        // git writes a new file (another inode): read again.
        std::fs::write(d.join("a.txt"), "cccc\n").unwrap();
        git(d, &["add", "a.txt"]);
        let c = blob_of(&repo, "a.txt").unwrap();
        assert_ne!(b, c);

        // B's bytes written over C's in place: same inode, same size, and
        // the mtime put back, so only the trailing checksum tells.
        let meta = std::fs::metadata(&index).unwrap();
        assert_eq!(meta.len(), b_bytes.len() as u64);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&index)
            .unwrap();
        (&file).write_all(&b_bytes).unwrap();
        file.set_modified(meta.modified().unwrap()).unwrap();
        drop(file);
        assert_eq!(blob_of(&repo, "a.txt"), Some(b));

        // Another handle has a snapshot of its own (nothing process-wide).
        let other = crate::open(d).unwrap();
        assert_eq!(blob_of(&other, "a.txt"), Some(b));
    }

    #[test]
    fn a_bare_repository_is_refused_once_at_open() {
        let dir = tempfile::tempdir().unwrap();
        git2::Repository::init_bare(dir.path()).unwrap();
        let err = crate::open(dir.path()).unwrap_err();
        assert_eq!(err.code(), "bare_repository");
        let any = crate::open_any(dir.path()).unwrap();
        assert_eq!(any.work_tree().unwrap_err().code(), "bare_repository");
        let raw = git2::Repository::open_bare(dir.path()).unwrap();
        assert_eq!(Repo::new(raw).unwrap_err().code(), "bare_repository");
    }
}
