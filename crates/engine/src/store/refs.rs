//! The one door to the adapter's ref writes (issue 39 item 1). Every ref
//! git-evolv moves — a branch a landing moves, a proposal, a verdict, the
//! server's queue — is written through this module, and only the store
//! calls it: an operation's refs go through a `store::Transaction`, which
//! lists them in its one op-log record; the landing protocol's branch
//! move and the bookkeeping that is no operation's effect (the audit
//! chain itself, the server's queue entries, kept objects' expiry) call
//! the functions here by name. `tests/cli/one_door.rs` keeps the adapter's
//! compare-and-swap out of every other file.

use crate::error::Result;
use crate::git::{self, Oid, Repo};

/// Moves `name` from `expected` (`None`: must not exist) to `new`;
/// `ConcurrentUpdate` when someone else moved it first.
pub fn swap(repo: &Repo, name: &str, new: Oid, expected: Option<Oid>, reflog: &str) -> Result<()> {
    git::compare_and_swap(repo, name, new, expected, reflog)
}

/// Points git-evolv's own bookkeeping ref `name` at `new`, whatever it
/// held (never a branch).
pub fn set(repo: &Repo, name: &str, new: Oid, reflog: &str) -> Result<()> {
    git::compare_and_swap_force(repo, name, new, reflog)
}

/// Deletes `name` if it exists; whether it did.
pub fn delete(repo: &Repo, name: &str) -> Result<bool> {
    git::delete_ref(repo, name)
}

/// Deletes `name` only while it points at `expected`.
pub fn delete_if(repo: &Repo, name: &str, expected: Oid) -> Result<()> {
    git::delete_ref_if(repo, name, expected)
}

/// Moves `name` from `old` to `new`, either side `None` (absent), by
/// compare-and-swap: the one step a transaction and its recovery take.
pub fn swap_any(
    repo: &Repo,
    name: &str,
    old: Option<Oid>,
    new: Option<Oid>,
    reflog: &str,
) -> Result<()> {
    match (new, old) {
        (Some(new), old) => swap(repo, name, new, old, reflog),
        (None, Some(old)) => delete_if(repo, name, old),
        (None, None) => Ok(()),
    }
}
