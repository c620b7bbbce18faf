//! The background task's use cases: start one, run it (the task's own
//! process), and list, read, wait for or cancel them. The queries read the
//! task's files; they recover first like the commands around them (a
//! recovery on open never waits for a live landing: it skips a journal
//! whose landing lock is held), so a query never waits for the task's own
//! landing.

use std::time::Duration;

use super::task::TaskStatus;
use super::task::{self, StartedTask, TaskListOutcome, TaskOutcome, TaskRequest, TaskRunRequest};
use crate::error::Result;
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};

impl UseCase for TaskRequest {
    const OPEN: Open = Open::Recovering;
    type Outcome = StartedTask;

    /// Starts a background apply.
    fn run(&self, session: &Session) -> Result<StartedTask> {
        task::start(session.repo()?, self)
    }
}

impl UseCase for TaskRunRequest {
    const OPEN: Open = Open::Recovering;
    const WRITES_OBJECTS: bool = true;
    type Outcome = TaskStatus;

    /// Runs a background apply (`git evolv task run <id>`).
    fn run(&self, session: &Session) -> Result<TaskStatus> {
        let (repo, settings) = (session.repo()?, session.settings()?);
        task::run(repo, settings, session.context(), &self.task_id)
    }
}

/// Every background task.
pub struct TaskList;

impl UseCase for TaskList {
    const OPEN: Open = Open::Recovering;
    type Outcome = TaskListOutcome;

    fn run(&self, session: &Session) -> Result<TaskListOutcome> {
        task::list(session.repo()?)
    }
}

/// A background task's status and output so far; with `wait`, after
/// waiting up to that long for it to finish (less when the session's
/// caller cancels).
pub struct TaskShow {
    pub task_id: String,
    pub wait: Duration,
}

impl UseCase for TaskShow {
    const OPEN: Open = Open::Recovering;
    type Outcome = TaskOutcome;

    fn run(&self, session: &Session) -> Result<TaskOutcome> {
        let repo = session.repo()?;
        if self.wait.is_zero() {
            return task::status(repo, &self.task_id);
        }
        task::wait(repo, &self.task_id, self.wait, session.context())
    }
}

/// Cancels a background task, waiting up to `wait` for it to stop.
pub struct TaskCancel {
    pub task_id: String,
    pub wait: Duration,
}

impl UseCase for TaskCancel {
    const OPEN: Open = Open::Recovering;
    type Outcome = TaskOutcome;

    fn run(&self, session: &Session) -> Result<TaskOutcome> {
        task::cancel(session.repo()?, &self.task_id, self.wait)
    }
}
