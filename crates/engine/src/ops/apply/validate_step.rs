//! The validation of a built landing in a worktree: the plan's
//! pre-conditions at the head, then the validation commands and the plan's
//! expected outcomes at the new commit.

use crate::git::Oid;

use super::settings::RunSettings;
use super::verdict_step::{ApplyVerdict, Lookup};
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::store::pending::Deferred;
use crate::validate::{self, Budget, CommandReport, Stage};
use crate::worktree;

/// What a validation produced, for the outcomes.
#[derive(Default)]
pub(super) struct Validated {
    /// The validation worktree; none when nothing ran in one.
    pub(super) worktree_path: Option<String>,
    pub(super) reports: Vec<CommandReport>,
    /// The verdict of the validation commands, reused or made now.
    pub(super) verdict: Option<ApplyVerdict>,
    /// Verdict refs skipped on the way (not a commit), each named.
    pub(super) warnings: Vec<Deferred>,
}

/// Runs the plan's pre-conditions at the head, then the validation commands
/// and the plan's expected outcomes at the new commit, in one worktree.
/// The validation commands' verdict for the new tree is looked up first: a
/// cached pass stands for them, a cached fail refuses; a run is stored.
pub(super) fn validate_in_worktree(
    repo: &Repo,
    s: &RunSettings,
    head: Oid,
    new: Oid,
    budget: Budget,
) -> Result<Validated> {
    let (pre, post) = match &s.plan {
        Some(p) => (
            &p.validation.pre_conditions[..],
            &p.validation.expected_outcomes[..],
        ),
        None => (&[][..], &[][..]),
    };
    let lookup = Lookup::of(repo, s, new)?;
    let (mut out, cached) = from_cache(lookup.as_ref())?;
    let commands = if cached { &[][..] } else { &s.commands[..] };
    if pre.is_empty() && commands.is_empty() && post.is_empty() {
        return Ok(out);
    }
    budget.check("the validation worktree", &out.reports)?;
    // Signals wait for a step to end (a checkout git runs in the worktree
    // must not outlive us either), then end the apply with nothing landed.
    let _deferred = crate::signals::Deferred::begin();
    let wt = worktree::acquire(repo, s.fresh, budget)?;
    validate::interrupted()?;
    let record = wt.group_record();
    let reports = &mut out.reports;
    if !pre.is_empty() {
        wt.checkout(head).map_err(signalled_or)?;
        validate::interrupted()?;
        validate::run_all(
            pre,
            Stage::PreCondition,
            wt.path(),
            budget,
            reports,
            Some(&record),
        )?;
    }
    budget.check("the checkout of the new commit", reports)?;
    wt.checkout(new).map_err(signalled_or)?;
    validate::interrupted()?;
    let first = reports.len();
    let ran = validate::run_all(
        commands,
        Stage::Validate,
        wt.path(),
        budget,
        reports,
        Some(&record),
    );
    if let Some(lookup) = lookup.as_ref().filter(|_| !commands.is_empty()) {
        out.verdict = lookup.record(repo, &reports[first..], &ran)?;
    }
    ran?;
    validate::run_all(
        post,
        Stage::ExpectedOutcome,
        wt.path(),
        budget,
        reports,
        Some(&record),
    )?;
    out.worktree_path = Some(wt.path().display().to_string());
    Ok(out)
}

/// What the verdict cache answers before anything runs: the reports and
/// verdict of a cached pass (true: the commands need not run), the
/// refusal of a cached fail, and the warnings of the lookup.
fn from_cache(lookup: Option<&Lookup>) -> Result<(Validated, bool)> {
    let mut out = Validated {
        warnings: lookup.map(|l| l.warnings.clone()).unwrap_or_default(),
        ..Validated::default()
    };
    match lookup.and_then(Lookup::reuse).transpose()? {
        Some((reports, verdict)) => {
            out.reports.extend(reports);
            out.verdict = Some(verdict);
            Ok((out, true))
        }
        None => Ok((out, false)),
    }
}

/// A git command killed by the user's Ctrl-C fails; what the user sees is
/// the interruption, not git's error.
pub(super) fn signalled_or(e: Error) -> Error {
    validate::interrupted().err().unwrap_or(e)
}
