//! Running validation commands: `sh -c` in a given directory, in a process
//! group of their own so a timeout kills everything they started.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::process_group::GroupRecord;
use crate::progress::{LineFollower, Progress, Task};
use crate::signals;

/// How much of a command's output is kept for the report.
const TAIL_BYTES: u64 = 4096;

// The report types are plain data in their own module, so `error.rs` can
// carry them without importing this runner (and through it `git::process::cli`).
pub use crate::validation_report::{CommandReport, Stage, TimeoutSource};

use crate::sandbox::Sandbox;

/// How often a running command's wait looks at the cancellation.
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// What an operation cancelled by its client during `step` fails with.
pub fn cancelled_error(step: &str) -> Error {
    Error::Cancelled {
        what: format!("the apply was cancelled by the client during {step}"),
    }
}

/// The time budget of one apply: a deadline and the seconds it stands for.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub deadline: Instant,
    pub seconds: u64,
    pub source: TimeoutSource,
}

impl Budget {
    /// `seconds` from now.
    pub fn starting_now(seconds: u64) -> Self {
        Budget {
            deadline: deadline_after(seconds),
            seconds,
            source: TimeoutSource::Default,
        }
    }

    /// The same budget, set by `source`.
    pub fn limited_by(mut self, source: TimeoutSource) -> Self {
        self.source = source;
        self
    }

    /// `Cancelled` if `ctx` was cancelled, `Timeout` if the budget is
    /// spent, naming the step that was next.
    pub fn check(&self, ctx: &Context, step: &str, reports: &[CommandReport]) -> Result<()> {
        if ctx.cancelled() {
            return Err(cancelled_error(step));
        }
        if Instant::now() >= self.deadline {
            return Err(Error::Timeout {
                command: step.to_string(),
                seconds: self.seconds,
                reports: reports.to_vec(),
                limit_source: self.source,
            });
        }
        Ok(())
    }
}

/// `seconds` from now, or as far ahead as the clock can count when that
/// overflows (`--timeout 9223372036854775807` means "no limit", not a
/// panic: #16 item 16).
pub fn deadline_after(seconds: u64) -> Instant {
    let now = Instant::now();
    [seconds, u64::from(u32::MAX), 86_400 * 365]
        .into_iter()
        .find_map(|s| now.checked_add(Duration::from_secs(s)))
        .unwrap_or(now)
}

/// Where and how validation commands run: in `dir`, within `budget`, for
/// the operation of `ctx` (its cancellation stops them, its progress
/// hears their output), each inside `sandbox` when one is given (a
/// server's validation of pushed code, `crate::sandbox`).
///
/// `record`, when given, holds the process group of the running command
/// (the worktree's lock file), so a later apply does not reuse the
/// worktree while a group left by a killed git-evolv still runs.
pub struct Runner<'a> {
    pub dir: &'a Path,
    pub budget: Budget,
    pub ctx: &'a Context,
    pub record: Option<&'a GroupRecord>,
    pub sandbox: Option<&'a Sandbox>,
}

impl Runner<'_> {
    /// Runs `commands` in order, appending to `reports`. Stops at the
    /// first failure: `ValidationFailed` or `Timeout`, carrying every
    /// report so far; `Cancelled` once the context is cancelled. SIGINT,
    /// SIGTERM and SIGHUP kill the group, wait for it, and end the run
    /// with `Signalled` (nothing lands).
    pub fn run_all(
        &self,
        commands: &[String],
        stage: Stage,
        reports: &mut Vec<CommandReport>,
    ) -> Result<()> {
        let _deferred = signals::Deferred::begin();
        for command in commands {
            interrupted()?;
            if self.ctx.cancelled() {
                return Err(cancelled_error(&format!("`{command}`")));
            }
            let (report, was_cancelled) = self.run_one(command, stage)?;
            interrupted()?;
            let (timed_out, code) = (report.timed_out, report.exit_code);
            reports.push(report);
            if was_cancelled {
                return Err(cancelled_error(&format!("`{command}`")));
            }
            if timed_out {
                return Err(Error::Timeout {
                    command: command.clone(),
                    seconds: self.budget.seconds,
                    reports: reports.clone(),
                    limit_source: self.budget.source,
                });
            }
            if code != 0 {
                return Err(Error::ValidationFailed {
                    command: command.clone(),
                    exit_code: code,
                    reports: reports.clone(),
                    cached: String::new(),
                });
            }
        }
        Ok(())
    }
}

