//! Writing the index the way git does: create `index.lock` exclusively,
//! hold it while the working tree changes, put the new index bytes in it
//! and rename it over `index`. The new index is the current one (as
//! `repo::index` holds it) with the landing's entries replaced, serialised
//! by `formats::index` into a file of our own under `<git-dir>/evolv/` first.
//!
//! The lock is created with its content already in place (a temp file
//! hard-linked to `index.lock`, which fails if it exists), the content
//! being the landing's nonce: a stale lock is recognisably git-evolv's, and
//! a lock git-evolv did not create is never deleted.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::Oid;

use crate::error::{Error, Result};
use crate::formats::index;
use crate::{Repo, RepoPath};

const MODE_GITLINK: u32 = crate::types::mode::GITLINK;

/// `GIT_INDEX_ENTRY_SKIP_WORKTREE` in an entry's extended flags: the path is
/// outside the sparse checkout, and git keeps no file for it.
const SKIP_WORKTREE: u16 = 1 << 14;

/// Whether `entry` is outside the sparse checkout (skip-worktree).
pub fn skips_worktree(entry: &index::Entry) -> bool {
    entry.flags_extended & SKIP_WORKTREE != 0
}

/// The paths among `paths` whose index entry is outside the sparse checkout
/// and have no file in the working tree: a landing updates their entries
/// (keeping the bit) and writes no file, as `git checkout` does.
pub fn sparse_paths<'a>(
    repo: &Repo,
    paths: impl Iterator<Item = &'a RepoPath>,
) -> Result<std::collections::HashSet<RepoPath>> {
    let workdir = crate::workdir(repo)?;
    repo.with_index(|index| {
        paths
            .filter(|p| {
                index.get(p.as_bytes(), 0).is_some_and(skips_worktree)
                    && fs::symlink_metadata(workdir.join(p.fs())).is_err()
            })
            .cloned()
            .collect()
    })
}

/// `index.lock`, created by git-evolv and removed on drop unless committed.
#[derive(Debug)]
pub struct IndexLock {
    path: PathBuf,
    held: bool,
}

pub use crate::repo::index::index_path;

/// `<git-dir>/index.lock`.
pub fn lock_path(repo: &Repo) -> PathBuf {
    repo.raw().path().join("index.lock")
}

fn marker(nonce: &str) -> String {
    format!("git-evolv landing {nonce}\n")
}

impl IndexLock {
    /// Creates `index.lock` holding `nonce`; `IndexLocked` (git's message)
    /// when it exists.
    pub fn acquire(repo: &Repo, nonce: &str) -> Result<IndexLock> {
        let path = lock_path(repo);
        let dir = repo.raw().path().join("evolv");
        fs::create_dir_all(&dir).map_err(|e| Error::io("create", &dir, e))?;
        let tmp = dir.join("index.lock.tmp");
        let _ = fs::remove_file(&tmp);
        let mut file = File::create(&tmp).map_err(|e| Error::io("create", &tmp, e))?;
        file.write_all(marker(nonce).as_bytes())
            .map_err(|e| Error::io("write", &tmp, e))?;
        drop(file);
        let linked = fs::hard_link(&tmp, &path);
        let _ = fs::remove_file(&tmp);
        match linked {
            Ok(()) => Ok(IndexLock { path, held: true }),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => Err(Error::IndexLocked { path }),
            Err(_) => {
                // No hard links on this file system: create it exclusively,
                // then fill it (a kill in between leaves an empty lock, which
                // recovery leaves to the user, as git would).
                let mut file = match OpenOptions::new().write(true).create_new(true).open(&path) {
                    Ok(f) => f,
                    Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                        return Err(Error::IndexLocked { path });
                    }
                    Err(e) => return Err(Error::io("create", &path, e)),
                };
                let lock = IndexLock { path, held: true };
                file.write_all(marker(nonce).as_bytes())
                    .map_err(|e| Error::io("write", &lock.path, e))?;
                Ok(lock)
            }
        }
    }

    /// Puts the index built in `new_index` into the lock (by rename, so the
    /// lock never disappears), then renames the lock over `index`. The
    /// caller records `new_index`'s checksum in the journal first.
    pub fn commit(mut self, repo: &Repo, new_index: &Path) -> Result<()> {
        // Flushed with everything else before the journal goes (see
        // `repo::durable`), not here, inside the landing's critical stretch.
        fs::rename(new_index, &self.path).map_err(|e| Error::io("rename", &self.path, e))?;
        crate::crashpoint!("before-index-rename");
        let index = index_path(repo.raw());
        fs::rename(&self.path, &index).map_err(|e| Error::io("rename into place", &index, e))?;
        self.held = false;
        crate::crashpoint!("after-index-rename");
        Ok(())
    }
}

