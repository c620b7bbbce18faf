//! One `tools/call` as a tool's handler sees it: its arguments, and the
//! ways to reach the repository, always through an `ops::Session` opened on
//! a blocking thread (the git layer is synchronous and a session is not
//! `Sync`). Long calls report progress when the request carries a progress
//! token, and a cancellation kills the running validation.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
// The SDK marks logging deprecated (SEP-2577); 2025-11-25 clients use it.
#[allow(deprecated)]
use rmcp::model::LoggingLevel;
use rmcp::model::{CallToolRequestParams, CallToolResponse, JsonObject};
use rmcp::service::RequestContext;

use super::confirm::{self, Gate, Pending};
use super::log_lines::{self, Lines, Tee};
use super::progress::Notifier;
use crate::context::{Cancel, Context};
use crate::error::{Error, Result};
use crate::ops::Session;
use crate::ops::UseCase;
use crate::progress::{Progress, ProgressSink};

/// Confirmations handed out as input-required results, by request state.
pub type PendingMap = Arc<Mutex<HashMap<String, Pending>>>;

/// One `tools/call`.
pub struct Call {
    dir: Arc<PathBuf>,
    pending: PendingMap,
    name: String,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
    /// The least severe level the client is told of, if any.
    #[allow(deprecated)]
    log_level: Option<LoggingLevel>,
}

impl Call {
    pub fn new(
        dir: Arc<PathBuf>,
        pending: PendingMap,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Self {
        Call {
            dir,
            pending,
            name: request.name.to_string(),
            request,
            context,
            log_level: None,
        }
    }

    /// Tells the client of the call's validation output at `info` when
    /// `level` asks for it.
    #[allow(deprecated)]
    pub fn with_log_level(mut self, level: Option<LoggingLevel>) -> Self {
        self.log_level = level;
        self
    }

    /// The call's arguments, as the client sent them.
    pub fn arguments(&self) -> Option<JsonObject> {
        self.request.arguments.clone()
    }

    /// Runs `use_case` on a blocking thread in a session opened as the CLI
    /// opens it (an interrupted landing recovered first, the index released
    /// after). With `long`, the session's context carries the call's
    /// progress (when the request carries a token) and its cancellation.
    pub async fn run<U>(&self, long: bool, use_case: U) -> Result<U::Outcome>
    where
        U: UseCase + Send + 'static,
        U::Outcome: Send + 'static,
    {
        self.blocking::<U, _>(long, move |s| s.run(&use_case)).await
    }

    /// Runs `f` in a session opened for `R` (see [`Call::run`]).
    async fn blocking<R, T>(
        &self,
        long: bool,
        f: impl FnOnce(&Session) -> Result<T> + Send + 'static,
    ) -> Result<T>
    where
        R: UseCase + ?Sized,
        T: Send + 'static,
    {
        let dir = self.dir.clone();
        let context = Context::new(&self.actor());
        if !long {
            return run_blocking(move || with_session::<R, T>(&dir, context, f)).await;
        }
        let cancel = Cancel::new();
        let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
        // Watches for notifications/cancelled in a task of its own, so the
        // cancellation is set even if rmcp drops this call's future.
        let ct = self.context.ct.clone();
        let watch = cancel.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = ct.cancelled() => watch.cancel(),
                _ = done_rx => {}
            }
        });
        let mut sinks: Vec<Arc<dyn ProgressSink>> = Vec::new();
        let mut senders = Vec::new();
        if let Some((notifier, sender)) = self.progress_notifier() {
            sinks.push(Arc::new(notifier));
            senders.push(sender);
        }
        if let Some((lines, sender)) = self.log_lines() {
            sinks.push(Arc::new(lines));
            senders.push(sender);
        }
        let progress = match sinks.len() {
            0 => Progress::none(),
            1 => Progress::to(sinks.remove(0)),
            _ => Progress::to(Arc::new(Tee(sinks))),
        };
        let context = context.with_cancel(cancel).with_progress(progress);
        let result = run_blocking(move || with_session::<R, T>(&dir, context, f)).await;
        let _ = done_tx.send(());
        // Every notification goes out before the result (the sinks, and
        // with them the channels' senders, are gone with the call's session).
        for sender in senders {
            let _ = sender.await;
        }
        result
    }

    /// Who the op log names for what this call does: `mcp:<client name>`
    /// (as the client said in `initialize`).
    fn actor(&self) -> String {
        let info = self.context.peer.peer_info();
        crate::context::mcp_actor(info.as_deref().map(|i| i.client_info.name.as_str()))
    }

    /// Asks the user to confirm what `use_case` says needs confirming
    /// ([`UseCase::confirmation`], on a blocking thread in a session opened
    /// for it), in the way the client allows. `Some` is the answer to give
    /// instead of running the call (an input-required result).
    pub async fn ask<U>(&self, use_case: &U) -> Result<Option<CallToolResponse>>
    where
        U: UseCase + Clone + Send + 'static,
    {
        let use_case = use_case.clone();
        let needs = move |s: &Session| s.confirmation(&use_case);
        let Some(confirmation) = self.blocking::<U, _>(false, needs).await? else {
            return Ok(None);
        };
        let gate = confirm::gate(
            &self.pending,
            &self.name,
            &self.request,
            &self.context,
            confirmation,
        )
        .await?;
        Ok(match gate {
            Gate::Proceed => None,
            Gate::Ask(response) => Some(response),
        })
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

    /// For a client told of `info`: the sink of the call's validation
    /// lines and the task that sends them, in order.
    fn log_lines(&self) -> Option<(Lines, tokio::task::JoinHandle<()>)> {
        log_lines::start(self.log_level, self.context.peer.clone())
    }
}

/// Runs `f` in a session of the server's repository opened with
/// `context`, as every front end does; what the session's automatic
/// recovery did goes to stderr in the CLI's words.
fn with_session<R: UseCase + ?Sized, T>(
    dir: &Path,
    context: Context,
    f: impl FnOnce(&Session) -> Result<T>,
) -> Result<T> {
    let session = Session::open_for::<R>(dir, context)?;
    if let Some(outcome) = session.recovered() {
        log::line(&format!("git-evolv: recovered: {}", outcome.describe()));
    }
    f(&session)
}

async fn run_blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(Error::Internal {
            at: "an MCP call's thread",
            message: format!("internal error: the call's thread ended abnormally: {e}"),
        })
    })
}

/// stderr lines of the server (stdout carries only JSON-RPC frames).
mod log {
    use std::io::Write;

    pub fn line(text: &str) {
        let _ = writeln!(std::io::stderr().lock(), "{text}");
    }
}
