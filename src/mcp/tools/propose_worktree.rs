//! `propose_worktree`: what the work tree holds where it differs from HEAD,
//! proposed, then put back to HEAD unless kept; `git evolv propose
//! --from-worktree`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::edit::list::CheckMode;
use crate::error::Result;
use evolv_core::globs::Globs;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::proposing::capture::{CaptureOutcome, CaptureRequest};

pub struct ProposeWorktree;

/// `propose_worktree`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeWorktreeArgs {
    /// Pathspecs relative to the repository's top, as git takes them: one
    /// as a string or several as an array (default: the whole work tree).
    #[serde(default)]
    pub paths: Globs,
    /// Leave the work tree and index as they are (default: those paths go
    /// back to HEAD once the proposal is stored, as `git stash` does).
    #[serde(default)]
    pub keep: bool,
    /// Capture untracked, non-ignored files too (`git stash -u`).
    #[serde(default)]
    pub include_untracked: bool,
    /// The proposal's summary.
    pub message: Option<String>,
    /// How validator failures count (default strict).
    pub check: Option<CheckMode>,
}

impl SessionTool for ProposeWorktree {
    const META: Meta = Meta {
        name: "propose_worktree",
        title: "Propose the work tree's changes",
        description: "Captures what the work tree holds where it differs from HEAD (edits made by a formatter, a generator, a shell command or an editor: modified, deleted, mode-changed and symlink-changed tracked files, and untracked non-ignored files with include_untracked) as a proposal based on HEAD, byte for byte with git's clean filters. Then, unless keep is set, those paths go back to HEAD in the work tree and index, as git stash does, only once the proposal is durably stored; other files and their staged state are untouched. A path saved again while the capture ran is left as it is and listed in not_restored with the reason (the proposal holds what was captured); a locked index (index_locked) stops the capture before anything is stored; a pathspec outside the repository is invalid_input.",
        effect: Effect::Stashes,
    };
    type Args = ProposeWorktreeArgs;
    type Output = CaptureOutcome;
    type UseCase = CaptureRequest;

    fn use_case(args: &ProposeWorktreeArgs) -> CaptureRequest {
        CaptureRequest {
            pathspec: args.paths.0.clone(),
            cwd: None,
            keep: args.keep,
            include_untracked: args.include_untracked,
            message: args.message.clone(),
            check: args.check,
        }
    }

    fn output(_: ProposeWorktreeArgs, outcome: CaptureOutcome) -> Result<CaptureOutcome> {
        Ok(outcome)
    }
}
