//! Putting captured paths back to HEAD in the work tree and the index, as
//! `git stash push -- <paths>` leaves them: a tracked path gets HEAD's blob
//! and mode in both (one HEAD lacks leaves both), an untracked file goes
//! with the directories it leaves empty. Each path is checked again just
//! before it is written (issue 38 item 12): one that no longer holds what
//! was captured, a save made while the capture ran, is left as it is and
//! named, as the proposal does not hold that save.
//!
//! Done in this process where that is plainly what git does: the few files
//! written as a landing writes them (`checkout`: git's smudge filters, a
//! temp file renamed into place), their index entries changed in the
//! index's bytes (`index_file::Patch`) under `index.lock`. A `git checkout
//! --no-overlay HEAD` parsed and wrote the whole index in a process of its
//! own, and so did decoding it here: either was most of a capture of a few
//! files in a large repository. Whatever is less plain is still that
//! command's: a directory in the way or a symbolic link above the path, a
//! `.gitattributes` among the paths (it changes how the others are
//! written), `core.symlinks` off, another index named by `GIT_INDEX_FILE`, an index of version 4, split or sparse,
//! or with an untracked cache or fsmonitor state (which git keeps up to
//! date), a path conflicted or outside the sparse checkout, and the hooks
//! git runs when it writes the index (`post-index-change`, and
//! `post-checkout`, which the command ran).

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Command;

use memmap2::Mmap;

use crate::error::{Error, Result};
use crate::formats::index::Patch;
use crate::worktree::capture::{WorktreeChange, run};
use crate::worktree::index_write::{self, IndexLock};
use crate::{Repo, RepoPath, worktree::checkout};

/// What a put-back did: the paths put back to HEAD, and those left as
/// they are, each with the reason.
#[derive(Debug, Default)]
pub struct PutBack {
    pub restored: Vec<RepoPath>,
    pub left: Vec<(RepoPath, String)>,
}

/// Why a path that changed after it was captured is left.
pub const CHANGED_SINCE_CAPTURE: &str = "it changed after it was captured (saved again while the proposal was stored), so it was left as it is; the proposal holds the captured content";

/// Puts `changes` back to HEAD in the work tree and the index (see the
/// module), each path checked again just before: one that no longer holds
/// what was captured (a save made while the capture ran) is left as it
/// is, work tree and index. Never fails: what could not be put back is
/// among `left`, with the reason, since the proposal holding it is stored.
pub fn restore_to_head(repo: &Repo, changes: &[WorktreeChange]) -> PutBack {
    let mut done = PutBack::default();
    // Untracked files go first, as `git stash -u` cleans before it resets:
    // a new `.gitattributes` among them must not convert HEAD's files as
    // they are written back.
    for change in changes.iter().filter(|c| c.untracked) {
        let removed = still_captured(repo, change).and_then(|same| {
            same.then(|| checkout::remove(repo, &change.path))
                .transpose()
        });
        match removed {
            Ok(Some(())) => done.restored.push(change.path.clone()),
            Ok(None) => done
                .left
                .push((change.path.clone(), CHANGED_SINCE_CAPTURE.into())),
            Err(e) => done.left.push((change.path.clone(), not_put_back(&e))),
        }
    }
    let tracked: Vec<&WorktreeChange> = changes.iter().filter(|c| !c.untracked).collect();
    if tracked.is_empty() {
        return done;
    }
    if let Err(e) = put_back_tracked(repo, &tracked, &mut done) {
        let settled = |path: &RepoPath| {
            done.restored.contains(path) || done.left.iter().any(|(p, _)| p == path)
        };
        let unsettled: Vec<RepoPath> = tracked
            .iter()
            .map(|c| c.path.clone())
            .filter(|p| !settled(p))
            .collect();
        done.left
            .extend(unsettled.into_iter().map(|p| (p, not_put_back(&e))));
    }
    done
}

fn not_put_back(e: &Error) -> String {
    format!("it could not be put back to HEAD ({e}); the proposal holds the captured content")
}

/// Whether the work tree still holds what was captured at `change`'s path.
/// Where git does not trust the file system with a mode (`core.fileMode`
/// or `core.symlinks` off), `git status` gave the index's mode, and the
/// file is compared as git compares it: by content only.
fn still_captured(repo: &Repo, change: &WorktreeChange) -> Result<bool> {
    if checkout::holds(repo, &change.path, change.now)? {
        return Ok(true);
    }
    let Some((id, mode)) = change.now else {
        return Ok(false);
    };
    let config = repo.config()?;
    let off = |key: &str| config.bool(key).ok().flatten() == Some(false);
    let untrusted = match mode {
        crate::types::mode::EXECUTABLE | crate::types::mode::BLOB => off("core.fileMode"),
        crate::types::mode::SYMLINK => off("core.symlinks"),
        _ => false,
    };
    if !untrusted {
        return Ok(false);
    }
    // A plain file either way: the content decides.
    Ok(
        checkout::holds(repo, &change.path, Some((id, crate::types::mode::BLOB)))?
            || checkout::holds(
                repo,
                &change.path,
                Some((id, crate::types::mode::EXECUTABLE)),
            )?,
    )
}

