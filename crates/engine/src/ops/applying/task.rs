//! Background tasks: an apply that runs in a process of its own while the
//! caller (an MCP client, a script) does something else, and is polled by
//! id. State lives under the repository's git dir
//! (`<common-dir>/evolv/tasks/<task_id>/`), so any process reads it: another
//! MCP server, `git evolv task`. A task whose process died without writing
//! its result is reported as failed, never as running forever.
//!
//! Layout of a task's folder: `task.json` (request, status, pid, result;
//! replaced atomically), `output.log` (what the task printed, appended as it
//! runs), `cancel` (present once a cancellation was requested).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::task_log::{LogLines, append_output, describe_error, describe_landed};
use crate::context::{Cancel, Context};
use crate::error::{Error, ErrorBody, Result};
use crate::git::Repo;
use crate::ops::applying::apply::{self, ApplyReport, ApplyRequest};
use crate::ops::applying::plan::PlanSource;
use crate::ops::settings::Settings;
use crate::progress::Progress;
use crate::store::proposals::now_secs;

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Running,
    Succeeded,
    Failed,
    /// The apply ran past its time budget (`timeout`); nothing landed.
    TimedOut,
    Cancelled,
}

impl TaskStatus {
    /// Whether the task has finished.
    pub fn is_done(self) -> bool {
        self != TaskStatus::Running
    }

    fn of_error(e: &Error) -> Self {
        match e {
            Error::Timeout { .. } => TaskStatus::TimedOut,
            Error::Cancelled { .. } => TaskStatus::Cancelled,
            _ => TaskStatus::Failed,
        }
    }
}

impl std::fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TaskStatus::Running => "running",
            TaskStatus::Succeeded => "succeeded",
            TaskStatus::Failed => "failed",
            TaskStatus::TimedOut => "timed_out",
            TaskStatus::Cancelled => "cancelled",
        })
    }
}

/// Runs a background task (`git evolv task run <id>`, the task's own
/// process).
#[derive(Debug, Clone)]
pub struct TaskRunRequest {
    pub task_id: String,
}

/// What a background apply was asked to do: the fields of `ApplyRequest`
/// that can be written down (a plan is stored as its JSON text).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TaskRequest {
    pub patch_ids: Vec<String>,
    pub validate: Option<Vec<String>>,
    pub timeout_secs: Option<u64>,
    pub fresh_worktree: Option<bool>,
    /// `(name shown in errors, JSON text)`.
    pub plan: Option<(String, String)>,
    pub dry_run: bool,
    pub batch: bool,
    /// `--paths`: only these paths' changes land.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<evolv_core::globs::Globs>,
    /// `--no-cache`: validate whatever the verdict cache holds.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_cache: bool,
}

impl TaskRequest {
    /// Writes `req` down; a plan file is read now, relative to the caller.
    pub fn from_apply(req: &ApplyRequest) -> Result<Self> {
        let plan = match &req.plan {
            None => None,
            Some(PlanSource::Text { name, text }) => Some((name.clone(), text.clone())),
            Some(PlanSource::File(path)) => Some((
                path.display().to_string(),
                fs::read_to_string(path).map_err(|e| Error::io("read plan file", path, e))?,
            )),
            Some(PlanSource::Plan(plan)) => Some((
                "plan".into(),
                serde_json::to_string(plan).expect("a plan serialises"),
            )),
        };
        Ok(TaskRequest {
            patch_ids: req.patch_ids.clone(),
            validate: req.validate.clone(),
            timeout_secs: req.timeout_secs,
            fresh_worktree: req.fresh_worktree,
            plan,
            dry_run: req.dry_run,
            batch: req.batch,
            paths: req.paths.clone(),
            no_cache: req.no_cache,
        })
    }

    fn to_apply(&self) -> ApplyRequest {
        ApplyRequest {
            patch_ids: self.patch_ids.clone(),
            validate: self.validate.clone(),
            timeout_secs: self.timeout_secs,
            fresh_worktree: self.fresh_worktree,
            plan: self.plan.as_ref().map(|(name, text)| PlanSource::Text {
                name: name.clone(),
                text: text.clone(),
            }),
            dry_run: self.dry_run,
            batch: self.batch,
            paths: self.paths.clone(),
            no_cache: self.no_cache,
            hunks: None,
        }
    }
}

