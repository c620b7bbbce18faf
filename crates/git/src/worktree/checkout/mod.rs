//! Bringing single working-tree paths from one image to another. Files are
//! written to a temp file in the same directory and renamed into place, so
//! a reader (or a crash) never sees a torn file. The temp name carries this
//! repository's random tag (`<git-dir>/evolv/temp-tag`), so no file of
//! anyone else has it and recovery can still find one a killed process
//! left; it is created with `O_EXCL`, and a file git-evolv did not create
//! is never deleted (#16 item 19). Every path is checked by `confine`
//! before anything is written.

use crate::Context;
use crate::on_object;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::Oid;
use git2::ObjectType;

use crate::error::{Error, Result};
use crate::{Repo, RepoPath, worktree::confine, worktree::filters};

mod in_place;
pub use in_place::InPlace;

const MODE_SYMLINK: u32 = crate::types::mode::SYMLINK;
const MODE_EXECUTABLE: u32 = crate::types::mode::EXECUTABLE;
const MODE_GITLINK: u32 = crate::types::mode::GITLINK;

/// Refuses a path git-evolv must not write (see `confine`).
pub fn check_path(workdir: &Path, path: &RepoPath) -> Result<()> {
    if let Some(reason) = confine::refusal(path) {
        return Err(Error::UnsafePath {
            path: path.to_string(),
            reason: reason.to_string(),
        });
    }
    if let Some(prefix) = confine::blocked_prefix(workdir, path) {
        return Err(Error::UnsafePath {
            path: path.to_string(),
            reason: format!("'{prefix}' is a symlink or file in the working tree"),
        });
    }
    Ok(())
}

/// Whether the working tree holds exactly `image` at `path` (`None`: no
/// file there; an empty directory counts as none).
pub fn holds(repo: &Repo, path: &RepoPath, image: Option<(Oid, u32)>) -> Result<bool> {
    let workdir = crate::workdir(repo)?;
    let full = workdir.join(path.fs());
    let meta = match fs::symlink_metadata(&full) {
        Ok(m) => m,
        Err(_) => return Ok(image.is_none()),
    };
    let Some((id, mode)) = image else {
        return Ok(meta.is_dir() && is_empty_dir(&full));
    };
    if mode == MODE_GITLINK {
        return Ok(meta.is_dir());
    }
    if mode == MODE_SYMLINK {
        if !meta.file_type().is_symlink() {
            return Ok(false);
        }
        let blob = repo.raw().find_blob(id.raw()).context(|| {
            on_object("read blob", id).said(format!("read blob {id} of {}", full.display()))
        })?;
        let target = fs::read_link(&full).map_err(|e| Error::io("read link", &full, e))?;
        return Ok(target.as_os_str().as_encoded_bytes() == blob.content());
    }
    let executable = meta.permissions().mode() & 0o111 != 0;
    if !meta.is_file() || executable != (mode == MODE_EXECUTABLE) {
        return Ok(false);
    }
    if let Some(expected) = filters::smudged(repo, path, id)? {
        // Compare with what git's checkout writes, not the blob itself; a
        // file written under other attributes (a landing that changes
        // `.gitattributes`, killed half-way) holds the blob if git's clean
        // filters turn it back into it.
        let same = meta.len() == expected.len() as u64
            && fs::read(&full).map_err(|e| Error::io("read", &full, e))? == expected;
        return Ok(same || filters::cleaned_id(repo, path)? == id);
    }
    // The blob's size from its header (a delta's from the delta's own
    // header): reading the whole blob for it inflated every changed file's
    // old and new content once more per landing.
    let (size, _) = repo
        .raw()
        .odb()
        .and_then(|odb| odb.read_header(id.raw()))
        .context(|| on_object("read the header of blob", id))?;
    if meta.len() != size as u64 {
        return Ok(false);
    }
    Ok(crate::hash_blob_file(&full).ok() == Some(id))
}

