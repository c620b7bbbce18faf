//! What an undo may need again, kept reachable (issue 26 item 4): before
//! an operation takes the last ref off a git-evolv object (a dropped
//! proposal, a comment undone), a ref `refs/evolv/kept/<unix secs>/<id>`
//! keeps it, so `git gc --prune=now` cannot take what `undo` of the drop
//! (or `redo`) needs. `git evolv gc` removes those older than
//! [`KEEP_DAYS`] days.

use crate::git::{Oid, Repo};

/// Where kept objects are named.
pub const KEPT_PREFIX: &str = "refs/evolv/kept/";

/// How long a kept object stays reachable, at least.
pub const KEEP_DAYS: i64 = 14;

/// The ref that keeps `id` reachable for [`KEEP_DAYS`] days from now, for
/// a caller that sets it itself (a landing's bookkeeping).
pub fn ref_name(id: Oid) -> String {
    format!("{KEPT_PREFIX}{}/{id}", super::proposals::now_secs())
}

/// The kept refs older than [`KEEP_DAYS`] days, with what each keeps,
/// for the caller's transaction to delete.
pub fn prunable(repo: &Repo) -> Vec<(String, Oid)> {
    let cutoff = super::proposals::now_secs() - KEEP_DAYS * 86_400;
    repo.readable_refs_matching(&format!("{KEPT_PREFIX}*"))
        .into_iter()
        .filter(|(name, _)| {
            name[KEPT_PREFIX.len()..]
                .split('/')
                .next()
                .and_then(|s| s.parse::<i64>().ok())
                .is_some_and(|t| t < cutoff)
        })
        .collect()
}
