//! What libgit2's tree updater (`git_tree_create_updated`) refused, checked
//! before gix's tree editor, which refuses none of it: the same edits
//! still fail, with libgit2's message. libgit2 sorted the edits by path,
//! refused two on one path, a path through a file, a file put where a
//! folder is (or back), an object that is not in the repository (or not of
//! the mode's kind) and the removal of what is not there.

use std::collections::HashMap;

use git2::{ErrorClass, ErrorCode, ObjectType};

use super::TreeEdit;
use crate::tree_lookup::TreeLookup;
use crate::view::Kind;
use crate::{RepoPath, mode};

/// The error libgit2's updater gave for `edits` on `base`, if any.
pub(crate) fn refusal(
    repo: &git2::Repository,
    base: &git2::Tree<'_>,
    edits: &[TreeEdit],
) -> Option<git2::Error> {
    let mut sorted: Vec<&TreeEdit> = edits.iter().collect();
    sorted.sort_by(|a, b| a.path().cmp(b.path()));
    if sorted.windows(2).any(|w| w[0].path() == w[1].path()) {
        return Some(tree_error("duplicate entries given for update".into()));
    }
    let mut lookup = TreeLookup::from_raw(repo, base);
    // What the edits before put at their paths.
    let mut put: HashMap<&[u8], ObjectType> = HashMap::new();
    let mut kind_at = |path: &[u8], put: &HashMap<&[u8], ObjectType>| {
        put.get(path).copied().or_else(|| {
            lookup
                .get(&RepoPath::from(path))
                .map(|f| object_type(f.kind))
        })
    };
    for edit in sorted {
        let path = edit.path();
        let through_a_file = path
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'/')
            .any(|(at, _)| kind_at(&path[..at], &put).is_some_and(|k| k != ObjectType::Tree));
        if through_a_file {
            return Some(tree_error("D/F conflict when updating tree".into()));
        }
        let name = String::from_utf8_lossy(path.rsplit(|&b| b == b'/').next().unwrap_or(path));
        let existing = kind_at(path, &put);
        match edit {
            TreeEdit::Put { id, mode, .. } => {
                let kind = mode_type(*mode);
                if let Some(old) = existing.filter(|old| *old != kind) {
                    let path = String::from_utf8_lossy(path);
                    return Some(tree_error(format!(
                        "cannot replace '{old}' with '{kind}' at '{path}'"
                    )));
                }
                if id.is_zero() {
                    return Some(insert_error("invalid null OID", &name));
                }
                if kind != ObjectType::Commit && !is_object_of(repo, *id, kind) {
                    return Some(insert_error("invalid object specified", &name));
                }
                put.insert(path, kind);
            }
            TreeEdit::Remove { .. } if existing.is_none() => {
                return Some(tree_error(format!(
                    "failed to remove entry: file isn't in the tree - {name}"
                )));
            }
            TreeEdit::Remove { .. } => {}
        }
    }
    None
}

fn tree_error(message: String) -> git2::Error {
    git2::Error::new(ErrorCode::GenericError, ErrorClass::Tree, message)
}

fn insert_error(what: &str, name: &str) -> git2::Error {
    tree_error(format!("failed to insert entry: {what} - {name}"))
}

fn object_type(kind: Kind) -> ObjectType {
    match kind {
        Kind::Tree => ObjectType::Tree,
        Kind::Commit => ObjectType::Commit,
        _ => ObjectType::Blob,
    }
}

/// The kind of object an entry of `mode` points to, as libgit2 reads it.
fn mode_type(mode: i32) -> ObjectType {
    match mode as u32 {
        mode::TREE => ObjectType::Tree,
        mode::GITLINK => ObjectType::Commit,
        _ => ObjectType::Blob,
    }
}

/// Whether `id` is in the repository as an object of `kind` (libgit2's
/// strict object creation, on by default).
fn is_object_of(repo: &git2::Repository, id: crate::Oid, kind: ObjectType) -> bool {
    repo.odb()
        .and_then(|odb| odb.read_header(id.raw()))
        .is_ok_and(|(_, found)| found == kind)
}
