//! Logging: a call's warnings reach the client as `notifications/message`
//! (level `warning`, logger `git-evolv`), at the level it asks for:
//! `logging/setLevel` on a 2025-11-25 connection (kept for the connection),
//! the request's own `_meta` log level on 2026-07-28 (nothing is sent to a
//! request without one, as the revision says). A long call's validation
//! output goes as `info` lines (log_lines.rs, through the call's progress
//! sink).
// The SDK marks the logging types deprecated (SEP-2577 moves logging to
// the request's `_meta`); 2025-11-25 clients still use them.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, SetLevelRequestParams};
use rmcp::service::{Peer, RequestContext};

use super::resources::is_2026;

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

/// Whether a client that asked for `level` is told of messages at `at`.
pub fn tells(level: Option<LoggingLevel>, at: LoggingLevel) -> bool {
    level.is_some_and(|level| rank(level) <= rank(at))
}

/// Tells the client each warning of a finished call (its result's
/// `warnings`, as the CLI prints them), before the result, at `warning`.
pub async fn warnings(
    level: Option<LoggingLevel>,
    peer: &Peer<RoleServer>,
    response: &rmcp::model::CallToolResponse,
) {
    if !tells(level, LoggingLevel::Warning) {
        return;
    }
    let rmcp::model::CallToolResponse::Complete(result) = response else {
        return;
    };
    let Some(list) = result
        .structured_content
        .as_ref()
        .and_then(|c| c.get("warnings"))
        .and_then(|w| w.as_array())
    else {
        return;
    };
    for warning in list {
        let param = LoggingMessageNotificationParam::new(LoggingLevel::Warning, warning.clone())
            .with_logger("git-evolv");
        if peer.notify_logging_message(param).await.is_err() {
            return;
        }
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
