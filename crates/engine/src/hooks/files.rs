//! The files of one hook in one folder as git-evolv reads them (our copy
//! of the hook binary and our old link read as their descriptions), and the
//! small file operations installing and removing a hook are made of.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::{CHAINED_SUFFIX, Kind, LEGACY_SUFFIX, MARKER, OLD_SUFFIX, binary, sh_quote};
use crate::error::{Error, Result};

/// The files of one hook in one folder.
pub(super) struct Files {
    pub dir: PathBuf,
    pub name: String,
    pub main: Option<(Kind, String)>,
    pub chained: Option<(Kind, String)>,
    pub legacy: Option<(Kind, String)>,
    pub old: Option<(Kind, String)>,
}

impl Files {
    pub fn read(dir: &Path, name: &str) -> Files {
        let get = |suffix: &str| {
            read_hook(&dir.join(format!("{name}{suffix}"))).map(|t| (Kind::of(&t), t))
        };
        Files {
            dir: dir.to_path_buf(),
            name: name.to_string(),
            main: get(""),
            chained: get(CHAINED_SUFFIX),
            legacy: get(LEGACY_SUFFIX),
            old: get(OLD_SUFFIX),
        }
    }

    pub fn path(&self, suffix: &str) -> PathBuf {
        self.dir.join(format!("{}{suffix}", self.name))
    }

    pub fn main_kind(&self) -> Option<Kind> {
        self.main.as_ref().map(|(k, _)| *k)
    }

    pub fn kind(slot: &Option<(Kind, String)>) -> Option<Kind> {
        slot.as_ref().map(|(k, _)| *k)
    }
}

/// Reads a hook file; `None` when absent (a dangling symlink counts as
/// present but foreign). Our copy of the hook binary reads as its
/// description (`copy_text`), and so does our link to `git-evolv` (the
/// layout of older versions, `link_text`): never as a binary's bytes.
fn read_hook(path: &Path) -> Option<String> {
    let meta = fs::symlink_metadata(path).ok()?;
    if meta.is_dir() {
        return Some(String::new());
    }
    if meta.file_type().is_symlink()
        && let Ok(target) = fs::read_link(path)
        && is_our_binary(&target)
    {
        return Some(link_text(&target));
    }
    let bytes = fs::read(path).unwrap_or_default();
    if let Some(version) = binary::version_of(&bytes) {
        return Some(copy_text(&version, &binary::digest(&bytes)));
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// How our copy of the hook binary reads to the functions that sort hook
/// files by their text: marked as ours, with its version and a digest of
/// its bytes (two copies are the same when their texts are).
fn copy_text(version: &str, digest: &str) -> String {
    format!(
        "{MARKER}: a copy of {}\nversion={version}\ndigest={digest}\n",
        binary::NAME
    )
}

/// The description of the hook binary at `path`, as `read_hook` reads a
/// copy of it; `None` when it is not one.
fn copy_text_of(path: &Path) -> Option<String> {
    let bytes = fs::read(path).ok()?;
    let version = binary::version_of(&bytes)?;
    Some(copy_text(&version, &binary::digest(&bytes)))
}

pub(super) fn text_field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| l.strip_prefix(key))
}

/// Whether a symlink target names git-evolv's binary (`git-evolv`, or a
/// build of it such as `git-evolv-1.2`): the link is ours.
fn is_our_binary(target: &Path) -> bool {
    target
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == "git-evolv" || n.starts_with("git-evolv-"))
}

/// How our link to the binary reads to the functions that sort hook files
/// by their text: marked as ours, with the binary it runs recorded.
fn link_text(target: &Path) -> String {
    format!(
        "{MARKER}: a link to the binary\nrecorded={}\n",
        sh_quote(&target.to_string_lossy())
    )
}

/// Whether `path` is a symlink (our link to the binary).
pub(super) fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// What `hooks install` would put where our hook without a shim is: the
/// description of the hook binary beside the running `git-evolv`, read
/// once per process.
pub(super) fn current_copy_text() -> Option<&'static str> {
    static CURRENT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    CURRENT
        .get_or_init(|| binary::current().and_then(|p| copy_text_of(&p)))
        .as_deref()
}

/// Deletes our shims at `main + suffix` for each suffix.
pub(super) fn remove_ours(f: &Files, suffixes: &[&str]) -> Result<()> {
    for suffix in suffixes {
        let slot = match *suffix {
            LEGACY_SUFFIX => &f.legacy,
            OLD_SUFFIX => &f.old,
            _ => &f.chained,
        };
        if Files::kind(slot) == Some(Kind::Ours) {
            remove(&f.path(suffix))?;
        }
    }
    Ok(())
}

pub(super) fn remove(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io("remove", path, e)),
        _ => Ok(()),
    }
}

pub(super) fn write_if_changed(
    path: &Path,
    shim: &str,
    current: Option<&str>,
) -> Result<&'static str> {
    if current == Some(shim) && is_executable(path) {
        Ok("unchanged")
    } else {
        write_executable(path, shim)?;
        Ok("updated")
    }
}

/// Copies the hook binary to `path` unless the same build is there
/// (`current` is what `read_hook` read at `path`). A link to `git-evolv`
/// (the layout of older versions) or a stale copy is replaced, never
/// written through.
pub(super) fn copy_if_changed(
    path: &Path,
    source: &Path,
    current: Option<&str>,
) -> Result<&'static str> {
    let wanted = copy_text_of(source);
    if !is_link(path) && is_executable(path) && wanted.is_some() && current == wanted.as_deref() {
        return Ok("unchanged");
    }
    binary::copy_to(source, path)?;
    Ok("updated")
}

pub(super) fn is_executable_by_anyone(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

pub(super) fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o777 == 0o755)
}

/// Temp file in the same folder, mode 0755, then rename: a hook is never
/// seen half-written.
pub(super) fn write_executable(path: &Path, text: &str) -> Result<()> {
    super::executable::replace_with_executable(path, text.as_bytes(), false)
}
