//! `read_file`: a file at HEAD or as a proposal makes it, numbered and
//! capped; `git evolv cat`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::mcp::args::check_ids;
use crate::mcp::cap::cap;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::reading::cat::{self, CatOutcome, CatRequest};
use crate::ops::permissions::check_path;

/// The cap of `content` and `numbered`.
const MAX_READ_BYTES: usize = 256 * 1024;

pub struct ReadFile;

/// `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// Repository-relative path of the file.
    pub path: String,
    /// Read the file as this proposal would make it (default: HEAD).
    pub patch_id: Option<String>,
    /// First line to return (1-based; default 1).
    #[schemars(range(min = 1))]
    pub start_line: Option<usize>,
    /// Last line to return, inclusive (default: the end of the file).
    #[schemars(range(min = 1))]
    pub end_line: Option<usize>,
}

impl ReadFileArgs {
    fn request(&self) -> CatRequest {
        let lines = match (self.start_line, self.end_line) {
            (None, None) => None,
            (a, b) => Some((a.unwrap_or(1), b.unwrap_or(usize::MAX))),
        };
        CatRequest {
            patch_id: self.patch_id.clone().unwrap_or_else(|| "HEAD".into()),
            path: self.path.clone(),
            lines,
        }
    }
}

/// `read_file`: the file (or its lines) with line numbers.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadFileOutput {
    #[serde(flatten)]
    pub outcome: CatOutcome,
    /// The lines as `cat -n` shows them: the number right-aligned in six
    /// columns, a tab, the line.
    pub numbered: String,
    /// `content` and `numbered` were cut at 256 KiB (at a line end); ask
    /// for a line range to read the rest.
    pub truncated: bool,
}

impl SessionTool for ReadFile {
    const META: Meta = Meta {
        name: "read_file",
        title: "Read a file at HEAD or in a proposal",
        description: "Returns a file as it is at HEAD, or as a proposal (patch_id) would make it, with line numbers (cat -n layout) and its total line count, so locators for `edit` can be computed from what the edit will see. Optionally only lines start_line..end_line; capped at 256 KiB. Reads git objects only; changes nothing.",
        effect: Effect::Reads,
    };
    type Args = ReadFileArgs;
    type Output = ReadFileOutput;
    type UseCase = CatRequest;

    fn use_case(args: &ReadFileArgs) -> CatRequest {
        args.request()
    }

    fn output(_: ReadFileArgs, mut outcome: CatOutcome) -> Result<ReadFileOutput> {
        let mut numbered = String::from_utf8_lossy(&cat::numbered(&outcome)).into_owned();
        let truncated =
            cap(&mut outcome.content, MAX_READ_BYTES) | cap(&mut numbered, MAX_READ_BYTES);
        Ok(ReadFileOutput {
            outcome,
            numbered,
            truncated,
        })
    }

    fn check(args: &ReadFileArgs) -> Result<()> {
        check_ids("patch_id", &args.patch_id)?;
        check_path("path", &args.path)
    }
}
