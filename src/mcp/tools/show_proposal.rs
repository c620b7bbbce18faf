//! `show_proposal`: one proposal and its diff, capped; `git evolv show`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::mcp::cap::{DEFAULT_MAX_DIFF_BYTES, cap};
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::reading::inspect::{ShowOutcome, ShowRequest};
use crate::ops::permissions::check_id;

pub struct ShowProposal;

/// `show_proposal`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowProposalArgs {
    /// The proposal's id (`patch_<seconds>_<hex>`).
    pub patch_id: String,
    /// Also return a word-level diff of the changed lines.
    #[serde(default)]
    pub word_diff: bool,
    /// Cap on `unified_diff` in bytes (default 65536).
    #[schemars(range(min = 1))]
    pub max_diff_bytes: Option<usize>,
}

/// `show_proposal`: the CLI's `show --json`, with the diff capped.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShowProposalOutput {
    #[serde(flatten)]
    pub outcome: ShowOutcome,
    /// `unified_diff` (and `word_diff`) was cut at `max_diff_bytes`.
    pub diff_truncated: bool,
    /// The size of the whole diff in bytes.
    pub diff_total_bytes: usize,
    /// The diff in git's `--word-diff` form (`[-old-]{+new+}`), when asked for.
    pub word_diff: Option<String>,
}

impl SessionTool for ShowProposal {
    const META: Meta = Meta {
        name: "show_proposal",
        title: "Show a proposal",
        description: "Returns one proposal's summary, status and stored unified diff (capped at max_diff_bytes, 64 KiB by default, with a truncation flag; `git show refs/evolv/proposals/<patch_id>` has all of it). Changes nothing.",
        effect: Effect::Reads,
    };
    type Args = ShowProposalArgs;
    type Output = ShowProposalOutput;
    type UseCase = ShowRequest;

    fn use_case(args: &ShowProposalArgs) -> ShowRequest {
        ShowRequest {
            patch_id: args.patch_id.clone(),
        }
    }

    fn output(args: ShowProposalArgs, mut outcome: ShowOutcome) -> Result<ShowProposalOutput> {
        let max = args.max_diff_bytes.unwrap_or(DEFAULT_MAX_DIFF_BYTES);
        let diff_total_bytes = outcome.diff_bytes.len();
        let mut diff_truncated = cap(&mut outcome.unified_diff, max);
        let word_diff = args.word_diff.then(|| {
            let mut text = crate::diff::word::word_diff(&outcome.diff_bytes);
            diff_truncated |= cap(&mut text, max);
            text
        });
        Ok(ShowProposalOutput {
            outcome,
            diff_truncated,
            diff_total_bytes,
            word_diff,
        })
    }

    fn check(args: &ShowProposalArgs) -> Result<()> {
        check_id("patch_id", &args.patch_id)
    }
}
