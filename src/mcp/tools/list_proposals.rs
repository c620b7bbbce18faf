//! `list_proposals`: every proposal with its status; `git evolv list`.

use crate::error::Result;
use crate::mcp::args::NoArgs;
use crate::mcp::tool::{Effect, Meta, SessionTool};
use crate::ops::reading::inspect::{ListOutcome, ListRequest};

pub struct ListProposals;

impl SessionTool for ListProposals {
    const META: Meta = Meta {
        name: "list_proposals",
        title: "List proposals",
        description: "Lists every proposal with its id, summary, files and lines changed, and status (pending, applied, base-moved). Reads refs under refs/evolv/ only; changes nothing.",
        effect: Effect::Reads,
    };
    type Args = NoArgs;
    type Output = ListOutcome;
    type UseCase = ListRequest;

    fn use_case(_: &NoArgs) -> ListRequest {
        ListRequest {}
    }

    fn output(_: NoArgs, outcome: ListOutcome) -> Result<ListOutcome> {
        Ok(outcome)
    }
}
