//! What an apply asks the user to confirm before it lands on a protected
//! branch (`ops::permissions` holds the rule; this is what an apply
//! changes).

use super::ApplyRequest;
use crate::error::Result;
use crate::git::Repo;
use crate::ops::permissions::{Changes, Confirmation, confirmation};
use crate::ops::settings::Settings;
use crate::store::proposals;

/// What an apply needs confirmed; `None` when no question is due (not a
/// protected branch, a dry run, or `evolv.mcp.confirm never`).
pub fn apply_confirmation(
    repo: &Repo,
    settings: &Settings,
    req: &ApplyRequest,
) -> Result<Option<Confirmation>> {
    confirmation(repo, settings, ("apply", &req.patch_ids), || {
        apply_changes(repo, settings, req)
    })
}

/// What an apply of `req` changes. Unknown ids and bad plans are reported
/// by apply itself, as the CLI reports them: no question before an apply
/// that cannot happen, nor before a dry run.
fn apply_changes(repo: &Repo, settings: &Settings, req: &ApplyRequest) -> Option<Changes> {
    let mut files = Vec::new();
    let (mut added, mut removed) = (0, 0);
    for id in &req.patch_ids {
        let p = proposals::load(repo, id).ok()?;
        files.extend(p.meta.affected_files.iter().cloned());
        added += p.meta.lines_added;
        removed += p.meta.lines_removed;
    }
    let preview = super::preview(repo, settings, req).ok()?;
    if preview.dry_run {
        return None;
    }
    files.sort();
    files.dedup();
    Some(Changes {
        files,
        lines_added: added,
        lines_removed: removed,
        commands: preview.commands,
    })
}
