//! The repository's index as git-evolv reads it: a snapshot the repository
//! handle (`git::Repo`) owns, parsed by `formats::index` (gix-index) and kept while the
//! file stays the same (same device, inode, size, mtime and trailing
//! checksum, as gitoxide's shared index snapshot), so the dirty check, the
//! early index and the final index of a landing share one parse, and an
//! index git-evolv just wrote is never read back. Nothing here is
//! process-wide: two handles, two snapshots.
//!
//! libgit2 still answers attribute lookups, which read `.gitattributes`
//! blobs from the index: the handle's libgit2 index is set to an in-memory
//! one holding just those entries, so it never parses (and checksums) the
//! whole file itself.

use crate::Context;
use std::fs;
use std::io::Read;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use git2::{IndexEntry, IndexTime};

use crate::error::{Error, Result};
use crate::formats::index::{IndexFile, Unreadable};

/// What identifies one version of an index file: its stat data and its
/// trailing checksum (one small read, as git's `verify_index` does), since
/// a file system reuses inode numbers and coarse timestamps repeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    checksum: [u8; 20],
}

impl Identity {
    /// The identity of the file at `path` (its last 20 bytes read alone).
    fn of(path: &Path) -> std::io::Result<Identity> {
        let file = fs::File::open(path)?;
        let meta = file.metadata()?;
        let mut checksum = [0u8; 20];
        if meta.len() >= 20 {
            file.read_exact_at(&mut checksum, meta.len() - 20)?;
        }
        Ok(Identity::from_parts(&meta, checksum))
    }

    fn from_parts(meta: &fs::Metadata, checksum: [u8; 20]) -> Identity {
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            checksum,
        }
    }
}

struct Loaded {
    path: PathBuf,
    /// `None`: there is no index file (an empty index).
    identity: Option<Identity>,
    /// Shared with the readers of `current`, so none holds the snapshot
    /// borrowed while it works (a dirty check reads attributes, which may
    /// read the index again).
    file: Arc<IndexFile>,
}

/// `<git-dir>/index`.
pub fn index_path(repo: &git2::Repository) -> PathBuf {
    repo.path().join("index")
}

/// The handle's parse of the index, if it has one.
#[derive(Default)]
pub struct Snapshot(Option<Loaded>);

fn current_identity(path: &Path) -> Result<Option<Identity>> {
    match Identity::of(path) {
        Ok(identity) => Ok(Some(identity)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("stat", path, e)),
    }
}

/// Reads and parses the index file at `path` through one open file, so
/// the identity and the content belong together; an empty index if there
/// is none, `None` if the file changed while a split index was read or
/// git had to make one plain first (read it again).
fn parse(repo: &git2::Repository, path: &Path) -> Result<Option<(IndexFile, Option<Identity>)>> {
    let mut file = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Some((IndexFile::empty(), None)));
        }
        Err(e) => return Err(Error::io("open", path, e)),
    };
    let meta = file.metadata().map_err(|e| Error::io("stat", path, e))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", path, e))?;
    let mut checksum = [0u8; 20];
    if bytes.len() >= 20 {
        checksum.copy_from_slice(&bytes[bytes.len() - 20..]);
    }
    let identity = Identity::from_parts(&meta, checksum);
    match IndexFile::parse(&bytes) {
        Ok(index) => Ok(Some((index, Some(identity)))),
        // Read whole, the shared index included; if that fails (a
        // shared index gix-index cannot read), git makes it plain first.
        Err(Unreadable::Split) => match IndexFile::read_split(&bytes, path) {
            Ok(Some(index)) => Ok(Some((index, Some(identity)))),
            Ok(None) => Ok(None),
            Err(_) => {
                unsplit(repo)?;
                Ok(None)
            }
        },
        Err(Unreadable::Sparse) => Err(sparse_refusal(repo)),
        Err(Unreadable::Unsupported(what)) => Err(Error::Corrupt {
            what: path.display().to_string(),
            message: format!(
                "{} uses {what}, which git-evolv cannot read; `git update-index --index-version 2` rewrites it in a form it can",
                path.display()
            ),
        }),
        Err(Unreadable::Corrupt(what)) => Err(Error::Corrupt {
            what: path.display().to_string(),
            message: format!(
                "{} is not a valid index file ({what}); git reports the same with `git status`",
                path.display()
            ),
        }),
    }
}