/// The tracked paths put back: in this process where plainly git's way,
/// else by `git checkout` (see the module).
fn put_back_tracked(repo: &Repo, tracked: &[&WorktreeChange], done: &mut PutBack) -> Result<()> {
    let workdir = crate::workdir(repo)?;
    if plain(repo, workdir, tracked)? && restore_tracked(repo, tracked, done)? {
        return Ok(());
    }
    let mut current = Vec::new();
    for &change in tracked {
        if still_captured(repo, change)? {
            current.push(change);
        } else {
            done.left
                .push((change.path.clone(), CHANGED_SINCE_CAPTURE.into()));
        }
    }
    if !current.is_empty() {
        git_checkout(workdir, &current)?;
        done.restored.extend(current.iter().map(|c| c.path.clone()));
    }
    Ok(())
}

/// Whether the work tree and the settings let this process write
/// `tracked` exactly as git's checkout would (see the module).
fn plain(repo: &Repo, workdir: &Path, tracked: &[&WorktreeChange]) -> Result<bool> {
    let config = repo.config()?;
    // GIT_INDEX_FILE names another index, which git's checkout writes.
    let other_index = std::env::var_os("GIT_INDEX_FILE").is_some();
    if other_index
        || config.bool("core.symlinks").ok().flatten() == Some(false)
        || index_hooks(repo, workdir)?
    {
        return Ok(false);
    }
    let in_the_way = |c: &WorktreeChange| {
        c.path.is_gitattributes()
            || checkout::check_path(workdir, &c.path).is_err()
            || fs::symlink_metadata(workdir.join(c.path.fs())).is_ok_and(|m| m.is_dir())
    };
    Ok(!tracked.iter().any(|c| in_the_way(c)))
}

/// Whether git would run a hook when this restore writes the index: the
/// folder is `core.hooksPath` (`~/` expanded, a relative one from the top
/// of the work tree, where git runs hooks) or `<common git dir>/hooks`.
fn index_hooks(repo: &Repo, workdir: &Path) -> Result<bool> {
    let dir = match repo.config()?.path("core.hooksPath") {
        Some(path) if !path.as_os_str().is_empty() => workdir.join(path),
        _ => repo.raw().commondir().join("hooks"),
    };
    Ok(["post-index-change", "post-checkout"]
        .iter()
        .any(|hook| dir.join(hook).exists()))
}

/// Writes HEAD's version of each path still as captured (or removes it)
/// and changes their index entries to match, holding `index.lock` from
/// before the index is read until the new one is in place, as git does.
/// `false`, with nothing done, when the index is not one
/// `index_file::Patch` changes.
fn restore_tracked(repo: &Repo, tracked: &[&WorktreeChange], done: &mut PutBack) -> Result<bool> {
    let lock = IndexLock::acquire(repo, &format!("capture {}", std::process::id()))?;
    let index = index_write::index_path(repo.raw());
    let Some((bytes, mtime)) = map_index(&index)? else {
        return Ok(false);
    };
    let paths: Vec<&[u8]> = tracked.iter().map(|c| c.path.as_bytes()).collect();
    let Some(patch) = Patch::prepare(&bytes, &paths) else {
        return Ok(false);
    };
    let mut entries = Vec::with_capacity(tracked.len());
    let mut left = Vec::new();
    for change in tracked {
        // Checked under the lock, just before it is written.
        if !still_captured(repo, change)? {
            left.push((change.path.clone(), CHANGED_SINCE_CAPTURE.to_string()));
            continue;
        }
        let entry = match change.head {
            Some((id, mode)) => {
                checkout::write_blob(repo, &change.path, id, mode)?;
                Some(index_write::clean_entry(repo, &change.path, id, mode)?)
            }
            None => {
                checkout::remove(repo, &change.path)?;
                None
            }
        };
        entries.push((change.path.as_bytes().to_vec(), entry));
    }
    if !entries.is_empty() {
        let new_index =
            index_write::write_new(repo, |out| patch.apply(&entries, Some(mtime), out))?;
        lock.commit(repo, &new_index)?;
    }
    done.restored
        .extend(entries.iter().map(|(p, _)| RepoPath::from_bytes(p.clone())));
    done.left.extend(left);
    Ok(true)
}

/// The index file, mapped, and the second it was last written; `None`
/// when there is none (or it is empty).
fn map_index(path: &Path) -> Result<Option<(Mmap, u32)>> {
    let file = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("open", path, e)),
    };
    let meta = file.metadata().map_err(|e| Error::io("stat", path, e))?;
    if meta.len() == 0 {
        return Ok(None);
    }
    let map =
        crate::sys::calls::map_replaced_by_rename(&file).map_err(|e| Error::io("map", path, e))?;
    Ok(Some((map, meta.mtime() as u32)))
}

/// `git checkout --no-overlay HEAD` of `tracked`: a path HEAD lacks leaves
/// the index and the work tree.
fn git_checkout(workdir: &Path, tracked: &[&WorktreeChange]) -> Result<()> {
    let mut specs = Vec::new();
    for change in tracked {
        specs.extend_from_slice(b":(literal)");
        specs.extend_from_slice(change.path.as_bytes());
        specs.push(0);
    }
    let mut checkout = Command::new("git");
    checkout
        .args([
            "checkout",
            "--no-overlay",
            "-q",
            "HEAD",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
        ])
        .current_dir(workdir);
    run(checkout, Some(&specs), "git checkout --no-overlay HEAD").map(drop)
}
