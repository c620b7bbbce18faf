//! `task_output`: a background task's status and output, waiting for it
//! to finish if asked; `git evolv task output`.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::Result;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::applying::task::TaskOutcome;
use crate::ops::applying::task_use_cases::TaskShow;

/// How long `task_output` waits by default, and at most.
const TASK_WAIT_DEFAULT: u64 = 30;
const TASK_WAIT_MAX: u64 = 600;

pub struct TaskOutput;

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

impl SessionTool for TaskOutput {
    const META: Meta = Meta {
        name: "task_output",
        title: "Read a background task",
        description: "Returns a background task's status (running, succeeded, failed, timed_out, cancelled), its output so far and, once finished, its result. With block (the default) it waits until the task finishes or timeout_seconds pass (then status is still running). Reads the task's files under the git dir; changes nothing.",
        effect: Effect::Reads,
    };
    type Args = TaskOutputArgs;
    type Output = TaskOutcome;
    type UseCase = TaskShow;

    fn use_case(args: &TaskOutputArgs) -> TaskShow {
        let wait = if args.block {
            args.timeout_seconds
                .unwrap_or(TASK_WAIT_DEFAULT)
                .min(TASK_WAIT_MAX)
        } else {
            0
        };
        // The call's cancellation (its session's context) stops the wait.
        TaskShow {
            task_id: args.task_id.clone(),
            wait: Duration::from_secs(wait),
        }
    }

    fn output(_: TaskOutputArgs, outcome: TaskOutcome) -> Result<TaskOutcome> {
        Ok(outcome)
    }
}
