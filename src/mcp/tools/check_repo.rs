//! `check_repo`: the branch, its upstream and the uncommitted files;
//! `git evolv check`.

use crate::error::Result;
use crate::mcp::args::NoArgs;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::commits::check::{CheckOutcome, CheckRequest};

pub struct CheckRepo;

impl SessionTool for CheckRepo {
    const META: Meta = Meta {
        name: "check_repo",
        title: "Check the repository",
        description: "Reports the current branch, its upstream with commits ahead and behind, and the files with uncommitted changes. Runs read-only git commands; changes nothing.",
        effect: Effect::Reads,
    };
    type Args = NoArgs;
    type Output = CheckOutcome;
    type UseCase = CheckRequest;

    fn use_case(_: &NoArgs) -> CheckRequest {
        CheckRequest {}
    }

    fn output(_: NoArgs, outcome: CheckOutcome) -> Result<CheckOutcome> {
        Ok(outcome)
    }
}