/// Whether the regular file at `path` is what a power cut can leave of
/// blob `id` written without a flush (`durable::flushes_worktree`): the
/// file system committed its name but not all of its data, so it is
/// shorter (empty, on ext4, whose blocks are allocated at writeback) or
/// holds zeros where the data never reached the disk (XFS). Every byte is
/// then the blob's byte at the same offset, or zero, and there are no more
/// of them. Recovery rewrites such a file instead of keeping it as the
/// user's edit; an edit that only truncated or zeroed the new content is
/// the one it cannot tell apart.
pub fn holds_torn(repo: &Repo, path: &RepoPath, id: Oid, mode: u32) -> Result<bool> {
    if mode == MODE_SYMLINK || mode == MODE_GITLINK {
        return Ok(false);
    }
    let full = crate::workdir(repo)?.join(path.fs());
    match fs::symlink_metadata(&full) {
        Ok(meta) if meta.is_file() => {}
        _ => return Ok(false),
    }
    let blob = blob_for(repo, id, &full)?;
    let smudged = filters::smudged(repo, path, id)?;
    let expected = smudged.as_deref().unwrap_or(blob.content());
    let found = fs::read(&full).map_err(|e| Error::io("read", &full, e))?;
    Ok(found.len() <= expected.len() && found.iter().zip(expected).all(|(f, e)| f == e || *f == 0))
}

/// Whether no file or symlink is at `path` (nothing, or a directory: the
/// file a landing removes may since have become one).
pub fn has_no_file(repo: &Repo, path: &RepoPath) -> bool {
    let Ok(workdir) = crate::workdir(repo) else {
        return true;
    };
    fs::symlink_metadata(workdir.join(path.fs())).map_or(true, |m| m.is_dir())
}

/// Whether nothing at all is at `path` (not even a directory).
pub fn is_missing(repo: &Repo, path: &RepoPath) -> bool {
    crate::workdir(repo).is_ok_and(|w| {
        fs::symlink_metadata(w.join(path.fs()))
            .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
    })
}

fn is_empty_dir(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|mut d| d.next().is_none())
}

/// Writes blob `id` with `mode` at `path`: temp file, then rename. An empty
/// directory in the way is removed; anything else in the way is an error.
pub fn write_blob(repo: &Repo, path: &RepoPath, id: Oid, mode: u32) -> Result<()> {
    let workdir = crate::workdir(repo)?;
    check_path(workdir, path)?;
    let full = workdir.join(path.fs());
    if mode == MODE_GITLINK {
        return fs::create_dir_all(&full).map_err(|e| Error::io("create", &full, e));
    }
    let parent = full.parent().expect("a repository path has a parent");
    fs::create_dir_all(parent).map_err(|e| Error::io("create directory", parent, e))?;
    write_temp(repo, path, &full, id, mode, false)?;
    place_staged(repo, path)
}

/// Before the landing decides (see `land::move_branch_in_turn`), on its
/// thread: whether `path` is written in bulk at all, and its missing
/// parent directories created (returned outermost first in `created`).
/// `false` for a gitlink, or when a leading component is a file the
/// landing removes first: those are written once the way is clear.
pub fn prepare_stage(
    repo: &Repo,
    path: &RepoPath,
    mode: u32,
    created: &mut Vec<PathBuf>,
) -> Result<bool> {
    let workdir = crate::workdir(repo)?;
    if mode == MODE_GITLINK || confine::blocked_prefix(workdir, path).is_some() {
        return Ok(false);
    }
    let full = workdir.join(path.fs());
    let parent = full.parent().expect("a repository path has a parent");
    // Most parents exist: one stat, and none for a directory this
    // landing already created, or one `blocked_prefix` just found (the
    // paths come in order: a directory's files are neighbours).
    let known = || {
        let bytes = path.as_bytes();
        bytes
            .iter()
            .rposition(|&b| b == b'/')
            .is_some_and(|i| confine::is_known_dir(&bytes[..i]))
    };
    if parent == workdir
        || created.last().is_some_and(|d| d == parent)
        || known()
        || parent.is_dir()
    {
        return Ok(true);
    }
    let mut missing = Vec::new();
    let mut dir = parent;
    while !dir.exists() && dir != workdir {
        missing.push(dir.to_path_buf());
        dir = dir.parent().expect("inside the working tree");
    }
    for dir in missing.into_iter().rev() {
        fs::create_dir(&dir).map_err(|e| Error::io("create directory", &dir, e))?;
        created.push(dir);
    }
    Ok(true)
}

