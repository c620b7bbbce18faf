//! The tree an edit list's results make: the base tree with each changed
//! path written (or removed), nothing else touched.

use crate::edit::engine::FileChange;
use crate::error::Result;
use crate::git::objects::view::Tree;
use crate::git::{Repo, TreeEdit};

/// The base entry of every path the list names (and rename targets):
/// each looked up by path, its ancestors checked for symlinks and files.
/// Upserts and removes only the changed paths: libgit2 rewrites their
/// ancestors and nothing else.
pub(crate) fn build_tree<'r>(
    repo: &'r Repo,
    base: &Tree<'_>,
    files: &[FileChange],
) -> Result<Tree<'r>> {
    let mut edits = Vec::new();
    for f in files {
        if let Some(from) = &f.from {
            edits.push(TreeEdit::Remove {
                path: from.as_bytes().to_vec(),
            });
        }
        let path = f.path.as_bytes().to_vec();
        edits.push(match &f.new {
            Some(content) => TreeEdit::Put {
                path,
                id: repo.write_blob(content)?,
                mode: f.mode,
            },
            None => TreeEdit::Remove { path },
        });
    }
    repo.find_tree(repo.edit_tree(base.id(), &edits)?)
}
