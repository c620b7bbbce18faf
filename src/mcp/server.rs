//! The MCP server: `tools/list` from the tool table, `tools/call` as a thin
//! adapter per tool (parse the arguments, call the ops function on a
//! blocking thread, render its outcome or error). Long calls report
//! progress when the request carries a progress token, and a cancellation
//! kills the running validation.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CustomRequest,
    CustomResult, ErrorCode, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ResultType,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool_handler};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::rc::Rc;

use super::args::*;
use super::confirm::{self, Gate, Pending};
use super::outputs::{
    ApplyEditOutput, EditToolOutput, GlobOutput, ProposeEditOutput, ReadFileOutput,
    ShowProposalOutput, cap,
};
use super::progress::Notifier;
use super::schema::parse_args;
use super::{safety, tools};
use crate::edit::list::EditList;
use crate::error::{Error, Result};
use crate::ops::{self, Session};

/// How long `task_output` waits by default, and at most.
const TASK_WAIT_DEFAULT: u64 = 30;
const TASK_WAIT_MAX: u64 = 600;
/// Caps of `read_file` and `glob` results.
const MAX_READ_BYTES: usize = 256 * 1024;
const MAX_GLOB_FILES: usize = 1000;

/// The server of one repository, fixed at start.
#[derive(Clone)]
pub struct EvolvServer {
    dir: Arc<PathBuf>,
    /// Confirmations asked through an input-required result (2026-07-28),
    /// keyed by the request state handed out: the retried call is checked
    /// against what is recorded here, never against the client's word.
    pending: Arc<Mutex<HashMap<String, Pending>>>,
}

impl EvolvServer {
    pub fn new(dir: PathBuf) -> Self {
        EvolvServer {
            dir: Arc::new(dir),
            pending: Arc::default(),
        }
    }
}

#[tool_handler(
    name = "git-evolv",
    instructions = "git-evolv: propose edits as git commits (propose_edit), review them (show_proposal), apply them with validation (apply_edit) and undo them (rollback). Proposing and reading never touch the working tree or any branch."
)]
impl ServerHandler for EvolvServer {
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        let cache_hints = context
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        Ok(ListToolsResult {
            result_type: Some(ResultType::COMPLETE),
            tools: tools::all().to_vec(),
            meta: None,
            next_cursor: None,
            ttl_ms: cache_hints.then_some(0),
            cache_scope: cache_hints.then_some(CacheScope::Public),
        })
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools::find(name)
    }

    /// A request for a method we serve whose params did not parse (a
    /// `tools/call` without `name`, `arguments` that are not an object)
    /// reaches here as a custom request: it is malformed, -32602.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CustomResult, ErrorData> {
        let method = request.method;
        if method.starts_with("tools/") || method == "initialize" || method == "ping" {
            return Err(ErrorData::invalid_params(
                format!(
                    "malformed {method} request: {}",
                    if method == "tools/call" {
                        "params must be an object with `name` (a string) and optional `arguments` (an object)"
                    } else {
                        "its params do not match the MCP schema"
                    }
                ),
                None,
            ));
        }
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("unknown method '{method}'"),
            None,
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if tools::find(&name).is_none() {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool '{name}'; tools/list names the tools of git-evolv: {}",
                    tools::names().join(", ")
                ),
                None,
            ));
        }
        let call = Call {
            server: self,
            name: name.clone(),
            request,
            context,
        };
        match call.run().await {
            Ok(response) => Ok(response),
            Err(e) => Ok(error_result(&e).into()),
        }
    }
}

/// One `tools/call`.
struct Call<'a> {
    server: &'a EvolvServer,
    name: String,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
}

