//! The arguments of each MCP tool: flat, typed structs whose JSON Schema is
//! the tool's `inputSchema`. Each converts into the ops request the CLI
//! builds from its flags; no default or rule is decided here.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::edit::list::{CellMode, CellType, Edit, EditList};
use crate::ops::apply::ApplyRequest;
use crate::ops::cat::CatRequest;
use crate::ops::drop::DropRequest;
use crate::ops::plan::PlanSource;
use crate::ops::propose::ProposeRequest;
use crate::ops::rollback::RollbackRequest;
use crate::plan::{ExecutionPlan, RollbackStrategy};

/// The default cap of a diff in a tool result: 64 KiB.
pub const DEFAULT_MAX_DIFF_BYTES: usize = 64 * 1024;

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
    /// (`src/**`, `**/*.rs`); default: every file.
    #[serde(default)]
    pub scope: Vec<String>,
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
    pub fn request(&self) -> ProposeRequest {
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

/// `apply_edit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyEditArgs {
    /// The proposal to apply (from `propose_edit` or `list_proposals`).
    pub patch_id: Option<String>,
    /// Several proposals, applied in this order (instead of `patch_id`).
    pub patch_ids: Option<Vec<String>>,
    /// The execution plan: limits, pre-conditions, expected outcomes,
    /// rollback strategy. Its commands run only when the repository allows
    /// it (`git config evolv.mcp.allowPlanCommands true`).
    #[serde(default)]
    #[schemars(with = "ExecutionPlan")]
    pub execution_plan: Option<serde_json::Value>,
    /// Do everything but move the branch; report what would land.
    #[serde(default)]
    pub dry_run: bool,
    /// Return a `task_id` at once and run the apply in the background; poll
    /// it with `task_output`.
    #[serde(default)]
    pub run_in_background: bool,
}

impl ApplyEditArgs {
    /// The ids, `patch_id` first; empty when neither was given.
    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.patch_id.iter().cloned().collect();
        ids.extend(self.patch_ids.iter().flatten().cloned());
        ids
    }

    pub fn request(&self) -> ApplyRequest {
        ApplyRequest {
            patch_ids: self.ids(),
            // The repository's own configuration decides the validation.
            validate: None,
            timeout_secs: None,
            fresh_worktree: None,
            plan: self.execution_plan.as_ref().map(|v| PlanSource::Text {
                name: "execution_plan".into(),
                text: v.to_string(),
            }),
            dry_run: self.dry_run,
            batch: false,
        }
    }
}

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
    pub fn request(&self) -> DropRequest {
        let mut ids: Vec<String> = self.patch_id.iter().cloned().collect();
        ids.extend(self.patch_ids.iter().flatten().cloned());
        DropRequest {
            patch_ids: ids,
            all: false,
            all_above: self.all_above,
        }
    }
}

/// `rollback`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RollbackArgs {
    /// The applied proposal to undo.
    pub patch_id: String,
    /// git_revert (a revert commit), file_backup (restore the files from the
    /// pre-apply commit) or manual (change nothing, list the plan's steps);
    /// default: the strategy of the plan it was applied under, else git_revert.
    pub strategy: Option<RollbackStrategy>,
    /// With file_backup: restore the files even though later commits
    /// changed them too; those commits' changes to the files are undone
    /// and listed in `undone_commits`. Without it such a rollback is
    /// refused (`later_changes`) and nothing changes. As `git evolv
    /// rollback --force`.
    #[serde(default)]
    pub force: bool,
}

impl RollbackArgs {
    pub fn request(&self) -> RollbackRequest {
        RollbackRequest {
            patch_id: self.patch_id.clone(),
            strategy: self.strategy,
            force: self.force,
        }
    }
}

/// `lint_commit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LintCommitArgs {
    /// The commit message to check against the repository's Conventional
    /// Commits rules.
    pub message: String,
}

/// `audit_log`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditLogArgs {
    /// At most this many entries, newest first (default: all).
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
}

/// Tools without arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// `task_output`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskOutputArgs {
    /// The id `apply_edit` returned with `run_in_background`.
    pub task_id: String,
    /// Wait for the task to finish (default true); false answers at once
    /// with the output so far.
    #[serde(default = "yes")]
    pub block: bool,
    /// With `block`, answer after this many seconds even if the task is
    /// still running (default 30, at most 600).
    #[schemars(range(min = 0, max = 600))]
    pub timeout_seconds: Option<u64>,
}

fn yes() -> bool {
    true
}

/// `notebook_edit`: one cell of a Jupyter notebook, as an edit list of one.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotebookEditArgs {
    /// Repository-relative path of the `.ipynb` file.
    pub path: String,
    /// replace, insert (after `cell`; -1 inserts at the top) or delete.
    pub mode: CellMode,
    /// The cell's 0-based index.
    pub cell: Option<i64>,
    /// The cell's `id` (nbformat 4.5 and newer), instead of `cell`.
    pub cell_id: Option<String>,
    /// code, markdown or raw (insert: default code; replace: unchanged).
    pub cell_type: Option<CellType>,
    /// The cell's new source (replace and insert).
    pub source: Option<String>,
    /// Keep a replaced code cell's outputs and execution count.
    #[serde(default)]
    pub keep_outputs: bool,
    /// One-line summary stored with the proposal.
    pub message: Option<String>,
}

impl NotebookEditArgs {
    pub fn list(self) -> EditList {
        EditList {
            message: self.message,
            edits: vec![Edit::Notebook {
                path: self.path,
                mode: self.mode,
                cell: self.cell,
                cell_id: self.cell_id,
                cell_type: self.cell_type,
                source: self.source,
                keep_outputs: self.keep_outputs,
            }],
            ..EditList::default()
        }
    }
}

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
    pub fn request(&self) -> CatRequest {
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
