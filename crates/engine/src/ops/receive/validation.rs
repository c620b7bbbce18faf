//! How a server validates what it lands (issue 38 item 1). A push carries
//! code, and `evolv.validate` runs it: `make test` runs the pushed
//! Makefile. So that code never runs where it could write the repository
//! it is judged for:
//!
//! - `isolated` (the default): each command runs in a sandbox
//!   (`crate::sandbox`, bubblewrap) whose only writable directory is a
//!   throwaway worktree of the commit, removed afterwards; where no
//!   sandbox can start, nothing runs and the push is refused, naming what
//!   to install;
//! - `verdict`: no pushed code runs at all; each command needs a passing
//!   verdict for the landing tree that CI made and pushed
//!   (`ci_verdicts`).
//!
//! Either way, the branch, the hooks and the config are read before and
//! compared after (`untouched`): a difference refuses the landing, is
//! undone, and says what it was.

use crate::error::Result;
use crate::git::{Oid, Repo};
use crate::ops::apply::DEFAULT_TIMEOUT_SECS;
use crate::ops::settings::{ServerValidation, Settings};
use crate::sandbox::Sandbox;
use crate::validate::{self, Budget, Stage, TimeoutSource};
use crate::worktree;

use super::ci_verdicts;
use super::untouched::Untouched;

/// Validates `commit`, about to land on `branch_ref`, as the server's
/// configuration says; `Ok` when it may land.
pub fn validate(repo: &Repo, settings: &Settings, branch_ref: &str, commit: Oid) -> Result<()> {
    let mut commands = settings.validate_commands();
    commands.retain(|c| !c.trim().is_empty());
    if commands.is_empty() {
        return Ok(());
    }
    match settings.receive_validation()? {
        ServerValidation::Verdict => {
            let tree = repo.find_commit(commit)?.tree_id();
            commands
                .iter()
                .try_for_each(|c| ci_verdicts::require_pass(repo, tree, c))
        }
        ServerValidation::Isolated => isolated(repo, settings, branch_ref, commit, &commands),
    }
}

/// Runs `commands` on `commit` in a sandbox, in a throwaway worktree: a
/// warm one would carry one push's ignored files into the next push's
/// validation.
fn isolated(
    repo: &Repo,
    settings: &Settings,
    branch_ref: &str,
    commit: Oid,
    commands: &[String],
) -> Result<()> {
    let (seconds, source) = match settings.timeout_secs()? {
        Some(s) => (s, TimeoutSource::Config),
        None => (DEFAULT_TIMEOUT_SECS, TimeoutSource::Default),
    };
    let budget = Budget::starting_now(seconds).limited_by(source);
    let wt = worktree::acquire(repo, true, budget)?;
    // Started (and tried) before the checkout: where no sandbox can
    // start, nothing of the push is even written out.
    let sandbox = Sandbox::start(&settings.receive_sandbox(), repo.common_dir(), wt.path())?;
    wt.checkout(commit)?;
    let protected = settings.push_policy(false)?.is_protected(branch_ref);
    let before = Untouched::read(repo, branch_ref, protected)?;
    let record = wt.group_record();
    let mut reports = Vec::new();
    let ran = validate::run_all_in(
        commands,
        Stage::Validate,
        wt.path(),
        budget,
        &mut reports,
        Some(&record),
        Some(&sandbox),
    );
    before.check_and_restore(repo)?;
    ran
}
