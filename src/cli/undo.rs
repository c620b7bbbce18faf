//! `git evolv undo` and `git evolv redo` (issue 26).

use clap::Args;

use super::Output;
use crate::error::Result;
use crate::ops::Session;
use crate::ops::undo::{Method, UndoOutcome, UndoRequest};

#[derive(Debug, Args)]
pub struct UndoArgs {
    /// The operation to undo (id or unique prefix; default: your newest).
    #[arg(conflicts_with = "to")]
    pub op: Option<String>,
    /// Undo every operation after OP, newest first.
    #[arg(long, value_name = "OP")]
    pub to: Option<String>,
    /// Print every ref and path that would change; change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct RedoArgs {
    /// Print every ref and path that would change; change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn undo(session: &Session, args: &UndoArgs, out: &Output) -> Result<()> {
    let req = UndoRequest {
        op: args.op.clone(),
        to: args.to.clone(),
        redo: false,
        dry_run: args.dry_run,
    };
    render(&out.with_progress(|| session.undo(&req))?, out);
    Ok(())
}

pub fn redo(session: &Session, args: &RedoArgs, out: &Output) -> Result<()> {
    let req = UndoRequest {
        redo: true,
        dry_run: args.dry_run,
        ..UndoRequest::default()
    };
    render(&out.with_progress(|| session.undo(&req))?, out);
    Ok(())
}

fn short(id: &str) -> &str {
    &id[..12.min(id.len())]
}

fn render(o: &UndoOutcome, out: &Output) {
    if out.json {
        out.success_json(o);
        return;
    }
    if o.undone.is_empty() {
        out.status("Nothing to undo.");
        return;
    }
    let mut text = Vec::new();
    for u in &o.undone {
        for d in &u.warnings {
            out.deferred(d);
        }
        let verb = match (o.dry_run, u.kind.as_str()) {
            (true, "redo") => "Would redo",
            (true, _) => "Would undo",
            (false, "redo") => "Redid",
            (false, _) => "Undid",
        };
        let how = match u.method {
            Method::Refs => String::new(),
            Method::MoveBack => " by moving the branch back".into(),
            Method::Revert => " with a revert commit".into(),
        };
        let id = if u.id.is_empty() {
            String::new()
        } else {
            format!(" (operation {})", short(&u.id))
        };
        text.push(format!(
            "{verb} {} {} {}{how}{id}.",
            u.op_kind,
            short(&u.op),
            u.patch_id
        ));
        if let Some(reason) = &u.reason {
            text.push(format!("  not moved back: {reason}"));
        }
        for r in &u.refs {
            text.push(format!(
                "  {}: {} -> {}",
                r.name,
                r.old.as_deref().map_or("(none)", short),
                r.new.as_deref().map_or("(none)", short)
            ));
        }
        for p in &u.paths {
            text.push(format!("  {p}"));
        }
    }
    out.line(&text.join("\n"));
}
