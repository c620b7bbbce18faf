//! What a validation command did, as plain data: carried by
//! `Error::ValidationFailed` / `Timeout` and by apply's outcome. The
//! runner that makes them is the engine's `validate`.

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

/// What set an apply's time budget; the timeout's hint names the knob
/// that can raise it (`--timeout` cannot raise a plan's limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeoutSource {
    #[default]
    Default,
    Flag,
    Config,
    Plan,
}

impl TimeoutSource {
    /// How to give the apply more time.
    pub fn hint(self) -> &'static str {
        match self {
            TimeoutSource::Plan => {
                "nothing was landed; the plan's limits.timeout_seconds stopped it (at most 300, and timeout_secs can only shorten it): raise it in the plan, or speed up the command"
            }
            TimeoutSource::Config => {
                "nothing was landed; raise git config evolv.timeout (or give a larger timeout_secs), or speed up the command"
            }
            TimeoutSource::Flag | TimeoutSource::Default => {
                "nothing was landed; raise timeout_secs (or git config evolv.timeout) or speed up the command"
            }
        }
    }
}
