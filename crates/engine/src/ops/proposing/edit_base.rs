//! What an edit list's paths are at its base: a file's content and mode,
//! nothing, or something an edit may not touch (a symlink, a submodule, a
//! directory, a path through one of them).

use std::collections::BTreeMap;

use crate::edit::engine::BaseEntry;
use crate::edit::list::Edit;
use crate::error::Result;
use crate::git::Repo;
use crate::git::objects::view::{Kind, Tree};

/// Every path the edits name (a rename's target too), at the base.
pub(super) fn read_base(
    repo: &Repo,
    tree: &Tree<'_>,
    edits: &[Edit],
) -> Result<BTreeMap<String, BaseEntry>> {
    let mut out = BTreeMap::new();
    let mut paths: Vec<&str> = Vec::new();
    for e in edits {
        paths.push(e.path());
        if let Edit::Rename { to, .. } = e {
            paths.push(to);
        }
    }
    for path in paths {
        if out.contains_key(path) || crate::edit::path::check_path(path).is_err() {
            continue;
        }
        out.insert(path.to_string(), base_entry(repo, tree, path)?);
    }
    Ok(out)
}

fn base_entry(repo: &Repo, tree: &Tree<'_>, path: &str) -> Result<BaseEntry> {
    let mut prefix = String::new();
    let parts: Vec<&str> = path.split('/').collect();
    for part in &parts[..parts.len() - 1] {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(part);
        let Some(entry) = tree.get_path(std::path::Path::new(&prefix)) else {
            return Ok(BaseEntry::Missing);
        };
        match entry.mode {
            0o040000 => {}
            0o120000 => {
                return Ok(BaseEntry::Other(format!(
                    "inside the symlink '{prefix}' (a path through a symlink)"
                )));
            }
            0o160000 => return Ok(BaseEntry::Other(format!("inside the submodule '{prefix}'"))),
            _ => {
                return Ok(BaseEntry::Other(format!(
                    "inside '{prefix}', which is a file, not a directory"
                )));
            }
        }
    }
    let Some(entry) = tree.get_path(std::path::Path::new(path)) else {
        return Ok(BaseEntry::Missing);
    };
    Ok(match (entry.kind, entry.mode) {
        (Kind::Blob, mode @ (0o100644 | 0o100755)) => BaseEntry::File {
            content: repo.blob(entry.id)?,
            mode,
            blob: entry.id.to_string(),
        },
        (_, 0o120000) => BaseEntry::Other("a symlink".into()),
        (_, 0o160000) => BaseEntry::Other("a submodule".into()),
        _ => BaseEntry::Other("a directory".into()),
    })
}
