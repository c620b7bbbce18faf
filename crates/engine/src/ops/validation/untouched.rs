//! What a server's validation must leave as it was: the branch being
//! landed, the hooks folder and the config file of the bare repository.
//! Read before the pushed code runs and compared after; the sandbox should
//! make a difference impossible, so one is refused loudly and undone
//! (issue 38 item 1: "refuse loudly if not").

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::git::{Oid, Repo};

/// One entry of the hooks folder: its bytes and mode, or not a file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    File { bytes: Vec<u8>, mode: u32 },
    Other,
}

/// The state read before validation.
#[derive(Debug)]
pub struct Untouched {
    branch_ref: String,
    /// Only a protected branch is moved back: another one may have been
    /// moved meanwhile by a direct push, which is no one's escalation.
    protected: bool,
    branch: Option<Oid>,
    config_path: PathBuf,
    config: Option<Vec<u8>>,
    hooks_dir: PathBuf,
    hooks: BTreeMap<String, Entry>,
}

impl Untouched {
    pub fn read(repo: &Repo, branch_ref: &str, protected: bool) -> Result<Untouched> {
        let common = repo.common_dir();
        let config_path = common.join("config");
        let hooks_dir = common.join("hooks");
        Ok(Untouched {
            branch_ref: branch_ref.to_string(),
            protected,
            branch: repo.ref_target(branch_ref),
            config: read_optional(&config_path)?,
            hooks: read_hooks(&hooks_dir)?,
            config_path,
            hooks_dir,
        })
    }

    /// Compares with now; each difference is undone and named in a
    /// `Tampered` error.
    pub fn check_and_restore(&self, repo: &Repo) -> Result<()> {
        let mut changed = Vec::new();
        let now = repo.ref_target(&self.branch_ref);
        if now != self.branch {
            changed.push(format!(
                "{} moved from {} to {}{}",
                self.branch_ref,
                shown(self.branch),
                shown(now),
                if self.protected {
                    ""
                } else {
                    " (left there: the branch is not protected, so a direct push may have moved it)"
                }
            ));
            if let (true, Some(before)) = (self.protected, self.branch) {
                crate::store::refs::set(
                    repo,
                    &self.branch_ref,
                    before,
                    "git-evolv: undo a move made by validation",
                )?;
            }
        }
        if read_optional(&self.config_path)? != self.config {
            changed.push(format!("{} was changed", self.config_path.display()));
            if let Some(bytes) = &self.config {
                replace(&self.config_path, bytes, 0o644)?;
            }
        }
        let hooks = read_hooks(&self.hooks_dir)?;
        for (name, entry) in &hooks {
            let path = self.hooks_dir.join(name);
            match self.hooks.get(name) {
                Some(was) if was == entry => {}
                Some(was) => {
                    changed.push(format!("{} was changed", path.display()));
                    restore(&path, was)?;
                }
                None => {
                    changed.push(format!("{} was added", path.display()));
                    remove(&path)?;
                }
            }
        }
        for (name, was) in &self.hooks {
            if !hooks.contains_key(name) {
                let path = self.hooks_dir.join(name);
                changed.push(format!("{} was removed", path.display()));
                restore(&path, was)?;
            }
        }
        if changed.is_empty() {
            Ok(())
        } else {
            Err(Error::Tampered { changed })
        }
    }
}

fn shown(oid: Option<Oid>) -> String {
    oid.map_or_else(|| "nothing".to_string(), |o| o.to_string())
}

fn read_optional(path: &Path) -> Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("read", path, e)),
    }
}

fn read_hooks(dir: &Path) -> Result<BTreeMap<String, Entry>> {
    let mut out = BTreeMap::new();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(Error::io("read", dir, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read", dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let meta = fs::symlink_metadata(&path).map_err(|e| Error::io("stat", &path, e))?;
        let found = if meta.is_file() {
            Entry::File {
                bytes: fs::read(&path).map_err(|e| Error::io("read", &path, e))?,
                mode: meta.permissions().mode() & 0o7777,
            }
        } else {
            Entry::Other
        };
        out.insert(name, found);
    }
    Ok(out)
}

fn restore(path: &Path, was: &Entry) -> Result<()> {
    match was {
        Entry::File { bytes, mode } => {
            remove(path)?;
            replace(path, bytes, *mode)
        }
        // Not a file before (a folder of samples, say): what replaced it
        // is removed, the old entry cannot be put back from memory.
        Entry::Other => remove(path),
    }
}

fn remove(path: &Path) -> Result<()> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io("stat", path, e)),
    };
    let removed = if meta.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    };
    removed.map_err(|e| Error::io("remove", path, e))
}

/// Writes `bytes` beside `path` and renames it over, so a reader sees the
/// old file or the new one.
fn replace(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    let tmp = path.with_extension(format!("evolv-restore.{}", std::process::id()));
    fs::write(&tmp, bytes).map_err(|e| Error::io("write", &tmp, e))?;
    fs::set_permissions(&tmp, fs::Permissions::from_mode(mode))
        .map_err(|e| Error::io("chmod", &tmp, e))?;
    fs::rename(&tmp, path).map_err(|e| Error::io("rename", path, e))
}
