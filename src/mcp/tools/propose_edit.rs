//! `propose_edit`: a regex (or literal) replacement over the files at HEAD,
//! stored as a proposal; `git evolv propose`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::mcp::args::check_paths;
use crate::mcp::cap::{DEFAULT_MAX_DIFF_BYTES, MAX_LISTED_FILES, cap, cap_list};
use crate::mcp::tool::{Effect, Meta, SessionTool};
use evolv_core::globs::Globs;
use crate::ops::proposing::propose::{ProposeOutcome, ProposeRequest};

pub struct ProposeEdit;

/// `propose_edit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeEditArgs {
    /// Regular expression to search for (multi-line mode: ^ and $ match at
    /// line ends; inline flags such as (?i) work). Plain text with `literal`.
    pub pattern: String,
    /// Replacement text; $1 and ${name} expand to capture groups, $$ is a
    /// literal $ (unless `literal`).
    pub replacement: String,
    /// Globs over repository-relative paths of files tracked at HEAD
    /// (`src/**`, `**/*.rs`): one glob as a string or several as an array;
    /// default: every file.
    #[serde(default)]
    pub scope: Globs,
    /// Treat pattern and replacement as plain text.
    #[serde(default)]
    pub literal: bool,
    /// One-line summary stored with the proposal.
    pub message: Option<String>,
    /// Also edit files git does not treat as plain text: those with a
    /// filter driver (git-lfs pointers would be rewritten as text!),
    /// `binary` or `-text` in .gitattributes. Off by default: such files
    /// are skipped and counted in `statistics.filtered_skipped`. As `git
    /// evolv propose --include-filtered`.
    #[serde(default)]
    pub include_filtered: bool,
    /// Cap on `unified_diff` in bytes (default 65536); the full diff stays
    /// available through `show_proposal` and `git show`.
    #[schemars(range(min = 1))]
    pub max_diff_bytes: Option<usize>,
}

impl ProposeEditArgs {
    fn request(&self) -> ProposeRequest {
        ProposeRequest {
            pattern: self.pattern.clone(),
            replacement: self.replacement.clone(),
            scope: self.scope.clone(),
            literal: self.literal,
            message: self.message.clone(),
            include_filtered: self.include_filtered,
        }
    }
}

/// `propose_edit`: the CLI's `propose --json`, with the diff capped.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ProposeEditOutput {
    /// Always true in a result (a failure is an error result); the envelope
    /// the CLI's `--json` prints too (outcomes themselves are plain data).
    pub success: bool,
    /// Its `unified_diff` is cut at `max_diff_bytes` (at a line end), with
    /// `diff_truncated` and `diff_total_bytes`; the statistics are those
    /// of the whole patch.
    #[serde(flatten)]
    pub outcome: ProposeOutcome,
    /// `affected_files` lists only the first 1000 paths (the statistics
    /// count them all; `show_proposal` and `git show` have every one).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub affected_files_truncated: bool,
    /// `skipped` lists only the first 1000 files left out
    /// (`statistics` counts them all).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skipped_truncated: bool,
}

impl SessionTool for ProposeEdit {
    const META: Meta = Meta {
        name: "propose_edit",
        title: "Propose an edit",
        description: "Runs a regex (or literal) replacement over the files tracked at HEAD that match `scope`, stores the result as a proposal commit under refs/evolv/proposals/<patch_id>, and returns its unified diff (capped at max_diff_bytes, with full statistics). Files git does not treat as text (a filter driver such as LFS, `binary`, `-text`) are skipped and counted unless include_filtered. A pattern that matches nothing is the error `no_match`. Apply it with apply_edit.",
        effect: Effect::Proposes,
    };
    type Args = ProposeEditArgs;
    type Output = ProposeEditOutput;
    type UseCase = ProposeRequest;

    fn use_case(args: &ProposeEditArgs) -> ProposeRequest {
        args.request()
    }

    fn output(args: ProposeEditArgs, mut outcome: ProposeOutcome) -> Result<ProposeEditOutput> {
        let max = args.max_diff_bytes.unwrap_or(DEFAULT_MAX_DIFF_BYTES);
        // The outcome carries the diff's first JSON_DIFF_MAX bytes; the
        // cap is taken from the whole diff, which it keeps.
        let (head, cut) = outcome.diff.head(max)?;
        outcome.unified_diff = String::from_utf8_lossy(&head).into_owned();
        outcome.diff_truncated = cap(&mut outcome.unified_diff, max) || cut;
        let affected_files_truncated = cap_list(&mut outcome.affected_files, MAX_LISTED_FILES);
        if let Some(bytes) = &mut outcome.affected_files_bytes {
            cap_list(bytes, MAX_LISTED_FILES);
        }
        let skipped_truncated = cap_list(&mut outcome.skipped, MAX_LISTED_FILES);
        Ok(ProposeEditOutput {
            success: true,
            outcome,
            affected_files_truncated,
            skipped_truncated,
        })
    }

    fn check(args: &ProposeEditArgs) -> Result<()> {
        check_paths("scope", args.scope.iter())
    }
}