impl Call<'_> {
    fn args<T: DeserializeOwned>(&self) -> Result<T> {
        parse_args(&self.name, self.request.arguments.clone())
    }

    async fn run(&self) -> Result<CallToolResponse> {
        let result = match self.name.as_str() {
            "propose_edit" => self.propose_edit().await?,
            "apply_edit" => return self.apply_edit().await,
            "edit" => {
                let text =
                    serde_json::Value::Object(self.request.arguments.clone().unwrap_or_default())
                        .to_string();
                let list = EditList::from_json(&text).map_err(|m| {
                    Error::invalid(
                        format!("edit: {m}"),
                        "see the inputSchema of `edit` in tools/list",
                    )
                })?;
                self.edit(list).await?
            }
            "notebook_edit" => {
                let args: NotebookEditArgs = self.args()?;
                self.edit(args.list()).await?
            }
            "list_proposals" => {
                let _: NoArgs = self.args()?;
                self.blocking(false, |s| s.list(&ops::inspect::ListRequest {}))
                    .await
                    .map(success)?
            }
            "show_proposal" => self.show_proposal().await?,
            "drop_proposal" => {
                let args: DropProposalArgs = self.args()?;
                let req = args.request();
                for id in &req.patch_ids {
                    safety::check_id("patch_ids", id)?;
                }
                self.blocking(false, move |s| s.drop_proposals(&req))
                    .await
                    .map(success)?
            }
            "rollback" => return self.rollback().await,
            "lint_commit" => {
                let args: LintCommitArgs = self.args()?;
                self.blocking(false, move |s| {
                    let config = ops::lint::load_config(Some(s.repo()))?;
                    ops::lint::lint_message(
                        &ops::lint::MessageSource::Text {
                            name: "<message>".into(),
                            text: args.message,
                        },
                        &config,
                    )
                })
                .await
                .map(success)?
            }
            "check_repo" => {
                let _: NoArgs = self.args()?;
                let dir = self.server.dir.clone();
                run_blocking(move || ops::check::run(&dir, &ops::check::CheckRequest {}))
                    .await
                    .map(success)?
            }
            "audit_log" => {
                let args: AuditLogArgs = self.args()?;
                self.blocking(false, move |s| {
                    s.log(&ops::inspect::LogRequest { limit: args.limit })
                })
                .await
                .map(success)?
            }
            "task_output" => self.task_output().await?,
            "read_file" => {
                let args: ReadFileArgs = self.args()?;
                if let Some(id) = &args.patch_id {
                    safety::check_id("patch_id", id)?;
                }
                safety::check_path("path", &args.path)?;
                let req = args.request();
                let mut outcome = self
                    .blocking(false, move |s| ops::cat::cat(s.repo(), &req))
                    .await?;
                let mut numbered =
                    String::from_utf8_lossy(&ops::cat::numbered(&outcome)).into_owned();
                let truncated =
                    cap(&mut outcome.content, MAX_READ_BYTES) | cap(&mut numbered, MAX_READ_BYTES);
                success(ReadFileOutput {
                    outcome,
                    numbered,
                    truncated,
                })
            }
            "glob" => {
                let args: ops::glob::GlobRequest = self.args()?;
                safety::check_path("pattern", &args.pattern)?;
                if let Some(p) = &args.path {
                    safety::check_path("path", p)?;
                }
                let dir = self.server.dir.clone();
                // The working tree as it is: no recovery first (as the CLI).
                let mut outcome = run_blocking(move || {
                    ops::glob::glob(Session::open_without_recovery(&dir)?.repo(), &args)
                })
                .await?;
                let total_files = outcome.files.len();
                outcome.files.truncate(MAX_GLOB_FILES);
                success(GlobOutput {
                    outcome,
                    total_files,
                    truncated: total_files > MAX_GLOB_FILES,
                })
            }
            "task_list" => {
                let _: NoArgs = self.args()?;
                let dir = self.server.dir.clone();
                run_blocking(move || ops::task::list(&crate::git::open(&dir)?))
                    .await
                    .map(success)?
            }
            other => unreachable!("tool '{other}' is in the table but not dispatched"),
        };
        Ok(result.into())
    }

    /// Runs `f` on a blocking thread in a session opened as the CLI opens
    /// it (an interrupted landing recovered first, the index released
    /// after). With `long`, the call reports progress (when the request
    /// carries a token) and a cancellation stops it.
    async fn blocking<T, F>(&self, long: bool, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Session) -> Result<T> + Send + 'static,
    {
        let dir = self.server.dir.clone();
        if !long {
            return run_blocking(move || with_session(&dir, f)).await;
        }
        let flag = Arc::new(AtomicBool::new(false));
        let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
        // Watches for notifications/cancelled in a task of its own, so the
        // flag is set even if rmcp drops this call's future.
        let ct = self.context.ct.clone();
        let watch_flag = flag.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = ct.cancelled() => watch_flag.store(true, Ordering::SeqCst),
                _ = done_rx => {}
            }
        });
        let (notifier, sender) = self.progress_notifier().unzip();
        let result = run_blocking(move || {
            crate::validate::with_cancel(flag, || {
                with_session(&dir, |session| match notifier {
                    Some(n) => crate::progress::scoped(Rc::new(n), || f(session)),
                    None => f(session),
                })
            })
        })
        .await;
        let _ = done_tx.send(());
        // Every notification goes out before the result (the sink, and
        // with it the channel's sender, is gone once the call returned).
        if let Some(sender) = sender {
            let _ = sender.await;
        }
        result
    }

    /// With a progress token in the request: the progress sink of the call
    /// and the task that sends its notifications, in order.
    fn progress_notifier(&self) -> Option<(Notifier, tokio::task::JoinHandle<()>)> {
        let token = self.context.meta.get_progress_token()?;
        let peer = self.context.peer.clone();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let sender = tokio::spawn(async move {
            while let Some(param) = rx.recv().await {
                if peer.notify_progress(param).await.is_err() {
                    return;
                }
            }
        });
        Some((Notifier::new(token, tx), sender))
    }

    async fn propose_edit(&self) -> Result<CallToolResult> {
        let args: ProposeEditArgs = self.args()?;
        for s in &args.scope {
            safety::check_path("scope", s)?;
        }
        let max = args.max_diff_bytes.unwrap_or(DEFAULT_MAX_DIFF_BYTES);
        let req = args.request();
        let mut outcome = self.blocking(true, move |s| s.propose(&req)).await?;
        // The outcome carries the diff's first JSON_DIFF_MAX bytes; the
        // cap is taken from the whole diff, which it keeps.
        let (head, cut) = outcome.diff.head(max)?;
        outcome.unified_diff = String::from_utf8_lossy(&head).into_owned();
        outcome.diff_truncated = cap(&mut outcome.unified_diff, max) || cut;
        Ok(success(ProposeEditOutput {
            success: true,
            outcome,
        }))
    }

    /// `edit` and `notebook_edit`: `ops::edit` with the diff capped.
    async fn edit(&self, list: EditList) -> Result<CallToolResult> {
        if let Some(onto) = &list.onto {
            safety::check_id("onto", onto)?;
        }
        // Paths are checked by the edit engine over the base tree (no
        // absolute path, no `..`, no `.git`, no symlinked parent).
        let mut outcome = self
            .blocking(true, move |s| ops::edit::edit(s.repo(), &list))
            .await?;
        let diff_total_bytes = outcome.diff_bytes.len();
        let diff_truncated = cap(&mut outcome.unified_diff, DEFAULT_MAX_DIFF_BYTES);
        Ok(success(EditToolOutput {
            outcome,
            diff_truncated,
            diff_total_bytes,
        }))
    }

    async fn show_proposal(&self) -> Result<CallToolResult> {
        let args: ShowProposalArgs = self.args()?;
        safety::check_id("patch_id", &args.patch_id)?;
        let max = args.max_diff_bytes.unwrap_or(DEFAULT_MAX_DIFF_BYTES);
        let id = args.patch_id.clone();
        let mut outcome = self
            .blocking(false, move |s| {
                s.show(&ops::inspect::ShowRequest { patch_id: id })
            })
            .await?;
        let diff_total_bytes = outcome.diff_bytes.len();
        let mut diff_truncated = cap(&mut outcome.unified_diff, max);
        let word_diff = args.word_diff.then(|| {
            let mut text = crate::diff::word::word_diff(&outcome.diff_bytes);
            diff_truncated |= cap(&mut text, max);
            text
        });
        Ok(success(ShowProposalOutput {
            outcome,
            diff_truncated,
            diff_total_bytes,
            word_diff,
        }))
    }

    async fn apply_edit(&self) -> Result<CallToolResponse> {
        let args: ApplyEditArgs = self.args()?;
        if let Some(plan) = &args.execution_plan {
            // Every problem of the plan at once, each naming its field,
            // before anything else is looked at.
            ops::plan::load(&ops::plan::PlanSource::Text {
                name: "execution_plan".into(),
                text: plan.to_string(),
            })?;
        }
        let ids = args.ids();
        if ids.is_empty() {
            return Err(Error::invalid(
                "apply_edit: missing field `patch_id` (or `patch_ids`)",
                "pass the id propose_edit returned (list_proposals shows them all)",
            ));
        }
        for id in &ids {
            safety::check_id("patch_id", id)?;
        }
        let req = args.request();
        {
            let plan = args.execution_plan.clone();
            let dir = self.server.dir.clone();
            run_blocking(move || {
                with_session(&dir, |s| safety::check_plan(s.repo(), plan.as_ref()))
            })
            .await?;
        }
        // Ask before anything that lands on a protected branch.
        let summary = {
            let req = req.clone();
            self.blocking(false, move |s| confirm::apply_summary(s.repo(), &req))
                .await?
        };
        if let Gate::Ask(response) = self.gate(summary).await? {
            return Ok(response);
        }
        if args.run_in_background {
            let dry_run = req.dry_run;
            let started = self
                .blocking(false, move |s| {
                    ops::task::start(s.repo(), &ops::task::TaskRequest::from_apply(&req)?)
                })
                .await?;
            return Ok(success(ApplyEditOutput::started(started.task_id, dry_run)).into());
        }
        let report = self.blocking(true, move |s| s.apply(&req)).await?;
        if let Some(e) = &report.error {
            // Some proposals landed, then one failed: an error result that
            // still says what landed.
            let body = serde_json::json!({
                "success": false,
                "error": e.to_body(),
                "results": report.results,
                "failed_patch_id": report.failed_patch_id,
            });
            return Ok(CallToolResult::structured_error(body).into());
        }
        Ok(success(ApplyEditOutput::from_report(report)).into())
    }

    async fn rollback(&self) -> Result<CallToolResponse> {
        let args: RollbackArgs = self.args()?;
        safety::check_id("patch_id", &args.patch_id)?;
        let summary = {
            let id = args.patch_id.clone();
            self.blocking(false, move |s| confirm::rollback_summary(s.repo(), &id))
                .await?
        };
        if let Gate::Ask(response) = self.gate(summary).await? {
            return Ok(response);
        }
        let req = args.request();
        let outcome = self.blocking(true, move |s| s.rollback(&req)).await?;
        Ok(success(outcome).into())
    }

    /// The confirmation on a protected branch (see `confirm`).
    async fn gate(&self, summary: Option<confirm::Summary>) -> Result<Gate> {
        let Some(summary) = summary else {
            return Ok(Gate::Proceed);
        };
        confirm::gate(
            &self.server.pending,
            &self.name,
            &self.request,
            &self.context,
            summary,
        )
        .await
    }

    async fn task_output(&self) -> Result<CallToolResult> {
        let args: TaskOutputArgs = self.args()?;
        let wait = if args.block {
            args.timeout_seconds
                .unwrap_or(TASK_WAIT_DEFAULT)
                .min(TASK_WAIT_MAX)
        } else {
            0
        };
        let id = args.task_id.clone();
        let ct = self.context.ct.clone();
        let dir = self.server.dir.clone();
        // Task files only: no wait for a landing the task itself may be doing.
        let outcome = run_blocking(move || {
            ops::task::wait(
                &crate::git::open(&dir)?,
                &id,
                Duration::from_secs(wait),
                &|| ct.is_cancelled(),
            )
        })
        .await?;
        Ok(success(outcome))
    }
}

