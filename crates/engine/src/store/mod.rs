//! Proposals, applied markers and the audit log, all stored as git refs
//! under `refs/evolv/`. Uses `git`; knows nothing of the CLI.

pub mod audit;
pub mod clone_mark;
pub mod comments;
pub mod file_records;
pub mod kept;
pub mod list_cache;
pub mod new_proposal;
pub mod outcomes;
pub mod pending;
pub mod proposals;
pub mod refs;
pub mod rows;
pub mod trailers;
pub mod transaction;
pub mod verdict_key;
pub mod verdicts;

/// Where proposal commits live: `refs/evolv/proposals/<id>`.
pub const PROPOSALS_PREFIX: &str = "refs/evolv/proposals/";
/// Where landed commits are recorded: `refs/evolv/applied/<id>`.
pub const APPLIED_PREFIX: &str = "refs/evolv/applied/";
/// The pre-apply commit of a proposal applied under a `file_backup` plan.
pub const BACKUP_PREFIX: &str = "refs/evolv/backup/";
/// Where `git evolv fetch` keeps a remote's `refs/evolv/*`:
/// `refs/evolv/remotes/<remote>/…` (`ops::server::remote::fetch` has the
/// refspec).
pub const REMOTES_PREFIX: &str = "refs/evolv/remotes/";
/// The append-only audit chain.
pub const AUDIT_REF: &str = "refs/evolv/audit";

/// For the store's unit tests: a new repository with an identity in its
/// own config (the store writes commits through libgit2, which reads it
/// there), opened.
#[cfg(test)]
pub(crate) fn test_repo() -> (tempfile::TempDir, crate::git::Repo) {
    use crate::git::test_git::{git, new_repo};
    let dir = new_repo();
    git(dir.path(), &["config", "user.name", "R"]);
    git(dir.path(), &["config", "user.email", "r@x"]);
    let repo = crate::git::open_any(dir.path()).unwrap();
    (dir, repo)
}
