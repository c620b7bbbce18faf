//! `task_list`: the repository's background tasks, newest first;
//! `git evolv task list`.

use crate::error::Result;
use crate::mcp::call::Call;
use crate::mcp::tool::{Effect, McpTool, NoArgs, Reply};
use crate::ops::task::{TaskListOutcome, TaskQuery};

pub struct TaskList;

impl McpTool for TaskList {
    const NAME: &'static str = "task_list";
    const TITLE: &'static str = "List background tasks";
    const DESCRIPTION: &'static str = "Lists the repository's background tasks, newest first, with their status. Reads the task files under the git dir; changes nothing.";
    const EFFECT: Effect = Effect::ReadOnly { idempotent: true };
    type Args = NoArgs;
    type Output = TaskListOutcome;

    async fn run(call: &Call, _: NoArgs) -> Result<Reply<TaskListOutcome>> {
        // Task files only, as `task_output`: no recovery first.
        call.blocking::<TaskQuery, _>(false, |s| s.tasks(&TaskQuery::default()))
            .await
            .map(Reply::Output)
    }
}
