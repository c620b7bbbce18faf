//! One replay for a local apply (`ops::applying::apply`, a proposal onto the
//! branch head) and a server's landing (`bare`, a pushed commit onto the
//! branch): a change, from its base commit to a commit's tree, put on another
//! commit. When that commit is the base, the change's own tree is the result;
//! otherwise a three-way merge (base → onto, base → change), whose conflicts
//! name their paths and nothing is written.

use crate::error::{Error, Result};
use crate::git::objects::view::Signature;
use crate::git::{self, Merged, Oid, Repo};

/// A change to replay: `commit`'s tree against `base`, known as `id` (a
/// proposal's id) in a conflict.
#[derive(Debug, Clone, Copy)]
pub struct Change<'a> {
    pub id: &'a str,
    pub commit: Oid,
    pub base: Oid,
}

/// The tree `change` gives on top of commit `onto` (whose tree is
/// `onto_tree`). A conflict is `Error::Conflict`, naming `against` (what
/// `onto` is, in the user's words).
pub fn tree_onto(
    repo: &Repo,
    change: Change<'_>,
    (onto, onto_tree): (Oid, Oid),
    against: impl FnOnce() -> String,
) -> Result<Oid> {
    let theirs = repo.find_commit(change.commit)?.tree_id();
    if onto == change.base {
        return Ok(theirs);
    }
    let base_tree = repo.find_commit(change.base)?.tree_id();
    match repo.merge_trees(base_tree, onto_tree, theirs)? {
        Merged::Clean(tree) => Ok(tree),
        Merged::Conflicts(paths) => Err(Error::Conflict {
            patch_id: change.id.to_string(),
            paths,
            against: against(),
            operation: "apply",
        }),
    }
}

/// The commit of `tree` on `parent` carrying `change`'s author and
/// `message`, stamped by `committer`.
pub fn commit_onto(
    repo: &Repo,
    change: Change<'_>,
    (tree, parent): (Oid, Oid),
    committer: &Signature,
    message: &str,
) -> Result<Oid> {
    let author = repo.find_commit(change.commit)?.author();
    git::objects::commit::create(repo, &author, committer, message, tree, &[parent])
}
