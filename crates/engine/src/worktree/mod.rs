//! Validation worktrees. The warm ones live under
//! `<git-common-dir>/evolv/worktrees/wt-<n>` and are reused between applies
//! (only changed files are rewritten, ignored build outputs stay); each is
//! held by an `flock` while in use, which the kernel releases if the process
//! dies, so a lock can never go stale. A throwaway worktree lives in a temp
//! dir and is removed when its guard drops.

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::git::{Oid, Repo};

use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::validate::Budget;

pub use crate::process_group::{GroupRecord, is_alive as group_is_alive};

/// How many warm worktrees concurrent applies may use before they queue.
const WARM_SLOTS: usize = 8;
const WARM_PREFIX: &str = "evolv-wt-";
const THROWAWAY_PREFIX: &str = "evolv-tmp-";
/// The temporary branches a worktree is created from (see `create`).
const TEMP_BRANCH_PREFIX: &str = "evolv-worktree-";

/// A worktree held for one validation run.
pub struct ValidationWorktree {
    path: PathBuf,
    name: String,
    common_dir: PathBuf,
    throwaway: Option<tempfile::TempDir>,
    _lock: File,
}

impl ValidationWorktree {
    /// The worktree's directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the process group of a command running here is recorded.
    pub fn group_record(&self) -> GroupRecord {
        GroupRecord::new(lock_path(&self.common_dir, &self.name))
    }

    /// Force-checks out `commit` (detached): changed files are rewritten,
    /// untracked files removed, ignored files kept.
    ///
    /// Done by git itself: it rewrites only files whose stat data or blob
    /// changed, runs every filter driver (LFS, eol, ident) that libgit2
    /// skips, so validation sees the files a user would, and costs half of
    /// libgit2's checkout on 100k files, whose index read and write go
    /// through a collision-detecting SHA-1. On a new, empty worktree it is
    /// the checkout `git worktree add` would do. `clean -fd` without -x
    /// drops untracked files and keeps ignored build outputs.
    /// Reports the checkout's progress to `progress` when it listens.
    pub fn checkout(&self, commit: Oid, progress: &Progress) -> Result<()> {
        let oid = commit.to_string();
        if progress.active() {
            checkout_reporting(&self.path, &oid, progress)?;
        } else {
            crate::git::process::cli::run(&self.path, &["checkout", "-q", "-f", "--detach", &oid])?;
        }
        crate::git::process::cli::run(&self.path, &["clean", "-q", "-f", "-d"])
    }
}

/// `git checkout -f --detach` with git's own progress (`--progress`),
/// each `Updating files: n% (a/b)` line reported as the worktree's
/// progress; the other lines make the error message if it fails.
fn checkout_reporting(dir: &Path, oid: &str, progress: &Progress) -> Result<()> {
    use std::io::Read;
    use std::process::{Command, Stdio};

    use crate::progress::{self, Task};
    let mut cmd = Command::new("git");
    cmd.args(["-c", "core.hooksPath=/dev/null", "checkout", "--progress"])
        .args(["-f", "--detach", oid])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for var in crate::git::process::cli::REPO_VARS {
        cmd.env_remove(var);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::io("run `git` (is it on PATH?) in", dir, e))?;
    progress.start(Task::Worktree, dir.display().to_string(), None);
    let mut messages = String::new();
    if let Some(mut err) = child.stderr.take() {
        let mut pending = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = err.read(&mut buf) {
            if n == 0 {
                break;
            }
            pending.extend_from_slice(&buf[..n]);
            // git ends progress updates with \r and messages with \n.
            while let Some(at) = pending.iter().position(|b| *b == b'\r' || *b == b'\n') {
                let line: Vec<u8> = pending.drain(..=at).collect();
                let line = String::from_utf8_lossy(&line);
                match progress::parse_git_progress(&line) {
                    Some((done, total)) => progress.update(Task::Worktree, done, Some(total), None),
                    None if !line.trim().is_empty() => {
                        messages.push_str(line.trim_end());
                        messages.push('\n');
                    }
                    None => {}
                }
            }
        }
    }
    progress.finish(Task::Worktree);
    let status = child
        .wait()
        .map_err(|e| Error::io("wait for `git checkout` in", dir, e))?;
    if status.success() {
        return Ok(());
    }
    Err(Error::GitCommand {
        command: format!("git checkout -f --detach {oid}"),
        message: format!(
            "`git checkout -f --detach {oid}` in {} failed: {}",
            dir.display(),
            messages.trim()
        ),
    })
}

impl Drop for ValidationWorktree {
    fn drop(&mut self) {
        if self.throwaway.is_some() {
            let _ = fs::remove_dir_all(&self.path);
            if let Ok(repo) = crate::git::open_any(&self.common_dir) {
                prune(&repo, &self.name);
            }
            let _ = fs::remove_file(lock_path(&self.common_dir, &self.name));
        }
    }
}

fn evolv_dir(common_dir: &Path) -> PathBuf {
    common_dir.join("evolv").join("worktrees")
}

fn lock_path(common_dir: &Path, name: &str) -> PathBuf {
    evolv_dir(common_dir).join(format!("{name}.lock"))
}

fn open_lock(path: &Path) -> Result<File> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| Error::io("open lock file", path, e))
}

