//! `list_checkpoints`: the agents' checkpoints of the work tree, newest
//! first, with what each changed; `git evolv checkpoints`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::Result;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::checkpoints::list::{CheckpointsOutcome, CheckpointsRequest};

pub struct ListCheckpoints;

/// `list_checkpoints`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListCheckpointsArgs {
    /// Only this session: its id, or `<agent>/<session>`.
    pub session: Option<String>,
    /// At most this many checkpoints per session, newest first (default: all).
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
}

impl SessionTool for ListCheckpoints {
    const META: Meta = Meta {
        name: "list_checkpoints",
        title: "List the work tree's checkpoints",
        description: "Returns every agent session's checkpoints of the whole work tree (refs/evolv/checkpoints/<agent>/<session>), sessions newest first: each checkpoint's commit id, turn, event (turn-start, after-tool, stop, manual, save, rewind), tool, model, time and the paths it changed since the one before. `git evolv rewind <id>` puts the work tree back to one. Changes nothing.",
        effect: Effect::Reads,
    };
    type Args = ListCheckpointsArgs;
    type Output = CheckpointsOutcome;
    type UseCase = CheckpointsRequest;

    fn use_case(args: &ListCheckpointsArgs) -> CheckpointsRequest {
        CheckpointsRequest {
            session: args.session.clone(),
            limit: args.limit,
        }
    }

    fn output(_: ListCheckpointsArgs, outcome: CheckpointsOutcome) -> Result<CheckpointsOutcome> {
        Ok(outcome)
    }
}
