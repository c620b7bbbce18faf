//! One target's verdict: the stored one for its key when trusted, else a
//! run of the command in a warm worktree (stored unless it aborted).

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::store::verdicts::{self, Status, Verdict};
use crate::validate::{self, Budget};
use crate::validation_report::Stage;

/// One target's verdict.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema, PartialEq, Eq)]
pub struct TargetVerdict {
    pub target: String,
    pub tree: String,
    pub command: String,
    pub status: Status,
    pub exit_code: i32,
    pub duration_ms: u64,
    /// Reused from the store, not run now.
    pub cached: bool,
    pub output_tail: String,
    /// When and where the verdict was made, and which store gave it
    /// (`local` or a trusted remote).
    pub made_at: i64,
    pub made_by: String,
    pub source: String,
}

/// A target resolved: what was named and its commit.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub name: String,
    pub commit: Oid,
}

/// The stored verdict for `target`'s key, or a fresh run's (stored).
pub(crate) fn verdict_for(
    repo: &Repo,
    target: &Target,
    command: &str,
    no_cache: bool,
    timeout: u64,
) -> Result<TargetVerdict> {
    let tree = repo.find_commit(target.commit)?.tree_id();
    let key = verdicts::key_of(repo, tree, command)?;
    if !no_cache && let Some(found) = verdicts::lookup(repo, &key)? {
        return Ok(shown(target, found.verdict, true, found.source));
    }
    let verdict = run_once(repo, target, tree, command, key, timeout)?;
    let verdict = if verdict.status == Status::Abort {
        verdict
    } else {
        verdicts::store(repo, &verdict)?
    };
    Ok(shown(target, verdict, false, "local".into()))
}

/// Runs `command` on `target` in a warm worktree.
fn run_once(
    repo: &Repo,
    target: &Target,
    tree: Oid,
    command: &str,
    key: String,
    timeout: u64,
) -> Result<Verdict> {
    let budget = Budget::starting_now(timeout);
    let worktree = crate::worktree::acquire(repo, false, budget)?;
    worktree.checkout(target.commit)?;
    let mut reports = Vec::new();
    let record = worktree.group_record();
    let commands = [command.to_string()];
    match validate::run_all(
        &commands,
        Stage::Validate,
        worktree.path(),
        budget,
        &mut reports,
        Some(&record),
    ) {
        Ok(()) | Err(Error::ValidationFailed { .. } | Error::Timeout { .. }) => {}
        Err(e) => return Err(e),
    }
    let report = reports.pop().expect("the command ran");
    Ok(Verdict {
        key,
        target: target.name.clone(),
        tree: tree.to_string(),
        command: command.to_string(),
        status: Status::of_exit(report.exit_code),
        exit_code: report.exit_code,
        duration_ms: report.duration_ms,
        output_tail: report.output_tail,
        made_at: crate::clock::now_secs(),
        made_by: verdicts::made_by(),
    })
}

fn shown(target: &Target, v: Verdict, cached: bool, source: String) -> TargetVerdict {
    TargetVerdict {
        target: target.name.clone(),
        tree: v.tree,
        command: v.command,
        status: v.status,
        exit_code: v.exit_code,
        duration_ms: v.duration_ms,
        cached,
        output_tail: v.output_tail,
        made_at: v.made_at,
        made_by: v.made_by,
        source,
    }
}
