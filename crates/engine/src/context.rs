//! What one operation runs with besides its request: who acts (the op
//! log's actor), where its progress goes and whether its caller cancelled
//! it. A value the session owns (`ops::Session`, set by the front end that
//! opened it) and hands to its use cases, which clone it into the threads
//! they start: `test` runs its targets on worker threads, and each sees
//! the cancel and reports progress (issue 39 item 4). Never a
//! thread-local.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::progress::Progress;

/// The context of one operation. Cheap to clone: clones share the
/// actor, the sink and the cancellation.
#[derive(Debug, Clone)]
pub struct Context {
    actor: Arc<str>,
    progress: Progress,
    cancel: Cancel,
}

impl Context {
    /// The context of operations `actor` runs (`cli`, `hook`, `web`,
    /// `mcp:<client>`: see [`mcp_actor`]), reporting no progress, not
    /// cancelled.
    pub fn new(actor: &str) -> Context {
        Context {
            actor: Arc::from(actor),
            progress: Progress::none(),
            cancel: Cancel::new(),
        }
    }

    /// Who the op log names for what this operation does (a record may
    /// say otherwise: a server's landing names its pusher).
    pub fn actor(&self) -> &str {
        &self.actor
    }

    /// This context, its reports going to `progress`.
    pub fn with_progress(mut self, progress: Progress) -> Context {
        self.progress = progress;
        self
    }

    /// This context, stopped by `cancel`.
    pub fn with_cancel(mut self, cancel: Cancel) -> Context {
        self.cancel = cancel;
        self
    }

    /// Where the operation's progress goes.
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// The operation's cancellation.
    pub fn cancel(&self) -> &Cancel {
        &self.cancel
    }

    /// Whether the caller cancelled the operation: a running validation
    /// command's process group is killed, and the operation stops with
    /// `Error::Cancelled` before it moves a branch.
    pub fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }
}

/// A cancellation shared by whoever holds a clone: the front end sets it
/// (an MCP client's `notifications/cancelled`, a task's cancel marker),
/// the operation's threads read it.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// Not cancelled yet.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Cancels the operation (every clone sees it).
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether [`Cancel::cancel`] was called on any clone.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// The actor of an MCP client that said its name in `initialize`.
pub fn mcp_actor(client: Option<&str>) -> String {
    match client.map(str::trim).filter(|n| !n.is_empty()) {
        Some(name) => format!("mcp:{name}"),
        None => "mcp".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_on_another_thread_sees_the_cancel() {
        let ctx = Context::new("cli");
        let worker = ctx.clone();
        assert!(!worker.cancelled());
        ctx.cancel().cancel();
        let seen = std::thread::spawn(move || (worker.cancelled(), worker.actor().to_string()))
            .join()
            .unwrap();
        assert_eq!(seen, (true, "cli".to_string()));
    }
}
