//! `propose_patch`: a unified diff, a `git format-patch` mailbox or an
//! apply_patch envelope, proposed; `git evolv propose --patch`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::edit::list::CheckMode;
use crate::error::Result;
use crate::mcp::args::check_ids;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::mcp::tools::edit::EditToolOutput;
use crate::ops::proposing::edit::EditOutcome;
use crate::ops::proposing::propose_patch::{PatchAnswer, PatchRequest};

pub struct ProposePatch;

/// `propose_patch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposePatchArgs {
    /// The patch's text: a unified diff (`git diff --binary`, `diff -u`),
    /// a `git format-patch` mailbox (a series becomes a stack), or an
    /// apply_patch envelope (`*** Begin Patch` … `*** End Patch`).
    pub patch: String,
    /// Leading path components to strip from the names (git apply's -p);
    /// detected as git does when left out.
    pub strip: Option<u32>,
    /// The proposal's summary (default: a mailbox message's subject, or a
    /// description of the files).
    pub message: Option<String>,
    /// Stack on this pending proposal instead of HEAD.
    pub onto: Option<String>,
    /// How validator failures count (default strict).
    pub check: Option<CheckMode>,
}

impl SessionTool for ProposePatch {
    const META: Meta = Meta {
        name: "propose_patch",
        title: "Propose a patch",
        description: "Applies a patch to HEAD (or the pending proposal `onto`) as `git apply` does and stores the result as a proposal under refs/evolv/proposals/<patch_id>, touching no file: a unified diff as git diff (binary patches, renames, modes) or diff -u writes it, a git format-patch mailbox (each message a proposal, stacked; answered as `proposals`), or OpenAI's apply_patch envelope. A hunk that does not apply is `no_match`, naming the file, the hunk and the closest region. Diffs capped at 64 KiB each.",
        effect: Effect::Proposes,
    };
    type Args = ProposePatchArgs;
    type Output = PatchAnswer<EditToolOutput>;
    type UseCase = PatchRequest;

    fn use_case(args: &ProposePatchArgs) -> PatchRequest {
        PatchRequest {
            text: args.patch.clone().into_bytes(),
            source: "patch".into(),
            strip: args.strip.map(|n| n as usize),
            message: args.message.clone(),
            onto: args.onto.clone(),
            check: args.check,
        }
    }

    fn output(_: ProposePatchArgs, outcomes: Vec<EditOutcome>) -> Result<Self::Output> {
        Ok(PatchAnswer::of(outcomes.into_iter().map(EditToolOutput::capped).collect()))
    }

    fn check(args: &ProposePatchArgs) -> Result<()> {
        check_ids("onto", &args.onto)
    }
}