/// `task.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct TaskFile {
    task_id: String,
    workdir: PathBuf,
    request: TaskRequest,
    status: TaskStatus,
    pid: Option<u32>,
    created_at: i64,
    finished_at: Option<i64>,
    result: Option<serde_json::Value>,
    error: Option<serde_json::Value>,
}

/// What `task_output` / `git evolv task <id>` report.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TaskOutcome {
    pub success: bool,
    pub task_id: String,
    pub status: TaskStatus,
    /// What the task printed so far.
    pub output: String,
    /// The apply's report, once the task finished with one.
    #[schemars(with = "Option<ApplyReport>")]
    pub result: Option<serde_json::Value>,
    /// Why the task failed, timed out or was cancelled.
    #[schemars(with = "Option<ErrorBody>")]
    pub error: Option<serde_json::Value>,
    pub patch_ids: Vec<String>,
    pub created_at: i64,
    pub finished_at: Option<i64>,
}

/// One row of `task list`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TaskSummary {
    pub task_id: String,
    pub status: TaskStatus,
    pub patch_ids: Vec<String>,
    pub created_at: i64,
    pub finished_at: Option<i64>,
}

/// `{"tasks": [...]}`, newest first.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TaskListOutcome {
    pub success: bool,
    pub tasks: Vec<TaskSummary>,
}

/// What `apply --background` / `run_in_background` return at once.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StartedTask {
    pub success: bool,
    pub task_id: String,
    pub status: TaskStatus,
    pub patch_ids: Vec<String>,
}

fn tasks_dir(repo: &Repo) -> PathBuf {
    repo.common_dir().join("evolv").join("tasks")
}

/// Whether `id` can name a task (it becomes a folder name).
fn is_valid_id(id: &str) -> bool {
    id.starts_with("task_")
        && id.len() <= 64
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn task_dir(repo: &Repo, id: &str) -> Result<PathBuf> {
    let dir = tasks_dir(repo).join(id);
    if !is_valid_id(id) || !dir.join("task.json").is_file() {
        return Err(Error::invalid(
            format!("Task '{id}' not found"),
            "`git evolv task list` (or the task_list tool) shows the tasks of this repository",
        ));
    }
    Ok(dir)
}

fn read_file(dir: &Path) -> Result<TaskFile> {
    let path = dir.join("task.json");
    let text = fs::read(&path).map_err(|e| Error::io("read", &path, e))?;
    serde_json::from_slice(&text).map_err(|e| Error::Corrupt {
        what: path.display().to_string(),
        message: format!("{} is damaged: {e}", path.display()),
    })
}

/// Replaces `task.json` atomically (temp file + rename), so a reader never
/// sees half a file.
fn write_file(dir: &Path, file: &TaskFile) -> Result<()> {
    let path = dir.join("task.json");
    let tmp = dir.join(format!("task.json.{}.tmp", std::process::id()));
    let text = serde_json::to_vec_pretty(file).expect("task state serialises");
    fs::write(&tmp, text).map_err(|e| Error::io("write", &tmp, e))?;
    fs::rename(&tmp, &path).map_err(|e| Error::io("rename", &path, e))
}

fn new_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default(),
    );
    format!("task_{}_{:012x}", now_secs(), h.finish() & 0xffff_ffff_ffff)
}

/// Whether process `pid` is alive and is this task's runner (its command
/// line names the task, where /proc says so), so a reused pid is not
/// mistaken for the task.
fn runner_alive(pid: u32, task_id: &str) -> bool {
    let cmdline = PathBuf::from(format!("/proc/{pid}/cmdline"));
    if Path::new("/proc/self").exists() {
        return fs::read(&cmdline)
            .map(|c| String::from_utf8_lossy(&c).contains(task_id))
            .unwrap_or(false);
    }
    // Signal 0 only checks that the process exists; EPERM: it does, it is
    // only someone else's.
    match crate::sys::kill(pid as libc::pid_t, 0) {
        Ok(()) => true,
        Err(e) => e.raw_os_error() == Some(libc::EPERM),
    }
}