/// The temp file of `path` (whose parent exists) written and its flush
/// started, handed back still open (none for a symlink), so that the
/// thread that wrote it can wait for its data (`durable::settle_open`)
/// without opening it again by name. Any thread, with its own `Repo`.
pub fn write_staged_open(
    repo: &Repo,
    path: &RepoPath,
    id: Oid,
    mode: u32,
) -> Result<Option<(PathBuf, fs::File)>> {
    let full = crate::workdir(repo)?.join(path.fs());
    write_temp(repo, path, &full, id, mode, true)
}

/// How many threads write a landing's `files` files, as git's
/// `checkout.workers` and `checkout.thresholdForParallelism` say (read
/// once): a value below 1 means one per core, and unlike git the default
/// is one per core (at most 8), since a codemod writes thousands of small
/// files; below the threshold (default 100) one thread writes them all.
pub fn workers(repo: &Repo, files: usize) -> Result<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    threads(repo, files, cores)
}

/// How many threads rename a landing's `files` staged files into place:
/// as `workers`, except that the default is 8 whatever the cores, since a
/// rename mostly waits for the device (it frees the old file's blocks,
/// which some file systems discard before the call returns).
pub fn rename_workers(repo: &Repo, files: usize) -> Result<usize> {
    threads(repo, files, 8)
}

/// Refuses a `checkout.workers` or `checkout.thresholdForParallelism`
/// git would refuse, before anything is written.
pub fn check_worker_settings(repo: &Repo) -> Result<()> {
    threads(repo, 0, 1).map(drop)
}

/// `checkout.workers` (`default` when below 1) under git's threshold. A
/// value git would refuse is refused, naming the setting.
fn threads(repo: &Repo, files: usize, default: usize) -> Result<usize> {
    const KEYS: [&str; 2] = ["checkout.workers", "checkout.thresholdForParallelism"];
    /// The two, read once per handle; `None`: a value that is not an
    /// integer (rare: read again to say so).
    #[derive(Clone, Copy)]
    struct Settings(Option<(i64, usize)>);
    impl crate::repo::learnt::Learnt for Settings {}
    let read = || -> std::result::Result<(i64, i64), (String, String)> {
        let Ok(config) = repo.config() else {
            return Ok((0, 100));
        };
        let int = |key: &str, unset: i64| match config.string(key) {
            None => Ok(unset),
            Some(v) => crate::config::parse_int(v).ok_or((key.to_string(), v.to_string())),
        };
        Ok((int(KEYS[0], 0)?, int(KEYS[1], 100)?))
    };
    let settings = repo.learnt(|| Settings(read().ok().map(|(w, t)| (w, t.max(0) as usize))));
    let Some((workers, threshold)) = settings.0 else {
        let (key, value) = read().err().unwrap_or_default();
        return Err(Error::InvalidConfig {
            key,
            value,
            expected: "an integer, as git reads it (e.g. 4, or 0 for one thread per core)".into(),
        });
    };
    let wanted = if workers < 1 {
        default
    } else {
        workers as usize
    };
    Ok(if files < threshold.max(2) {
        1
    } else {
        wanted.min(files)
    })
}

/// The temp file of `full`, holding blob `id` as git's checkout writes it.
fn write_temp(
    repo: &Repo,
    path: &RepoPath,
    full: &Path,
    id: Oid,
    mode: u32,
    staged: bool,
) -> Result<Option<(PathBuf, fs::File)>> {
    let blob = blob_for(repo, id, full)?;
    let tmp = temp_sibling(repo, full);
    if mode == MODE_SYMLINK {
        let target = std::ffi::OsStr::from_bytes(blob.content());
        return create_fresh(&tmp, || std::os::unix::fs::symlink(target, &tmp))
            .map(|()| None)
            .map_err(|e| Error::io("create symlink", &tmp, e));
    }
    let perms = file_permissions(mode);
    let smudged = filters::smudged(repo, path, id)?;
    let bytes = smudged.as_deref().unwrap_or(blob.content());
    let mut file = create_fresh(&tmp, || {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(perms)
            .open(&tmp)
    })
    .map_err(|e| Error::io("create", &tmp, e))?;
    // Not flushed by default, as git's checkout: the landing's journal
    // names this file's blob, and recovery rewrites a file a power cut
    // emptied (`durable::flushes_worktree`). With `evolv.fsyncWorktree`,
    // flushed before the rename: the path then holds the old content or
    // the whole new one, never an empty file. A staged file's writeback
    // only starts here; the landing flushes them all at once after the
    // last one (`durable::flush`, git's batch mode).
    let flush = |file: &fs::File| {
        if !crate::repo::durable::flushes_worktree(repo) {
            Ok(())
        } else if staged {
            crate::repo::durable::start_writeback_if_targeted(repo, file);
            Ok(())
        } else {
            file.sync_data()
        }
    };
    if let Err(e) = file.write_all(bytes).and_then(|()| flush(&file)) {
        let _ = fs::remove_file(&tmp);
        return Err(Error::io("write", &tmp, e));
    }
    Ok(Some((tmp, file)))
}

