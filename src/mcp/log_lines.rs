//! A long call's validation output as `info` log lines: each line a
//! validation command writes (the library's `Event::Line`) becomes a
//! `notifications/message` at `info`, logger `git-evolv`, data
//! `{command, line}`, for a client that asked for `info` or less. The
//! lines go through a channel to an async task that sends them, so the
//! call's thread never waits on the client.
// The SDK marks the logging types deprecated (SEP-2577 moves logging to
// the request's `_meta`); 2025-11-25 clients still use them.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::Peer;
use serde_json::json;
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;

use super::logging;

use crate::progress::{Event, ProgressSink, Task};

/// The sink that turns validation lines into log messages.
pub struct Lines {
    tx: UnboundedSender<LoggingMessageNotificationParam>,
}

impl Lines {
    pub fn new(tx: UnboundedSender<LoggingMessageNotificationParam>) -> Self {
        Lines { tx }
    }
}

impl ProgressSink for Lines {
    fn event(&self, event: &Event) {
        if let Event::Line {
            task: Task::Validate,
            label,
            line,
        } = event
        {
            let param = LoggingMessageNotificationParam::new(
                LoggingLevel::Info,
                json!({"command": label, "line": line}),
            )
            .with_logger("git-evolv");
            // The receiver is gone only when the call is over.
            let _ = self.tx.send(param);
        }
    }
}

/// For a client told of `info` (`level`): the sink of a call's validation
/// lines and the task that sends them to `peer`, in order.
pub fn start(
    level: Option<LoggingLevel>,
    peer: Peer<RoleServer>,
) -> Option<(Lines, JoinHandle<()>)> {
    if !logging::tells(level, LoggingLevel::Info) {
        return None;
    }
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let sender = tokio::spawn(async move {
        while let Some(param) = rx.recv().await {
            if peer.notify_logging_message(param).await.is_err() {
                return;
            }
        }
    });
    Some((Lines::new(tx), sender))
}

/// Hands every report to each of its sinks (progress and log lines).
pub struct Tee(pub Vec<Arc<dyn ProgressSink>>);

impl ProgressSink for Tee {
    fn event(&self, event: &Event) {
        for sink in &self.0 {
            sink.event(event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Progress;

    #[test]
    fn only_validation_lines_become_info_messages() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let progress = Progress::to(Arc::new(Tee(vec![Arc::new(Lines::new(tx))])));
        progress.start(Task::Validate, "make", None);
        progress.report(Event::Line {
            task: Task::Validate,
            label: "make".into(),
            line: "ok 1".into(),
        });
        progress.report(Event::Line {
            task: Task::Land,
            label: "files".into(),
            line: "not a validation line".into(),
        });
        progress.finish(Task::Validate);
        let sent: Vec<_> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].level, LoggingLevel::Info);
        assert_eq!(sent[0].data, json!({"command": "make", "line": "ok 1"}));
        assert_eq!(sent[0].logger.as_deref(), Some("git-evolv"));
    }
}
