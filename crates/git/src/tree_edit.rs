//! New trees made from an old one by path: put an entry at a path, or take
//! one away. (Many new blobs at once go through `updated_trees`, which
//! writes them as one pack.)

use crate::error::Result;
use crate::on_object;
use crate::{Context, Oid, Repo};

/// One change to a tree, by path (`a/b/c`, bytes: a name need not be UTF-8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeEdit {
    /// Put `id` at `path` with `mode` (`0o100644`, `0o100755`, `0o120000`).
    Put { path: Vec<u8>, id: Oid, mode: i32 },
    /// Remove what is at `path`.
    Remove { path: Vec<u8> },
}

impl Repo {
    /// `base` with `edits` made, written; its id.
    pub fn edit_tree(&self, base: Oid, edits: &[TreeEdit]) -> Result<Oid> {
        let raw = self.raw();
        let tree = raw
            .find_tree(base.raw())
            .context(|| on_object("read tree", base))?;
        let mut update = git2::build::TreeUpdateBuilder::new();
        for edit in edits {
            match edit {
                TreeEdit::Put { path, id, mode } => {
                    update.upsert(path.as_slice(), id.raw(), crate::file_mode(*mode));
                }
                TreeEdit::Remove { path } => {
                    update.remove(path.as_slice());
                }
            }
        }
        update
            .create_updated(raw, &tree)
            .map(Oid::from)
            .context(|| {
                on_object("write tree", base).said(format!(
                    "write tree {base} with {} paths changed",
                    edits.len()
                ))
            })
    }
}
