//! `glob`: the files whose path matches a glob, newest first, capped;
//! `git evolv glob`.

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::Result;
use crate::mcp::args::check_paths;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::reading::glob::{GlobOutcome, GlobRequest};
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

impl SessionTool for Glob {
    const META: Meta = Meta {
        name: "glob",
        title: "Find files by glob",
        description: "Lists the files of the working tree (honouring .gitignore; or, with tracked, the files at HEAD) whose repository-relative path matches the glob (`*` within a directory, `**` across), newest first, at most 1000. `path` narrows the search to a directory of the repository. Changes nothing.",
        effect: Effect::Reads,
    };
    type Args = GlobRequest;
    type Output = GlobOutput;
    type UseCase = GlobRequest;

    fn use_case(args: &GlobRequest) -> GlobRequest {
        args.clone()
    }

    fn output(_: GlobRequest, mut outcome: GlobOutcome) -> Result<GlobOutput> {
        let total_files = outcome.files.len();
        outcome.files.truncate(MAX_GLOB_FILES);
        Ok(GlobOutput {
            outcome,
            total_files,
            truncated: total_files > MAX_GLOB_FILES,
        })
    }

    fn check(args: &GlobRequest) -> Result<()> {
        check_path("pattern", &args.pattern)?;
        check_paths("path", &args.path)
    }
}
