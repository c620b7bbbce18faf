//! `git evolv rollback`.

use clap::Args;

use super::Output;
use crate::error::{Error, Result};
use crate::ops::Session;
use crate::ops::applying::rollback::{RollbackOutcome, RollbackRequest};
use crate::plan::RollbackStrategy;

#[derive(Debug, Args)]
pub struct RollbackArgs {
    /// The applied proposal to undo.
    pub patch_id: String,
    /// git_revert, file_backup or manual (default: the strategy of the plan
    /// it was applied under, else git_revert).
    #[arg(long, value_name = "STRATEGY")]
    pub strategy: Option<String>,
    /// With file_backup: restore the files even though later commits
    /// changed them too (their changes to those files are undone; the
    /// outcome lists them).
    #[arg(long)]
    pub force: bool,
}

pub fn run(session: &Session, args: &RollbackArgs, out: &Output) -> Result<()> {
    let strategy = match &args.strategy {
        None => None,
        Some(name) => Some(RollbackStrategy::from_name(name).ok_or_else(|| {
            Error::invalid(
                format!("--strategy '{name}' is not a rollback strategy"),
                format!("use one of {}", RollbackStrategy::NAMES.join(", ")),
            )
        })?),
    };
    let req = RollbackRequest {
        patch_id: args.patch_id.clone(),
        strategy,
        force: args.force,
    };
    let outcome = session.run(&req)?;
    render(&outcome, out);
    Ok(())
}

/// Shared with the demo.
pub fn render(o: &RollbackOutcome, out: &Output) {
    if out.json {
        out.success_json(o);
        return;
    }
    for undone in &o.undone_commits {
        out.status(&format!("undone too (--force): {undone}"));
    }
    for d in &o.warnings {
        out.deferred(d);
    }
    match &o.commit {
        Some(commit) => out.line(&format!(
            "Rolled back {} ({}): commit {} on {} ({} file(s): {}).",
            o.patch_id,
            o.strategy,
            &commit[..12],
            o.branch,
            o.modified_files.len(),
            evolv_core::comma_list::capped_comma_list(
                &crate::git::types::path::shown(
                    &o.modified_files,
                    o.modified_files_bytes.as_deref()
                ),
                super::apply::SHOWN_FILES
            )
        )),
        None => {
            let mut text = format!(
                "{} was applied under a plan whose rollback is manual; nothing was changed. Run:\n",
                o.patch_id
            );
            for c in &o.commands {
                text.push_str(&format!("  {c}\n"));
            }
            out.data(text.as_bytes());
        }
    }
}
