//! `rollback`: undo an applied proposal with a new commit, after the
//! user's confirmation on a protected branch; `git evolv rollback`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::Result;
use crate::mcp::call::Call;
use crate::mcp::tool::{Effect, McpTool, Meta, Reply};
use crate::ops::permissions::check_id;
use crate::ops::succeeded::Succeeded;
use crate::ops::applying::rollback::{RollbackOutcome, RollbackRequest};
use crate::plan::RollbackStrategy;

pub struct Rollback;

/// `rollback`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RollbackArgs {
    /// The applied proposal to undo.
    pub patch_id: String,
    /// git_revert (a revert commit), file_backup (restore the files from the
    /// pre-apply commit) or manual (change nothing, list the plan's steps);
    /// default: the strategy of the plan it was applied under, else git_revert.
    pub strategy: Option<RollbackStrategy>,
    /// With file_backup: restore the files even though later commits
    /// changed them too; those commits' changes to the files are undone
    /// and listed in `undone_commits`. Without it such a rollback is
    /// refused (`later_changes`) and nothing changes. As `git evolv
    /// rollback --force`.
    #[serde(default)]
    pub force: bool,
}

impl RollbackArgs {
    fn request(&self) -> RollbackRequest {
        RollbackRequest {
            patch_id: self.patch_id.clone(),
            strategy: self.strategy,
            force: self.force,
        }
    }
}

impl McpTool for Rollback {
    const META: Meta = Meta {
        name: "rollback",
        title: "Roll back an applied proposal",
        description: "Undoes what apply_edit landed with a new commit on the current branch (git_revert: a revert commit; file_backup: the changed files restored from before the apply; manual: changes nothing and returns the plan's steps). A file_backup rollback over later commits that changed the same files is refused (`later_changes`) unless force, which undoes those commits' changes to them too. Updates only those files in the working tree and index, and refuses if they have uncommitted changes. On a protected branch the user is asked to confirm when the client supports it.",
        effect: Effect::Lands,
    };
    type Args = RollbackArgs;
    type Output = Succeeded<RollbackOutcome>;

    async fn run(call: &Call, args: RollbackArgs) -> Result<Reply<Succeeded<RollbackOutcome>>> {
        check_id("patch_id", &args.patch_id)?;
        let req = args.request();
        if let Some(asked) = call.ask(&req).await? {
            return Ok(Reply::Response(asked));
        }
        call.run(true, req)
            .await
            .map(|outcome| Reply::Output(Succeeded::new(outcome)))
    }
}
