//! Which of a landing's paths hold uncommitted work that it would overwrite.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use git2::{Delta, ErrorCode, Repository, Status, Tree};

use super::ChangedPath;
use crate::error::Result;

/// Paths among `changed` that must not be touched: staged or unstaged
/// changes, untracked or ignored files where the new tree puts a file, and
/// anything in the way of a directory the new tree needs.
pub fn dirty_paths(
    repo: &Repository,
    new_tree: &Tree<'_>,
    changed: &[ChangedPath],
) -> Result<Vec<String>> {
    let workdir = repo.workdir().expect("open() refuses bare repositories");
    let removed: HashSet<&str> = changed
        .iter()
        .filter(|c| c.status == Delta::Deleted)
        .map(|c| c.path.as_str())
        .collect();
    let mut dirty = Vec::new();
    for change in changed {
        let path = change.path.as_str();
        let writes_here = new_tree.get_path(Path::new(path)).is_ok();
        let full = workdir.join(path);
        if writes_here && blocked_by_ancestor(workdir, path, &removed) {
            dirty.push(path.to_string());
            continue;
        }
        match fs::symlink_metadata(&full) {
            Ok(meta) if meta.is_dir() => {
                if writes_here && !only_removed_files_inside(&full, path, &removed) {
                    dirty.push(path.to_string());
                }
                continue;
            }
            _ => {}
        }
        match repo.status_file(Path::new(path)) {
            Ok(status) if status.is_empty() => {}
            Ok(status) if status == Status::IGNORED && !writes_here => {}
            Ok(_) => dirty.push(path.to_string()),
            Err(e) if e.code() == ErrorCode::NotFound => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(dirty)
}

/// Whether a leading component of `path` is a file or symlink that the
/// landing does not itself remove (writing there would fail or escape).
fn blocked_by_ancestor(workdir: &Path, path: &str, removed: &HashSet<&str>) -> bool {
    let mut prefix = String::new();
    let components: Vec<&str> = path.split('/').collect();
    for part in &components[..components.len().saturating_sub(1)] {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(part);
        match fs::symlink_metadata(workdir.join(&prefix)) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) if removed.contains(prefix.as_str()) => return false,
            Ok(_) => return true,
            Err(_) => return false,
        }
    }
    false
}

fn only_removed_files_inside(dir: &Path, rel: &str, removed: &HashSet<&str>) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            return false;
        };
        let child = format!("{rel}/{name}");
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        let ok = if is_dir {
            only_removed_files_inside(&entry.path(), &child, removed)
        } else {
            removed.contains(child.as_str())
        };
        if !ok {
            return false;
        }
    }
    true
}
