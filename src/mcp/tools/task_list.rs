//! `task_list`: the repository's background tasks, newest first;
//! `git evolv task list`.

use crate::error::Result;
use crate::mcp::args::NoArgs;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::Session;
use crate::ops::applying::task::{TaskListOutcome, TaskQuery};

pub struct TaskList;

impl SessionTool for TaskList {
    const META: Meta = Meta {
        name: "task_list",
        title: "List background tasks",
        description: "Lists the repository's background tasks, newest first, with their status. Reads the task files under the git dir; changes nothing.",
        effect: Effect::Reads,
    };
    type Args = NoArgs;
    type Output = TaskListOutcome;
    /// Task files only, as `task_output`: no recovery first.
    type Request = TaskQuery;

    fn op(session: &Session, _: NoArgs) -> Result<TaskListOutcome> {
        session.tasks(&TaskQuery::default())
    }
}
