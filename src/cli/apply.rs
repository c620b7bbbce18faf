//! `git evolv apply`.

use clap::Args;
use git2::Repository;

use super::Output;
use crate::error::Result;
use crate::ops::apply::{self, ApplyOutcome, ApplyRequest};

#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// The proposal to apply (see `git evolv list`).
    pub patch_id: String,
    /// Command run with `sh -c` in the validation worktree (repeatable;
    /// default: git config evolv.validate).
    #[arg(long = "validate", value_name = "CMD")]
    pub validate: Vec<String>,
    /// Seconds the validation may take in all (default: evolv.timeout, else 30).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
    /// Validate in a throwaway worktree instead of the warm one.
    #[arg(long)]
    pub fresh_worktree: bool,
}

pub fn run(repo: &Repository, args: &ApplyArgs, out: &Output) -> Result<()> {
    let req = ApplyRequest {
        patch_id: args.patch_id.clone(),
        validate: (!args.validate.is_empty()).then(|| args.validate.clone()),
        timeout_secs: args.timeout,
        fresh_worktree: args.fresh_worktree.then_some(true),
    };
    let outcome = apply::apply(repo, &req)?;
    render(&outcome, out);
    Ok(())
}

/// Shared with the demo.
pub fn render(o: &ApplyOutcome, out: &Output) {
    if out.json {
        out.json_value(o);
        return;
    }
    let mut text = format!(
        "Applied {} as {} on {} ({} file(s): {}).\n",
        o.patch_id,
        &o.commit[..12],
        o.branch,
        o.modified_files.len(),
        o.modified_files.join(", ")
    );
    for v in &o.validation {
        text.push_str(&format!(
            "  validated: `{}` exit {} in {} ms\n",
            v.command, v.exit_code, v.duration_ms
        ));
    }
    text.push_str(&format!(
        "Undo it with `git evolv rollback {}`.",
        o.patch_id
    ));
    out.line(&text);
}