impl Drop for IndexLock {
    fn drop(&mut self) {
        if self.held {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Whether the `index.lock` present is one git-evolv created for the
/// landing with `nonce` (its marker, or the index bytes whose trailing
/// checksum the journal recorded).
pub fn lock_is_ours(repo: &Repo, nonce: &str, checksum: Option<&str>) -> bool {
    let path = lock_path(repo);
    let Ok(mut file) = File::open(&path) else {
        return false;
    };
    let want = marker(nonce);
    let mut head = vec![0u8; want.len() + 1];
    let n = read_up_to(&mut file, &mut head);
    if &head[..n] == want.as_bytes() {
        return true;
    }
    match checksum {
        Some(sum) => trailing_checksum_of(&mut file).is_some_and(|s| s == sum),
        None => false,
    }
}

fn read_up_to(file: &mut File, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    n
}

fn trailing_checksum_of(file: &mut File) -> Option<String> {
    let len = file.metadata().ok()?.len();
    if len < 32 {
        return None;
    }
    file.seek(SeekFrom::Start(len - 20)).ok()?;
    let mut sum = [0u8; 20];
    file.read_exact(&mut sum).ok()?;
    Some(sum.iter().map(|b| format!("{b:02x}")).collect())
}

/// The trailing checksum of an index file (what the journal records).
pub fn trailing_checksum(path: &Path) -> Result<String> {
    let mut file = File::open(path).map_err(|e| Error::io("open", path, e))?;
    trailing_checksum_of(&mut file).ok_or_else(|| {
        Error::io(
            "read",
            path,
            std::io::Error::other("too short for an index file"),
        )
    })
}

/// What the index should say about one changed path.
#[derive(Debug, Clone, Copy)]
pub enum Entry {
    /// Not in the index.
    Absent,
    /// This blob and mode, with the stat data of the file now in the
    /// working tree (which holds exactly that content).
    Clean { id: Oid, mode: u32 },
    /// This blob and mode, no stat data: git re-reads the file and sees the
    /// user's own change to it as unstaged.
    Stale { id: Oid, mode: u32 },
    /// `Clean`, with the stat data its writer took from the file it had
    /// just written, as git's checkout takes it (`fstat` of the written
    /// file): no second look-up of the path.
    Written { id: Oid, mode: u32, stat: Stat },
}

/// The stat data an index entry records.
#[derive(Debug, Clone, Copy)]
pub struct Stat {
    ctime: (u32, u32),
    mtime: (u32, u32),
    dev: u32,
    ino: u32,
    uid: u32,
    gid: u32,
    size: u32,
}

impl Stat {
    /// The index's truncated copy of `meta` (git keeps 32 bits of each).
    pub fn of(meta: &fs::Metadata) -> Stat {
        let time = |s: i64, ns: i64| (s as u32, ns as u32);
        Stat {
            ctime: time(meta.ctime(), meta.ctime_nsec()),
            mtime: time(meta.mtime(), meta.mtime_nsec()),
            dev: meta.dev() as u32,
            ino: meta.ino() as u32,
            uid: meta.uid(),
            gid: meta.gid(),
            size: meta.len() as u32,
        }
    }
}

/// `<git-dir>/evolv/index-new.<pid>.<thread>`: an index `build` wrote, before it
/// is renamed over `index` (as the early index, or through `index.lock`).
fn new_path(repo: &Repo) -> PathBuf {
    own_path(repo, NEW_PREFIX)
}

/// `<git-dir>/evolv/<prefix><pid>.<thread>`: a file of this thread's,
/// which `clean_leftovers` removes once the process is gone. Per thread,
/// not per process: in a server (the review page, the MCP server) one
/// request's session ending must not remove the index another request's
/// landing is about to put in place.
fn own_path(repo: &Repo, prefix: &str) -> PathBuf {
    repo.raw()
        .path()
        .join("evolv")
        .join(format!("{prefix}{}.{}", std::process::id(), thread_tag()))
}

/// A number for this thread, unique in the process.
fn thread_tag() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    thread_local! {
        static TAG: u64 = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    TAG.with(|t| *t)
}

const NEW_PREFIX: &str = "index-new.";

/// Reads (or reuses, see `repo::index`) the repository's index; every
/// command that may land calls this before anything looks at the index.
pub fn load(repo: &Repo) -> Result<()> {
    repo.load_index()
}

/// Builds the new index (the current one with `entries` applied), writes
/// it to a file under `<git-dir>/evolv/` and returns its path (a landing
/// flushes it with everything else before its journal goes).
pub fn build(repo: &Repo, entries: &[(RepoPath, Entry)]) -> Result<PathBuf> {
    let workdir = crate::workdir(repo)?;
    let (mut index, read_mtime) = repo.take_index()?;
    let mut changes = Vec::with_capacity(entries.len());
    for (p, entry) in entries {
        let (id, mode, stat) = match *entry {
            Entry::Absent => {
                changes.push((p.as_bytes().to_vec(), None));
                continue;
            }
            Entry::Clean { id, mode } => (id, mode, worktree_stat(workdir, p, mode)?),
            Entry::Written { id, mode, stat } => (id, mode, Some(stat)),
            Entry::Stale { id, mode } => (id, mode, None),
        };
        let mut new = index_entry(p, id, mode, stat);
        // A path outside the sparse checkout stays outside it while the
        // landing writes no file there.
        let sparse = matches!(entry, Entry::Stale { .. })
            && index.get(p.as_bytes(), 0).is_some_and(skips_worktree)
            && fs::symlink_metadata(workdir.join(p.fs())).is_err();
        if sparse {
            new.flags_extended |= SKIP_WORKTREE;
        }
        changes.push((p.as_bytes().to_vec(), Some(new)));
    }
    // Entries carried over, not the ones just written (whose files match).
    if let Some(secs) = read_mtime {
        index.smudge_racy(secs as u32);
    }
    index.replace(changes);
    let path = new_path(repo);
    let dir = path.parent().expect("under the git dir");
    fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let bytes = index.serialize();
    let mut file = File::create(&path).map_err(|e| Error::io("create", &path, e))?;
    file.write_all(&bytes)
        .map_err(|e| Error::io("write", &path, e))?;
    // Its writeback starts now; the landing's flush waits for it.
    if crate::repo::durable::policy(repo) != crate::repo::durable::Flush::Off {
        crate::repo::durable::start_writeback_if_targeted(repo, &file);
    }
    drop(file);
    repo.put_index(index, &path)?;
    Ok(path)
}

/// `Entry::Clean`'s index entry for `path`: blob `id` with `mode` and the
/// stat data of the file now in the working tree.
pub fn clean_entry(repo: &Repo, path: &RepoPath, id: Oid, mode: u32) -> Result<index::Entry> {
    let stat = worktree_stat(crate::workdir(repo)?, path, mode)?;
    Ok(index_entry(path, id, mode, stat))
}

/// The stat data an index entry of `path` records: its file's, or none
/// for a submodule (a gitlink).
fn worktree_stat(workdir: &Path, path: &RepoPath, mode: u32) -> Result<Option<Stat>> {
    if mode == MODE_GITLINK {
        return Ok(None);
    }
    let full = workdir.join(path.fs());
    fs::symlink_metadata(&full)
        .map(|m| Some(Stat::of(&m)))
        .map_err(|e| Error::io("stat", &full, e))
}

/// Writes an index made elsewhere (`index::Patch`, through `write`)
/// where `build` puts its own, for `IndexLock::commit`.
pub fn write_new(
    repo: &Repo,
    write: impl FnOnce(&mut std::io::BufWriter<File>) -> std::io::Result<()>,
) -> Result<PathBuf> {
    let path = new_path(repo);
    let dir = path.parent().expect("under the git dir");
    fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let file = File::create(&path).map_err(|e| Error::io("create", &path, e))?;
    let mut out = std::io::BufWriter::new(file);
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(|e| Error::io("write", &path, e))?;
    Ok(path)
}

fn index_entry(path: &RepoPath, id: Oid, mode: u32, stat: Option<Stat>) -> index::Entry {
    let Stat {
        ctime,
        mtime,
        dev,
        ino,
        uid,
        gid,
        size,
    } = stat.unwrap_or(Stat {
        ctime: (0, 0),
        mtime: (0, 0),
        dev: 0,
        ino: 0,
        uid: 0,
        gid: 0,
        size: 0,
    });
    let mut raw = [0u8; 20];
    raw.copy_from_slice(id.as_bytes());
    index::Entry {
        ctime,
        mtime,
        dev,
        ino,
        mode,
        uid,
        gid,
        size,
        id: raw,
        flags: 0,
        flags_extended: 0,
        path: path.as_bytes().to_vec(),
    }
}

/// `<git-dir>/evolv/index-before.<pid>.<thread>`: the index an installed early
/// index replaced, kept until the compare-and-swap has decided.
fn before_path(repo: &Repo) -> PathBuf {
    own_path(repo, BEFORE_PREFIX)
}

const BEFORE_PREFIX: &str = "index-before.";

/// The index an installed early index replaced (a hard link to it, or
/// nothing when there was no index).
#[derive(Debug)]
pub struct Replaced {
    saved: Option<PathBuf>,
}

/// Puts an index `build` wrote over `<git-dir>/index` while
/// `index.lock` stays held (so git can read it but not write the index),
/// keeping the one it replaces until `Replaced::keep_new` or `restore`.
pub fn install_early(repo: &Repo, early: &Path) -> Result<Replaced> {
    let index = index_path(repo.raw());
    let saved = before_path(repo);
    let _ = fs::remove_file(&saved);
    let saved = match fs::hard_link(&index, &saved) {
        Ok(()) => Some(saved),
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io("keep a link to", &index, e)),
    };
    if let Err(e) = fs::rename(early, &index) {
        if let Some(saved) = &saved {
            let _ = fs::remove_file(saved);
        }
        return Err(Error::io("rename into place", &index, e));
    }
    Ok(Replaced { saved })
}

impl Replaced {
    /// The new index stays: forget the old one.
    pub fn keep_new(self) {
        if let Some(saved) = &self.saved {
            let _ = fs::remove_file(saved);
        }
    }

    /// Puts the replaced index back (the compare-and-swap failed).
    pub fn restore(self, repo: &Repo) -> Result<()> {
        let index = index_path(repo.raw());
        match &self.saved {
            Some(saved) => fs::rename(saved, &index).map_err(|e| Error::io("restore", &index, e)),
            None => match fs::remove_file(&index) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
                Err(e) => Err(Error::io("remove", &index, e)),
            },
        }
    }
}

/// Whether the index holds exactly `entries` at stage 0 (and no conflict
/// stages) for their paths: ids and modes, stat data aside.
pub fn holds(repo: &Repo, entries: &[(RepoPath, Entry)]) -> Result<bool> {
    repo.with_index(|index| {
        entries.iter().all(|(p, entry)| {
            let path = p.as_bytes();
            let now = index.get(path, 0).map(|e| (e.oid(), e.mode));
            let want = match *entry {
                Entry::Absent => None,
                Entry::Clean { id, mode }
                | Entry::Stale { id, mode }
                | Entry::Written { id, mode, .. } => Some((id, mode)),
            };
            !index.conflicted(path) && now == want
        })
    })
}

/// Drops an index `build` wrote that was never put in place.
pub fn discard_early(repo: &Repo) {
    let _ = fs::remove_file(new_path(repo));
}

/// Forgets this process's parse of the index and removes its temp files.
/// Every command ends with this.
pub fn release(repo: &Repo) {
    repo.forget_index();
    discard_early(repo);
    let _ = fs::remove_file(before_path(repo));
}

/// What earlier versions named their per-process index files.
const LEGACY_PREFIXES: [&str; 2] = ["index-view.", "index-early."];

/// Removes what a killed landing may have left under `<git-dir>/evolv/`
/// besides the journal: the lock's temp file, and the index files of
/// processes that no longer run (on Linux, where `/proc` tells).
pub fn clean_leftovers(repo: &Repo) {
    let dir = repo.raw().path().join("evolv");
    let _ = fs::remove_file(dir.join("index.lock.tmp"));
    release(repo);
    let proc_fs = Path::new("/proc/self").exists();
    let Ok(entries) = fs::read_dir(&dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| {
            [
                NEW_PREFIX,
                BEFORE_PREFIX,
                crate::repo::durable::BARRIER_PREFIX,
            ]
            .iter()
            .chain(&LEGACY_PREFIXES)
            .find_map(|p| n.strip_prefix(p))
        }) else {
            continue;
        };
        // `<pid>.<thread>`, or `<pid>` as earlier versions named them.
        let pid = rest.split('.').next().unwrap_or_default();
        if proc_fs && pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{new_path, release};

    /// One thread's session ending (`release`) leaves the index another
    /// thread of the same process built and is about to put in place: the
    /// review page and the MCP server serve requests on several threads.
    #[test]
    fn a_release_on_another_thread_leaves_this_threads_new_index() {
        let dir = crate::test_git::new_repo();
        let repo = crate::repo::open::open(dir.path()).unwrap();
        std::fs::create_dir_all(repo.git_dir().join("evolv")).unwrap();
        let mine = new_path(&repo);
        std::fs::write(&mine, b"an index being landed").unwrap();
        let path = dir.path().to_path_buf();
        std::thread::spawn(move || {
            let other = crate::repo::open::open(&path).unwrap();
            release(&other);
        })
        .join()
        .unwrap();
        assert!(mine.exists(), "another thread's release removed {mine:?}");
        release(&repo);
        assert!(!mine.exists(), "this thread's release removes its own");
    }
}
