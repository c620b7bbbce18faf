//! The validation of a built landing, through the validation pipeline
//! (`ops::validation`): the plan's pre-conditions at the head, then the
//! validation commands (or the verdict cache's answer for them) and the
//! plan's expected outcomes at the new commit; and the verdict as an
//! apply reports it.

use schemars::JsonSchema;
use serde::Serialize;

use super::settings::RunSettings;
use crate::context::Context;
use crate::error::Result;
use crate::git::{Oid, Repo};
use crate::ops::validation::{self, Candidate, Judged};
use crate::store::audit::RefMove;
use crate::store::pending::Deferred;
use crate::store::verdicts::{CommandExit, Status};
use crate::validate::{Budget, CommandReport};

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

/// Validates `new`, built on `head`, as `s` says, within `budget`: a
/// cached pass stands for the commands, a cached fail refuses; a run is
/// stored as a verdict.
pub(super) fn validate_in_worktree(
    repo: &Repo,
    s: &RunSettings,
    ctx: &Context,
    (head, new): (Oid, Oid),
    budget: Budget,
) -> Result<Validated> {
    let tree = repo.find_commit(new)?.tree_id();
    let candidate = Candidate {
        head,
        commit: new,
        target: tree.to_string(),
    };
    let v = validation::run(repo, &s.validation, ctx, &candidate, budget)?;
    Ok(Validated {
        worktree_path: v.worktree_path,
        reports: v.reports,
        // A run cut short (an abort) answers nothing about the tree.
        verdict: v
            .verdict
            .filter(|j| j.cached || j.verdict.status != Status::Abort)
            .map(ApplyVerdict::of),
        warnings: v.warnings,
    })
}

/// The verdict an apply's validation commands reused or made.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct ApplyVerdict {
    pub key: String,
    /// The commands as text (`a && b`); `commands` has each one's exit.
    pub command: String,
    /// Each command, in order, with its exit (null: not run).
    pub commands: Vec<CommandExit>,
    pub status: Status,
    /// Reused from the verdict cache: the commands did not run now.
    pub cached: bool,
    pub exit_code: i32,
    pub duration_ms: u64,
    /// Seconds since the epoch; `user@host`; `local` or a trusted remote.
    pub made_at: i64,
    pub made_by: String,
    pub source: String,
    /// The verdict ref this apply moved storing it: a fact its record
    /// lists (issue 39 item 1).
    #[serde(skip)]
    #[schemars(skip)]
    pub moved: Option<RefMove>,
}

impl ApplyVerdict {
    fn of(judged: Judged) -> ApplyVerdict {
        let v = judged.verdict;
        ApplyVerdict {
            key: v.key,
            command: v.command,
            commands: v.commands,
            status: v.status,
            cached: judged.cached,
            exit_code: v.exit_code,
            duration_ms: v.duration_ms,
            made_at: v.made_at,
            made_by: v.made_by,
            source: judged.source,
            moved: judged.moved,
        }
    }

    /// "made 2026-11-28T04:10:00Z by ci@runner (origin)".
    pub fn provenance(&self) -> String {
        format!(
            "made {} by {} ({})",
            crate::clock::utc_rfc3339(self.made_at),
            self.made_by,
            self.source
        )
    }
}
