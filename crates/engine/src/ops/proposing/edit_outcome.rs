//! What an edit list answers: per file, where its change sits and what
//! happened to it; for the whole list, the proposal stored, its diff and
//! statistics.

use serde::Serialize;

use crate::diff::hunks::DiffBody;
use crate::edit::engine::ChangeKind;
use crate::edit::failure::EditFailure;
use crate::edit::list::CheckMode;
use crate::validators::ValidatorReport;

/// Where a file's change sits: the first to the last changed line of the
/// new content (1-based, end column exclusive).
#[derive(Debug, Clone, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct ResultLocator {
    pub start_line: usize,
    pub start_col: usize,
    pub end_line: usize,
    pub end_col: usize,
}

/// The structured result for one changed file.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FileResult {
    pub path: String,
    /// `create`, `modify`, `delete` or `rename`.
    pub operation_type: ChangeKind,
    /// The old path of a rename.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_path: Option<String>,
    /// The changed region; null for a delete.
    pub locator: Option<ResultLocator>,
    pub diff: DiffBody,
    /// The new content around the change (at most 20 lines), null for a delete.
    pub new_content_excerpt: Option<String>,
    /// File mode of the new file (or the deleted one), e.g. "100644".
    pub mode: String,
    /// Same-line warnings of the edits of this file.
    pub warnings: Vec<String>,
    /// The edits (indexes) that changed this file.
    pub edits: Vec<usize>,
    /// The validators that checked this file.
    pub validators: Vec<ValidatorReport>,
    /// True when nothing was stored (`--check only`).
    pub dry_run: bool,
}

/// Counts of an edit proposal.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct EditStatistics {
    pub edits: usize,
    pub edits_applied: usize,
    pub edits_failed: usize,
    pub files_changed: usize,
    pub lines_added: usize,
    pub lines_removed: usize,
}

/// What `edit` did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct EditOutcome {
    /// True when stored (or, with `--check only`, when every validator passed).
    pub success: bool,
    /// The proposal's id; null with `--check only`.
    pub patch_id: Option<String>,
    pub summary: String,
    pub affected_files: Vec<String>,
    /// The diff as text (invalid UTF-8 replaced); `diff_bytes` is exact.
    pub unified_diff: String,
    /// One structured result per changed file.
    pub files: Vec<FileResult>,
    /// Edits that failed and were left out (`keep_going`).
    pub failures: Vec<EditFailure>,
    pub warnings: Vec<String>,
    pub validators: Vec<ValidatorReport>,
    pub check: CheckMode,
    pub statistics: EditStatistics,
    /// The proposal commit P (null with `--check only`) and the base commit.
    pub commit: Option<String>,
    pub base: String,
    /// The proposal this one is stacked on.
    pub onto: Option<String>,
    pub dry_run: bool,
    #[serde(skip)]
    pub diff_bytes: Vec<u8>,
}

impl EditOutcome {
    /// Whether a validator failed.
    pub fn validation_failed(&self) -> bool {
        self.validators.iter().any(|v| !v.passed)
    }
}
