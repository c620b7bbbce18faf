//! `audit_log`: the audit log, newest first; `git evolv log`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::Result;
use crate::mcp::call::Call;
use crate::mcp::tool::{Effect, McpTool, Reply};
use crate::ops::inspect::{LogOutcome, LogRequest};

pub struct AuditLog;

/// `audit_log`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditLogArgs {
    /// At most this many entries, newest first (default: all).
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
}

impl McpTool for AuditLog {
    const NAME: &'static str = "audit_log";
    const TITLE: &'static str = "Read the audit log";
    const DESCRIPTION: &'static str = "Returns the audit log (refs/evolv/audit), newest first: every propose, apply, rollback, drop and failure with its patch id, commit and outcome. Changes nothing.";
    const EFFECT: Effect = Effect::ReadOnly { idempotent: true };
    type Args = AuditLogArgs;
    type Output = LogOutcome;

    async fn run(call: &Call, args: AuditLogArgs) -> Result<Reply<LogOutcome>> {
        call.blocking::<LogRequest, _>(false, move |s| s.log(&LogRequest { limit: args.limit }))
            .await
            .map(Reply::Output)
    }
}