/// Has git rewrite a split index (`core.splitIndex`, `git update-index
/// --split-index`: mandatory extension `link`) as a plain one: it holds
/// the same entries, so the landing goes on, and git splits it again on
/// its next write if `core.splitIndex` says so. The index format reader
/// (`formats::index`) runs nothing; this loader does. Needs `index.lock`
/// free: git takes it for the rewrite.
fn unsplit(repo: &git2::Repository) -> Result<()> {
    // Not `git::workdir`: this sits below the handle (no import cycle).
    let workdir = repo.workdir().ok_or_else(|| Error::BareRepository {
        path: repo.path().to_path_buf(),
    })?;
    let lock = repo.path().join("index.lock");
    if lock.exists() {
        return Err(Error::IndexLocked { path: lock });
    }
    crate::process::cli::run(workdir, &["update-index", "--no-split-index"])
}

/// The refusal of a sparse index (`index.sparse`: extension `sdir`),
/// which folds whole directories into one entry, with the way out.
fn sparse_refusal(repo: &git2::Repository) -> Error {
    Error::UnsupportedRepository {
        path: repo.workdir().unwrap_or(repo.path()).to_path_buf(),
        what: "has a sparse index (index.sparse)",
        hint: "keep the sparse checkout but store a full index with `git sparse-checkout reapply --no-sparse-index`, then run git-evolv again",
    }
}

impl Snapshot {
    /// Makes sure the snapshot is the current index of `repo`, parsing it
    /// if it changed (a split index gix-index cannot read whole is first
    /// made plain by git, see `unsplit`).
    fn refresh(&mut self, repo: &git2::Repository) -> Result<&mut Loaded> {
        let path = index_path(repo);
        let fresh = match self.0.as_ref() {
            Some(l) if l.path == path && l.identity.is_some() => {
                current_identity(&path)? == l.identity
            }
            _ => false,
        };
        if !fresh {
            self.0 = None;
            let (file, identity) = match parse(repo, &path)? {
                Some(parsed) => parsed,
                // Changed while read, or git made it plain: read it again.
                None => parse(repo, &path)?.ok_or_else(|| Error::Corrupt {
                    what: path.display().to_string(),
                    message: format!("{} changed twice while it was read", path.display()),
                })?,
            };
            set_attribute_index(repo, &file)?;
            self.0 = Some(Loaded {
                path,
                identity,
                file: Arc::new(file),
            });
        }
        Ok(self.0.as_mut().expect("just filled"))
    }

    /// Reads (or reuses) the repository's index.
    pub fn load(&mut self, repo: &git2::Repository) -> Result<()> {
        self.refresh(repo).map(|_| ())
    }

    /// The repository's current index.
    pub fn current(&mut self, repo: &git2::Repository) -> Result<Arc<IndexFile>> {
        Ok(self.refresh(repo)?.file.clone())
    }

    /// Takes the repository's current index out of the snapshot to change
    /// it, with the mtime (seconds) of the file it was read from, if any.
    pub fn take(&mut self, repo: &git2::Repository) -> Result<(IndexFile, Option<i64>)> {
        self.refresh(repo)?;
        let loaded = self.0.take().expect("refreshed");
        // Nobody else holds it once the readers are done: no copy.
        let file = Arc::try_unwrap(loaded.file).unwrap_or_else(|shared| (*shared).clone());
        Ok((file, loaded.identity.map(|i| i.mtime.0)))
    }

    /// Keeps `file` as the parse of the index file just written at
    /// `written` (which is renamed over `index` next: same inode, same
    /// mtime).
    pub fn put(&mut self, repo: &git2::Repository, file: IndexFile, written: &Path) -> Result<()> {
        let identity = current_identity(written)?;
        set_attribute_index(repo, &file)?;
        self.0 = Some(Loaded {
            path: index_path(repo),
            identity,
            file: Arc::new(file),
        });
        Ok(())
    }

    /// Whether the snapshot holds a parse (of some version of the index).
    pub fn is_loaded(&self) -> bool {
        self.0.is_some()
    }

    /// Drops the parse.
    pub fn forget(&mut self) {
        self.0 = None;
    }
}

/// Points libgit2's attribute lookups at the `.gitattributes` entries of
/// `file` (see the module).
fn set_attribute_index(repo: &git2::Repository, file: &IndexFile) -> Result<()> {
    let doing = || "point attribute lookups at the index's .gitattributes";
    let mut index = git2::Index::new().context(doing)?;
    let zero = IndexTime::new(0, 0);
    for e in file.entries.iter().filter(|e| e.stage() == 0) {
        let name = e.path.rsplit(|&b| b == b'/').next().unwrap_or(&e.path);
        if name != b".gitattributes" {
            continue;
        }
        index
            .add(&IndexEntry {
                ctime: zero,
                mtime: zero,
                dev: 0,
                ino: 0,
                mode: e.mode,
                uid: 0,
                gid: 0,
                file_size: 0,
                id: e.oid().raw(),
                flags: 0,
                flags_extended: 0,
                path: e.path.clone(),
            })
            .context(doing)?;
    }
    repo.set_index(&mut index).context(doing)?;
    Ok(())
}
