//! `git evolv rollback`.

use clap::Args;
use git2::Repository;

use super::Output;
use crate::error::Result;
use crate::ops::rollback::{self, RollbackOutcome};

#[derive(Debug, Args)]
pub struct RollbackArgs {
    /// The applied proposal to revert.
    pub patch_id: String,
}

pub fn run(repo: &Repository, args: &RollbackArgs, out: &Output) -> Result<()> {
    let outcome = rollback::rollback(repo, &args.patch_id)?;
    render(&outcome, out);
    Ok(())
}

/// Shared with the demo.
pub fn render(o: &RollbackOutcome, out: &Output) {
    if out.json {
        out.json_value(o);
        return;
    }
    out.line(&format!(
        "Rolled back {}: revert commit {} on {} ({} file(s): {}).",
        o.patch_id,
        &o.commit[..12],
        o.branch,
        o.modified_files.len(),
        o.modified_files.join(", ")
    ));
}
