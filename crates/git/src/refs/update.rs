//! Ref updates with compare-and-swap semantics, and git's patience with a
//! ref's lock file: a `<ref>.lock` that is there is retried for
//! `core.filesRefLockTimeout` (git's default 100 ms), then reported in
//! git's words (`Unable to create '…/<ref>.lock': File exists.`) as
//! `ref_locked`, never as a race that running the command again would win.

use crate::on_ref;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::Oid;
use git2::ErrorCode;

use crate::Context;
use crate::error::{Error, Result};

/// Moves `name` from `expected` to `new`, failing with `ConcurrentUpdate`
/// when someone else moved it first. `expected = None` means the ref must
/// not exist yet.
pub fn compare_and_swap(
    repo: &crate::Repo,
    name: &str,
    new: Oid,
    expected: Option<Oid>,
    message: &str,
) -> Result<()> {
    let result = patiently(repo, name, || match expected {
        Some(old) => repo
            .raw()
            .reference_matching(name, new.raw(), true, old.raw(), message)
            .map(drop),
        None => repo
            .raw()
            .reference(name, new.raw(), false, message)
            .map(drop),
    });
    match result? {
        Ok(()) => Ok(()),
        Err(e) if matches!(e.code(), ErrorCode::Modified | ErrorCode::Exists) => {
            Err(Error::ConcurrentUpdate {
                what: name.to_string(),
                expected: expected.map_or_else(|| "nothing".into(), |o| o.to_string()),
            })
        }
        Err(e) => Err(crate::library_error(
            on_ref("update ref", name).said(format!("update ref {name} to {new}")),
            e,
        )),
    }
}

/// Whether a ref exists (and resolves to an object).
pub fn ref_exists(repo: &crate::Repo, name: &str) -> bool {
    repo.raw().refname_to_id(name).is_ok()
}

/// Points `name` at `new` whatever it held before (for git-evolv's own
/// bookkeeping refs, never for branches).
pub fn compare_and_swap_force(
    repo: &crate::Repo,
    name: &str,
    new: Oid,
    message: &str,
) -> Result<()> {
    patiently(repo, name, || {
        repo.raw()
            .reference(name, new.raw(), true, message)
            .map(drop)
    })?
    .context(|| on_ref("update ref", name).said(format!("set ref {name} to {new}")))
}

/// Deletes `name` if it exists.
pub fn delete_ref(repo: &crate::Repo, name: &str) -> Result<bool> {
    let mut deleted = false;
    patiently(repo, name, || match repo.raw().find_reference(name) {
        Ok(mut r) => r.delete().map(|()| deleted = true),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(()),
        Err(e) => Err(e),
    })?
    .context(|| on_ref("delete ref", name))?;
    Ok(deleted)
}

/// What `name`'s reflog (which no fetch or push writes) says of `commit`:
/// `None` when it has no entry (`core.logAllRefUpdates` off, or expired),
/// else whether `commit` is among the values it held, old or new.
pub fn reflog_held(repo: &crate::Repo, name: &str, commit: Oid) -> Result<Option<bool>> {
    let log = repo
        .raw()
        .reflog(name)
        .context(|| on_ref("read the reflog of", name))?;
    if log.is_empty() {
        return Ok(None);
    }
    let id = commit.raw();
    Ok(Some(
        log.iter().any(|e| e.id_new() == id || e.id_old() == id),
    ))
}

/// Deletes `name` only while it points at `expected` (libgit2 checks the
/// id it read under the ref's lock); `ConcurrentUpdate` when it holds
/// anything else or nothing.
pub fn delete_ref_if(repo: &crate::Repo, name: &str, expected: Oid) -> Result<()> {
    let mut moved = false;
    patiently(repo, name, || match repo.raw().find_reference(name) {
        Ok(mut r) if r.target() == Some(expected.raw()) => r.delete(),
        Ok(_) => {
            moved = true;
            Ok(())
        }
        Err(e) if e.code() == ErrorCode::NotFound => {
            moved = true;
            Ok(())
        }
        Err(e) => Err(e),
    })?
    .or_else(|e| match e.code() {
        ErrorCode::Modified => {
            moved = true;
            Ok(())
        }
        _ => Err(e),
    })
    .context(|| on_ref("delete ref", name))?;
    if moved {
        return Err(Error::ConcurrentUpdate {
            what: name.to_string(),
            expected: expected.to_string(),
        });
    }
    Ok(())
}

/// Where the files backend locks ref `name`: per-worktree `HEAD` in the
/// git dir, everything else in the common dir.
pub fn ref_lock_path(repo: &crate::Repo, name: &str) -> PathBuf {
    let base = if name == "HEAD" {
        repo.raw().path()
    } else {
        repo.raw().commondir()
    };
    base.join(format!("{name}.lock"))
}

/// Runs `update` until it does not find the ref locked, for at most git's
/// `core.filesRefLockTimeout`; a lock still there then is `RefLocked`.
/// Any other outcome of the update is handed back as it is.
fn patiently(
    repo: &crate::Repo,
    name: &str,
    mut update: impl FnMut() -> std::result::Result<(), git2::Error>,
) -> Result<std::result::Result<(), git2::Error>> {
    let deadline = Instant::now() + lock_timeout(repo);
    let mut pause = Duration::from_micros(200);
    loop {
        match update() {
            Err(e) if e.code() == ErrorCode::Locked => {
                if Instant::now() >= deadline {
                    return Err(Error::RefLocked {
                        path: ref_lock_path(repo, name),
                    });
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(10));
            }
            other => return Ok(other),
        }
    }
}

/// git's `core.filesRefLockTimeout` in milliseconds (default 100; -1 waits
/// for ever), read once per handle.
fn lock_timeout(repo: &crate::Repo) -> Duration {
    #[derive(Clone, Copy)]
    struct LockTimeout(Duration);
    impl crate::repo::learnt::Learnt for LockTimeout {}
    let learnt = repo.learnt(|| {
        let ms = repo
            .config()
            .ok()
            .and_then(|c| {
                c.string("core.filesRefLockTimeout")?
                    .trim()
                    .parse::<i64>()
                    .ok()
            })
            .unwrap_or(100);
        LockTimeout(match u64::try_from(ms) {
            Ok(ms) => Duration::from_millis(ms),
            Err(_) => Duration::from_secs(u64::from(u32::MAX)),
        })
    });
    learnt.0
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::lock_timeout;
    use crate::test_git::{git, new_repo};

    /// A setting learnt once lives with its handle (issue 39 item 4): a
    /// handle reopened for another thread shares it, a handle opened after
    /// the config changed reads the new value (it was process-wide, keyed
    /// by the git dir, so the second handle saw the first one's).
    #[test]
    fn the_lock_timeout_is_learnt_per_handle_and_shared_with_reopened_ones() {
        let dir = new_repo();
        let d = dir.path();
        git(d, &["config", "core.filesRefLockTimeout", "250"]);
        let first = crate::open(d).unwrap();
        assert_eq!(lock_timeout(&first), Duration::from_millis(250));
        git(d, &["config", "core.filesRefLockTimeout", "40"]);
        let reopened = first.reopener().open().unwrap();
        assert_eq!(lock_timeout(&reopened), Duration::from_millis(250));
        let second = crate::open(d).unwrap();
        assert_eq!(lock_timeout(&second), Duration::from_millis(40));
        assert_eq!(lock_timeout(&first), Duration::from_millis(250));
    }
}
