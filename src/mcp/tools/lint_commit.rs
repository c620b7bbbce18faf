//! `lint_commit`: a commit message against the repository's Conventional
//! Commits rules; `git evolv lint`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::Result;
use crate::mcp::call::Call;
use crate::mcp::tool::{Effect, McpTool, Reply};
use crate::ops::lint::{LintOutcome, MessageRequest};

pub struct LintCommit;

/// `lint_commit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LintCommitArgs {
    /// The commit message to check against the repository's Conventional
    /// Commits rules.
    pub message: String,
}

impl McpTool for LintCommit {
    const NAME: &'static str = "lint_commit";
    const TITLE: &'static str = "Lint a commit message";
    const DESCRIPTION: &'static str = "Checks a commit message against the repository's Conventional Commits rules (git config evolv.commit.*) and returns the findings. Reads configuration only; changes nothing.";
    const EFFECT: Effect = Effect::ReadOnly { idempotent: true };
    type Args = LintCommitArgs;
    type Output = LintOutcome;

    async fn run(call: &Call, args: LintCommitArgs) -> Result<Reply<LintOutcome>> {
        call.blocking::<MessageRequest, _>(false, move |s| {
            s.lint_message(&MessageRequest {
                name: "<message>".into(),
                text: args.message,
            })
        })
        .await
        .map(Reply::Output)
    }
}
