//! Why an edit failed: a stable code, a message naming the edit, the file
//! and the line, and a hint. Gathered into `Error::EditsFailed`.

use serde::Serialize;

/// The code of one failed edit (stable: scripts match on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EditCode {
    NoMatch,
    AmbiguousMatch,
    AlreadyApplied,
    OverlappingEdits,
    OutOfBounds,
    InvalidLocator,
    BinaryFile,
    NotFound,
    InvalidInput,
    ValidationFailed,
}

impl EditCode {
    /// The machine code.
    pub fn as_str(self) -> &'static str {
        match self {
            EditCode::NoMatch => "no_match",
            EditCode::AmbiguousMatch => "ambiguous_match",
            EditCode::AlreadyApplied => "already_applied",
            EditCode::OverlappingEdits => "overlapping_edits",
            EditCode::OutOfBounds => "out_of_bounds",
            EditCode::InvalidLocator => "invalid_locator",
            EditCode::BinaryFile => "binary_file",
            EditCode::NotFound => "not_found",
            EditCode::InvalidInput => "invalid_input",
            EditCode::ValidationFailed => "validation_failed",
        }
    }

    /// 2 for a malformed request, 1 when the content said no.
    pub fn exit_code(self) -> u8 {
        match self {
            EditCode::InvalidInput => 2,
            _ => 1,
        }
    }
}

/// The closest region to an `old` text that was not found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Candidate {
    pub start_line: usize,
    pub end_line: usize,
    /// The first line (in the file) that differs from `old`.
    pub first_diff_line: usize,
    /// That line as `old` has it, and as the file has it.
    pub expected: String,
    pub found: String,
}

/// One failed edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct EditFailure {
    /// The edit's index in the list; null for a validator's failure.
    pub index: Option<usize>,
    pub path: String,
    pub code: EditCode,
    pub message: String,
    pub hint: String,
    /// Where the failure was, when known.
    #[serde(flatten)]
    pub detail: Box<Detail>,
}

/// Facts about a failure that only some codes have.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Detail {
    /// Lines of every occurrence (`ambiguous_match`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<Vec<usize>>,
    /// The closest region (`no_match`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate: Option<Candidate>,
    /// The file's blob id at the base.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

impl EditFailure {
    /// A failure with a code, message and hint.
    pub fn new(
        index: Option<usize>,
        path: &str,
        code: EditCode,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        EditFailure {
            index,
            path: path.to_string(),
            code,
            message: message.into(),
            hint: hint.into(),
            detail: Box::default(),
        }
    }

    /// A malformed edit.
    pub fn invalid(index: Option<usize>, path: &str, message: String) -> Self {
        EditFailure::new(
            index,
            path,
            EditCode::InvalidInput,
            message,
            "fix the edit list; `git evolv propose --edits-schema` prints its format",
        )
    }

    /// `edits[i] (path): ` before the message, as listed to people.
    pub fn label(&self) -> String {
        match self.index {
            Some(i) => format!("edits[{i}] ({})", self.path),
            None => self.path.clone(),
        }
    }
}
