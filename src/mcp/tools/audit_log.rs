//! `audit_log`: the audit log, newest first; `git evolv log`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::Result;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::reading::inspect::{LogOutcome, LogRequest};

pub struct AuditLog;

/// `audit_log`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditLogArgs {
    /// At most this many entries, newest first (default: all).
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
}

impl SessionTool for AuditLog {
    const META: Meta = Meta {
        name: "audit_log",
        title: "Read the audit log",
        description: "Returns the audit log (refs/evolv/audit), newest first: every propose, apply, rollback, drop and failure with its patch id, commit and outcome. Changes nothing.",
        effect: Effect::Reads,
    };
    type Args = AuditLogArgs;
    type Output = LogOutcome;
    type UseCase = LogRequest;

    fn use_case(args: &AuditLogArgs) -> LogRequest {
        LogRequest { limit: args.limit }
    }

    fn output(_: AuditLogArgs, outcome: LogOutcome) -> Result<LogOutcome> {
        Ok(outcome)
    }
}
