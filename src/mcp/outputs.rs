//! Tool results that add to an ops outcome what only a size-capped front end
//! needs: the truncation flag and the full size of a capped diff, and the
//! task id of a background apply. Everything else is the ops outcome as the
//! CLI's `--json` prints it.

use schemars::JsonSchema;
use serde::Serialize;

use crate::ops::apply::{ApplyOutcome, ApplyReport};
use crate::ops::cat::CatOutcome;
use crate::ops::edit::EditOutcome;
use crate::ops::glob::GlobOutcome;
use crate::ops::inspect::ShowOutcome;
use crate::ops::propose::ProposeOutcome;

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
}

/// `show_proposal`: the CLI's `show --json`, with the diff capped.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShowProposalOutput {
    #[serde(flatten)]
    pub outcome: ShowOutcome,
    /// `unified_diff` (and `word_diff`) was cut at `max_diff_bytes`.
    pub diff_truncated: bool,
    /// The size of the whole diff in bytes.
    pub diff_total_bytes: usize,
    /// The diff in git's `--word-diff` form (`[-old-]{+new+}`), when asked for.
    pub word_diff: Option<String>,
}

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

/// `apply_edit`: the apply report (one entry per landed proposal); with
/// `run_in_background`, only `task_id` and `status: running`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ApplyEditOutput {
    pub success: bool,
    pub dry_run: bool,
    pub batch: bool,
    /// What landed (or would land, in a dry run), in order.
    pub results: Vec<ApplyOutcome>,
    /// The background task running the apply (`run_in_background`); poll it
    /// with `task_output`. Null for an apply that ran in the call.
    pub task_id: Option<String>,
    /// `running` for a background apply, else `succeeded`.
    pub status: String,
}

impl ApplyEditOutput {
    pub fn from_report(report: ApplyReport) -> Self {
        ApplyEditOutput {
            success: report.error.is_none(),
            dry_run: report.dry_run,
            batch: report.batch,
            results: report.results,
            task_id: None,
            status: "succeeded".into(),
        }
    }

    pub fn started(task_id: String, dry_run: bool) -> Self {
        ApplyEditOutput {
            success: true,
            dry_run,
            batch: false,
            results: Vec::new(),
            task_id: Some(task_id),
            status: "running".into(),
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

/// Cuts `text` to at most `max` bytes at a line end (or a character
/// boundary when the first line is longer); returns whether it cut.
pub fn cap(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if let Some(nl) = text[..end].rfind('\n') {
        end = nl + 1;
    }
    text.truncate(end);
    true
}

#[cfg(test)]
mod tests {
    use super::cap;

    #[test]
    fn cap_cuts_at_a_line_end_and_keeps_short_text() {
        let mut t = "one\ntwo\nthree\n".to_string();
        assert!(cap(&mut t, 10));
        assert_eq!(t, "one\ntwo\n");
        let mut short = "a\n".to_string();
        assert!(!cap(&mut short, 10));
        assert_eq!(short, "a\n");
        let mut wide = "ééé".to_string();
        assert!(cap(&mut wide, 3));
        assert_eq!(wide, "é");
    }
}
