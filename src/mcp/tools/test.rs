//! `test`: verdicts of the configured validation command on commits or
//! proposals, reused from the verdict store when trusted; `git evolv test`.
//! The command is `evolv.validate` only: a client cannot name one.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::Result;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::test::{TestOutcome, TestRequest};

pub struct Test;

/// `test`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestArgs {
    /// Revisions or proposal ids (default: HEAD).
    #[serde(default)]
    pub targets: Vec<String>,
    /// How many targets run at once (default 1).
    #[schemars(range(min = 1))]
    pub jobs: Option<usize>,
    /// Run even where a trusted verdict for the same key is stored.
    #[serde(default)]
    pub no_cache: bool,
    /// A range A..B whose first failing commit to find instead, or the id
    /// of the top proposal of a stack whose first failing proposal to find.
    pub bisect: Option<String>,
}

impl SessionTool for Test {
    const META: Meta = Meta {
        name: "test",
        title: "Run the validation command on commits or proposals",
        description: "Runs the configured evolv.validate commands (each value its own sh -c, in order, stopping at the first that fails) on each target (revisions or proposal ids; default HEAD) in git-evolv's own validation worktrees and returns one verdict per target: status pass|fail|skip|abort (git bisect run's exit codes; an abort stops the run, the targets not yet run are not_run), exit_code, commands (each command's exit), duration_ms, output_tail, and cached with made_at/made_by/source when a trusted stored verdict for the same key (tree, commands, declared env, toolchain fingerprint, inputs) was reused; no_cache runs again and stores the run in place of the stored verdict. With bisect A..B (or the top proposal id of a stack), finds the first failing commit (or proposal). Stores verdicts under refs/evolv/verdicts/; never moves a branch or touches the working tree.",
        effect: Effect::Runs,
    };
    type Args = TestArgs;
    type Output = TestOutcome;
    type UseCase = TestRequest;

    fn use_case(args: &TestArgs) -> TestRequest {
        TestRequest {
            targets: args.targets.clone(),
            command: None,
            jobs: args.jobs,
            no_cache: args.no_cache,
            bisect: args.bisect.clone(),
        }
    }

    fn output(_: TestArgs, outcome: TestOutcome) -> Result<TestOutcome> {
        Ok(outcome)
    }
}
