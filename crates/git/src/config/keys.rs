//! The typed keys git-evolv reads: each key's name, how its value is
//! parsed, and the `invalid_config` error naming the key, the value and
//! what is expected. Every documented key is listed in [`DOCUMENTED_KEYS`].

use std::path::PathBuf;

use super::{Config, Origin};
use crate::error::Result;

/// The keys of git-evolv's documentation (README, docs/), for tests that
/// set each through `git -c`. `evolv.commit.rule.<rule>` stands for every rule.
pub const DOCUMENTED_KEYS: &[&str] = &[
    "evolv.validate",
    "evolv.timeout",
    "evolv.plan",
    "evolv.worktree",
    "evolv.protectedBranches",
    "evolv.pushToProtected",
    "evolv.fsyncWorktree",
    "evolv.commit.types",
    "evolv.commit.scopes",
    "evolv.commit.headerMaxLength",
    "evolv.commit.bodyMaxLineLength",
    "evolv.commit.footerMaxLineLength",
    "evolv.commit.ignoreAuthors",
    "evolv.commit.rule.<rule>",
    "evolv.checkpoints.enabled",
    "evolv.checkpoints.storePrompts",
    "evolv.checkpoints.keep",
    "evolv.checkpoints.keepDays",
    "core.commentChar",
    "core.hooksPath",
    "user.name",
    "user.email",
];

/// Which validation worktree apply uses (`evolv.worktree`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorktreeMode {
    /// The warm worktree under `<git-dir>/evolv/worktrees/`, reused.
    Warm,
    /// A throwaway worktree per apply.
    Fresh,
}

impl Config {
    /// `evolv.validate`: every value, in order, each one command. An empty
    /// value is no command (and is skipped by apply).
    pub fn validate_commands(&self) -> Vec<String> {
        self.all("evolv.validate")
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// `evolv.timeout`: a positive number of seconds.
    pub fn timeout_secs(&self) -> Result<Option<u64>> {
        self.parsed("evolv.timeout", "a positive number of seconds", |v| {
            v.trim().parse::<u64>().ok().filter(|s| *s > 0)
        })
    }

    /// `evolv.plan`: the plan file (relative to the top of the work tree).
    pub fn plan_path(&self) -> Option<PathBuf> {
        self.path("evolv.plan")
    }

    /// `evolv.worktree`: `warm` (the default) or `fresh`.
    pub fn worktree_mode(&self) -> Result<Option<WorktreeMode>> {
        self.parsed("evolv.worktree", "warm or fresh", |v| {
            match v.trim().to_ascii_lowercase().as_str() {
                "warm" => Some(WorktreeMode::Warm),
                "fresh" => Some(WorktreeMode::Fresh),
                _ => None,
            }
        })
    }

    /// `evolv.protectedBranches`: every value (each a space-separated list).
    pub fn protected_branches(&self) -> Vec<String> {
        self.all("evolv.protectedBranches")
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// `core.hooksPath` with where it was set (`scope origin`, as
    /// `git config --show-scope --show-origin` prints it).
    pub fn hooks_path(&self) -> Option<(String, String)> {
        let entry = self.get("core.hooksPath")?;
        let value = entry.value.clone().unwrap_or_default();
        // Like git, name a file under the current directory relatively
        // (`local file:.git/config`).
        let origin = match &entry.origin {
            Origin::File(path) => {
                let cwd = std::env::current_dir().unwrap_or_default();
                let shown = path.strip_prefix(&cwd).unwrap_or(path);
                Origin::File(shown.to_path_buf())
            }
            other => other.clone(),
        };
        Some((value, format!("{} {origin}", entry.scope.as_str())))
    }
}
