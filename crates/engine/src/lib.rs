//! git-evolv's engine: landing (journal, locks, staging, compare-and-swap,
//! recovery), the proposal store and the audit log, validation worktrees,
//! hooks, and `ops`, the one door every front end opens. It reaches git
//! only through the adapter crate, `evolv-git`, and never prints.

pub mod context;
pub mod hooks;
pub mod landing;
pub mod ops;
pub mod process_group;
pub mod progress;
pub mod sandbox;
pub mod signals;
pub mod store;
mod sys;
pub mod validate;
pub mod validators;
pub mod worktree;

// The layers below, under the names the engine's modules use.
pub use evolv_core::{Error, Result};
pub(crate) use evolv_core::{
    clock, diff, edit, error, lint, patch, plan, policy, validation_report,
};
pub(crate) use evolv_git as git;
pub(crate) use evolv_git::crashpoint;
