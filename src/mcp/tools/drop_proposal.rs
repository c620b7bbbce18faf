//! `drop_proposal`: delete proposals' refs; `git evolv drop`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::Result;
use crate::mcp::args::{check_ids, patch_ids};
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::drop::{DropOutcome, DropRequest};

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
        DropRequest {
            patch_ids: patch_ids(&self.patch_id, &self.patch_ids),
            all: false,
            all_above: self.all_above,
        }
    }
}

impl SessionTool for DropProposal {
    const META: Meta = Meta {
        name: "drop_proposal",
        title: "Drop proposals",
        description: "Deletes the named proposals' refs under refs/evolv/proposals/ (every id is checked before any is dropped; a proposal with others stacked on it needs all_above, which drops those too) and records the drop in the audit log. Never touches the working tree, the index or a branch; a landed proposal can still be rolled back.",
        effect: Effect::Drops,
    };
    type Args = DropProposalArgs;
    type Output = DropOutcome;
    type UseCase = DropRequest;

    fn use_case(args: &DropProposalArgs) -> DropRequest {
        args.request()
    }

    fn output(_: DropProposalArgs, outcome: DropOutcome) -> Result<DropOutcome> {
        Ok(outcome)
    }

    fn check(args: &DropProposalArgs) -> Result<()> {
        check_ids("patch_ids", &args.request().patch_ids)
    }
}
