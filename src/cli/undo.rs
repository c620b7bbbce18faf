//! `git evolv undo` and `git evolv redo` (issue 26).

use clap::Args;

use super::Output;
use crate::error::Result;
use crate::ops::Session;
use crate::ops::operations::undo::{Method, UndoOutcome, UndoRequest};

/// The manual's account of undo (issue 26 item 8), below the options of
/// `undo` and `redo`: what each undo does, what it refuses, and how it
/// differs from rollback and `git reset`. docs/undo.md says it at length.
const MANUAL: &str = "\
What each undo does:
  propose, edit   The proposal ref goes.
  drop, gc        Every ref it removed comes back, for all its proposals.
  comment         The comment goes (a redo brings it back).
  apply           If the branch is still at the landed commit and no
                  refs/remotes/* ref reaches it, the branch moves back and
                  the landed paths get their earlier content in the work
                  tree and index; the proposal is pending again. Otherwise
                  a revert commit, and the outcome says why.
  rollback        The same rules: the landing comes back.
  undo            A redo: the branch moves forward again, or a commit
                  reapplies the change when commits were made on top.

Refused, with nothing changed:
  dirty_worktree  A path it would write holds uncommitted changes.
  undo_conflict   A ref moved since the operation.
  not_undoable    It failed, was a dry run, was logged by an earlier
                  version, was undone already, its branch is not checked
                  out, it is not marked by this clone (fetched from
                  another clone, written by hand, or logged before records
                  were marked), or the branch's reflog does not show it
                  held the commit it would move back to.
  conflict        The revert does not apply on the current head.
  nothing_to_undo No operation of yours is left to undo (or to redo).

Unlike `git evolv rollback`, which always adds a revert commit, undo moves
the branch back when nothing was built on the landing and nothing was
pushed. Unlike `git reset --keep HEAD~1`, it never drops commits on top or
rewrites what may be published, restores only the landed paths, marks the
proposal pending again, and is logged, so `redo` reverses it. A killed undo
is finished or rolled back by the next git-evolv command. See docs/undo.md.";

#[derive(Debug, Args)]
#[command(after_long_help = MANUAL)]
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
#[command(after_long_help = MANUAL)]
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
    render(&session.run(&req)?, out);
    Ok(())
}

pub fn redo(session: &Session, args: &RedoArgs, out: &Output) -> Result<()> {
    let req = UndoRequest {
        redo: true,
        dry_run: args.dry_run,
        ..UndoRequest::default()
    };
    render(&session.run(&req)?, out);
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
    let mut text = Vec::new();
    for s in &o.skipped {
        text.push(format!(
            "Skipped {} {}: {}",
            s.op_kind,
            short(&s.op),
            s.reason
        ));
    }
    if o.undone.is_empty() {
        if !text.is_empty() {
            out.line(&text.join("\n"));
        }
        out.status("Nothing to undo.");
        return;
    }
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
            Method::Refs => "",
            Method::MoveBack => " by moving the branch back",
            Method::MoveForward => " by moving the branch forward",
            Method::Revert => " with a revert commit",
            Method::Reapply => " with a commit that reapplies it",
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
            text.push(format!("  made as a new commit: {reason}"));
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