/// Blob `id`, read to be written at `full`.
fn blob_for<'r>(repo: &'r Repo, id: Oid, full: &Path) -> Result<git2::Blob<'r>> {
    repo.raw().find_blob(id.raw()).context(|| {
        on_object("read blob", id).said(format!("read blob {id} for {}", full.display()))
    })
}

/// The permissions a file of `mode` is created with (the umask applies), as
/// git's checkout creates it.
fn file_permissions(mode: u32) -> u32 {
    if mode == MODE_EXECUTABLE {
        0o777
    } else {
        0o666
    }
}

/// Creates the temp file `tmp` with `create`, which fails if it exists. One
/// already there is only ever our own leftover (the name carries the
/// repository's tag): it is removed and created again — without a removal
/// attempt per file when there is none, the common case.
fn create_fresh<T>(tmp: &Path, create: impl Fn() -> std::io::Result<T>) -> std::io::Result<T> {
    match create() {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            fs::remove_file(tmp).and_then(|()| create())
        }
        done => done,
    }
}

/// Renames the temp file `write_staged_open` (or `write_blob`) wrote into
/// place.
pub fn place_staged(repo: &Repo, path: &RepoPath) -> Result<()> {
    filters::attributes_changed(repo, path);
    let placing = Placing::new(repo, path)?;
    placing.place()
}

/// A staged file's rename into place, with everything taken from the
/// repository handle beforehand, so that any thread can do it
/// (`Placing::place`).
#[derive(Debug)]
pub struct Placing {
    workdir: PathBuf,
    path: RepoPath,
    full: PathBuf,
    tmp: PathBuf,
    /// Remove the old file, then rename into the free name (see `place`).
    unlink_first: bool,
}

impl Placing {
    /// The rename of `path`'s temp file (a `.gitattributes` is never staged).
    pub fn new(repo: &Repo, path: &RepoPath) -> Result<Placing> {
        let workdir = crate::workdir(repo)?;
        let full = workdir.join(path.fs());
        Ok(Placing {
            tmp: temp_sibling(repo, &full),
            workdir: workdir.to_path_buf(),
            path: path.clone(),
            full,
            unlink_first: !crate::repo::durable::flushes_worktree(repo),
        })
    }

    pub fn path(&self) -> &RepoPath {
        &self.path
    }

    /// Checks the path is still one git-evolv may write, and renames.
    pub fn place(&self) -> Result<()> {
        check_path(&self.workdir, &self.path)?;
        let (full, tmp) = (&self.full, &self.tmp);
        // With the data not flushed, the old file is removed first, as
        // git's checkout removes it: ext4 (`auto_da_alloc`) writes a file
        // renamed over another out within the rename, 0.45 ms a file, most
        // of a 3,000-file landing on a journaled ext4. A reader may then
        // see no file for a moment, never a partial one; a crash in
        // between leaves the temp file, by which recovery knows the
        // missing path is the landing's (`remove_temp`).
        let unlinked = self.unlink_first && fs::remove_file(full).is_ok();
        // Renamed first, the directory case looked at only if that fails
        // (a file never replaces a directory by rename): one `stat` less
        // per file.
        let renamed = match fs::rename(tmp, full) {
            Err(e) if fs::symlink_metadata(full).is_ok_and(|m| m.is_dir()) => {
                // Only an empty directory can be here: callers check first.
                confine::forget_known_dirs();
                fs::remove_dir(full)
                    .map_err(|_| e)
                    .and_then(|()| fs::rename(tmp, full))
            }
            done => done,
        };
        renamed.map_err(|e| {
            if !unlinked {
                let _ = fs::remove_file(tmp);
            }
            Error::io("rename into place", full, e)
        })
    }
}

