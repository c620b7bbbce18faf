//! `task_list`: the repository's background tasks, newest first;
//! `git evolv task list`.

use crate::error::Result;
use crate::mcp::args::NoArgs;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::applying::task::TaskListOutcome;
use crate::ops::applying::task_use_cases::TaskList;

pub struct ListTasks;

impl SessionTool for ListTasks {
    const META: Meta = Meta {
        name: "task_list",
        title: "List background tasks",
        description: "Lists the repository's background tasks, newest first, with their status. Reads the task files under the git dir; changes nothing.",
        effect: Effect::Reads,
    };
    type Args = NoArgs;
    type Output = TaskListOutcome;
    type UseCase = TaskList;

    fn use_case(_: &NoArgs) -> TaskList {
        TaskList
    }

    fn output(_: NoArgs, outcome: TaskListOutcome) -> Result<TaskListOutcome> {
        Ok(outcome)
    }
}
