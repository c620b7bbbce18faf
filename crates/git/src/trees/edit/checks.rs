//! What libgit2's tree updater (`git_tree_create_updated`) refused, checked
//! before gix's tree editor, which refuses none of it: the same edits
//! still fail, with libgit2's message. libgit2 sorted the edits by path,
//! refused two on one path, a path through a file, a file put where a
//! folder is (or back), an object that is not in the repository (or not of
//! the mode's kind) and the removal of what is not there.
//!
//! One difference, as a patch is applied (issue 38 item 19): the removals
//! are made before the puts (`super::edited`), so a path removed and put
//! again is replaced (a chain of renames, b→c then a→b), a file removed
//! may become a directory (f → f/g), and a directory whose every file is
//! removed may become a file; libgit2 refused each. And in a partial
//! clone an object the promisor remote holds need not be here: a tree
//! names it without reading it, as git's do.

use std::collections::HashMap;

use git2::{ErrorClass, ErrorCode, ObjectType};

use super::TreeEdit;
use crate::objects::view::Kind;
use crate::trees::lookup::TreeLookup;
use crate::{RepoPath, types::mode};

/// The error libgit2's updater gave for `edits` on `base`, if any (with
/// the removals made first: see the module).
pub(crate) fn refusal(
    repo: &git2::Repository,
    base: &git2::Tree<'_>,
    edits: &[TreeEdit],
    promised: bool,
) -> Option<git2::Error> {
    let (mut removals, mut puts): (Vec<&TreeEdit>, Vec<&TreeEdit>) = edits
        .iter()
        .partition(|e| matches!(e, TreeEdit::Remove { .. }));
    removals.sort_by(|a, b| a.path().cmp(b.path()));
    puts.sort_by(|a, b| a.path().cmp(b.path()));
    let twice = |sorted: &[&TreeEdit]| sorted.windows(2).any(|w| w[0].path() == w[1].path());
    if twice(&removals) || twice(&puts) {
        return Some(tree_error("duplicate entries given for update".into()));
    }
    let mut lookup = TreeLookup::from_raw(repo, base);
    for edit in &removals {
        if lookup.get(&RepoPath::from(edit.path())).is_none() {
            return Some(tree_error(format!(
                "failed to remove entry: file isn't in the tree - {}",
                name_of(edit.path())
            )));
        }
    }
    let removed: Vec<&[u8]> = removals.iter().map(|e| e.path()).collect();
    // What the puts before put at their paths.
    let mut put: HashMap<&[u8], ObjectType> = HashMap::new();
    let mut kind_at = |path: &[u8], put: &HashMap<&[u8], ObjectType>| {
        if let Some(kind) = put.get(path) {
            return Some(*kind);
        }
        if removed.iter().any(|r| *r == path || is_below(path, r)) {
            return None;
        }
        let found = lookup.get(&RepoPath::from(path))?;
        if found.kind == Kind::Tree && removed.iter().any(|r| is_below(r, path)) {
            // A folder some removals reach: gone when they empty it.
            return survives(repo, found.id, path, &removed).then_some(ObjectType::Tree);
        }
        Some(object_type(found.kind))
    };
    for edit in puts {
        let TreeEdit::Put { path, id, mode } = edit else {
            continue;
        };
        let path = path.as_slice();
        let through_a_file = path
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'/')
            .any(|(at, _)| kind_at(&path[..at], &put).is_some_and(|k| k != ObjectType::Tree));
        if through_a_file {
            return Some(tree_error("D/F conflict when updating tree".into()));
        }
        let name = name_of(path);
        let kind = mode_type(*mode);
        if let Some(old) = kind_at(path, &put).filter(|old| *old != kind) {
            let path = String::from_utf8_lossy(path);
            return Some(tree_error(format!(
                "cannot replace '{old}' with '{kind}' at '{path}'"
            )));
        }
        if id.is_zero() {
            return Some(insert_error("invalid null OID", &name));
        }
        if kind != ObjectType::Commit && !is_object_of(repo, *id, kind, promised) {
            return Some(insert_error("invalid object specified", &name));
        }
        put.insert(path, kind);
    }
    None
}

/// The last component of `path`, as libgit2's messages name an entry.
fn name_of(path: &[u8]) -> String {
    String::from_utf8_lossy(path.rsplit(|&b| b == b'/').next().unwrap_or(path)).into_owned()
}

/// Whether `path` lies below the folder `dir` (`dir/…`).
fn is_below(path: &[u8], dir: &[u8]) -> bool {
    path.len() > dir.len() && path.starts_with(dir) && path[dir.len()] == b'/'
}

/// Whether the folder `tree` at `at` keeps a file once `removed` are gone.
fn survives(repo: &git2::Repository, tree: crate::Oid, at: &[u8], removed: &[&[u8]]) -> bool {
    let Ok(tree) = repo.find_tree(tree.raw()) else {
        return true;
    };
    let mut kept = false;
    let _ = tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
        if entry.kind() == Some(ObjectType::Tree) {
            return git2::TreeWalkResult::Ok;
        }
        let mut path = at.to_vec();
        path.push(b'/');
        path.extend_from_slice(dir.as_bytes());
        path.extend_from_slice(entry.name_bytes());
        if !removed.iter().any(|r| *r == path || is_below(&path, r)) {
            kept = true;
            return git2::TreeWalkResult::Abort;
        }
        git2::TreeWalkResult::Ok
    });
    kept
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
/// strict object creation, on by default), or, `promised` (a partial
/// clone), absent: the promisor remote holds it, and a tree names it
/// without reading it, as git's do.
fn is_object_of(repo: &git2::Repository, id: crate::Oid, kind: ObjectType, promised: bool) -> bool {
    let Ok(odb) = repo.odb() else {
        return false;
    };
    match odb.read_header(id.raw()) {
        Ok((_, found)) => found == kind,
        Err(e) => promised && e.code() == git2::ErrorCode::NotFound,
    }
}
