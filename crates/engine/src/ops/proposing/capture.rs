//! `propose --from-worktree`: edits made by any route (a formatter, a code
//! generator, `sed`, an editor) captured from the work tree as a proposal
//! based on HEAD, then, unless kept, put back to HEAD like `git stash` does,
//! only once the proposal is durably stored: a kill at any moment loses
//! nothing. A path saved again while the capture ran is left as it is,
//! and named; a locked index stops the capture before anything is stored.

use std::path::PathBuf;

use serde::Serialize;

use crate::context::Context;
use crate::edit::engine::{ChangeKind, EngineOutcome, FileChange};
use crate::edit::list::{CheckMode, EditList};
use crate::error::{Error, Result};
use crate::git::worktree::capture::{self, WorktreeChange};
use crate::git::worktree::restore;
use crate::git::{Repo, RepoPath};

use super::edit::{EditOutcome, store_changes};
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::ops::settings::Settings;

/// What to capture.
#[derive(Debug, Clone, Default)]
pub struct CaptureRequest {
    /// Pathspecs as git takes them (relative to `cwd`); all of the work
    /// tree when empty.
    pub pathspec: Vec<String>,
    /// Where the pathspecs are relative to (the repository's top when unset).
    pub cwd: Option<PathBuf>,
    /// Leave the work tree and index as they are.
    pub keep: bool,
    /// Capture untracked, non-ignored files too (`git stash -u`).
    pub include_untracked: bool,
    /// The summary.
    pub message: Option<String>,
    pub check: Option<CheckMode>,
}

/// The proposal, and what went back to HEAD.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct CaptureOutcome {
    #[serde(flatten)]
    pub outcome: EditOutcome,
    /// The paths put back to HEAD in the work tree and index (none with
    /// `keep` or a dry run).
    pub restored: Vec<String>,
    /// The captured paths left as they are in the work tree and index,
    /// each with the reason: saved again while the capture ran, or the
    /// put-back failed after the proposal was stored. The proposal holds
    /// what was captured.
    pub not_restored: Vec<NotRestored>,
}

/// A captured path that was not put back to HEAD.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct NotRestored {
    pub path: String,
    pub reason: String,
}

pub fn capture(
    repo: &Repo,
    settings: &Settings,
    ctx: &Context,
    req: &CaptureRequest,
) -> Result<CaptureOutcome> {
    let workdir = crate::git::workdir(repo)?.to_path_buf();
    let cwd = req.cwd.clone().unwrap_or_else(|| workdir.clone());
    refuse_outside(&workdir, &cwd, &req.pathspec)?;
    crate::git::ensure_no_operation_in_progress(repo)?;
    let put_back = !req.keep && req.check != Some(CheckMode::Only);
    if put_back {
        refuse_locked_index(repo)?;
    }
    let changes = capture::worktree_changes(repo, &cwd, &req.pathspec, req.include_untracked)
        .map_err(|e| bad_pathspec(e, &req.pathspec))?;
    let head = crate::git::head(repo)?;
    let base = repo.find_commit(head.commit)?;
    let tree = base.tree()?;
    let mut result = EngineOutcome::default();
    let mut captured = Vec::new();
    for change in changes {
        refuse_non_utf8(&change.path)?;
        refuse_kind_change(&tree, &change.path)?;
        let file = file_change(repo, &tree, &change)?;
        // Only the index differs (a staged change the work tree undid):
        // nothing to capture, and its staged state stays.
        let unchanged = file.old == file.new
            && tree
                .get_path(change.path.fs())
                .is_some_and(|e| e.mode == file.mode);
        if !unchanged {
            result.files.push(file);
            captured.push(change);
        }
    }
    let changes = captured;
    if changes.is_empty() {
        return Err(Error::invalid(
            format!(
                "nothing to capture: the work tree matches HEAD{}",
                shown_pathspec(&req.pathspec)
            ),
            "edit the files first, or pass --include-untracked for new files",
        ));
    }
    let list =
        EditList {
            message: Some(req.message.clone().unwrap_or_else(|| {
                format!("chore: work-tree changes to {} file(s)", changes.len())
            })),
            onto: None,
            keep_going: false,
            check: req.check,
            edits: Vec::new(),
        };
    let outcome = store_changes(
        repo,
        (settings, ctx),
        &list,
        (base, None),
        result,
        Vec::new(),
    )?;
    let mut captured = CaptureOutcome {
        outcome,
        restored: Vec::new(),
        not_restored: Vec::new(),
    };
    if put_back && !captured.outcome.dry_run {
        put_back_to_head(repo, &mut captured, &changes);
    }
    Ok(captured)
}

