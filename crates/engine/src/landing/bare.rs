//! Landing in a bare repository (a server's, issue 28): no work tree and no
//! index to update, so the landing is the replay of the pushed commits onto
//! the branch, the checks of the trees they make, and one compare-and-swap
//! of the branch, taken in the same FIFO turn (`turn::take_turn`) as a
//! local apply. What makes it recoverable is the outcome record written
//! before the swap (`ops::server::receive::queue`): a kill after the swap
//! leaves a record whose commit is on the branch, which the next push or `git
//! evolv recover` marks landed; before it, nothing moved and the proposal is
//! landed again or refused.

use super::replay::{self, Change};
use crate::error::Result;
use crate::git::objects::view::Signature;
use crate::git::{self, ChangedPath, Oid, Repo};

/// The pushed commits replayed onto the branch: the commit to land and the
/// paths it changes against the branch.
pub struct Replayed {
    pub commit: Oid,
    pub changed: Vec<ChangedPath>,
}

/// Replays `commits` (oldest first, one parent each) onto `tip` with the
/// replay a local apply uses (`landing::replay`): the commit itself when
/// the tip is its parent (a fast-forward), else a three-way merge keeping
/// author and message, stamped by `committer`. A conflict names its paths;
/// a tree git would refuse (`.git`, `../`, a `.gitmodules` link, an fsck
/// error) is refused before anything moves.
pub fn replay(
    repo: &Repo,
    commits: &[Oid],
    tip: Oid,
    committer: &Signature,
    id: &str,
) -> Result<Replayed> {
    let mut at = tip;
    for &c in commits {
        let commit = repo.find_commit(c)?;
        let parent = commit.parent_id(0)?;
        // Every pushed commit's own tree, not only the last: each one lands
        // in the branch's history.
        check(repo, parent, c)?;
        if parent == at {
            // A fast-forward: the pushed commit itself lands, so the
            // pusher already has what the branch points to.
            at = c;
            continue;
        }
        let change = Change {
            id,
            commit: c,
            base: parent,
        };
        let onto = (at, repo.find_commit(at)?.tree_id());
        let tree = replay::tree_onto(repo, change, onto, || "the branch on the server".into())?;
        let message = String::from_utf8_lossy(commit.message_bytes()).into_owned();
        at = replay::commit_onto(repo, change, (tree, at), committer, &message)?;
    }
    let changed = check(repo, tip, at)?;
    Ok(Replayed {
        commit: at,
        changed,
    })
}

/// The paths commit `to` changes against commit `from`, refused when git
/// would refuse one (see `checks::ensure_confined`).
fn check(repo: &Repo, from: Oid, to: Oid) -> Result<Vec<ChangedPath>> {
    let (old, new) = (repo.commit_tree(from)?, repo.commit_tree(to)?);
    let changed = git::changed_paths(repo, &old, &new)?;
    super::checks::ensure_confined(repo, &new, &changed)?;
    Ok(changed)
}

/// Moves `branch_ref` from `old` to `new` (compare-and-swap: a branch moved
/// meanwhile is `concurrent_update`, and nothing changed).
pub fn swap(repo: &Repo, branch_ref: &str, old: Oid, new: Oid, id: &str) -> Result<()> {
    crate::crashpoint!("receive-before-swap");
    crate::store::refs::swap(
        repo,
        branch_ref,
        new,
        Some(old),
        &format!("git-evolv: land pushed {id}"),
    )?;
    crate::crashpoint!("receive-after-swap");
    Ok(())
}
