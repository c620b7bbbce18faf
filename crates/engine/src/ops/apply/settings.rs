//! What an apply runs with: the plan, the validation commands, the time
//! budget and the worktree mode, from the request and git config.

use super::super::plan;
use super::{ApplyRequest, DEFAULT_TIMEOUT_SECS};
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::git::config::WorktreeMode;
use crate::ops::settings::Settings;
use crate::plan::ExecutionPlan;
use crate::validate::TimeoutSource;

pub(super) struct RunSettings {
    pub(super) plan: Option<ExecutionPlan>,
    pub(super) commands: Vec<String>,
    pub(super) timeout_secs: u64,
    /// What set `timeout_secs`, for the timeout's hint.
    pub(super) timeout_source: TimeoutSource,
    pub(super) fresh: bool,
    pub(super) dry_run: bool,
    pub(super) batch: bool,
    /// Run the validation commands whatever the verdict cache holds.
    pub(super) no_cache: bool,
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
    let requested = match req.timeout_secs {
        Some(0) => {
            return Err(Error::invalid_field(
                "timeout_secs",
                "timeout_secs 0: the timeout must be at least 1 second",
                "give a positive number of seconds",
            ));
        }
        Some(s) => Some(s),
        None => None,
    };
    // A plan can only tighten the bound, never loosen it.
    let (timeout_secs, timeout_source) = match (&plan, requested) {
        (Some(p), Some(s)) if s < p.limits.timeout_seconds as u64 => (s, TimeoutSource::Flag),
        (Some(p), _) => (p.limits.timeout_seconds as u64, TimeoutSource::Plan),
        (None, Some(s)) => (s, TimeoutSource::Flag),
        (None, None) => configured_timeout(config)?,
    };
    let mut commands = validation_commands(config, req);
    commands.retain(|c| !c.trim().is_empty());
    Ok(RunSettings {
        dry_run: req.dry_run || plan.as_ref().is_some_and(|p| p.dry_run),
        batch: req.batch || plan.as_ref().is_some_and(|p| p.batch),
        no_cache: req.no_cache,
        fresh: fresh_worktree(config, req)?,
        plan,
        commands,
        timeout_secs,
        timeout_source,
        also: Vec::new(),
    })
}

pub(super) fn validation_commands(config: &Settings, req: &ApplyRequest) -> Vec<String> {
    match &req.validate {
        Some(cmds) => cmds.clone(),
        None => config.validate_commands(),
    }
}

pub(super) fn configured_timeout(config: &Settings) -> Result<(u64, TimeoutSource)> {
    Ok(match config.timeout_secs()? {
        Some(s) => (s, TimeoutSource::Config),
        None => (DEFAULT_TIMEOUT_SECS, TimeoutSource::Default),
    })
}

pub(super) fn fresh_worktree(config: &Settings, req: &ApplyRequest) -> Result<bool> {
    Ok(match req.fresh_worktree {
        Some(fresh) => fresh,
        None => config.worktree_mode()? == Some(WorktreeMode::Fresh),
    })
}