/// Takes `lock`, polling (flock has no timed wait) until `budget` runs out.
fn wait_for_lock(lock: &File, path: &Path, budget: Budget) -> Result<()> {
    loop {
        match lock.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io("lock", path, e)),
        }
        // Ctrl-C while queued for a worktree ends the apply at once.
        crate::validate::interrupted()?;
        if std::time::Instant::now() >= budget.deadline {
            return Err(Error::Timeout {
                command: "waiting for a free validation worktree".into(),
                seconds: budget.seconds,
                reports: Vec::new(),
                limit_source: budget.source,
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Takes a warm worktree (creating it on first use), or a throwaway one
/// when `fresh`. Throwaway worktrees left by a killed run are removed first.
/// Waiting for a busy warm worktree ends at `budget`'s deadline with a
/// `Timeout`, like every other step of an apply (`--timeout`).
pub fn acquire(repo: &Repo, fresh: bool, budget: Budget) -> Result<ValidationWorktree> {
    let common_dir = repo.common_dir().to_path_buf();
    let dir = evolv_dir(&common_dir);
    fs::create_dir_all(&dir).map_err(|e| Error::io("create", &dir, e))?;
    remove_stale_throwaways(repo, &common_dir);
    if fresh {
        return throwaway(repo, &common_dir);
    }
    let mut held = None;
    for slot in 0..WARM_SLOTS {
        let name = format!("{WARM_PREFIX}{slot}");
        let path = lock_path(&common_dir, &name);
        let lock = open_lock(&path)?;
        // A group a killed apply left behind may still write in there.
        if lock.try_lock().is_ok() && crate::process_group::live_group(&path).is_none() {
            held = Some((name, lock));
            break;
        }
    }
    if held.is_none()
        && (0..WARM_SLOTS).any(|slot| {
            crate::process_group::live_group(&lock_path(
                &common_dir,
                &format!("{WARM_PREFIX}{slot}"),
            ))
            .is_some()
        })
    {
        // Busy or haunted everywhere: a throwaway worktree is safe.
        return throwaway(repo, &common_dir);
    }
    let (name, lock) = match held {
        Some(h) => h,
        None => {
            // Every slot is busy: queue on the first one, until the deadline.
            let name = format!("{WARM_PREFIX}0");
            let path = lock_path(&common_dir, &name);
            let lock = open_lock(&path)?;
            wait_for_lock(&lock, &path, budget)?;
            (name, lock)
        }
    };
    let path = dir.join(&name);
    let usable = is_usable(repo, &name, &path);
    if !usable {
        prune(repo, &name);
        if path.exists() {
            fs::remove_dir_all(&path).map_err(|e| Error::io("remove stale worktree", &path, e))?;
        }
        create(repo, &name, &path)?;
    }
    Ok(ValidationWorktree {
        path,
        name,
        common_dir,
        throwaway: None,
        _lock: lock,
    })
}

fn throwaway(repo: &Repo, common_dir: &Path) -> Result<ValidationWorktree> {
    // The pid keeps names apart even under the fixed test clock.
    let unique = crate::clock::unique().replace('.', "-");
    let name = format!("{THROWAWAY_PREFIX}{}-{unique}", std::process::id());
    let lock = open_lock(&lock_path(common_dir, &name))?;
    lock.lock()
        .map_err(|e| Error::io("lock", lock_path(common_dir, &name), e))?;
    let temp = tempfile::Builder::new()
        .prefix("git-evolv-")
        .tempdir()
        .map_err(|e| Error::io("create", std::env::temp_dir(), e))?;
    let path = temp.path().join("worktree");
    create(repo, &name, &path)?;
    Ok(ValidationWorktree {
        path,
        name,
        common_dir: common_dir.to_path_buf(),
        throwaway: Some(temp),
        _lock: lock,
    })
}

fn is_usable(repo: &Repo, name: &str, path: &Path) -> bool {
    path.join(".git").is_file() && repo.worktree_is_valid(name)
}

/// Creates worktree `name` at `path`, empty; the first `checkout` fills it.
fn create(repo: &Repo, name: &str, path: &Path) -> Result<()> {
    repo.add_empty_worktree(name, path, TEMP_BRANCH_PREFIX)
}

fn prune(repo: &Repo, name: &str) {
    repo.prune_worktree(name);
}

/// Removes throwaway worktrees whose owner is gone (its flock is free).
fn remove_stale_throwaways(repo: &Repo, common_dir: &Path) {
    let Ok(names) = repo.worktree_names() else {
        return;
    };
    for name in &names {
        if !name.starts_with(THROWAWAY_PREFIX) {
            continue;
        }
        let lock_file = lock_path(common_dir, name);
        let Ok(lock) = open_lock(&lock_file) else {
            continue;
        };
        if lock.try_lock().is_err() {
            continue; // a live apply is using it
        }
        if let Some(path) = repo.worktree_path(name) {
            let _ = fs::remove_dir_all(path);
        }
        prune(repo, name);
        let _ = fs::remove_file(&lock_file);
    }
}

/// Removes the warm worktrees that no apply is using; returns their paths.
pub fn remove_warm(repo: &Repo) -> Result<Vec<PathBuf>> {
    let common_dir = repo.common_dir().to_path_buf();
    let mut removed = Vec::new();
    for name in &repo.worktree_names()? {
        if !name.starts_with(WARM_PREFIX) {
            continue;
        }
        let lock_file = lock_path(&common_dir, name);
        let lock = open_lock(&lock_file)?;
        if lock.try_lock().is_err() {
            continue;
        }
        if let Some(path) = repo.worktree_path(name) {
            let _ = fs::remove_dir_all(&path);
            removed.push(path);
        }
        prune(repo, name);
        let _ = fs::remove_file(&lock_file);
    }
    // Leftover temporary branches from a run killed mid-create.
    repo.delete_branches_with_prefix(TEMP_BRANCH_PREFIX);
    Ok(removed)
}
