//! `task_cancel`: stop a background apply before it lands; `git evolv task
//! cancel`.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::Result;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::applying::task::TaskOutcome;
use crate::ops::applying::task_use_cases::TaskCancel;

/// How long the cancel waits for the task to stop, as the CLI's.
const CANCEL_WAIT: Duration = Duration::from_secs(30);

pub struct CancelTask;

/// `task_cancel`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskCancelArgs {
    /// The id `apply_edit` returned with `run_in_background`.
    pub task_id: String,
}

impl SessionTool for CancelTask {
    const META: Meta = Meta {
        name: "task_cancel",
        title: "Cancel a background task",
        description: "Stops a background apply started with run_in_background: its validation is killed and nothing lands (a landing already under way finishes). Waits up to 30 seconds for the task to stop and returns its status and output, as task_output does. Cancelling a finished task changes nothing.",
        effect: Effect::Drops,
    };
    type Args = TaskCancelArgs;
    type Output = TaskOutcome;
    type UseCase = TaskCancel;

    fn use_case(args: &TaskCancelArgs) -> TaskCancel {
        TaskCancel {
            task_id: args.task_id.clone(),
            wait: CANCEL_WAIT,
        }
    }

    fn output(_: TaskCancelArgs, outcome: TaskOutcome) -> Result<TaskOutcome> {
        Ok(outcome)
    }
}
