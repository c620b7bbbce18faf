//! Writing a hook file the way git must see it: whole or not at all.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::error::{Error, Result};

/// Writes `bytes` to a temp file beside `path` (flushed to disk when
/// `sync`), makes it mode 0755 and renames it over `path`: whatever `path`
/// was is replaced, never written through.
pub(super) fn replace_with_executable(path: &Path, bytes: &[u8], sync: bool) -> Result<()> {
    let dir = path.parent().expect("hook paths have a folder");
    let mut tmp = tempfile::Builder::new()
        .prefix(".git-evolv-hook")
        .tempfile_in(dir)
        .map_err(|e| Error::io("create a temp file in", dir, e))?;
    tmp.write_all(bytes)
        .and_then(|()| {
            if sync {
                tmp.as_file().sync_all()
            } else {
                Ok(())
            }
        })
        .map_err(|e| Error::io("write", tmp.path().to_path_buf(), e))?;
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755))
        .map_err(|e| Error::io("chmod", tmp.path().to_path_buf(), e))?;
    tmp.persist(path)
        .map_err(|e| Error::io("write", path, e.error))?;
    Ok(())
}
