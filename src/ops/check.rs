//! `check`: the state of the repository before a push — uncommitted files,
//! the current branch's upstream, commits ahead and behind. The pre-push
//! hook reports the same facts, computed here.

use git2::{ErrorCode, Repository};
use serde::Serialize;

use crate::error::Result;
use crate::git;

/// The upstream of the current branch and how far apart they are.
#[derive(Debug, Clone, Serialize)]
pub struct Upstream {
    /// `origin/main`.
    pub name: String,
    pub ahead: usize,
    pub behind: usize,
}

/// What `git evolv check` reports.
#[derive(Debug, Clone, Serialize)]
pub struct CheckOutcome {
    pub success: bool,
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

/// Computes the facts. Works on an unborn HEAD (no upstream yet).
pub fn check(repo: &Repository) -> Result<CheckOutcome> {
    let uncommitted = if repo.is_bare() {
        Vec::new()
    } else {
        git::uncommitted_files(repo)?
    };
    let (branch, upstream) = match repo.head() {
        Ok(head) if head.is_branch() => {
            let full = head.name().unwrap_or_default().to_string();
            let local = head.peel_to_commit()?.id();
            let upstream = match git::upstream(repo, &full)? {
                Some((name, target)) => {
                    let (ahead, behind) = git::ahead_behind(repo, local, target)?;
                    Some(Upstream {
                        name,
                        ahead,
                        behind,
                    })
                }
                None => None,
            };
            (
                Some(full.trim_start_matches("refs/heads/").to_string()),
                upstream,
            )
        }
        Ok(_) => (None, None),
        Err(e) if e.code() == ErrorCode::UnbornBranch || e.code() == ErrorCode::NotFound => {
            let name = repo.find_reference("HEAD").ok().and_then(|r| {
                r.symbolic_target()
                    .map(|t| t.trim_start_matches("refs/heads/").to_string())
            });
            (name, None)
        }
        Err(e) => return Err(e.into()),
    };
    Ok(CheckOutcome {
        success: true,
        branch,
        upstream,
        uncommitted,
    })
}
