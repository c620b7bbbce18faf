//! `drop_proposal`: delete proposals' refs; `git evolv drop`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::Result;
use crate::mcp::call::Call;
use crate::mcp::tool::{Effect, McpTool, Reply};
use crate::ops::drop::{DropOutcome, DropRequest};
use crate::ops::permissions::check_id;

pub struct DropProposal;

/// `drop_proposal`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropProposalArgs {
    /// The proposal to drop.
    pub patch_id: Option<String>,
    /// Several proposals to drop (every id is checked before any is dropped).
    pub patch_ids: Option<Vec<String>>,
    /// Also drop the pending proposals stacked on these (a proposal with
    /// others on top is refused without it), as `git evolv drop
    /// --all-above`.
    #[serde(default)]
    pub all_above: bool,
}

impl DropProposalArgs {
    fn request(&self) -> DropRequest {
        let mut ids: Vec<String> = self.patch_id.iter().cloned().collect();
        ids.extend(self.patch_ids.iter().flatten().cloned());
        DropRequest {
            patch_ids: ids,
            all: false,
            all_above: self.all_above,
        }
    }
}

impl McpTool for DropProposal {
    const NAME: &'static str = "drop_proposal";
    const TITLE: &'static str = "Drop proposals";
    const DESCRIPTION: &'static str = "Deletes the named proposals' refs under refs/evolv/proposals/ (every id is checked before any is dropped; a proposal with others stacked on it needs all_above, which drops those too) and records the drop in the audit log. Never touches the working tree, the index or a branch; a landed proposal can still be rolled back.";
    const EFFECT: Effect = Effect::Writes {
        destructive: true,
        idempotent: true,
    };
    type Args = DropProposalArgs;
    type Output = DropOutcome;

    async fn run(call: &Call, args: DropProposalArgs) -> Result<Reply<DropOutcome>> {
        let req = args.request();
        for id in &req.patch_ids {
            check_id("patch_ids", id)?;
        }
        call.blocking::<DropRequest, _>(false, move |s| s.drop_proposals(&req))
            .await
            .map(Reply::Output)
    }
}
