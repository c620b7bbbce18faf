//! `glob`: the files whose path matches a glob, newest first, capped;
//! `git evolv glob`.

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::Result;
use crate::mcp::call::Call;
use crate::mcp::tool::{Effect, McpTool, Reply};
use crate::ops::glob::{GlobOutcome, GlobRequest};
use crate::ops::permissions::check_path;

/// At most this many files in a result.
const MAX_GLOB_FILES: usize = 1000;

pub struct Glob;

/// `glob`: the files found, newest first, capped.
#[derive(Debug, Serialize, JsonSchema)]
pub struct GlobOutput {
    #[serde(flatten)]
    pub outcome: GlobOutcome,
    /// How many files matched in all.
    pub total_files: usize,
    /// `files` holds only the first 1000; narrow the pattern or `path`.
    pub truncated: bool,
}

impl McpTool for Glob {
    const NAME: &'static str = "glob";
    const TITLE: &'static str = "Find files by glob";
    const DESCRIPTION: &'static str = "Lists the files of the working tree (honouring .gitignore; or, with tracked, the files at HEAD) whose repository-relative path matches the glob (`*` within a directory, `**` across), newest first, at most 1000. `path` narrows the search to a directory of the repository. Changes nothing.";
    const EFFECT: Effect = Effect::ReadOnly { idempotent: true };
    type Args = GlobRequest;
    type Output = GlobOutput;

    async fn run(call: &Call, args: GlobRequest) -> Result<Reply<GlobOutput>> {
        check_path("pattern", &args.pattern)?;
        if let Some(p) = &args.path {
            check_path("path", p)?;
        }
        // The working tree as it is: no recovery first (as the CLI).
        let mut outcome = call
            .blocking::<GlobRequest, _>(false, move |s| s.glob(&args))
            .await?;
        let total_files = outcome.files.len();
        outcome.files.truncate(MAX_GLOB_FILES);
        Ok(Reply::Output(GlobOutput {
            outcome,
            total_files,
            truncated: total_files > MAX_GLOB_FILES,
        }))
    }
}
