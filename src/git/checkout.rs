//! Bringing the working tree and index from one commit to the next for a
//! given set of paths only. Files are written to a temp file in the same
//! directory and renamed into place, so a reader never sees a torn file.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use git2::{ObjectType, Repository, Tree};

use super::ChangedPath;
use crate::error::{Error, Result};

const MODE_SYMLINK: i32 = 0o120000;
const MODE_EXECUTABLE: i32 = 0o100755;
const MODE_GITLINK: i32 = 0o160000;

/// Updates `changed` in the working tree and index to match `new_tree`:
/// removals first (so a file can replace a directory and back), then
/// writes, then one index write.
pub fn update_paths(repo: &Repository, new_tree: &Tree<'_>, changed: &[ChangedPath]) -> Result<()> {
    let workdir = repo
        .workdir()
        .expect("open() refuses bare repositories")
        .to_path_buf();
    let mut writes = Vec::new();
    let mut removals = Vec::new();
    for change in changed {
        match new_tree.get_path(Path::new(&change.path)) {
            Ok(entry) => writes.push((change.path.as_str(), entry.filemode(), entry.id())),
            Err(_) => removals.push(change.path.as_str()),
        }
    }
    for path in &removals {
        remove_file(&workdir, path)?;
    }
    for (path, mode, oid) in &writes {
        if *mode == MODE_GITLINK {
            let dir = workdir.join(path);
            fs::create_dir_all(&dir).map_err(|e| Error::io("create", &dir, e))?;
            continue;
        }
        let object = repo.find_object(*oid, Some(ObjectType::Blob))?;
        let blob = object.as_blob().expect("asked for a blob");
        write_entry(&workdir.join(path), blob.content(), *mode)?;
    }
    let mut index = repo.index()?;
    // Reloads only if the file changed since the dirty check read it.
    index.read(false)?;
    for path in &removals {
        index.remove_path(Path::new(path))?;
    }
    for (path, mode, _) in &writes {
        if *mode != MODE_GITLINK {
            index.add_path(Path::new(path))?;
        }
    }
    index.write()?;
    Ok(())
}

fn remove_file(workdir: &Path, path: &str) -> Result<()> {
    let full = workdir.join(path);
    match fs::symlink_metadata(&full) {
        Ok(meta) if meta.is_dir() => {
            // A gitlink's directory: leave a populated one alone.
            let _ = fs::remove_dir(&full);
        }
        Ok(_) => fs::remove_file(&full).map_err(|e| Error::io("remove", &full, e))?,
        Err(_) => {}
    }
    // Like git, drop directories the removal left empty.
    let mut dir = full.parent();
    while let Some(d) = dir {
        if d == workdir || fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
    Ok(())
}

fn temp_sibling(full: &Path) -> PathBuf {
    let name = full
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    full.with_file_name(format!(".{name}.evolv-{}.tmp", std::process::id()))
}

fn write_entry(full: &Path, content: &[u8], mode: i32) -> Result<()> {
    let parent = full.parent().expect("a repository path has a parent");
    fs::create_dir_all(parent).map_err(|e| Error::io("create directory", parent, e))?;
    let tmp = temp_sibling(full);
    let _ = fs::remove_file(&tmp);
    if mode == MODE_SYMLINK {
        let target = std::ffi::OsStr::new(std::str::from_utf8(content).unwrap_or_default());
        std::os::unix::fs::symlink(target, &tmp)
            .map_err(|e| Error::io("create symlink", &tmp, e))?;
    } else {
        let perms = if mode == MODE_EXECUTABLE {
            0o777
        } else {
            0o666
        };
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(perms)
            .open(&tmp)
            .map_err(|e| Error::io("create", &tmp, e))?;
        if let Err(e) = file.write_all(content) {
            let _ = fs::remove_file(&tmp);
            return Err(Error::io("write", &tmp, e));
        }
    }
    if fs::symlink_metadata(full).is_ok_and(|m| m.is_dir()) {
        // Only an empty directory can be here: the dirty check refused others.
        fs::remove_dir(full).map_err(|e| Error::io("remove directory", full, e))?;
    }
    fs::rename(&tmp, full).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::io("rename into place", full, e)
    })
}
