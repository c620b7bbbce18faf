//! `list_proposals`: every proposal with its status; `git evolv list`.

use crate::error::Result;
use crate::mcp::call::Call;
use crate::mcp::tool::{Effect, McpTool, NoArgs, Reply};
use crate::ops::inspect::{ListOutcome, ListRequest};

pub struct ListProposals;

impl McpTool for ListProposals {
    const NAME: &'static str = "list_proposals";
    const TITLE: &'static str = "List proposals";
    const DESCRIPTION: &'static str = "Lists every proposal with its id, summary, files and lines changed, and status (pending, applied, base-moved). Reads refs under refs/evolv/ only; changes nothing.";
    const EFFECT: Effect = Effect::ReadOnly { idempotent: true };
    type Args = NoArgs;
    type Output = ListOutcome;

    async fn run(call: &Call, _: NoArgs) -> Result<Reply<ListOutcome>> {
        call.blocking::<ListRequest, _>(false, |s| s.list(&ListRequest {}))
            .await
            .map(Reply::Output)
    }
}
