//! `edit`: an edit list (exact, regex, ranges, write, delete, rename,
//! notebook cells) stored as one proposal; `git evolv propose --edits`.

use rmcp::model::JsonObject;

pub struct Edit;
use schemars::JsonSchema;
use serde::Serialize;

use crate::edit::list::EditList;
use crate::error::{Error, Result};
use crate::mcp::args::check_ids;
use crate::mcp::cap::{DEFAULT_MAX_DIFF_BYTES, cap};
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::proposing::edit::{EditOutcome, EditRequest};

/// `edit` and `notebook_edit`: the CLI's `propose --edits --json`, with the
/// diff capped.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EditToolOutput {
    #[serde(flatten)]
    pub outcome: EditOutcome,
    /// `unified_diff` was cut at `max_diff_bytes` (64 KiB).
    pub diff_truncated: bool,
    /// The size of the whole diff in bytes.
    pub diff_total_bytes: usize,
}

impl EditToolOutput {
    /// `outcome` with its diff cut at 64 KiB.
    pub fn capped(mut outcome: EditOutcome) -> EditToolOutput {
        let diff_total_bytes = outcome.diff_bytes.len();
        let diff_truncated = cap(&mut outcome.unified_diff, DEFAULT_MAX_DIFF_BYTES);
        EditToolOutput {
            outcome,
            diff_truncated,
            diff_total_bytes,
        }
    }
}

impl SessionTool for Edit {
    const META: Meta = Meta {
        name: "edit",
        title: "Propose precise edits",
        description: "Runs an edit list (exact replace, regex, line/column or offset ranges, write, delete, rename, notebook cells) against HEAD or a pending proposal (`onto`), checks the changed files with the validators, stores the result as one proposal commit under refs/evolv/proposals/<patch_id>, and returns its diff and a structured result per file (diff capped at 64 KiB). A failing edit is reported with its index, path, code and hint; with keep_going the others are still stored.",
        effect: Effect::Proposes,
    };
    type Args = EditList;
    type Output = EditToolOutput;
    type UseCase = EditRequest;

    /// The edit list's own parser, as `propose --edits` reads the file: its
    /// messages name the edit at fault (`edits[0]: …`).
    fn parse(arguments: Option<JsonObject>) -> Result<EditList> {
        let text = serde_json::Value::Object(arguments.unwrap_or_default()).to_string();
        EditList::from_json(&text).map_err(|m| {
            Error::invalid(
                format!("edit: {m}"),
                "see the inputSchema of `edit` in tools/list",
            )
        })
    }

    fn use_case(list: &EditList) -> EditList {
        list.clone()
    }

    fn output(_: EditList, outcome: EditOutcome) -> Result<EditToolOutput> {
        Ok(EditToolOutput::capped(outcome))
    }

    fn check(list: &EditList) -> Result<()> {
        check_ids("onto", &list.onto)
    }
}
