//! `git evolv drop` and `git evolv gc`.

use clap::Args;
use git2::Repository;

use super::Output;
use crate::error::Result;
use crate::ops::drop;

#[derive(Debug, Args)]
pub struct DropArgs {
    /// Proposals to remove.
    pub patch_ids: Vec<String>,
    /// Remove every proposal.
    #[arg(long, conflicts_with = "patch_ids")]
    pub all: bool,
    /// Also drop the proposals stacked on the ones named.
    #[arg(long)]
    pub all_above: bool,
}

#[derive(Debug, Args)]
pub struct GcArgs {
    /// Drop proposals older than DAYS days.
    #[arg(long, value_name = "DAYS")]
    pub older_than: Option<u64>,
    /// Remove the idle warm validation worktrees.
    #[arg(long)]
    pub worktrees: bool,
}

pub fn run(repo: &Repository, args: &DropArgs, out: &Output) -> Result<()> {
    let ids = if args.all {
        drop::all_ids(repo)?
    } else {
        args.patch_ids.clone()
    };
    let outcome = if args.all && ids.is_empty() {
        drop::DropOutcome {
            success: true,
            dropped: Vec::new(),
        }
    } else {
        drop::drop_stacked(repo, &ids, args.all_above)?
    };
    if out.json {
        out.json_value(&outcome);
    } else if outcome.dropped.is_empty() {
        out.status("No proposals to drop.");
    } else {
        out.line(&format!("Dropped {}.", outcome.dropped.join(", ")));
    }
    Ok(())
}

pub fn gc(repo: &Repository, args: &GcArgs, out: &Output) -> Result<()> {
    if args.older_than.is_none() && !args.worktrees {
        return Err(crate::Error::invalid(
            "gc needs something to do",
            "pass --older-than DAYS to drop old proposals and/or --worktrees to remove validation worktrees",
        ));
    }
    let outcome = drop::gc(repo, args.older_than, args.worktrees)?;
    if out.json {
        out.json_value(&outcome);
    } else {
        out.line(&format!(
            "Dropped {} proposal(s), removed {} worktree(s).",
            outcome.dropped.len(),
            outcome.removed_worktrees.len()
        ));
    }
    Ok(())
}