/// `Signalled` once SIGINT, SIGTERM or SIGHUP was received.
pub fn interrupted() -> Result<()> {
    match signals::received() {
        Some(signal) => Err(Error::Signalled {
            signal,
            name: signals::name(signal),
        }),
        None => Ok(()),
    }
}

/// How often a waiting apply looks for a received signal.
const SIGNAL_POLL: Duration = CANCEL_POLL;

impl Runner<'_> {
    /// Runs one command; the flag says it was killed by a cancellation.
    fn run_one(&self, command: &str, stage: Stage) -> Result<(CommandReport, bool)> {
        let (dir, record) = (self.dir, self.record);
        let started = Instant::now();
        let mut output = tempfile::tempfile().map_err(|e| Error::io("create", "temp file", e))?;
        let mut child = spawn(command, dir, &output, self.sandbox)?;
        let pgid = child.id();
        if let Some(record) = record {
            record.set(Some(pgid));
        }
        let (tx, rx) = mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        let waited = wait(command, self.budget.deadline, self.ctx, &rx, &output);
        // Kill the whole group either way: after a timeout or a signal to stop
        // the command, after an exit to stop anything it left running in the
        // worktree. Then wait, so nothing of it outlives this apply.
        kill_group(pgid);
        let status = match waited.status {
            Some(s) => s,
            None => rx
                .recv()
                .unwrap_or_else(|_| Err(std::io::Error::other("waiter thread vanished"))),
        };
        let _ = waiter.join();
        wait_group_gone(pgid);
        if let Some(record) = record {
            record.set(None);
        }
        interrupted()?;
        let status = status.map_err(|e| Error::io("wait for validation command in", dir, e))?;
        let exit_code = if waited.timed_out || waited.cancelled {
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
            timed_out: waited.timed_out,
        };
        Ok((report, waited.cancelled))
    }
}

/// Starts `sh -c command` in `dir`, in a process group of its own, with
/// its output (both streams) into `output` and no repository variables
/// of ours in its environment.
fn spawn(command: &str, dir: &Path, output: &File, sandbox: Option<&Sandbox>) -> Result<Child> {
    let stdout = output
        .try_clone()
        .map_err(|e| Error::io("dup", "temp file", e))?;
    let stderr = output
        .try_clone()
        .map_err(|e| Error::io("dup", "temp file", e))?;
    let mut cmd = match sandbox {
        Some(sandbox) => sandbox.shell(command),
        None => {
            let mut sh = Command::new("sh");
            sh.arg("-c").arg(command);
            sh
        }
    };
    cmd.current_dir(dir)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0);
    for var in crate::git::process::cli::REPO_VARS {
        cmd.env_remove(var);
    }
    cmd.spawn()
        .map_err(|e| Error::io("run `sh -c` for validation in", dir, e))
}

/// How the wait for a command ended: its exit status when it exited, and
/// whether the deadline passed or the client cancelled first.
struct Waited {
    status: Option<std::io::Result<ExitStatus>>,
    timed_out: bool,
    cancelled: bool,
}

