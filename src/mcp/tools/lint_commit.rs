//! `lint_commit`: a commit message against the repository's Conventional
//! Commits rules; `git evolv lint`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::Result;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::commits::lint::{LintOutcome, MessageRequest};

pub struct LintCommit;

/// `lint_commit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LintCommitArgs {
    /// The commit message to check against the repository's Conventional
    /// Commits rules.
    pub message: String,
}

impl SessionTool for LintCommit {
    const META: Meta = Meta {
        name: "lint_commit",
        title: "Lint a commit message",
        description: "Checks a commit message against the repository's Conventional Commits rules (git config evolv.commit.*) and returns the findings. Reads configuration only; changes nothing.",
        effect: Effect::Reads,
    };
    type Args = LintCommitArgs;
    type Output = LintOutcome;
    type UseCase = MessageRequest;

    fn use_case(args: &LintCommitArgs) -> MessageRequest {
        MessageRequest {
            name: "<message>".into(),
            text: args.message.clone(),
        }
    }

    fn output(_: LintCommitArgs, outcome: LintOutcome) -> Result<LintOutcome> {
        Ok(outcome)
    }
}
