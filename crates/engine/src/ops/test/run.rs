//! One target's verdict: the stored one for its key when trusted, else a
//! run of the commands in a warm worktree, each as its own `sh -c`, in
//! order, until one exits non-zero (stored unless it aborted).

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::store::audit::RefMove;
use crate::store::pending::Deferred;
use crate::store::verdicts::{self, CommandExit, Status, Verdict, exits};
use crate::validate::{self, Budget};
use crate::validation_report::Stage;

/// One target's verdict.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema, PartialEq, Eq)]
pub struct TargetVerdict {
    pub target: String,
    pub tree: String,
    /// The commands as text (`a && b`); `commands` has each one's exit.
    pub command: String,
    /// Each command, in order, with its exit (null: not run, an earlier
    /// one failed, or the target was not run).
    pub commands: Vec<CommandExit>,
    pub status: Status,
    /// The exit code that decided the status (the first non-zero one,
    /// else 0); null when the target was not run.
    pub exit_code: Option<i32>,
    pub duration_ms: u64,
    /// Reused from the store, not run now.
    pub cached: bool,
    pub output_tail: String,
    /// When and where the verdict was made, and which store gave it
    /// (`local` or a trusted remote).
    pub made_at: i64,
    pub made_by: String,
    pub source: String,
    /// The verdict ref this run moved storing it: a fact the `test`
    /// operation's record lists (issue 39 item 1).
    #[serde(skip)]
    #[schemars(skip)]
    pub moved: Option<RefMove>,
}

/// A target resolved: what was named and its commit.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub name: String,
    pub commit: Oid,
}

/// The stored verdict for `target`'s key, or a fresh run's (stored; with
/// `no_cache` in place of the stored one). Verdict refs skipped on the way
/// are noted in `warnings`.
pub(crate) fn verdict_for(
    repo: &Repo,
    target: &Target,
    commands: &[String],
    no_cache: bool,
    timeout: u64,
    warnings: &mut Vec<Deferred>,
) -> Result<TargetVerdict> {
    let tree = repo.find_commit(target.commit)?.tree_id();
    let key = verdicts::key_of(repo, tree, commands)?;
    if !no_cache
        && let Some(found) = verdicts::lookup_noting(repo, &key, warnings)?
            .filter(|f| f.verdict.covers(tree, commands))
    {
        return Ok(shown(target, found.verdict, true, found.source));
    }
    let verdict = run_once(repo, target, tree, commands, key, timeout)?;
    let stored = match verdict.status {
        Status::Abort | Status::NotRun => verdicts::Stored {
            verdict,
            moved: None,
        },
        _ if no_cache => verdicts::replace(repo, &verdict)?,
        _ => verdicts::store(repo, &verdict)?,
    };
    let mut made = shown(target, stored.verdict, false, "local".into());
    made.moved = stored.moved;
    Ok(made)
}

/// The verdict of a target not run: an earlier one aborted the run.
pub(crate) fn not_run(repo: &Repo, target: &Target, commands: &[String]) -> TargetVerdict {
    let tree = repo
        .find_commit(target.commit)
        .map(|c| c.tree_id().to_string())
        .unwrap_or_default();
    TargetVerdict {
        target: target.name.clone(),
        tree,
        command: commands.join(" && "),
        commands: exits(commands, &[]),
        status: Status::NotRun,
        exit_code: None,
        duration_ms: 0,
        cached: false,
        output_tail: String::new(),
        made_at: crate::clock::now_secs(),
        made_by: verdicts::made_by(),
        source: "local".into(),
        moved: None,
    }
}

/// Runs `commands` on `target` in a warm worktree, each as its own
/// command, stopping at the first that exits non-zero.
fn run_once(
    repo: &Repo,
    target: &Target,
    tree: Oid,
    commands: &[String],
    key: String,
    timeout: u64,
) -> Result<Verdict> {
    let budget = Budget::starting_now(timeout);
    let worktree = crate::worktree::acquire(repo, false, budget)?;
    worktree.checkout(target.commit)?;
    let mut reports = Vec::new();
    let record = worktree.group_record();
    match validate::run_all(
        commands,
        Stage::Validate,
        worktree.path(),
        budget,
        &mut reports,
        Some(&record),
    ) {
        Ok(()) | Err(Error::ValidationFailed { .. } | Error::Timeout { .. }) => {}
        Err(e) => return Err(e),
    }
    let last = reports.last().expect("a command ran");
    let exit_code = last.exit_code;
    Ok(Verdict {
        key,
        target: target.name.clone(),
        tree: tree.to_string(),
        command: commands.join(" && "),
        commands: exits(commands, &reports),
        status: Status::of_exit(exit_code),
        exit_code,
        duration_ms: reports.iter().map(|r| r.duration_ms).sum(),
        output_tail: last.output_tail.clone(),
        made_at: crate::clock::now_secs(),
        made_by: verdicts::made_by(),
    })
}

fn shown(target: &Target, v: Verdict, cached: bool, source: String) -> TargetVerdict {
    TargetVerdict {
        target: target.name.clone(),
        tree: v.tree,
        command: v.command,
        commands: v.commands,
        status: v.status,
        exit_code: Some(v.exit_code),
        duration_ms: v.duration_ms,
        cached,
        output_tail: v.output_tail,
        made_at: v.made_at,
        made_by: v.made_by,
        source,
        moved: None,
    }
}