/// Runs `f` in a session of the server's repository, as every front end
/// does; what the session's automatic recovery did goes to stderr in the
/// CLI's words.
fn with_session<T>(dir: &Path, f: impl FnOnce(&Session) -> Result<T>) -> Result<T> {
    let session = Session::open(dir)?;
    if let Some(outcome) = session.recovered() {
        log::line(&format!("git-evolv: recovered: {}", outcome.describe()));
    }
    f(&session)
}

async fn run_blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(Error::Git {
            message: format!("internal error: the call's thread ended abnormally: {e}"),
        })
    })
}

/// A success: the outcome as `structuredContent`, and the same JSON as text.
fn success<T: Serialize>(outcome: T) -> CallToolResult {
    CallToolResult::structured(serde_json::to_value(outcome).expect("outcomes serialise"))
}

/// An engine error: `isError` with `{success: false, error: {code, message,
/// hint, ...}}`, the message exactly as the CLI prints it.
pub fn error_result(e: &Error) -> CallToolResult {
    CallToolResult::structured_error(serde_json::json!({
        "success": false,
        "error": e.to_body(),
    }))
}

/// stderr lines of the server (stdout carries only JSON-RPC frames).
mod log {
    use std::io::Write;

    pub fn line(text: &str) {
        let _ = writeln!(std::io::stderr().lock(), "{text}");
    }
}
