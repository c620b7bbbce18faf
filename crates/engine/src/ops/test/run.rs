//! One target's verdict: the stored one for its key when trusted, else a
//! run of the commands in a warm worktree, each as its own `sh -c`, in
//! order, until one exits non-zero (stored unless it aborted): the
//! validation pipeline (`ops::validation`) does both.

use serde::Serialize;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::ops::validation::{self, Candidate, Failed, Judged, Validation};
use crate::store::audit::RefMove;
use crate::store::pending::Deferred;
use crate::store::verdicts::{self, CommandExit, Status, exits};

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
/// `no_cache` in place of the stored one), through the validation
/// pipeline. Verdict refs skipped on the way are noted in `warnings`.
pub(crate) fn verdict_for(
    repo: &Repo,
    target: &Target,
    (v, ctx): (&Validation, &Context),
    warnings: &mut Vec<Deferred>,
) -> Result<TargetVerdict> {
    let candidate = Candidate {
        head: target.commit,
        commit: target.commit,
        target: target.name.clone(),
    };
    let validated = match validation::run(repo, v, ctx, &candidate, v.budget()) {
        Ok(validated) => validated,
        // A failing or timed-out command is an answer: the verdict says so.
        Err(Failed {
            validated,
            error: Error::ValidationFailed { .. } | Error::Timeout { .. },
        }) if validated.verdict.is_some() => *validated,
        Err(failed) => return Err(failed.error),
    };
    warnings.extend(validated.warnings);
    let judged = validated.verdict.ok_or_else(|| Error::Internal {
        at: "test",
        message: "the validation of a target gave no verdict".into(),
    })?;
    Ok(shown(target, judged))
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

fn shown(target: &Target, judged: Judged) -> TargetVerdict {
    let v = judged.verdict;
    TargetVerdict {
        target: target.name.clone(),
        tree: v.tree,
        command: v.command,
        commands: v.commands,
        status: v.status,
        exit_code: Some(v.exit_code),
        duration_ms: v.duration_ms,
        cached: judged.cached,
        output_tail: v.output_tail,
        made_at: v.made_at,
        made_by: v.made_by,
        source: judged.source,
        moved: judged.moved,
    }
}
