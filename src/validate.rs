//! Running validation commands: `sh -c` in a given directory, in a process
//! group of their own so a timeout kills everything they started.

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// How much of a command's output is kept for the report.
const TAIL_BYTES: u64 = 4096;

// The report types are plain data in their own module, so `error.rs` can
// carry them without importing this runner (and through it `git::cli`).
pub use crate::validation_report::{CommandReport, Stage};

/// How often a running command's wait looks at the cancellation flag.
const CANCEL_POLL: Duration = Duration::from_millis(50);

thread_local! {
    /// The cancellation flag of the operation running on this thread (an MCP
    /// call or a background task), set by `with_cancel`. Thread-scoped so
    /// the ops signatures stay as the CLI uses them; ops run on one thread.
    static CANCEL: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Runs `f` with `flag` as its cancellation flag: once the flag is set, the
/// running validation command's process group is killed and the apply stops
/// with `Error::Cancelled` before it moves the branch.
pub fn with_cancel<T>(flag: Arc<AtomicBool>, f: impl FnOnce() -> T) -> T {
    let previous = CANCEL.with(|c| c.replace(Some(flag)));
    let result = f();
    CANCEL.with(|c| *c.borrow_mut() = previous);
    result
}

/// Whether the operation on this thread was cancelled.
pub fn cancelled() -> bool {
    CANCEL.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|f| f.load(Ordering::SeqCst))
    })
}

fn cancelled_error(step: &str) -> Error {
    Error::Cancelled {
        what: format!("the apply was cancelled by the client during {step}"),
    }
}

/// The time budget of one apply: a deadline and the seconds it stands for.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub deadline: Instant,
    pub seconds: u64,
}

impl Budget {
    /// `seconds` from now.
    pub fn starting_now(seconds: u64) -> Self {
        Budget {
            deadline: Instant::now() + Duration::from_secs(seconds),
            seconds,
        }
    }

    /// `Timeout` if the budget is spent, naming the step that was next.
    pub fn check(&self, step: &str, reports: &[CommandReport]) -> Result<()> {
        if cancelled() {
            return Err(cancelled_error(step));
        }
        if Instant::now() >= self.deadline {
            return Err(Error::Timeout {
                command: step.to_string(),
                seconds: self.seconds,
                reports: reports.to_vec(),
            });
        }
        Ok(())
    }
}

/// Runs `commands` in order in `dir` within `budget`, appending to
/// `reports`. Stops at the first failure: `ValidationFailed` or `Timeout`,
/// carrying every report so far.
pub fn run_all(
    commands: &[String],
    stage: Stage,
    dir: &Path,
    budget: Budget,
    reports: &mut Vec<CommandReport>,
) -> Result<()> {
    for command in commands {
        let (report, was_cancelled) = run_one(command, stage, dir, budget.deadline)?;
        let (timed_out, code) = (report.timed_out, report.exit_code);
        reports.push(report);
        if was_cancelled {
            return Err(cancelled_error(&format!("`{command}`")));
        }
        if timed_out {
            return Err(Error::Timeout {
                command: command.clone(),
                seconds: budget.seconds,
                reports: reports.clone(),
            });
        }
        if code != 0 {
            return Err(Error::ValidationFailed {
                command: command.clone(),
                exit_code: code,
                reports: reports.clone(),
            });
        }
    }
    Ok(())
}

