//! The validation of a built landing in a worktree: the plan's
//! pre-conditions at the head, then the validation commands and the plan's
//! expected outcomes at the new commit.

use crate::git::Oid;

use super::settings::RunSettings;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::validate::{self, Budget, CommandReport, Stage};
use crate::worktree;

/// Runs the plan's pre-conditions at the head, then the validation commands
/// and the plan's expected outcomes at the new commit, in one worktree.
pub(super) fn validate_in_worktree(
    repo: &Repo,
    s: &RunSettings,
    head: Oid,
    new: Oid,
    budget: Budget,
) -> Result<(Option<String>, Vec<CommandReport>)> {
    let (pre, post) = match &s.plan {
        Some(p) => (
            &p.validation.pre_conditions[..],
            &p.validation.expected_outcomes[..],
        ),
        None => (&[][..], &[][..]),
    };
    if pre.is_empty() && s.commands.is_empty() && post.is_empty() {
        return Ok((None, Vec::new()));
    }
    let mut reports = Vec::new();
    budget.check("the validation worktree", &reports)?;
    // Signals wait for a step to end (a checkout git runs in the worktree
    // must not outlive us either), then end the apply with nothing landed.
    let _deferred = crate::signals::Deferred::begin();
    let wt = worktree::acquire(repo, s.fresh, budget)?;
    validate::interrupted()?;
    let record = wt.group_record();
    if !pre.is_empty() {
        wt.checkout(head).map_err(signalled_or)?;
        validate::interrupted()?;
        validate::run_all(
            pre,
            Stage::PreCondition,
            wt.path(),
            budget,
            &mut reports,
            Some(&record),
        )?;
    }
    budget.check("the checkout of the new commit", &reports)?;
    wt.checkout(new).map_err(signalled_or)?;
    validate::interrupted()?;
    validate::run_all(
        &s.commands,
        Stage::Validate,
        wt.path(),
        budget,
        &mut reports,
        Some(&record),
    )?;
    validate::run_all(
        post,
        Stage::ExpectedOutcome,
        wt.path(),
        budget,
        &mut reports,
        Some(&record),
    )?;
    Ok((Some(wt.path().display().to_string()), reports))
}

/// A git command killed by the user's Ctrl-C fails; what the user sees is
/// the interruption, not git's error.
pub(super) fn signalled_or(e: Error) -> Error {
    validate::interrupted().err().unwrap_or(e)
}