/// Removes directories `prepare_stage` created, innermost first, where still
/// empty (a landing that did not happen).
pub fn remove_created_dirs(created: &[PathBuf]) {
    for dir in created.iter().rev() {
        let _ = fs::remove_dir(dir);
    }
}

/// Removes the file at `path` (an empty directory left by a gitlink too)
/// and, like git, the directories that become empty, reached without
/// following a symlink (`InPlace::remove`).
pub fn remove(repo: &Repo, path: &RepoPath) -> Result<()> {
    filters::attributes_changed(repo, path);
    InPlace::new(repo)?.remove(path)
}

/// Removes the temp file a killed write may have left next to `path`;
/// whether there was one.
pub fn remove_temp(repo: &Repo, path: &RepoPath) -> bool {
    let Ok(workdir) = crate::workdir(repo) else {
        return false;
    };
    check_path(workdir, path).is_ok()
        && fs::remove_file(temp_sibling(repo, &workdir.join(path.fs()))).is_ok()
}

fn temp_sibling(repo: &Repo, full: &Path) -> PathBuf {
    let tag = temp_tag(repo);
    // The name's bytes, not a lossy copy: two names that differ only in
    // bytes that are not UTF-8 must not share a temp file.
    let name = full.file_name().map(|n| n.as_bytes()).unwrap_or_default();
    if name.len() > 180 {
        // Keep within NAME_MAX (255): a long name gets a short, fixed alias.
        let id = Oid::hash_object(ObjectType::Blob, name)
            .map_or_else(|_| "long".to_string(), |o| o.to_string());
        return full.with_file_name(format!(".evolv-{id}.{tag}.tmp"));
    }
    let mut temp = Vec::with_capacity(name.len() + 32);
    temp.push(b'.');
    temp.extend_from_slice(name);
    temp.extend_from_slice(format!(".evolv-{tag}.tmp").as_bytes());
    full.with_file_name(std::ffi::OsStr::from_bytes(&temp))
}

/// This repository's temp-file tag: 16 hex digits made once, kept in
/// `<git-dir>/evolv/temp-tag` so a later recovery names the same files.
fn temp_tag(repo: &Repo) -> String {
    // Read once per handle, not once per file.
    #[derive(Clone, Copy)]
    struct Tag([u8; 16]);
    impl crate::repo::learnt::Learnt for Tag {}
    let tag = repo.learnt(|| {
        let mut out = [b'0'; 16];
        out.copy_from_slice(&read_or_make_temp_tag(repo).as_bytes()[..16]);
        Tag(out)
    });
    String::from_utf8_lossy(&tag.0).into_owned()
}

fn read_or_make_temp_tag(repo: &Repo) -> String {
    let dir = repo.raw().path().join("evolv");
    let path = dir.join("temp-tag");
    let valid = |t: &str| t.len() == 16 && t.bytes().all(|b| b.is_ascii_hexdigit());
    if let Ok(tag) = fs::read_to_string(&path)
        && valid(tag.trim())
    {
        return tag.trim().to_string();
    }
    let seed = format!(
        "{:?} {} {:?}",
        std::time::SystemTime::now(),
        std::process::id(),
        repo.raw().path()
    );
    let fresh = Oid::hash_object(ObjectType::Blob, seed.as_bytes()).map_or_else(
        |_| "0123456789abcdef".to_string(),
        |o| o.to_string()[..16].to_string(),
    );
    let _ = fs::create_dir_all(&dir);
    // Written whole under another name, then linked into place (a link
    // never replaces a file): of two racing first writers (processes, or
    // threads of one landing), one tag wins, and the other reads it whole,
    // never a file still being written.
    let own = dir.join(format!("temp-tag.{}.{fresh}", std::process::id()));
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&own)
        .and_then(|mut file| {
            file.write_all(fresh.as_bytes())
                .and_then(|()| file.sync_all())
        });
    let linked = written.and_then(|()| fs::hard_link(&own, &path));
    let _ = fs::remove_file(&own);
    if linked.is_ok() {
        return fresh;
    }
    match fs::read_to_string(&path) {
        Ok(tag) if valid(tag.trim()) => tag.trim().to_string(),
        _ => fresh,
    }
}
