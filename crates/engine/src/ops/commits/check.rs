//! `check`: the state of the repository before a push — uncommitted files,
//! the current branch's upstream, commits ahead and behind. The pre-push
//! hook reports the same facts, computed here.

use serde::Serialize;

use crate::error::Result;
use crate::git::process::cli::Git;
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};

/// The upstream of the current branch and how far apart they are.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Upstream {
    /// `origin/main`.
    pub name: String,
    pub ahead: usize,
    pub behind: usize,
}

/// `check` takes no parameters.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {}

/// What `git evolv check` reports.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CheckOutcome {
    /// The current branch's short name; `None` when HEAD is detached or unborn.
    pub branch: Option<String>,
    pub upstream: Option<Upstream>,
    /// Files with uncommitted changes, untracked ones included.
    pub uncommitted: Vec<String>,
}

impl CheckOutcome {
    /// Advice for people: what to do before pushing.
    pub fn advice(&self) -> Vec<String> {
        let mut advice = Vec::new();
        if !self.uncommitted.is_empty() {
            advice.push(format!(
                "{} file(s) with uncommitted changes are not part of a push: commit or stash them",
                self.uncommitted.len()
            ));
        }
        if let Some(up) = &self.upstream
            && up.behind > 0
        {
            advice.push(format!(
                "{} commit(s) behind {}: pull first (`git pull --rebase`)",
                up.behind, up.name
            ));
        }
        advice
    }
}

/// Computes the facts with git itself (so SHA-256 repositories work too).
/// Works on an unborn HEAD (no upstream yet) and in a bare repository.
fn check(git: &Git) -> Result<CheckOutcome> {
    let uncommitted = uncommitted(git)?;
    let branch = git
        .current_branch()?
        .map(|b| b.trim_start_matches("refs/heads/").to_string());
    let upstream = match &branch {
        Some(b) => upstream_of(git, b)?,
        None => None,
    };
    Ok(CheckOutcome {
        branch,
        upstream,
        uncommitted,
    })
}

/// Files with uncommitted changes; none in a bare repository. The
/// pre-push hook lists the same.
pub fn uncommitted(git: &Git) -> Result<Vec<String>> {
    if git.is_bare() {
        return Ok(Vec::new());
    }
    git.uncommitted_files()
}

fn upstream_of(git: &Git, branch: &str) -> Result<Option<Upstream>> {
    let (Some(local), Some(name)) = (git.resolve(branch)?, git.upstream(branch)?) else {
        return Ok(None);
    };
    let Some(target) = git.resolve(&name)? else {
        return Ok(None);
    };
    let (ahead, behind) = git.ahead_behind(&local, &target)?;
    Ok(Some(Upstream {
        name,
        ahead,
        behind,
    }))
}

/// `check` for front ends: opens the repository with git itself.
pub fn run(dir: &std::path::Path, _req: &CheckRequest) -> Result<CheckOutcome> {
    check(&Git::open(dir)?)
}

impl UseCase for CheckRequest {
    const OPEN: Open = Open::NoRepository;
    type Outcome = CheckOutcome;

    fn run(&self, session: &Session) -> Result<CheckOutcome> {
        run(session.dir(), self)
    }
}
