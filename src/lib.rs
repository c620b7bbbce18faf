//! git-evolv: a git-native patch engine. Edits are proposed as real commits
//! under `refs/evolv/proposals/`, validated in an isolated worktree, landed
//! by fast-forward and undone by revert.
//!
//! The library never prints: front ends render the outcome types.

pub mod cli;
pub mod clock;
pub mod crash;
pub mod diff;
pub mod edit;
pub mod error;
pub mod git;
pub mod hooks;
pub mod landing;
pub mod lint;
pub mod mcp;
pub mod ops;
pub mod plan;
pub mod policy;
pub mod progress;
pub mod prompt;
pub mod signals;
pub mod store;
pub mod validate;
pub mod validation_report;
pub mod validators;
pub mod web;
pub mod worktree;

pub use error::{Error, Result};
