//! `op_log`: the op log, newest first; `git evolv op log`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::Result;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::operations::op_log::{OpLogOutcome, OpLogRequest};

pub struct OpLog;

/// `op_log`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpLogArgs {
    /// At most this many operations, newest first (default: all).
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
}

impl SessionTool for OpLog {
    const META: Meta = Meta {
        name: "op_log",
        title: "Read the operation log",
        description: "Returns the operations git-evolv recorded (refs/evolv/audit), newest first: each with its id, kind (propose, edit, drop, gc, comment, apply, rollback, undo, redo), time, actor (cli, mcp:<client>, web, hook), every ref it moved with old and new ids (null where created or deleted) and the paths a landing wrote. An id (or a unique prefix) is what `undo` takes. Changes nothing.",
        effect: Effect::Reads,
    };
    type Args = OpLogArgs;
    type Output = OpLogOutcome;
    type UseCase = OpLogRequest;

    fn use_case(args: &OpLogArgs) -> OpLogRequest {
        OpLogRequest { limit: args.limit }
    }

    fn output(_: OpLogArgs, outcome: OpLogOutcome) -> Result<OpLogOutcome> {
        Ok(outcome)
    }
}
