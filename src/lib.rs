//! git-evolv: a git-native patch engine. Edits are proposed as real commits
//! under `refs/evolv/proposals/`, validated in an isolated worktree, landed
//! by fast-forward and undone by revert.
//!
//! This crate is the front ends (the command line, the MCP server, the
//! review page) over the layers below it, each a crate of its own:
//! `evolv-core` (pure), `evolv-git` (the git adapter) and `evolv-engine`
//! (landing, store, ops). They are re-exported under the names the front
//! ends, tests and benchmarks use. The library never prints: front ends
//! render the outcome types.

// Process groups, flock, fsync semantics, hooks as executable files: the
// supported platforms are Linux and macOS (README, "Install"). Elsewhere
// the build stops here rather than failing somewhere deep in the engine.
#[cfg(not(unix))]
compile_error!(
    "git-evolv supports Linux and macOS only (process groups, flock, executable hooks); use WSL on Windows"
);

pub mod cli;
pub mod mcp;
pub mod prompt;
mod sys;
pub mod web;

pub use evolv_core::{Error, Result};
pub use evolv_core::{clock, diff, edit, error, lint, patch, plan, policy, validation_report};
pub use evolv_engine::{
    context, hooks, landing, ops, progress, signals, store, validate, validators, worktree,
};
pub use evolv_git as git;
pub use evolv_git::sys::crash;