/// Waits for the command's exit, the deadline, a cancellation or a
/// signal, whichever comes first.
fn wait(
    command: &str,
    deadline: Instant,
    ctx: &Context,
    exited: &mpsc::Receiver<std::io::Result<ExitStatus>>,
    output: &File,
) -> Waited {
    let progress: &Progress = ctx.progress();
    // With a progress scope, report each output line, their count and the
    // last one at each poll (issue 15, #11 item 6; the review page streams
    // the lines, #12); the polls are the cancellation's own.
    progress.start(Task::Validate, command, None);
    let mut lines = LineFollower::new(progress, Task::Validate, command, output);
    let mut waited = Waited {
        status: None,
        timed_out: false,
        cancelled: false,
    };
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        match exited.recv_timeout(remaining.min(SIGNAL_POLL)) {
            Ok(status) => {
                waited.status = Some(status);
                break;
            }
            Err(mpsc::RecvTimeoutError::Timeout) if ctx.cancelled() => {
                waited.cancelled = true;
                break;
            }
            // A signal: stop waiting; the group is killed after.
            Err(mpsc::RecvTimeoutError::Timeout) if signals::received().is_some() => break,
            Err(mpsc::RecvTimeoutError::Timeout) if !remaining.is_zero() => lines.poll(),
            Err(_) => {
                waited.timed_out = true;
                break;
            }
        }
    }
    lines.finish();
    progress.finish(Task::Validate);
    waited
}

/// The last `TAIL_BYTES` bytes of the output, whatever its line lengths
/// (a 5 KiB last line used to leave nothing: #16 item 12). When earlier
/// output was cut, the tail starts on a character boundary after a marker
/// line saying how many bytes were left out.
fn tail(file: &mut File) -> String {
    let len = file.seek(SeekFrom::End(0)).unwrap_or(0);
    let start = len.saturating_sub(TAIL_BYTES);
    let mut buf = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_ok() {
        let _ = file.read_to_end(&mut buf);
    }
    if start == 0 {
        return String::from_utf8_lossy(&buf).into_owned();
    }
    // Do not begin inside a UTF-8 character (at most 3 continuation bytes).
    let skip = buf
        .iter()
        .take(3)
        .take_while(|b| **b & 0xC0 == 0x80)
        .count();
    let cut = start + skip as u64;
    format!(
        "{}{}",
        cut_marker(cut),
        String::from_utf8_lossy(&buf[skip..])
    )
}

/// The line that opens a tail whose first `cut` bytes were left out.
pub fn cut_marker(cut: u64) -> String {
    format!("[git-evolv: {cut} earlier byte(s) of output cut]\n")
}

/// Waits (up to 5 s) until no process of group `pgid` is left: SIGKILL is
/// delivered asynchronously, and a member still exiting could write.
fn wait_group_gone(pgid: u32) {
    let until = Instant::now() + Duration::from_secs(5);
    while crate::process_group::is_alive(pgid) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn kill_group(pgid: u32) {
    // ESRCH (group already gone) is expected.
    let _ = crate::sys::kill_group(pgid as libc::pid_t, libc::SIGKILL);
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
            source: TimeoutSource::Flag,
        };
        let mut reports = Vec::new();
        let runner = Runner {
            dir,
            budget,
            ctx: &Context::new("cli"),
            record: None,
            sandbox: None,
        };
        runner
            .run_all(commands, Stage::Validate, &mut reports)
            .map(|()| reports)
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
        let tail = &reports[0].output_tail;
        assert!(tail.ends_with("4999\n5000\n"));
        assert!(tail.starts_with("[git-evolv: "), "{tail:.80}");
        let marker = tail.lines().next().unwrap().len() + 1;
        assert_eq!(tail.len() - marker, TAIL_BYTES as usize);
    }

    // See: issue 16 item 12.
    #[test]
    fn a_last_line_longer_than_the_tail_is_kept_and_the_cut_marked() {
        let d = dir();
        let cmd = "printf 'first\\n'; head -c 6000 /dev/zero | tr '\\0' x".to_string();
        let reports = run_all(&[cmd], d.path(), Duration::from_secs(10)).unwrap();
        let tail = &reports[0].output_tail;
        assert!(
            tail.starts_with(&cut_marker(6006 - TAIL_BYTES)),
            "{tail:.80}"
        );
        assert!(tail.ends_with(&"x".repeat(TAIL_BYTES as usize)));
        let short = run_all(&["echo hi".into()], d.path(), Duration::from_secs(10)).unwrap();
        assert_eq!(
            short[0].output_tail, "hi\n",
            "no marker when nothing was cut"
        );
    }
}
