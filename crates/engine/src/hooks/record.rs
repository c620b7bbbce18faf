//! Where git-evolv's hooks were installed, kept in the common git dir
//! (`evolv/hooks-installed`, JSON): `install --hooks-path` writes into a
//! folder core.hooksPath names, and a team may unset core.hooksPath (husky's
//! documented removal) before `uninstall` runs. The record lets `uninstall`
//! remove the shims from every folder they were installed in, so none is
//! left to refuse commits when core.hooksPath names that folder again.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

#[derive(Debug, Default, Serialize, Deserialize)]
struct Record {
    /// Absolute paths of the folders install wrote hooks into.
    folders: Vec<PathBuf>,
}

fn path(common_dir: &Path) -> PathBuf {
    common_dir.join("evolv").join("hooks-installed")
}

/// The folders recorded; none when there is no record (hooks installed by
/// an older version, or never) or it cannot be read.
pub fn folders(common_dir: &Path) -> Vec<PathBuf> {
    std::fs::read(path(common_dir))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Record>(&bytes).ok())
        .unwrap_or_default()
        .folders
}

/// Adds `dirs` to the record, before install writes there: a crash midway
/// leaves a record of every folder that may hold a shim. Written to a temp
/// file and renamed, so the record is never seen half-written.
pub fn add(common_dir: &Path, dirs: &[PathBuf]) -> Result<()> {
    let mut record = Record {
        folders: folders(common_dir),
    };
    let before = record.folders.len();
    for dir in dirs {
        if !record.folders.contains(dir) {
            record.folders.push(dir.clone());
        }
    }
    if record.folders.len() == before && path(common_dir).exists() {
        return Ok(());
    }
    let file = path(common_dir);
    let dir = file.parent().expect("the record is in a folder");
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".hooks-installed")
        .tempfile_in(dir)
        .map_err(|e| Error::io("create a temp file in", dir, e))?;
    let json = serde_json::to_vec_pretty(&record).expect("paths serialize");
    tmp.write_all(&json)
        .map_err(|e| Error::io("write", tmp.path().to_path_buf(), e))?;
    tmp.persist(&file)
        .map_err(|e| Error::io("write", &file, e.error))?;
    Ok(())
}

/// Forgets every folder, once uninstall removed the shims from all of them.
pub fn clear(common_dir: &Path) -> Result<()> {
    let file = path(common_dir);
    match std::fs::remove_file(&file) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io("remove", &file, e)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_each_folder_once_and_clears() {
        let git = tempfile::tempdir().unwrap();
        assert!(folders(git.path()).is_empty());
        let a = PathBuf::from("/r/.husky/_");
        let b = PathBuf::from("/r/.git/hooks");
        add(git.path(), &[a.clone(), b.clone()]).unwrap();
        add(git.path(), std::slice::from_ref(&a)).unwrap();
        assert_eq!(folders(git.path()), vec![a, b]);
        clear(git.path()).unwrap();
        clear(git.path()).unwrap();
        assert!(folders(git.path()).is_empty());
    }
}
