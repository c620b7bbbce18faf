//! `apply_edit`: validate and land proposals on the current branch, after
//! the user's confirmation on a protected one; `git evolv apply`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::mcp::args::{check_ids, patch_ids};
use crate::mcp::call::Call;
use crate::mcp::tool::{Effect, McpTool, Meta, Reply, failure};
use crate::ops;
use crate::ops::applying::apply::ApplyRequest;
use crate::ops::applying::apply_answer::ApplyAnswer;
use crate::ops::applying::plan::PlanSource;
use crate::plan::ExecutionPlan;

pub struct ApplyEdit;

/// `apply_edit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyEditArgs {
    /// The proposal to apply (from `propose_edit` or `list_proposals`).
    pub patch_id: Option<String>,
    /// Several proposals, applied in this order (instead of `patch_id`).
    pub patch_ids: Option<Vec<String>>,
    /// The execution plan: limits, pre-conditions, expected outcomes,
    /// rollback strategy. Its commands run only when the repository allows
    /// it (`git config evolv.mcp.allowPlanCommands true`).
    #[serde(default)]
    #[schemars(with = "ExecutionPlan")]
    pub execution_plan: Option<serde_json::Value>,
    /// Do everything but move the branch; report what would land.
    #[serde(default)]
    pub dry_run: bool,
    /// Return a `task_id` at once and run the apply in the background; poll
    /// it with `task_output`.
    #[serde(default)]
    pub run_in_background: bool,
    /// Land only the changes to paths these globs match (one id; a glob as
    /// a string or several as an array); the rest stays a pending proposal
    /// under the same id, stacked on what landed (`remaining_patch_id`).
    #[serde(default)]
    pub paths: Option<evolv_core::globs::Globs>,
    /// Run the validation even when a trusted verdict for the candidate
    /// tree is cached (a cached pass skips it; a cached fail refuses).
    #[serde(default)]
    pub no_cache: bool,
}

impl ApplyEditArgs {
    fn request(&self) -> ApplyRequest {
        ApplyRequest {
            patch_ids: patch_ids(&self.patch_id, &self.patch_ids),
            // The repository's own configuration decides the validation.
            validate: None,
            timeout_secs: None,
            fresh_worktree: None,
            plan: self.execution_plan.as_ref().map(|v| PlanSource::Text {
                name: "execution_plan".into(),
                text: v.to_string(),
            }),
            dry_run: self.dry_run,
            batch: false,
            paths: self.paths.clone(),
            no_cache: self.no_cache,
            hunks: None,
        }
    }
}

impl McpTool for ApplyEdit {
    const META: Meta = Meta {
        name: "apply_edit",
        title: "Apply a proposal to the current branch",
        description: "Replays the proposal(s) onto the current branch, runs the repository's configured validation (git config evolv.validate) and the execution plan's commands in an isolated validation worktree, then fast-forwards the branch and updates only the changed files in the working tree and index. Refuses if those files have uncommitted changes. Nothing lands if validation fails or times out. On a protected branch the user is asked to confirm when the client supports it. With run_in_background it returns a task_id at once (poll with task_output). Undo with rollback.",
        effect: Effect::Lands,
    };
    type Args = ApplyEditArgs;
    type Output = ApplyAnswer;

    async fn run(call: &Call, args: ApplyEditArgs) -> Result<Reply<ApplyAnswer>> {
        let req = check(call, &args).await?;
        // Ask before anything that lands on a protected branch.
        if let Some(asked) = call.ask(&req).await? {
            return Ok(Reply::Response(asked));
        }
        if args.run_in_background {
            let task = ops::applying::task::TaskRequest::from_apply(&req)?;
            let started = call.run(false, task).await?;
            return Ok(Reply::Output(ApplyAnswer::Started(started)));
        }
        let ids = req.patch_ids.len();
        let report = call.run(true, req).await?;
        // The same JSON as `git evolv apply --json`; an apply that stopped
        // after some proposals landed is an error result that still says
        // what landed.
        let answer = ApplyAnswer::of(report, ids);
        if !answer.success() {
            let body = serde_json::to_value(&answer).map_err(|e| Error::Internal {
                at: "apply_edit",
                message: e.to_string(),
            })?;
            return Ok(Reply::Response(failure(body).into()));
        }
        Ok(Reply::Output(answer))
    }
}

/// What a client is refused before anything is looked at: a bad plan
/// (every problem at once, each naming its field), no id, an id that is
/// an option, plan commands the repository does not allow.
async fn check(call: &Call, args: &ApplyEditArgs) -> Result<ApplyRequest> {
    if let Some(plan) = &args.execution_plan {
        ops::applying::plan::load(&PlanSource::Text {
            name: "execution_plan".into(),
            text: plan.to_string(),
        })?;
    }
    let ids = patch_ids(&args.patch_id, &args.patch_ids);
    if ids.is_empty() {
        return Err(Error::invalid(
            "apply_edit: missing field `patch_id` (or `patch_ids`)",
            "pass the id propose_edit returned (list_proposals shows them all)",
        ));
    }
    check_ids("patch_id", &ids)?;
    let plan = ops::applying::plan::ClientPlan(args.execution_plan.clone());
    call.run(false, plan).await?;
    Ok(args.request())
}
