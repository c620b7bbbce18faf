//! What the work tree holds where it differs from HEAD, as git sees it:
//! `git status` finds the paths (its index stat cache, untracked cache and
//! fsmonitor, the ignore rules `git stash -u` follows), `git hash-object`
//! stores each file's blob through the clean filters `git add` runs (LFS,
//! CRLF conversion), and a symbolic link is stored as its target. Putting
//! those paths back to HEAD is `restore`'s.

use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::error::{Error, Result};
use crate::{Oid, Repo, RepoPath};

/// One path whose work-tree state differs from HEAD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeChange {
    pub path: RepoPath,
    /// The blob and mode the work tree holds; `None` when it has no file.
    pub now: Option<(Oid, u32)>,
    /// HEAD's blob and mode; `None` when HEAD has no such file.
    pub head: Option<(Oid, u32)>,
    /// Untracked: neither HEAD nor the index has it.
    pub untracked: bool,
}

/// The paths under `pathspec` (as given on a command line in `cwd`) whose
/// work-tree state differs from HEAD, their new blobs written; untracked,
/// non-ignored files too when `untracked`.
pub fn worktree_changes(
    repo: &Repo,
    cwd: &Path,
    pathspec: &[String],
    untracked: bool,
) -> Result<Vec<WorktreeChange>> {
    changes(repo, cwd, pathspec, untracked, false)
}

/// `worktree_changes`, with `conflicts`: an unmerged path is taken as its
/// file is (a checkpoint records the work tree mid-merge) instead of
/// refused. A nested repository (`git status` lists it as `dir/`) is left
/// out: its files are its own repository's.
pub(crate) fn changes(
    repo: &Repo,
    cwd: &Path,
    pathspec: &[String],
    untracked: bool,
    conflicts: bool,
) -> Result<Vec<WorktreeChange>> {
    let workdir = crate::workdir(repo)?;
    let status = status_command(cwd, pathspec, untracked);
    let listing = run(status, None, "git status")?;
    let mut changes = Vec::new();
    let mut regular: Vec<usize> = Vec::new();
    for record in listing.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let Some(Record {
            path,
            head,
            worktree_mode,
            untracked: is_untracked,
        }) = parse_status(record, conflicts)?
        else {
            continue;
        };
        let path = RepoPath::from_bytes(path);
        let worktree_mode = match worktree_mode {
            Some(UNTRACKED) => Some(file_mode(&workdir.join(path.fs()))),
            other => other,
        };
        let now = match worktree_mode {
            None if head.is_none() => continue,
            None => None,
            Some(0o120000) => {
                let target = std::fs::read_link(workdir.join(path.fs()))
                    .map_err(|e| Error::io("read the symbolic link", workdir.join(path.fs()), e))?;
                Some((repo.write_blob(target.as_os_str().as_bytes())?, 0o120000))
            }
            Some(mode) => {
                regular.push(changes.len());
                Some((Oid::zero(), mode))
            }
        };
        changes.push(WorktreeChange {
            path,
            now,
            head,
            untracked: is_untracked,
        });
    }
    let ids = hash_files(workdir, regular.iter().map(|&i| &changes[i].path))?;
    for (&i, id) in regular.iter().zip(ids) {
        if let Some((blob, _)) = &mut changes[i].now {
            *blob = id;
        }
    }
    Ok(changes)
}

/// `git status` listing what differs from HEAD, reading only. The index
/// git would otherwise write back after refreshing it is the whole file
/// again (and a capture's put-back writes it anyway). With a pathspec the
/// preload threads are off: they stat only the paths asked for, yet each
/// matches its share of every entry against the pathspec a second time;
/// without one (a checkpoint) they stat the whole tree on every core.
fn status_command(cwd: &Path, pathspec: &[String], untracked: bool) -> Command {
    let mode = if untracked {
        "--untracked-files=all"
    } else {
        "--untracked-files=no"
    };
    let mut status = Command::new("git");
    status.arg("--no-optional-locks");
    if !pathspec.is_empty() {
        status.args(["-c", "core.preloadIndex=false"]);
    }
    status
        .args([
            "status",
            "--porcelain=v2",
            "-z",
            "--no-renames",
            "--ignore-submodules=all",
            mode,
            "--",
        ])
        .args(pathspec)
        .current_dir(cwd);
    status
}

/// The mode `parse_status` gives an untracked file, whose mode git status
/// does not print: read from the file.
const UNTRACKED: u32 = u32::MAX;

/// One `git status --porcelain=v2` record that is a change.
struct Record<'a> {
    path: &'a [u8],
    /// HEAD's blob and mode.
    head: Option<(Oid, u32)>,
    /// The work tree's mode (`None`: no file; `UNTRACKED`: to be read).
    worktree_mode: Option<u32>,
    untracked: bool,
}

