//! One function per use case: a request in, an outcome (or an `Error`)
//! out. The CLI and the MCP server call these and render the outcomes; no
//! rule or default lives anywhere else.

pub mod apply;
pub mod cat;
pub mod check;
pub mod demo;
pub mod drop;
pub mod edit;
pub mod glob;
pub mod hooks;
pub mod inspect;
pub mod journal;
pub mod land;
pub mod lint;
pub mod plan;
pub mod pre_push;
pub mod propose;
pub mod recover;
pub mod rollback;
pub mod stack;
pub mod stage;
pub mod task;
