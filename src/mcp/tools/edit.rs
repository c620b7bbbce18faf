//! `edit`: an edit list (exact, regex, ranges, write, delete, rename,
//! notebook cells) stored as one proposal; `git evolv propose --edits`.

use schemars::JsonSchema;
use serde::Serialize;

use crate::edit::list::EditList;
use crate::error::{Error, Result};
use crate::mcp::call::Call;
use crate::mcp::tool::{DEFAULT_MAX_DIFF_BYTES, Effect, McpTool, Reply, cap};
use crate::ops;
use crate::ops::edit::EditOutcome;
use crate::ops::permissions::check_id;
use rmcp::model::JsonObject;

pub struct Edit;

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

impl McpTool for Edit {
    const NAME: &'static str = "edit";
    const TITLE: &'static str = "Propose precise edits";
    const DESCRIPTION: &'static str = "Runs an edit list (exact replace, regex, line/column or offset ranges, write, delete, rename, notebook cells) against HEAD or a pending proposal (`onto`), checks the changed files with the validators, stores the result as one proposal commit under refs/evolv/proposals/<patch_id>, and returns its diff and a structured result per file (diff capped at 64 KiB). A failing edit is reported with its index, path, code and hint; with keep_going the others are still stored.";
    const EFFECT: Effect = Effect::ReadOnly { idempotent: false };
    type Args = EditList;
    type Output = EditToolOutput;

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

    async fn run(call: &Call, list: EditList) -> Result<Reply<EditToolOutput>> {
        edit(call, list).await.map(Reply::Output)
    }
}

/// `edit` and `notebook_edit`: `ops::edit` with the diff capped.
pub async fn edit(call: &Call, list: EditList) -> Result<EditToolOutput> {
    if let Some(onto) = &list.onto {
        check_id("onto", onto)?;
    }
    // Paths are checked by the edit engine over the base tree (no
    // absolute path, no `..`, no `.git`, no symlinked parent).
    let mut outcome = call
        .blocking::<ops::edit::EditRequest, _>(true, move |s| s.edit(&list))
        .await?;
    let diff_total_bytes = outcome.diff_bytes.len();
    let diff_truncated = cap(&mut outcome.unified_diff, DEFAULT_MAX_DIFF_BYTES);
    Ok(EditToolOutput {
        outcome,
        diff_truncated,
        diff_total_bytes,
    })
}
