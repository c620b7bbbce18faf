//! What an undo (or redo) asks the user to confirm before it moves a
//! protected branch (`ops::permissions` holds the rule).

use super::{Method, UndoRequest, undo};
use crate::context::Context;
use crate::error::Result;
use crate::git::Repo;
use crate::ops::permissions::{Changes, Confirmation, confirmation};
use crate::ops::settings::Settings;

/// What an undo needs confirmed: one that moves the protected branch HEAD
/// is on (the undo of a landing); `None` as for an apply, and when the
/// undo cannot happen (undo itself reports why) or moves only
/// git-evolv's refs.
pub fn undo_confirmation(
    repo: &Repo,
    (settings, ctx): (&Settings, &Context),
    req: &UndoRequest,
) -> Result<Option<Confirmation>> {
    if req.dry_run {
        return Ok(None);
    }
    let preview = UndoRequest {
        dry_run: true,
        ..req.clone()
    };
    let Ok(outcome) = undo(repo, ctx, &preview) else {
        return Ok(None);
    };
    let landings: Vec<_> = outcome
        .undone
        .iter()
        .filter(|u| u.method != Method::Refs)
        .collect();
    let ops: Vec<String> = landings.iter().map(|u| u.op.clone()).collect();
    confirmation(repo, settings, ("undo", &ops), || {
        let mut files: Vec<String> = landings.iter().flat_map(|u| u.paths.clone()).collect();
        files.sort();
        files.dedup();
        (!landings.is_empty()).then_some(Changes {
            files,
            lines_added: 0,
            lines_removed: 0,
            commands: Vec::new(),
        })
    })
}
