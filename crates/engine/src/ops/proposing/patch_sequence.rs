//! An apply_patch envelope whose parts touch one path more than once
//! (update it twice, add it then update it, delete it then add it again).
//! Codex applies the parts one after another, each on what the parts
//! before it left, so this does the same on the base tree, in memory, and
//! gives one change per path: the base against what the last part left.

use std::collections::BTreeMap;

use crate::edit::engine::{ChangeKind, FileChange};
use crate::git::Repo;
use crate::git::objects::view::{Kind, Tree};
use crate::patch::{self, FilePatch, PatchError};

/// A path's content and mode after the parts so far; `None` once removed.
type State = Option<(Vec<u8>, u32)>;

/// Whether two parts of `files` name the same path (as source or target).
pub fn touches_a_path_twice(files: &[FilePatch]) -> bool {
    let mut seen = std::collections::HashSet::new();
    files.iter().any(|f| {
        let mut names: Vec<&String> = [&f.old_path, &f.new_path].into_iter().flatten().collect();
        names.dedup();
        names.into_iter().any(|n| !seen.insert(n.clone()))
    })
}

/// The changes of `files` applied in order on `tree`.
pub fn fold(
    repo: &Repo,
    tree: &Tree<'_>,
    files: &[FilePatch],
) -> std::result::Result<Vec<FileChange>, PatchError> {
    let mut now: BTreeMap<String, State> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let touch = |path: &str, order: &mut Vec<String>| {
        if !order.iter().any(|p| p == path) {
            order.push(path.to_string());
        }
    };
    for file in files {
        check_paths(file)?;
        let base: State = match &file.old_path {
            None => None,
            Some(old) => match now.get(old) {
                Some(Some(state)) => Some(state.clone()),
                Some(None) => {
                    return Err(PatchError::in_file(
                        old,
                        Some(file.line),
                        "the patch changes it, but a part before this one removed it",
                    ));
                }
                None => Some(base_file(repo, tree, old, file.line)?),
            },
        };
        let (path, new, mode) = apply_part(file, base.as_ref())?;
        if let Some(old) = &file.old_path
            && Some(old) != file.new_path.as_ref()
            && file.new_path.is_some()
        {
            touch(old, &mut order);
            now.insert(old.clone(), None);
        }
        touch(&path, &mut order);
        now.insert(path, new.map(|c| (c, mode)));
    }
    against_base(repo, tree, order, now)
}

/// One change per path of `order`: its content at the base against what
/// the parts left (`now`); a path left as the base has it is no change.
fn against_base(
    repo: &Repo,
    tree: &Tree<'_>,
    order: Vec<String>,
    mut now: BTreeMap<String, State>,
) -> std::result::Result<Vec<FileChange>, PatchError> {
    let mut changes = Vec::new();
    for path in order {
        let at_base = tree
            .get_path(std::path::Path::new(&path))
            .map(|_| base_file(repo, tree, &path, 0))
            .transpose()?;
        let last = now.remove(&path).flatten();
        let kind = match (&at_base, &last) {
            (None, None) => continue,
            (Some(b), Some(l)) if b == l => continue,
            (None, Some(_)) => ChangeKind::Create,
            (Some(_), None) => ChangeKind::Delete,
            (Some(_), Some(_)) => ChangeKind::Modify,
        };
        let mode = last
            .as_ref()
            .or(at_base.as_ref())
            .map_or(0o100644, |(_, m)| *m);
        changes.push(FileChange {
            path,
            from: None,
            kind,
            old: at_base.map(|(c, _)| c),
            new: last.map(|(c, _)| c),
            mode: mode as i32,
            warnings: Vec::new(),
            edits: Vec::new(),
        });
    }
    Ok(changes)
}

/// The content and mode of `path` at the base.
pub(super) fn base_file(
    repo: &Repo,
    tree: &Tree<'_>,
    path: &str,
    line: usize,
) -> std::result::Result<(Vec<u8>, u32), PatchError> {
    let missing = || {
        PatchError::in_file(
            path,
            Some(line),
            "the patch changes it, but it does not exist at the base",
        )
    };
    let entry = tree
        .get_path(std::path::Path::new(path))
        .ok_or_else(missing)?;
    if entry.kind != Kind::Blob {
        return Err(PatchError::in_file(
            path,
            Some(line),
            "it is a directory or a submodule at the base, not a file",
        ));
    }
    let content = repo.blob(entry.id).map_err(|e| {
        PatchError::in_file(path, Some(line), format!("its blob cannot be read: {e}"))
    })?;
    Ok((content, entry.mode as u32))
}

/// Refuses a part whose paths leave the tree (`..`, absolute, `.git`),
/// before anything is read at them.
pub(super) fn check_paths(file: &FilePatch) -> std::result::Result<(), PatchError> {
    for name in [&file.old_path, &file.new_path].into_iter().flatten() {
        crate::edit::path::check_path(name)
            .map_err(|why| PatchError::in_file(name, Some(file.line), format!("the path {why}")))?;
    }
    Ok(())
}

/// One part of a patch (its paths checked) applied to `base` (its content
/// and mode; none for a new file): the path it leaves, the new content
/// (none when deleted) and the mode.
pub(super) fn apply_part(
    file: &FilePatch,
    base: Option<&(Vec<u8>, u32)>,
) -> std::result::Result<(String, Option<Vec<u8>>, u32), PatchError> {
    let path = file
        .new_path
        .as_deref()
        .or(file.old_path.as_deref())
        .unwrap_or_default()
        .to_string();
    let inflate = |data: &[u8], size: usize| crate::git::sys::zlib::inflate_exact(data, size);
    let new = patch::apply::apply(file, &path, base.map(|(c, _)| c.as_slice()), &inflate)?;
    let mode = file.new_mode.or(base.map(|(_, m)| *m)).unwrap_or(0o100644);
    Ok((path, new, mode))
}
