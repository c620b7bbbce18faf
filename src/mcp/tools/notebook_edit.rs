//! `notebook_edit`: one cell of a Jupyter notebook, as `edit` with an edit
//! list of one.

use schemars::JsonSchema;
use serde::Deserialize;

use super::edit::EditToolOutput;
use crate::edit::list::{CellMode, CellType, Edit, EditList};
use crate::error::Result;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::proposing::edit::{EditOutcome, EditRequest};

pub struct NotebookEdit;

/// `notebook_edit`: one cell of a Jupyter notebook, as an edit list of one.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
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
    fn list(self) -> EditList {
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

impl SessionTool for NotebookEdit {
    const META: Meta = Meta {
        name: "notebook_edit",
        title: "Propose a notebook cell edit",
        description: "Replaces, inserts or deletes one cell of a Jupyter notebook (by index or cell id) and stores the result as a proposal commit under refs/evolv/proposals/<patch_id>, exactly as `edit` with one notebook edit does.",
        effect: Effect::Proposes,
    };
    type Args = NotebookEditArgs;
    type Output = EditToolOutput;
    type UseCase = EditRequest;

    fn use_case(args: &NotebookEditArgs) -> EditList {
        args.clone().list()
    }

    fn output(_: NotebookEditArgs, outcome: EditOutcome) -> Result<EditToolOutput> {
        Ok(EditToolOutput::capped(outcome))
    }
}
