//! What a landing checks before it touches anything: the paths are ones
//! git-evolv may write, they hold no uncommitted work, and HEAD still names
//! the branch the landing was built for. Also the command's one parse of
//! the index, which the checks and the new index share.

use crate::git::objects::view::Tree;

use super::turn::{Turn, take_turn};
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::git::worktree::index_write;
use crate::git::{self, ChangedPath, Head};

/// Reads the repository's index once for the whole command (see
/// `git::index_cache`) before anything else would: attribute lookups, the
/// dirty checks and the new index share that parse.
pub fn prepare_index(repo: &Repo) -> Result<()> {
    index_write::load(repo)
}

/// Drops this process's parse of the index and its temp files (the CLI
/// calls this when a command ends; a landing drops them itself).
pub fn release_index(repo: &Repo) {
    index_write::release(repo);
}

/// Fails when any of `changed` holds uncommitted work (see
/// `ensure_clean`). The check runs in a turn, since a landing in flight
/// would otherwise show its half-written files as uncommitted work: the
/// caller's, or (`None`, the early check before a validation) one taken
/// just for the check, waiting for a landing in flight.
pub fn check_clean(
    repo: &Repo,
    turn: Option<&Turn>,
    head: &Head,
    head_tree: &Tree<'_>,
    new_tree: &Tree<'_>,
    changed: &[ChangedPath],
) -> Result<()> {
    let _own = match turn {
        Some(_) => None,
        None => Some(take_turn(repo)?),
    };
    ensure_clean(repo, head, head_tree, new_tree, changed)
}

/// Fails with `DirtyWorktree` when any of `changed` holds uncommitted work
/// relative to `head` — or with `ConcurrentUpdate` when HEAD is no longer
/// `head` (another landing moved it, so its files only look dirty to us;
/// a retry replays onto the new head). Reads the index first (or reuses
/// this process's parse of it).
pub(super) fn ensure_clean(
    repo: &Repo,
    head: &Head,
    head_tree: &Tree<'_>,
    new_tree: &Tree<'_>,
    changed: &[ChangedPath],
) -> Result<()> {
    // A path git-evolv must not write (a hostile proposal's `.git/config`)
    // is that, not "uncommitted changes" in it: say so first.
    ensure_confined(repo, new_tree, changed)?;
    index_write::load(repo)?;
    let dirty = git::dirty_paths(repo, head_tree, new_tree, changed)?;
    if dirty.is_empty() {
        return Ok(());
    }
    if git::head(repo)? != *head {
        return Err(Error::ConcurrentUpdate {
            what: head.ref_name().to_string(),
            expected: head.commit.to_string(),
        });
    }
    Err(Error::DirtyWorktree {
        paths: dirty.iter().map(ToString::to_string).collect(),
    })
}

/// Refuses, with nothing changed, when HEAD no longer names the branch the
/// landing was built (and validated) for: the user switched branches
/// meanwhile (`git switch` needs `index.lock`, which the landing holds from
/// here on). Landing on the old branch would write its files into the
/// other branch's checkout (#16 item 2).
///
/// A detached HEAD has no branch name to compare: it counts as switched
/// when it now points at a commit that is not `head`'s commit or a
/// descendant of it (a `git checkout <other>`, not another landing).
pub fn ensure_on_branch(repo: &Repo, head: &Head) -> Result<()> {
    let now = git::head(repo)?;
    let moved_away = now.branch.is_none()
        && head.branch.is_none()
        && now.commit != head.commit
        && !repo.is_descendant_of(now.commit, head.commit)?;
    if now.branch == head.branch && !moved_away {
        return Ok(());
    }
    let describe = |h: &Head| match &h.branch {
        Some(_) => h.display_name().to_string(),
        None => format!("HEAD (detached at {})", &h.commit.to_string()[..12]),
    };
    Err(Error::BranchSwitched {
        expected: describe(head),
        actual: describe(&now),
    })
}

/// Every changed path must be one git-evolv may write (its spelling: no
/// `..`, no `.git`), in a tree git itself would check out: no symbolic
/// link named `.gitmodules` in `new_tree` (issue 25). A leading component
/// that is a symlink or a file the landing keeps is the dirty check's to
/// refuse (`ensure_clean`, under both locks: something of the user's is in
/// the way), and each file's placement checks again
/// (`checkout::check_path`). The trees on the way to each changed path must
/// be ones `git fsck` accepts (no entry twice, git's order, known modes).
pub(crate) fn ensure_confined(
    repo: &Repo,
    new_tree: &Tree<'_>,
    changed: &[ChangedPath],
) -> Result<()> {
    for change in changed {
        let refused = |reason: &str| Error::UnsafePath {
            path: change.path.to_string(),
            reason: reason.to_string(),
        };
        if let Some(reason) = git::worktree::confine::refusal(&change.path) {
            return Err(refused(reason));
        }
        // Only a name that could be `.gitmodules` is looked up for its mode.
        if git::worktree::confine::refusal_as(&change.path, git::types::mode::SYMLINK).is_some()
            && let Some(entry) = new_tree.get_path(change.path.fs())
            && let Some(reason) =
                git::worktree::confine::refusal_as(&change.path, entry.mode as u32)
        {
            return Err(refused(reason));
        }
    }
    let paths: Vec<git::RepoPath> = changed.iter().map(|c| c.path.clone()).collect();
    if let Some((tree, why)) = repo.fsck_refusal(new_tree.id(), &paths) {
        return Err(Error::UnsafePath {
            path: tree,
            reason: format!("{why}, which git refuses"),
        });
    }
    Ok(())
}
