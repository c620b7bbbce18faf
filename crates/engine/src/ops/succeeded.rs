//! `{"success": true, …the outcome…}`: how every front end answers a use
//! case that succeeded (`--json`, the MCP tools), written once.

use serde::Serialize;

/// An outcome with `success: true` beside its own fields.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Succeeded<T> {
    pub success: bool,
    #[serde(flatten)]
    pub outcome: T,
}

impl<T> Succeeded<T> {
    pub fn new(outcome: T) -> Self {
        Succeeded {
            success: true,
            outcome,
        }
    }
}
