//! The undo of a landing that failed after the branch moved, by the
//! plan's rollback strategy.

use crate::git::Oid;

use super::settings::RunSettings;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::git::{self, Head};
use crate::landing::land::Landing;
use crate::plan::RollbackStrategy;
use crate::progress::Progress;

/// A step after the branch moved failed: undo by the plan's strategy.
/// `git_revert` and `file_backup` both put a commit restoring the old head's
/// content on top (they differ in its message); `manual` leaves the branch
/// and names the plan's steps.
pub(super) fn undo_after_move(
    repo: &Repo,
    s: &RunSettings,
    head: &Head,
    new: Oid,
    (landing, progress): (&Landing, &Progress),
    ids: &[&str],
    cause: Error,
) -> Error {
    let strategy = s
        .plan
        .as_ref()
        .map_or(RollbackStrategy::GitRevert, |p| p.rollback.strategy);
    let recovery = (|| -> Result<String> {
        if strategy == RollbackStrategy::Manual {
            landing.settle(repo, progress)?;
            let steps = s
                .plan
                .as_ref()
                .map(|p| p.rollback.commands.join("; "))
                .unwrap_or_default();
            return Ok(format!(
                "the branch stays at {new}; the plan's rollback is manual: {steps}"
            ));
        }
        let undo = undo_commit(repo, strategy, head, new, ids, &cause)?;
        landing.retarget(repo, undo, progress)?;
        Ok(format!(
            "the branch was moved on to {undo} ({}), which restores {}",
            strategy.as_str(),
            head.commit
        ))
    })();
    Error::LandingFailed {
        cause: Box::new(cause),
        recovery: recovery.unwrap_or_else(|e| {
            format!("undoing it failed too: {e}; the branch is at {new}: run `git evolv recover`")
        }),
    }
}

/// The commit on top of `new` that restores `head`'s content, its message
/// by `strategy` (`file_backup` or `git_revert`).
pub(super) fn undo_commit(
    repo: &Repo,
    strategy: RollbackStrategy,
    head: &Head,
    new: Oid,
    ids: &[&str],
    cause: &Error,
) -> Result<Oid> {
    let sig = git::committer(repo)?;
    let old_tree = repo.find_commit(head.commit)?.tree()?;
    let new_commit = repo.find_commit(new)?;
    let msg = match strategy {
        RollbackStrategy::FileBackup => format!(
            "revert: restore files changed by {}\n\nRestores them from {} after the landing failed: {cause}\n",
            ids.join(", "),
            head.commit
        ),
        _ => format!(
            "Revert \"{}\"\n\nThis reverts commit {new}: the landing failed: {cause}\n",
            new_commit.summary()
        ),
    };
    git::objects::commit::create(repo, &sig, &sig, &msg, old_tree.id(), &[new_commit.id()])
}
