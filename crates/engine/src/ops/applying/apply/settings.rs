//! What an apply runs with: the plan, and what to validate (resolved by
//! the validation pipeline, `ops::validation`, from the request and git
//! config), and whether it previews or lands as a batch.

use super::super::plan;
use super::ApplyRequest;
use crate::error::Result;
use crate::git::Repo;
use crate::ops::settings::Settings;
use crate::ops::validation::{Ask, Caller, Validation};
use crate::plan::ExecutionPlan;

pub(super) struct RunSettings {
    pub(super) plan: Option<ExecutionPlan>,
    /// The commands, the time budget, the worktree and the verdict cache.
    pub(super) validation: Validation,
    pub(super) dry_run: bool,
    pub(super) batch: bool,
    /// Refs the landing's transaction moves besides its own (a partial
    /// apply's part and rest).
    pub(super) also: Vec<AlsoMove>,
}

/// A ref, what it holds before and after (`None`: absent).
pub(super) type AlsoMove = (String, Option<crate::git::Oid>, Option<crate::git::Oid>);

/// What an apply of `req` runs with, the session's `settings` filling in
/// what the request leaves out.
pub(super) fn settings(repo: &Repo, config: &Settings, req: &ApplyRequest) -> Result<RunSettings> {
    let plan = plan::resolve(repo, config, req.plan.as_ref())?;
    let ask = Ask {
        commands: req.validate.clone(),
        timeout_secs: req.timeout_secs,
        fresh_worktree: req.fresh_worktree,
        no_cache: req.no_cache,
    };
    let validation = Validation::resolve(config, Caller::Apply, &ask, plan.as_ref())?;
    Ok(RunSettings {
        dry_run: req.dry_run || plan.as_ref().is_some_and(|p| p.dry_run),
        batch: req.batch || plan.as_ref().is_some_and(|p| p.batch),
        validation,
        plan,
        also: Vec::new(),
    })
}
