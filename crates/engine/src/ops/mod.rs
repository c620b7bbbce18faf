//! One function per use case: a request in (`Deserialize` + `JsonSchema`,
//! so the MCP server and the review page take them as JSON), an outcome
//! (plain data, `Serialize`) or an `Error` out, with the session's
//! [`Settings`] when it reads git config. Front ends open a [`Session`] and
//! call its method for the use case; they render the outcomes (the
//! `success` envelope is theirs) and add their own hints; no rule or
//! default lives anywhere else.

pub mod apply;
pub mod apply_answer;
pub mod capture;
pub mod cat;
pub mod check;
pub mod demo;
pub mod drop;
pub mod edit;
mod edit_base;
mod edit_filtered;
mod edit_hunks;
mod edit_tree;
pub mod glob;
pub mod hooks;
pub mod inspect;
pub mod lint;
pub mod op_log;
mod patch_sequence;
pub mod permissions;
pub mod plan;
pub mod pre_push;
pub mod propose;
pub mod propose_patch;
pub mod receive;
pub mod recover;
pub mod remote;
pub mod review;
pub mod rollback;
pub mod session;
mod session_remote;
mod session_server;
pub mod settings;
pub mod stack;
pub mod succeeded;
pub mod task;
mod task_log;
pub mod test;
pub mod undo;
pub mod validation;

pub use session::Session;
pub use settings::Settings;
