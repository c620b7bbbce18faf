//! `undo`: undo (or redo) operations of the op log, after the user's
//! confirmation when it moves a protected branch; `git evolv undo`/`redo`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::mcp::call::Call;
use crate::mcp::tool::{Effect, McpTool, Meta, Reply};
use crate::ops::succeeded::Succeeded;
use crate::ops::operations::undo::{UndoOutcome, UndoRequest};

pub struct Undo;

/// `undo`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoArgs {
    /// The operation to undo: an id from op_log or a unique prefix (at
    /// least 4 hex digits). Default: this client's newest operation that
    /// can be undone.
    pub op: Option<String>,
    /// Undo every operation after this one instead, newest first.
    pub to: Option<String>,
    /// Redo what the newest undo undid (op and to must then be absent).
    #[serde(default)]
    pub redo: bool,
    /// List every ref and path that would change; change nothing.
    #[serde(default)]
    pub dry_run: bool,
}

impl McpTool for Undo {
    const META: Meta = Meta {
        name: "undo",
        title: "Undo an operation",
        description: "Undoes an operation of op_log, and records the undo as an operation (undoing an undo is a redo). Proposals, drops, gc and comments: the refs under refs/evolv/ go back where they were, refused (`undo_conflict`) when one moved since. apply and rollback: the current branch moves back and only the landed files are restored in the working tree and index when nothing was committed on top, nothing was pushed and the branch's reflog shows it held that commit; a redo of such an undo moves the branch forward again; otherwise a new commit (a revert, or for a redo a reapply) is made and the reason given. Only records this clone wrote (marked with its secret) are acted on: a record fetched from another clone or written by hand is refused (`not_undoable`), and `to` and `redo` pass over it. Refuses (`dirty_worktree`) if those files have uncommitted changes. On a protected branch the user is asked to confirm when the client supports it. dry_run lists every ref and path it would change.",
        effect: Effect::Lands,
    };
    type Args = UndoArgs;
    type Output = Succeeded<UndoOutcome>;

    async fn run(call: &Call, args: UndoArgs) -> Result<Reply<Succeeded<UndoOutcome>>> {
        if args.redo && (args.op.is_some() || args.to.is_some()) {
            return Err(Error::invalid_field(
                "redo",
                "redo takes no operation: it redoes what the newest undo undid",
                "leave out op and to, or undo the undo by its id",
            ));
        }
        let req = UndoRequest {
            op: args.op,
            to: args.to,
            redo: args.redo,
            dry_run: args.dry_run,
        };
        if let Some(asked) = call.ask(&req).await? {
            return Ok(Reply::Response(asked));
        }
        call.run(true, req)
            .await
            .map(|outcome| Reply::Output(Succeeded::new(outcome)))
    }
}