/// Puts the captured paths back to HEAD, each only while it still holds
/// what was captured, and names in `captured` what was and was not.
fn put_back_to_head(
    repo: &Repo,
    captured: &mut CaptureOutcome,
    changes: &[capture::WorktreeChange],
) {
    // Durable before anything of the user's is put back. From here on
    // the proposal is stored: what cannot be put back is named with
    // its id, never a failure that hides it (issue 38 item 13).
    let mut put = match flush_proposal(repo, &captured.outcome, changes) {
        Ok(()) => {
            crate::crashpoint!("capture-stored");
            restore::restore_to_head(repo, changes)
        }
        Err(e) => restore::PutBack {
            restored: Vec::new(),
            left: changes
                .iter()
                .map(|c| {
                    let why = format!("it was not put back to HEAD, as the proposal could not be made durable first ({e})");
                    (c.path.clone(), why)
                })
                .collect(),
        },
    };
    // In git's order of paths, as the proposal lists them.
    put.restored.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    put.left.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    captured.restored = put
        .restored
        .iter()
        .map(|p| p.lossy().into_owned())
        .collect();
    captured.not_restored = put
        .left
        .into_iter()
        .map(|(path, reason)| NotRestored {
            path: path.lossy().into_owned(),
            reason,
        })
        .collect();
}

/// A pathspec `git status` refused (bad magic, an empty one) is bad input
/// in git's words, not a failure of git.
fn bad_pathspec(e: Error, specs: &[String]) -> Error {
    match e {
        Error::GitCommand { message, .. } if !specs.is_empty() && message.contains("pathspec") => {
            Error::invalid(
                format!("the pathspecs {}: {message}", specs.join(" ")),
                "fix the pathspec (`git help glossary` describes them), or name paths plainly",
            )
        }
        other => other,
    }
}

/// Refuses pathspecs naming a place outside the work tree, by name, as
/// git refuses them before it looks at a file (issue 38 item 20).
fn refuse_outside(
    workdir: &std::path::Path,
    cwd: &std::path::Path,
    specs: &[String],
) -> Result<()> {
    let outside = crate::git::types::pathspec::outside(workdir, cwd, specs);
    let Some(first) = outside.first() else {
        return Ok(());
    };
    Err(Error::invalid(
        format!(
            "pathspec '{first}' is outside the repository at '{}'",
            workdir.display()
        ),
        "name paths inside the work tree: relative to the current directory, or from its top with ':/'",
    ))
}

/// Stops the capture before anything is stored when the index the
/// put-back writes is locked by another process, as `git stash` stops
/// (issue 38 item 13): a proposal stored and then reported as a failure
/// was a duplicate on the next try. A lock taken after this check is
/// still met by the put-back, which then names what it left.
fn refuse_locked_index(repo: &Repo) -> Result<()> {
    let lock = match std::env::var_os("GIT_INDEX_FILE") {
        Some(index) => {
            let mut lock = index;
            lock.push(".lock");
            PathBuf::from(lock)
        }
        None => crate::git::worktree::index_write::lock_path(repo),
    };
    if lock.exists() {
        return Err(Error::IndexLocked { path: lock });
    }
    Ok(())
}

/// Makes the stored proposal's objects and ref durable no later than the
/// work tree's restore (`durable::order`): where the file system commits
/// names in order, their data is waited for and the restore cannot be
/// committed without them; a whole-file-system flush would also wait for
/// every other process's writes (0.18 s of 0.47 s for 10 files of a
/// 100,000-file repository). Where names are not committed in order (ext4
/// without a journal), the whole file systems are flushed still: there,
/// 13 files and their directories flushed one by one took longer than one
/// `syncfs` (1.11 s against 0.80 s a capture, load 19).
fn flush_proposal(repo: &Repo, outcome: &EditOutcome, changes: &[WorktreeChange]) -> Result<()> {
    let (Some(id), Some(commit)) = (&outcome.patch_id, &outcome.commit) else {
        return crate::git::repo::durable::flush_filesystems(repo);
    };
    let commit = crate::git::Oid::parse(commit).map_err(|_| Error::Internal {
        at: "propose --from-worktree",
        message: format!("the stored proposal's commit '{commit}' is not an object id"),
    })?;
    let changed: Vec<crate::landing::PathChange<'_>> =
        changes.iter().map(|c| (c.path.as_bytes(), c.now)).collect();
    let proposal_ref = crate::store::proposals::proposal_ref(id);
    match crate::landing::proposal_files(repo, (commit, &proposal_ref), &changed)? {
        Some(files) => crate::git::repo::durable::order(repo, &files),
        None => crate::git::repo::durable::flush_filesystems(repo),
    }
}

