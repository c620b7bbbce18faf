//! Logging: validation output and warnings reach the client as
//! `notifications/message`, at the level it asks for: `logging/setLevel`
//! on a 2025-11-25 connection (kept for the connection), the request's own
//! `_meta` log level on 2026-07-28 (nothing is sent to a request without
//! one, as the revision says). A validation command's lines are `info`
//! (logger `validation`), warnings `warning`.
// The SDK marks the logging types deprecated (SEP-2577 moves logging to
// the request's `_meta`); 2025-11-25 clients still use them.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, SetLevelRequestParams};
use rmcp::service::{Peer, RequestContext};
use serde_json::json;
use tokio::sync::mpsc::UnboundedSender;

use super::resources::is_2026;
use crate::progress::{Event, ProgressSink};

/// The level a 2025-11-25 connection asked for; none until it asks.
#[derive(Clone, Default)]
pub struct LogLevel(Arc<Mutex<Option<LoggingLevel>>>);

impl LogLevel {
    /// `logging/setLevel`.
    pub fn set(&self, request: &SetLevelRequestParams) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(request.level);
    }

    /// The least severe level `context`'s request is told of, if any.
    pub fn for_request(&self, context: &RequestContext<RoleServer>) -> Option<LoggingLevel> {
        if is_2026(context) {
            return context.meta.log_level();
        }
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Severity, least first.
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// Sends one call's log messages at or above its level, in order.
#[derive(Clone)]
pub struct Logger {
    level: LoggingLevel,
    tx: UnboundedSender<LoggingMessageNotificationParam>,
}

impl Logger {
    /// For a call whose request asks for messages: the logger and the task
    /// that sends them (done when every logger is dropped).
    pub fn start(
        level: Option<LoggingLevel>,
        peer: Peer<RoleServer>,
    ) -> Option<(Logger, tokio::task::JoinHandle<()>)> {
        let level = level?;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let sender = tokio::spawn(async move {
            while let Some(param) = rx.recv().await {
                if peer.notify_logging_message(param).await.is_err() {
                    return;
                }
            }
        });
        Some((Logger { level, tx }, sender))
    }

    /// Logs `data` at `level` under `logger`, if the client asked for it.
    pub fn log(&self, level: LoggingLevel, logger: &str, data: serde_json::Value) {
        if rank(level) >= rank(self.level) {
            let param = LoggingMessageNotificationParam::new(level, data).with_logger(logger);
            let _ = self.tx.send(param);
        }
    }

    /// A warning of an outcome (its JSON as the data).
    pub fn warning(&self, warning: serde_json::Value) {
        self.log(LoggingLevel::Warning, "git-evolv", warning);
    }
}

/// Validation output lines as `info` messages: a progress sink.
impl ProgressSink for Logger {
    fn event(&self, event: &Event) {
        if let Event::Line { label, line, .. } = event {
            self.log(
                LoggingLevel::Info,
                "validation",
                json!({ "command": label, "line": line }),
            );
        }
    }
}

/// Two sinks as one: progress notifications and log messages both hear
/// every report.
pub struct Both(pub Arc<dyn ProgressSink>, pub Arc<dyn ProgressSink>);

impl ProgressSink for Both {
    fn event(&self, event: &Event) {
        self.0.event(event);
        self.1.event(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities_order_as_syslog() {
        assert!(rank(LoggingLevel::Debug) < rank(LoggingLevel::Info));
        assert!(rank(LoggingLevel::Warning) < rank(LoggingLevel::Error));
        assert!(rank(LoggingLevel::Alert) < rank(LoggingLevel::Emergency));
    }
}
