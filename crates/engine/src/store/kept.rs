//! What an undo may need again, kept reachable (issue 26 item 4): before
//! an operation takes the last ref off a git-evolv object (a dropped
//! proposal, a comment undone), a ref `refs/evolv/kept/<unix secs>/<id>`
//! keeps it, so `git gc --prune=now` cannot take what `undo` of the drop
//! (or `redo`) needs. `git evolv gc` removes those older than
//! [`KEEP_DAYS`] days.

use crate::error::Result;
use crate::git::{self, Oid, Repo};

/// Where kept objects are named.
pub const KEPT_PREFIX: &str = "refs/evolv/kept/";

/// How long a kept object stays reachable, at least.
pub const KEEP_DAYS: i64 = 14;

/// Keeps `id` reachable for [`KEEP_DAYS`] days from now.
pub fn keep(repo: &Repo, id: Oid) -> Result<()> {
    git::compare_and_swap_force(repo, &ref_name(id), id, "evolv: keep for undo")
}

/// The ref that keeps `id` reachable for [`KEEP_DAYS`] days from now, for
/// a caller that sets it itself (a landing's bookkeeping).
pub fn ref_name(id: Oid) -> String {
    format!("{KEPT_PREFIX}{}/{id}", super::proposals::now_secs())
}

/// Removes the kept refs older than [`KEEP_DAYS`] days; returns how many.
pub fn prune(repo: &Repo) -> Result<usize> {
    let cutoff = super::proposals::now_secs() - KEEP_DAYS * 86_400;
    let mut removed = 0;
    for (name, _) in repo.readable_refs_matching(&format!("{KEPT_PREFIX}*")) {
        let stamp = name[KEPT_PREFIX.len()..]
            .split('/')
            .next()
            .and_then(|s| s.parse::<i64>().ok());
        if stamp.is_some_and(|t| t < cutoff) && git::delete_ref(repo, &name)? {
            removed += 1;
        }
    }
    Ok(removed)
}
