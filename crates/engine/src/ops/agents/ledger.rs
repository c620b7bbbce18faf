//! What `agent install` did to a file, for `uninstall` to undo exactly:
//! whether it created the file (and its folder), which containers it
//! created (a `hooks` object, an event's list: left empty, they go too),
//! and what it added to Codex's config.toml to trust the hooks. Kept per
//! config file (by its absolute path) under `$XDG_STATE_HOME/git-evolv/
//! agents/` (`~/.local/state/…`), outside the agent's file, where no key
//! could be added without failing the agent's own schema. Without a
//! ledger (it was deleted, or another machine installed), uninstall still
//! removes git-evolv's entries and the containers they leave empty.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

use crate::error::{Error, Result};

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Ledger {
    pub file: PathBuf,
    #[serde(default)]
    pub created_file: bool,
    /// Folders install created for the file, outermost first.
    #[serde(default)]
    pub created_dirs: Vec<PathBuf>,
    /// Containers install created, by their key path (`["hooks"]`,
    /// `["hooks", "Stop"]`).
    #[serde(default)]
    pub created: Vec<Vec<String>>,
    /// Codex: the text appended to config.toml to trust the hooks.
    #[serde(default)]
    pub codex_trust: Vec<TrustEdit>,
}

/// One edit of Codex's config.toml.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct TrustEdit {
    pub config: PathBuf,
    /// The bytes appended (a `[hooks.state."…"]` table).
    pub appended: String,
    /// Whether install created config.toml.
    #[serde(default)]
    pub created_file: bool,
}

fn state_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".local").join("state"))
        })?;
    Some(base.join("git-evolv").join("agents"))
}

fn path_for(file: &Path) -> Option<PathBuf> {
    let digest = Sha1::digest(file.as_os_str().as_encoded_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    Some(state_dir()?.join(format!("{hex}.json")))
}

/// The ledger of `file`, if install left one.
pub fn load(file: &Path) -> Option<Ledger> {
    let bytes = std::fs::read(path_for(file)?).ok()?;
    serde_json::from_slice::<Ledger>(&bytes)
        .ok()
        .filter(|l| l.file == file)
}

/// Saves the ledger (temp file + rename).
pub fn save(ledger: &Ledger) -> Result<()> {
    let Some(path) = path_for(&ledger.file) else {
        return Ok(());
    };
    let dir = path.parent().expect("the ledger is in a folder");
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".ledger")
        .tempfile_in(dir)
        .map_err(|e| Error::io("create a temp file in", dir, e))?;
    let json = serde_json::to_vec_pretty(ledger).expect("a ledger serializes");
    tmp.write_all(&json)
        .map_err(|e| Error::io("write", tmp.path().to_path_buf(), e))?;
    tmp.persist(&path)
        .map_err(|e| Error::io("write", &path, e.error))?;
    Ok(())
}

/// Forgets the ledger of `file`.
pub fn forget(file: &Path) -> Result<()> {
    let Some(path) = path_for(file) else {
        return Ok(());
    };
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io("remove", &path, e)),
        _ => Ok(()),
    }
}
