//! `git evolv op log` and `git evolv op show`: the op log (issue 26).

use clap::{Args, Subcommand};

use super::Output;
use crate::error::Result;
use crate::ops::Session;
use crate::ops::operations::op_log::{OpLogOutcome, OpLogRequest, OpShowRequest, Operation};

#[derive(Debug, Args)]
pub struct OpArgs {
    #[command(subcommand)]
    pub command: OpCommand,
}

#[derive(Debug, Subcommand)]
pub enum OpCommand {
    /// List operations, newest first: kind, time, actor, refs moved, paths written.
    Log {
        /// Show at most N operations.
        #[arg(long, short = 'n', value_name = "N")]
        limit: Option<usize>,
    },
    /// Show one operation (its id or a unique prefix of at least 4 digits).
    Show {
        /// The operation.
        op: String,
    },
}

pub fn run(session: &Session, args: &OpArgs, out: &Output) -> Result<()> {
    match &args.command {
        OpCommand::Log { limit } => {
            let outcome = session.run(&OpLogRequest { limit: *limit })?;
            render_log(&outcome, out);
        }
        OpCommand::Show { op } => {
            let operation = session.run(&OpShowRequest { op: op.clone() })?;
            if out.json {
                out.json_value(&operation);
            } else {
                out.line(&describe(&operation, true));
            }
        }
    }
    Ok(())
}

fn render_log(outcome: &OpLogOutcome, out: &Output) {
    if out.json {
        out.json_value(outcome);
        return;
    }
    if outcome.operations.is_empty() && outcome.foreign.is_empty() {
        out.status("The op log is empty.");
        return;
    }
    let mut text: Vec<String> = outcome
        .operations
        .iter()
        .map(|o| describe(o, false))
        .collect();
    if let Some(first) = outcome.foreign.first() {
        text.push(format!(
            "\nNot this clone's ({}):",
            first.foreign.as_deref().unwrap_or_default()
        ));
        text.extend(outcome.foreign.iter().map(|o| describe(o, false)));
    }
    out.line(&text.join("\n"));
    out.status(match outcome.ends_at {
        "limit" => "(older operations exist: raise -n to see them)",
        _ => "(the log starts here: nothing older was compacted away)",
    });
}

fn short(id: &str) -> &str {
    &id[..12.min(id.len())]
}

/// One operation: a heading line, then (with `full`, or for undos) its refs
/// and paths.
fn describe(o: &Operation, full: bool) -> String {
    let mut kind = o.kind.clone();
    if o.dry_run {
        kind.push_str(" (dry run)");
    }
    if !o.success {
        kind.push_str(" FAILED");
    }
    if let Some(u) = &o.undoes {
        kind.push_str(&format!(" of {}", short(u)));
    }
    let mut text = format!(
        "{}  {}  {:<16} {:<14} {}",
        short(&o.id),
        o.time,
        kind,
        o.actor.as_deref().unwrap_or("-"),
        o.patch_id
    );
    if o.patch_ids.len() > 1 {
        text.push_str(&format!(" and {} more", o.patch_ids.len() - 1));
    }
    if let Some(reason) = &o.reason {
        text.push_str(&format!("\n    made as a new commit: {reason}"));
    }
    if !full {
        return text;
    }
    if let Some(why) = &o.foreign {
        text.push_str(&format!("\n    ({why})"));
    }
    if o.derived {
        text.push_str("\n    (logged by an earlier version: refs derived, cannot be undone)");
    }
    for r in &o.refs {
        text.push_str(&format!(
            "\n    {}: {} -> {}",
            r.name,
            r.old.as_deref().map_or("(none)", short),
            r.new.as_deref().map_or("(none)", short)
        ));
    }
    for p in &o.paths {
        text.push_str(&format!("\n    wrote {p}"));
    }
    text
}
