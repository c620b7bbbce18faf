//! `git evolv task`: background tasks (`apply --background`): show one,
//! wait for it, list them, cancel one.

use std::path::Path;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::Output;
use super::session;
use crate::error::{Error, Result};
use crate::ops::applying::task::{TaskOutcome, TaskRunRequest, TaskStatus};
use crate::ops::applying::task_use_cases::{TaskCancel, TaskList, TaskShow};

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct TaskArgs {
    /// The task to show (the id `apply --background` printed).
    #[arg(value_name = "TASK_ID", required = true)]
    pub task_id: Option<String>,
    /// Wait until the task finishes (or --timeout passes).
    #[arg(long)]
    pub wait: bool,
    /// With --wait: give up after this many seconds (the task keeps running).
    #[arg(long, value_name = "SECONDS", requires = "wait")]
    pub timeout: Option<u64>,
    #[command(subcommand)]
    pub command: Option<TaskCommand>,
}

#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// List the repository's background tasks, newest first.
    List,
    /// Stop a running task: its validation is killed, the branch is left as it was.
    Cancel {
        /// The task to cancel.
        task_id: String,
    },
    /// Run a recorded task (started by `apply --background`; not for people).
    #[command(hide = true)]
    Run { task_id: String },
}

/// The exit code: 0 when the task succeeded (or is still running and no
/// wait was asked for), 1 when it failed, timed out or was cancelled, or
/// is still running after --wait.
pub fn run(dir: &Path, args: &TaskArgs, out: &Output) -> Result<u8> {
    match &args.command {
        Some(TaskCommand::List) => {
            let outcome = session::<TaskList>(dir, out)?.run(&TaskList)?;
            if out.json {
                out.json_value(&outcome);
            } else if outcome.tasks.is_empty() {
                out.status(
                    "No background tasks. Start one with `git evolv apply <id> --background`.",
                );
            } else {
                let mut text = String::new();
                for t in &outcome.tasks {
                    text.push_str(&format!(
                        "{:<32} {:<10} {}\n",
                        t.task_id,
                        t.status.to_string(),
                        t.patch_ids.join(", ")
                    ));
                }
                out.data(text.as_bytes());
            }
            Ok(0)
        }
        Some(TaskCommand::Cancel { task_id }) => {
            let outcome = session::<TaskCancel>(dir, out)?.run(&TaskCancel {
                task_id: task_id.clone(),
                wait: Duration::from_secs(30),
            })?;
            render(&outcome, out);
            Ok(u8::from(outcome.status == TaskStatus::Running))
        }
        Some(TaskCommand::Run { task_id }) => {
            let status = session::<TaskRunRequest>(dir, out)?.run(&TaskRunRequest {
                task_id: task_id.clone(),
            })?;
            Ok(u8::from(status != TaskStatus::Succeeded))
        }
        None => {
            let Some(task_id) = args.task_id.clone() else {
                return Err(Error::invalid(
                    "no task id given",
                    "pass an id from `git evolv task list`",
                ));
            };
            let wait = match args.wait {
                true => Duration::from_secs(args.timeout.unwrap_or(u64::MAX / 4)),
                false => Duration::ZERO,
            };
            let outcome = session::<TaskShow>(dir, out)?.run(&TaskShow { task_id, wait })?;
            render(&outcome, out);
            Ok(match outcome.status {
                TaskStatus::Succeeded => 0,
                TaskStatus::Running => u8::from(args.wait),
                _ => 1,
            })
        }
    }
}

fn render(outcome: &TaskOutcome, out: &Output) {
    if out.json {
        out.json_value(outcome);
        return;
    }
    out.data(outcome.output.as_bytes());
    out.status(&format!("task {}: {}", outcome.task_id, outcome.status));
}