/// The state of a task, with a dead runner turned into `failed`.
fn load(dir: &Path) -> Result<TaskFile> {
    let mut file = read_file(dir)?;
    if file.status == TaskStatus::Running {
        let dead = match file.pid {
            Some(pid) => !runner_alive(pid, &file.task_id),
            // Not started yet: give the spawner a moment to record the pid.
            None => now_secs() - file.created_at > 10,
        };
        // Read again: the runner may have finished between the two reads.
        if dead && read_file(dir)?.status == TaskStatus::Running {
            let error = Error::Interrupted {
                detail: format!(
                    "the process of task {} ({}) ended without reporting a result",
                    file.task_id,
                    file.pid
                        .map_or_else(|| "never started".to_string(), |p| format!("pid {p}"))
                ),
            };
            file.status = TaskStatus::Failed;
            file.finished_at = Some(now_secs());
            file.error = Some(serde_json::to_value(error.to_body()).expect("serialises"));
            write_file(dir, &file)?;
        }
    }
    Ok(file)
}

fn outcome(dir: &Path, file: TaskFile) -> TaskOutcome {
    let output = fs::read(dir.join("output.log"))
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    TaskOutcome {
        success: true,
        task_id: file.task_id,
        status: file.status,
        output,
        result: file.result,
        error: file.error,
        patch_ids: file.request.patch_ids,
        created_at: file.created_at,
        finished_at: file.finished_at,
    }
}

/// Starts a background apply: records the request, then runs `git-evolv
/// task run <id>` detached (its own process group, no terminal, stdout and
/// stderr to the task's log). Returns at once. The proposals are checked
/// first, so an unknown id fails here and not in the background.
pub fn start(repo: &Repo, req: &TaskRequest) -> Result<StartedTask> {
    if req.patch_ids.is_empty() {
        return Err(Error::invalid(
            "no patch id given",
            "pass one or more ids from `git evolv list`",
        ));
    }
    for id in &req.patch_ids {
        crate::store::proposals::load(repo, id)?;
    }
    let workdir = repo
        .workdir()
        .ok_or_else(|| Error::BareRepository {
            path: repo.git_dir().to_path_buf(),
        })?
        .to_path_buf();
    let id = new_id();
    let dir = tasks_dir(repo).join(&id);
    fs::create_dir_all(&dir).map_err(|e| Error::io("create", &dir, e))?;
    let mut file = TaskFile {
        task_id: id.clone(),
        workdir: workdir.clone(),
        request: req.clone(),
        status: TaskStatus::Running,
        pid: None,
        created_at: now_secs(),
        finished_at: None,
        result: None,
        error: None,
    };
    write_file(&dir, &file)?;
    let log = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("output.log"))
        .map_err(|e| Error::io("open", dir.join("output.log"), e))?;
    let log2 = log
        .try_clone()
        .map_err(|e| Error::io("dup", dir.join("output.log"), e))?;
    let exe = std::env::current_exe().map_err(|e| Error::io("find", "the git-evolv binary", e))?;
    use std::os::unix::process::CommandExt;
    let mut child = std::process::Command::new(exe)
        .arg("-C")
        .arg(&workdir)
        .args(["task", "run", &id])
        .stdin(std::process::Stdio::null())
        .stdout(log)
        .stderr(log2)
        .process_group(0)
        .spawn()
        .map_err(|e| Error::io("start background task in", &workdir, e))?;
    file.pid = Some(child.id());
    // The runner may already have finished and written its result.
    if let Ok(current) = read_file(&dir)
        && current.status == TaskStatus::Running
    {
        write_file(&dir, &file)?;
    }
    // Reap the child when it ends, so it does not linger as a zombie in a
    // long-lived server; a CLI caller exits first and init reaps it.
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(StartedTask {
        success: true,
        task_id: id,
        status: TaskStatus::Running,
        patch_ids: req.patch_ids.clone(),
    })
}