/// Runs one command; the flag says it was killed by a cancellation.
fn run_one(
    command: &str,
    stage: Stage,
    dir: &Path,
    deadline: Instant,
) -> Result<(CommandReport, bool)> {
    let started = Instant::now();
    let mut output = tempfile::tempfile().map_err(|e| Error::io("create", "temp file", e))?;
    let stdout = output
        .try_clone()
        .map_err(|e| Error::io("dup", "temp file", e))?;
    let stderr = output
        .try_clone()
        .map_err(|e| Error::io("dup", "temp file", e))?;
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0);
    for var in crate::git::cli::REPO_VARS {
        cmd.env_remove(var);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::io("run `sh -c` for validation in", dir, e))?;
    let pgid = child.id();
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    // Every 50 ms: hand new output lines to a live listener (the review
    // page, see live_output) and check for cancellation.
    let mut follower = crate::live_output::Follower::new(command, &output);
    let mut was_cancelled = false;
    let (status, timed_out) = loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(remaining.min(CANCEL_POLL)) {
            Ok(status) => break (Some(status), false),
            Err(mpsc::RecvTimeoutError::Timeout) if cancelled() => {
                was_cancelled = true;
                break (None, false);
            }
            Err(mpsc::RecvTimeoutError::Timeout) if !remaining.is_zero() => {
                follower.poll();
                continue;
            }
            Err(_) => break (None, true),
        }
    };
    follower.finish();
    // Kill the whole group either way: after a timeout to stop the command,
    // after an exit to stop anything it left running in the worktree.
    kill_group(pgid);
    let status = match status {
        Some(s) => s,
        None => rx
            .recv()
            .unwrap_or_else(|_| Err(std::io::Error::other("waiter thread vanished"))),
    };
    let _ = waiter.join();
    let status = status.map_err(|e| Error::io("wait for validation command in", dir, e))?;
    let exit_code = if timed_out || was_cancelled {
        -1
    } else {
        status.code().unwrap_or(-1)
    };
    let report = CommandReport {
        command: command.to_string(),
        stage,
        exit_code,
        duration_ms: started.elapsed().as_millis() as u64,
        output_tail: tail(&mut output),
        timed_out,
    };
    Ok((report, was_cancelled))
}

fn tail(file: &mut File) -> String {
    let len = file.seek(SeekFrom::End(0)).unwrap_or(0);
    let start = len.saturating_sub(TAIL_BYTES);
    let mut buf = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_ok() {
        let _ = file.read_to_end(&mut buf);
    }
    let text = String::from_utf8_lossy(&buf);
    // Start at a line boundary when the tail cut a line.
    match (start > 0, text.find('\n')) {
        (true, Some(i)) => text[i + 1..].to_string(),
        _ => text.into_owned(),
    }
}

#[allow(unsafe_code)]
fn kill_group(pgid: u32) {
    // SAFETY: kill(2) with a negative pid signals a process group; it has no
    // memory-safety preconditions. ESRCH (group already gone) is expected.
    unsafe {
        libc::kill(-(pgid as libc::pid_t), libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    fn run_all(commands: &[String], dir: &Path, timeout: Duration) -> Result<Vec<CommandReport>> {
        let budget = Budget {
            deadline: Instant::now() + timeout,
            seconds: timeout.as_secs(),
        };
        let mut reports = Vec::new();
        super::run_all(commands, Stage::Validate, dir, budget, &mut reports).map(|()| reports)
    }

    #[test]
    fn passing_commands_report_their_output() {
        let d = dir();
        let reports = run_all(
            &["echo hi; echo err >&2".into()],
            d.path(),
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(reports[0].exit_code, 0);
        assert_eq!(reports[0].output_tail, "hi\nerr\n");
    }

    #[test]
    fn a_failing_command_stops_the_run() {
        let d = dir();
        let cmds = vec!["exit 3".to_string(), "touch never".to_string()];
        let err = run_all(&cmds, d.path(), Duration::from_secs(10)).unwrap_err();
        assert_eq!(err.code(), "validation_failed");
        assert!(!d.path().join("never").exists());
    }

    #[test]
    fn a_timeout_kills_the_whole_process_group() {
        let d = dir();
        let cmd = "(sleep 1; touch late) & sleep 5".to_string();
        let started = Instant::now();
        let err = run_all(&[cmd], d.path(), Duration::from_millis(300)).unwrap_err();
        assert_eq!(err.code(), "timeout");
        assert!(started.elapsed() < Duration::from_secs(4));
        std::thread::sleep(Duration::from_millis(1500).saturating_sub(started.elapsed()));
        assert!(!d.path().join("late").exists(), "background child survived");
    }

    #[test]
    fn the_tail_keeps_the_end_of_long_output() {
        let d = dir();
        let reports = run_all(&["seq 1 5000".into()], d.path(), Duration::from_secs(10)).unwrap();
        assert!(reports[0].output_tail.ends_with("4999\n5000\n"));
        assert!(reports[0].output_tail.len() <= TAIL_BYTES as usize);
    }
}
