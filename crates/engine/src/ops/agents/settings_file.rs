//! Reading an agent's config file as a span document, and writing it back
//! whole or not at all (a temp file beside it, renamed over it, its mode
//! kept), so an agent starting meanwhile never reads half a file.

use std::io::Write;
use std::path::Path;

use evolv_core::agents::json_doc::{self, Node};

use crate::error::{Error, Result};

/// The file's text; `None` when there is none.
pub fn read(file: &Path) -> Result<Option<String>> {
    match std::fs::read(file) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            Error::invalid(
                format!("{} is not UTF-8 text", file.display()),
                "fix the file's encoding (agents read their settings as UTF-8 JSON)",
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("read", file, e)),
    }
}

/// `text` read as the JSON object an agent's config is.
pub fn parse(file: &Path, text: &str) -> Result<Node> {
    let doc = json_doc::parse(text).map_err(|e| {
        Error::invalid(
            format!("{} is not valid JSON: {e}", file.display()),
            "fix the file (the agent cannot read it either), then run the command again",
        )
    })?;
    if doc.members().is_none() {
        return Err(Error::invalid(
            format!("{} does not hold a JSON object", file.display()),
            "an agent's settings file is one JSON object: fix or move the file",
        ));
    }
    Ok(doc)
}

/// Replaces the file with `text`, creating its folder if needed.
pub fn write(file: &Path, text: &str) -> Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".git-evolv-agent")
        .tempfile_in(dir)
        .map_err(|e| Error::io("create a temp file in", dir, e))?;
    tmp.write_all(text.as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| Error::io("write", tmp.path().to_path_buf(), e))?;
    if let Ok(meta) = std::fs::metadata(file) {
        // The user's mode (a settings file kept private stays private).
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    tmp.persist(file)
        .map_err(|e| Error::io("write", file, e.error))?;
    Ok(())
}

/// Removes the file.
pub fn delete(file: &Path) -> Result<()> {
    match std::fs::remove_file(file) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io("remove", file, e)),
        _ => Ok(()),
    }
}