/// The body of `git evolv task run <id>`: runs the recorded apply (with
/// the session's settings and context), with a watcher that turns a
/// cancellation request into the apply's cancellation.
pub fn run(repo: &Repo, settings: &Settings, ctx: &Context, id: &str) -> Result<TaskStatus> {
    let dir = task_dir(repo, id)?;
    let file = read_file(&dir)?;
    append_output(
        &dir,
        &format!(
            "task {id}: applying {} (pid {})\n",
            file.request.patch_ids.join(", "),
            std::process::id()
        ),
    );
    let cancel = Cancel::new();
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (cancel, done, marker) = (cancel.clone(), done.clone(), dir.join("cancel"));
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                if marker.exists() {
                    cancel.cancel();
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    // Each line a validation command writes goes to the log as it comes,
    // so `task_output` shows it while the task runs (issue 25).
    let log = Arc::new(LogLines::new(&dir));
    let ctx = ctx
        .clone()
        .with_progress(Progress::to(log.clone()))
        .with_cancel(cancel);
    let result = apply::apply(repo, settings, &ctx, &file.request.to_apply());
    let streamed = log.streamed();
    done.store(true, Ordering::SeqCst);
    let _ = watcher.join();
    let mut file = read_file(&dir)?;
    file.finished_at = Some(now_secs());
    match result {
        Ok(report) => {
            for o in &report.results {
                append_output(&dir, &describe_landed(o, streamed));
            }
            file.status = match &report.error {
                None => TaskStatus::Succeeded,
                Some(e) => TaskStatus::of_error(e),
            };
            if let Some(e) = &report.error {
                append_output(&dir, &describe_error(e, streamed));
            }
            file.error = report
                .error
                .as_ref()
                .map(|e| serde_json::to_value(e.to_body()).expect("serialises"));
            file.result = Some(serde_json::to_value(&report).expect("serialises"));
        }
        Err(e) => {
            append_output(&dir, &describe_error(&e, streamed));
            file.status = TaskStatus::of_error(&e);
            file.error = Some(serde_json::to_value(e.to_body()).expect("serialises"));
        }
    }
    write_file(&dir, &file)?;
    Ok(file.status)
}

/// A task's state and output now.
pub fn status(repo: &Repo, id: &str) -> Result<TaskOutcome> {
    let dir = task_dir(repo, id)?;
    let file = load(&dir)?;
    Ok(outcome(&dir, file))
}

/// Polls until the task is done or `timeout` passes (then it is still
/// `running`, with the output so far). A cancel of the waiting call
/// (`ctx`) stops the wait early; the task runs on.
pub fn wait(repo: &Repo, id: &str, timeout: Duration, ctx: &Context) -> Result<TaskOutcome> {
    let dir = task_dir(repo, id)?;
    let deadline = std::time::Instant::now() + timeout;
    loop {
        let file = load(&dir)?;
        if file.status.is_done() || std::time::Instant::now() >= deadline || ctx.cancelled() {
            return Ok(outcome(&dir, file));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every task of the repository, newest first.
pub fn list(repo: &Repo) -> Result<TaskListOutcome> {
    let root = tasks_dir(repo);
    let mut tasks = Vec::new();
    if let Ok(entries) = fs::read_dir(&root) {
        for entry in entries.flatten() {
            let dir = entry.path();
            if !dir.join("task.json").is_file() {
                continue;
            }
            if let Ok(f) = load(&dir) {
                tasks.push(TaskSummary {
                    task_id: f.task_id,
                    status: f.status,
                    patch_ids: f.request.patch_ids,
                    created_at: f.created_at,
                    finished_at: f.finished_at,
                });
            }
        }
    }
    tasks.sort_by(|a, b| (b.created_at, &b.task_id).cmp(&(a.created_at, &a.task_id)));
    Ok(TaskListOutcome {
        success: true,
        tasks,
    })
}

/// Asks a running task to stop: its validation's process group is killed,
/// the worktree cleaned, the branch left as it was. A task that already
/// finished is reported as it is.
pub fn cancel(repo: &Repo, id: &str, wait_for: Duration) -> Result<TaskOutcome> {
    let dir = task_dir(repo, id)?;
    if load(&dir)?.status.is_done() {
        return status(repo, id);
    }
    let marker = dir.join("cancel");
    fs::write(&marker, b"").map_err(|e| Error::io("write", &marker, e))?;
    // The cancel asked for is the task's; nothing cancels this wait.
    wait(repo, id, wait_for, &Context::new("cli"))
}
