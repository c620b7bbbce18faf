//! What a validation command did, as plain data: carried by
//! `Error::ValidationFailed` / `Timeout` and by apply's outcome. Depends on
//! nothing of ours, so `error.rs` does not import the runner in
//! `validate.rs` (which imports `git::cli`, which imports `error.rs`).

use serde::Serialize;

/// When a command runs during an apply.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// A plan's pre-condition, at the branch head before the replay.
    PreCondition,
    /// `--validate` / `evolv.validate`, at the new commit.
    Validate,
    /// A plan's expected outcome, at the new commit.
    ExpectedOutcome,
}

/// What one validation command did.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct CommandReport {
    pub command: String,
    pub stage: Stage,
    /// The exit code; -1 when killed by a signal or the timeout.
    pub exit_code: i32,
    pub duration_ms: u64,
    /// The last few KiB of stdout and stderr, interleaved as written.
    pub output_tail: String,
    pub timed_out: bool,
}