fn shown_pathspec(pathspec: &[String]) -> String {
    if pathspec.is_empty() {
        String::new()
    } else {
        format!(" under {}", pathspec.join(" "))
    }
}

/// Refuses a name that is not UTF-8: a proposal's files carry UTF-8
/// names (as propose leaves such names out), and a lossy copy would
/// propose a new file under another name.
fn refuse_non_utf8(path: &RepoPath) -> Result<()> {
    if path.to_str().is_some() {
        return Ok(());
    }
    Err(Error::invalid(
        format!("{path}: its name is not UTF-8, and a proposal carries UTF-8 names only"),
        "commit that file with git, or leave it out with a pathspec (`':(exclude)<name>'`)",
    ))
}

/// Refuses a path that was a directory at HEAD and is a file now, or lies
/// below what was a file: a proposal captures changes to files, and such a
/// change would otherwise fail deep in the tree's update as a git error.
fn refuse_kind_change(tree: &crate::git::objects::view::Tree<'_>, path: &RepoPath) -> Result<()> {
    let Some((shown, was, is)) = kind_change(tree, path) else {
        return Ok(());
    };
    Err(Error::invalid(
        format!(
            "'{shown}' was {was} at HEAD and is {is} in the work tree: a proposal from the work tree captures changes to files, not a file turned into a directory or back"
        ),
        format!(
            "commit that change with git (`git add -A -- '{shown}'`, then `git commit`), or leave it out with a pathspec"
        ),
    ))
}

/// Where writing a file at `path` onto `tree` turns a directory into a
/// file (`path` itself was one) or a file into a directory (a leading
/// component was one): that path, what it was and what it becomes.
pub(crate) fn kind_change(
    tree: &crate::git::objects::view::Tree<'_>,
    path: &RepoPath,
) -> Option<(RepoPath, &'static str, &'static str)> {
    use crate::git::objects::view::Kind;
    let kind = |p: &[u8]| tree.get_path(RepoPath::from_bytes(p).fs()).map(|e| e.kind);
    let bytes = path.as_bytes();
    if kind(bytes) == Some(Kind::Tree) {
        return Some((path.clone(), "a directory", "a file"));
    }
    let slashes = bytes.iter().enumerate().filter(|(_, b)| **b == b'/');
    slashes
        .map(|(at, _)| &bytes[..at])
        .find(|p| kind(p).is_some_and(|k| k != Kind::Tree))
        .map(|p| (RepoPath::from_bytes(p), "a file", "a directory"))
}

/// The change of one captured path, HEAD's content against the work tree's.
fn file_change(
    repo: &Repo,
    tree: &crate::git::objects::view::Tree<'_>,
    change: &WorktreeChange,
) -> Result<FileChange> {
    let at_head = tree.get_path(change.path.fs());
    let old = match &at_head {
        Some(entry) => Some(repo.blob(entry.id)?),
        None => None,
    };
    let (new, mode) = match change.now {
        Some((id, mode)) => (Some(repo.blob(id)?), mode),
        None => (None, at_head.as_ref().map_or(0o100644, |e| e.mode as u32)),
    };
    let kind = match (&old, &new) {
        (None, _) => ChangeKind::Create,
        (_, None) => ChangeKind::Delete,
        _ => ChangeKind::Modify,
    };
    Ok(FileChange {
        path: change.path.lossy().into_owned(),
        from: None,
        kind,
        old,
        new,
        mode: mode as i32,
        warnings: Vec::new(),
        edits: Vec::new(),
    })
}

impl UseCase for CaptureRequest {
    const OPEN: Open = Open::Recovering;
    const WRITES_OBJECTS: bool = true;
    type Outcome = CaptureOutcome;

    fn run(&self, session: &Session) -> Result<CaptureOutcome> {
        capture(
            session.repo()?,
            session.settings()?,
            session.context(),
            self,
        )
    }
}