/// The change one `git status --porcelain=v2` record describes; `None`
/// for records that are not changes (headers, ignored files).
fn parse_status(record: &[u8], conflicts: bool) -> Result<Option<Record<'_>>> {
    if let Some(path) = record.strip_prefix(b"? ") {
        if path.ends_with(b"/") {
            // A nested repository: its files are its own.
            return Ok(None);
        }
        return Ok(Some(Record {
            path,
            head: None,
            worktree_mode: Some(UNTRACKED),
            untracked: true,
        }));
    }
    if conflicts && let Some(rest) = record.strip_prefix(b"u ") {
        return Ok(unmerged(rest));
    }
    if record.starts_with(b"u ") {
        let path = record
            .splitn(11, |&b| b == b' ')
            .nth(10)
            .unwrap_or_default();
        return Err(Error::invalid(
            format!(
                "'{}' has unresolved merge conflicts",
                String::from_utf8_lossy(path)
            ),
            "resolve the conflict (or `git merge --abort`), then capture the work tree",
        ));
    }
    let Some(rest) = record.strip_prefix(b"1 ") else {
        return Ok(None);
    };
    // XY sub mH mI mW hH hI path
    let fields: Vec<&[u8]> = rest.splitn(8, |&b| b == b' ').collect();
    let [_, _, head_mode, _, worktree_mode, head_id, _, path] = fields[..] else {
        return Ok(None);
    };
    let octal = |f: &[u8]| {
        std::str::from_utf8(f)
            .ok()
            .and_then(|s| u32::from_str_radix(s, 8).ok())
            .filter(|&m| m != 0)
    };
    let head = match octal(head_mode) {
        Some(mode) => {
            let id = std::str::from_utf8(head_id)
                .ok()
                .and_then(|h| Oid::parse(h).ok())
                .ok_or_else(|| Error::GitCommand {
                    command: "git status --porcelain=v2".into(),
                    message: format!(
                        "`git status` printed '{}' for HEAD's object, not an object id",
                        String::from_utf8_lossy(head_id)
                    ),
                })?;
            Some((id, mode))
        }
        None => None,
    };
    Ok(Some(Record {
        path,
        head,
        worktree_mode: octal(worktree_mode),
        untracked: false,
    }))
}

/// An unmerged record (after `u `: XY sub m1 m2 m3 mW h1 h2 h3 path):
/// the file as it is, taken whatever the stages hold.
fn unmerged(rest: &[u8]) -> Option<Record<'_>> {
    let fields: Vec<&[u8]> = rest.splitn(10, |&b| b == b' ').collect();
    let [.., worktree_mode, _, _, _, path] = fields[..] else {
        return None;
    };
    let mode = std::str::from_utf8(worktree_mode)
        .ok()
        .and_then(|s| u32::from_str_radix(s, 8).ok())
        .filter(|&m| m != 0);
    Some(Record {
        path,
        head: Some((Oid::zero(), 0o100644)),
        worktree_mode: mode,
        untracked: false,
    })
}

/// An untracked file's mode as `git add` records it.
fn file_mode(file: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::symlink_metadata(file) {
        Ok(m) if m.file_type().is_symlink() => 0o120000,
        Ok(m) if m.permissions().mode() & 0o111 != 0 => 0o100755,
        _ => 0o100644,
    }
}

/// Writes each file's blob as `git add` would (clean filters applied).
fn hash_files<'a>(workdir: &Path, paths: impl Iterator<Item = &'a RepoPath>) -> Result<Vec<Oid>> {
    let mut input = Vec::new();
    for path in paths {
        input.extend_from_slice(path.as_bytes());
        input.push(b'\n');
    }
    if input.is_empty() {
        return Ok(Vec::new());
    }
    let mut hash = Command::new("git");
    hash.args(["hash-object", "-w", "--stdin-paths"])
        .current_dir(workdir);
    let out = run(hash, Some(&input), "git hash-object -w --stdin-paths")?;
    String::from_utf8_lossy(&out)
        .lines()
        .map(|line| {
            Oid::parse(line.trim()).map_err(|_| Error::GitCommand {
                command: "git hash-object -w --stdin-paths".into(),
                message: format!("`git hash-object` printed '{line}', not an object id"),
            })
        })
        .collect()
}

/// Runs git with `input` on its stdin; its stdout, or the command's error.
pub(crate) fn run(mut cmd: Command, input: Option<&[u8]>, shown: &str) -> Result<Vec<u8>> {
    cmd.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::io("run `git` (is git on PATH?) for", shown, e))?;
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin
            .write_all(bytes)
            .map_err(|e| Error::io("write to", shown, e))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| Error::io("wait for", shown, e))?;
    if !out.status.success() {
        return Err(Error::GitCommand {
            command: shown.to_string(),
            message: format!(
                "`{shown}` failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        });
    }
    Ok(out.stdout)
}
