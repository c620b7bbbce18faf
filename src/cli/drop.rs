//! `git evolv drop` and `git evolv gc`.

use clap::Args;

use super::Output;
use crate::error::Result;
use crate::ops::Session;
use crate::ops::drop::{DropRequest, GcRequest};

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

pub fn run(session: &Session, args: &DropArgs, out: &Output) -> Result<()> {
    let outcome = session.run(&DropRequest {
        patch_ids: args.patch_ids.clone(),
        all: args.all,
        all_above: args.all_above,
    })?;
    if out.json {
        out.success_json(&outcome);
    } else if outcome.dropped.is_empty() {
        out.status("No proposals to drop.");
    } else {
        out.line(&format!("Dropped {}.", outcome.dropped.join(", ")));
    }
    Ok(())
}

pub fn gc(session: &Session, args: &GcArgs, out: &Output) -> Result<()> {
    let outcome = session.run(&GcRequest {
        older_than_days: args.older_than,
        worktrees: args.worktrees,
    })?;
    if out.json {
        out.success_json(&outcome);
    } else {
        out.line(&format!(
            "Dropped {} proposal(s), removed {} worktree(s), pruned {} verdict(s).",
            outcome.dropped.len(),
            outcome.removed_worktrees.len(),
            outcome.pruned_verdicts.len()
        ));
    }
    Ok(())
}
