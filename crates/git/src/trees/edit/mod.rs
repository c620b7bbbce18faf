//! New trees made from an old one by path: put an entry at a path, or take
//! one away. gix-object's tree editor builds them, reading the old trees
//! through libgit2's object database (`odb_find`) and handing each new
//! tree to the project's own object writer (`objects::write_objects`):
//! loose when few, one pack when many, as a proposal's trees are. (Many new
//! blobs at once go through `updated_trees`, which writes them with their
//! trees as one pack.) The editor refuses nothing; what libgit2's tree
//! updater refused is still refused, in its words (`checks`), except what
//! a patch does: removals are made before puts (issue 38 item 19).

mod checks;

use gix_object::FindExt;
use gix_object::bstr::BStr;
use gix_object::tree::{Editor, EntryKind};

use crate::error::{Error, Result};
use crate::objects::odb_find::{OdbFind, gix_id};
use crate::objects::write::{NewObject, write_objects};
use crate::{Context, Oid, Repo, on_object};

/// One change to a tree, by path (`a/b/c`, bytes: a name need not be UTF-8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeEdit {
    /// Put `id` at `path` with `mode` (`0o100644`, `0o100755`, `0o120000`).
    Put { path: Vec<u8>, id: Oid, mode: i32 },
    /// Remove what is at `path`.
    Remove { path: Vec<u8> },
}

impl TreeEdit {
    pub(crate) fn path(&self) -> &[u8] {
        match self {
            TreeEdit::Put { path, .. } | TreeEdit::Remove { path } => path,
        }
    }
}

impl Repo {
    /// `base` with `edits` made, written; its id.
    pub fn edit_tree(&self, base: Oid, edits: &[TreeEdit]) -> Result<Oid> {
        let doing = || {
            on_object("write tree", base).said(format!(
                "write tree {base} with {} paths changed",
                edits.len()
            ))
        };
        let raw = self.raw();
        let base_tree = raw
            .find_tree(base.raw())
            .context(|| on_object("read tree", base))?;
        let promised = self.promisor_remote().is_some();
        if let Some(refused) = checks::refusal(raw, &base_tree, edits, promised) {
            return Err(crate::library_error(doing(), refused));
        }
        let find = OdbFind::new(raw)?;
        let mut editor = edited(&find, base, edits).map_err(|e| find.failure(&e, doing))?;
        let mut new = Vec::new();
        let root = editor.write(|tree| {
            let object = NewObject::tree(tree)?;
            let id = gix_id(object.packed.oid);
            new.push(object);
            Ok::<_, Error>(id)
        })?;
        write_objects(self, &new.iter().collect::<Vec<_>>())?;
        Oid::from_bytes(root.as_bytes())
    }
}

/// gix's editor on `base`, `edits` made in memory: the removals first, as
/// a patch deletes before it creates (a path removed and put again is
/// replaced; a file removed may become a folder, and back).
fn edited<'f>(
    find: &'f OdbFind<'_>,
    base: Oid,
    edits: &[TreeEdit],
) -> gix_error::Result<Editor<'f>> {
    let root = find.find_tree(&gix_id(base), &mut Vec::new())?.into_owned();
    let mut editor = Editor::new(root, find, gix_hash::Kind::Sha1);
    let removals = edits
        .iter()
        .filter(|e| matches!(e, TreeEdit::Remove { .. }));
    let puts = edits.iter().filter(|e| matches!(e, TreeEdit::Put { .. }));
    for edit in removals.chain(puts) {
        let components = edit.path().split(|&b| b == b'/').map(BStr::new);
        match edit {
            TreeEdit::Put { id, mode, .. } => {
                editor.upsert(components, entry_kind(*mode), gix_id(*id))?
            }
            TreeEdit::Remove { .. } => editor.remove(components)?,
        };
    }
    Ok(editor)
}

/// The kind of entry a git mode makes, as libgit2's updater took it
/// (`crate::file_mode`): anything unknown is a plain file.
fn entry_kind(mode: i32) -> EntryKind {
    match mode as u32 {
        crate::types::mode::EXECUTABLE => EntryKind::BlobExecutable,
        crate::types::mode::SYMLINK => EntryKind::Link,
        crate::types::mode::GITLINK => EntryKind::Commit,
        crate::types::mode::TREE => EntryKind::Tree,
        _ => EntryKind::Blob,
    }
}

#[cfg(test)]
mod tests;
