//! The hook shims and the files in a hooks folder: writing ours, moving a
//! foreign hook aside so ours chains to it, and putting it back. The shims
//! (top-level `hooks/`) hold no logic: they call `git-evolv hook <name>`.
//! Which folder to use is decided by `ops::hooks`.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};

/// The line that marks a hook file as ours.
pub const MARKER: &str = "# git-evolv managed hook";

/// The hooks git-evolv installs, with their shim templates.
pub const HOOKS: [(&str, &str); 2] = [
    ("commit-msg", include_str!("../../hooks/commit-msg")),
    ("pre-push", include_str!("../../hooks/pre-push")),
];

const BIN_PLACEHOLDER: &str = "@GIT_EVOLV_BIN@";

/// Suffix of a foreign hook moved aside: `pre-push.evolv-chained`.
pub const CHAINED_SUFFIX: &str = ".evolv-chained";

/// Quotes a string for sh: `'…'`, with `'` written as `'\''`.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The shim for `template` calling `binary` (falling back to PATH).
pub fn render_shim(template: &str, binary: &Path) -> String {
    template.replace(BIN_PLACEHOLDER, &sh_quote(&binary.to_string_lossy()))
}

/// Whether a hook file's text is one of ours.
pub fn is_ours(text: &str) -> bool {
    text.lines()
        .take(5)
        .any(|l| l.trim() == MARKER || l.starts_with(MARKER))
}

/// The state of one hook in a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HookState {
    /// Our shim, no foreign hook.
    Installed,
    /// Our shim, running a foreign hook first.
    Chained,
    /// No hook.
    Missing,
    /// Someone else's hook, not chained.
    Foreign,
    /// Our shim is in a folder git does not run because core.hooksPath points elsewhere.
    Bypassed,
}

/// One hook's files and state.
#[derive(Debug, Clone, Serialize)]
pub struct HookStatus {
    pub name: String,
    pub state: HookState,
    pub path: PathBuf,
    /// The foreign hook ours runs first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chained: Option<PathBuf>,
    /// The binary our shim calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
    /// What this command did: written, updated, unchanged, chained, removed, restored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
}

fn chained_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}{CHAINED_SUFFIX}"))
}

/// Reads a hook file; `None` when absent (a dangling symlink counts as
/// present but foreign).
fn read_hook(path: &Path) -> Option<String> {
    let meta = fs::symlink_metadata(path).ok()?;
    if meta.is_dir() {
        return Some(String::new());
    }
    Some(
        fs::read(path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default(),
    )
}

fn recorded_binary(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.strip_prefix("recorded="))
        .map(|v| v.trim_matches('\'').replace(r"'\''", "'"))
}

/// The state of hook `name` in `dir`.
pub fn status_in(dir: &Path, name: &str) -> HookStatus {
    let path = dir.join(name);
    let chained = chained_path(dir, name);
    let has_chained = fs::symlink_metadata(&chained).is_ok();
    let (state, binary) = match read_hook(&path) {
        None => (HookState::Missing, None),
        Some(text) if is_ours(&text) => (
            if has_chained {
                HookState::Chained
            } else {
                HookState::Installed
            },
            recorded_binary(&text),
        ),
        Some(_) => (HookState::Foreign, None),
    };
    HookStatus {
        name: name.to_string(),
        state,
        path,
        chained: (has_chained && state == HookState::Chained).then_some(chained),
        binary,
        change: None,
    }
}

/// Writes our shim for `name` into `dir`, chaining a foreign hook found
/// there. Idempotent: our own shim is rewritten only when it differs.
pub fn install_in(dir: &Path, name: &str, template: &str, binary: &Path) -> Result<HookStatus> {
    fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let path = dir.join(name);
    let chained = chained_path(dir, name);
    let shim = render_shim(template, binary);
    let change = match read_hook(&path) {
        Some(text) if is_ours(&text) => {
            if text == shim && is_executable(&path) {
                "unchanged"
            } else {
                write_executable(&path, &shim)?;
                "updated"
            }
        }
        Some(_) => {
            if fs::symlink_metadata(&chained).is_ok() {
                return Err(Error::HookConflict {
                    path: path.clone(),
                    chained,
                });
            }
            fs::rename(&path, &chained).map_err(|e| Error::io("move aside", &path, e))?;
            write_executable(&path, &shim)?;
            "chained"
        }
        None => {
            write_executable(&path, &shim)?;
            "written"
        }
    };
    let mut status = status_in(dir, name);
    status.change = Some(change.to_string());
    Ok(status)
}

/// Removes our shim for `name` from `dir` and puts a chained foreign hook
/// back. A foreign hook in our place is left alone.
pub fn uninstall_in(dir: &Path, name: &str) -> Result<HookStatus> {
    let path = dir.join(name);
    let chained = chained_path(dir, name);
    let has_chained = fs::symlink_metadata(&chained).is_ok();
    let change = match read_hook(&path) {
        Some(text) if is_ours(&text) => {
            fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
            if has_chained {
                fs::rename(&chained, &path).map_err(|e| Error::io("restore", &chained, e))?;
                "restored"
            } else {
                "removed"
            }
        }
        None if has_chained => {
            fs::rename(&chained, &path).map_err(|e| Error::io("restore", &chained, e))?;
            "restored"
        }
        None => "absent",
        Some(_) => "left foreign hook",
    };
    let mut status = status_in(dir, name);
    status.change = Some(change.to_string());
    Ok(status)
}

fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o777 == 0o755)
}

/// Temp file in the same folder, mode 0755, then rename: a hook is never
/// seen half-written.
fn write_executable(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().expect("hook paths have a folder");
    let mut tmp = tempfile::Builder::new()
        .prefix(".git-evolv-hook")
        .tempfile_in(dir)
        .map_err(|e| Error::io("create a temp file in", dir, e))?;
    tmp.write_all(text.as_bytes())
        .map_err(|e| Error::io("write", tmp.path().to_path_buf(), e))?;
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755))
        .map_err(|e| Error::io("chmod", tmp.path().to_path_buf(), e))?;
    tmp.persist(path)
        .map_err(|e| Error::io("write", path, e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shims_carry_the_marker_and_quote_the_binary() {
        for (name, template) in HOOKS {
            assert!(is_ours(template), "{name}");
            let shim = render_shim(template, Path::new("/opt/it's here/git-evolv"));
            assert!(
                shim.contains(r"recorded='/opt/it'\''s here/git-evolv'"),
                "{shim}"
            );
            assert_eq!(
                recorded_binary(&shim).as_deref(),
                Some("/opt/it's here/git-evolv")
            );
            assert!(shim.contains(&format!("hook={name}")));
        }
        assert!(!is_ours("#!/bin/sh\necho mine\n"));
    }

    #[test]
    fn install_chains_and_uninstall_restores() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("pre-push"), "#!/bin/sh\necho foreign\n").unwrap();
        let bin = Path::new("/usr/bin/git-evolv");
        let s = install_in(d, "pre-push", HOOKS[1].1, bin).unwrap();
        assert_eq!(
            (s.state, s.change.as_deref()),
            (HookState::Chained, Some("chained"))
        );
        let s = install_in(d, "pre-push", HOOKS[1].1, bin).unwrap();
        assert_eq!(s.change.as_deref(), Some("unchanged"));
        let s = uninstall_in(d, "pre-push").unwrap();
        assert_eq!(
            (s.state, s.change.as_deref()),
            (HookState::Foreign, Some("restored"))
        );
        assert_eq!(
            fs::read_to_string(d.join("pre-push")).unwrap(),
            "#!/bin/sh\necho foreign\n"
        );
        assert_eq!(status_in(d, "commit-msg").state, HookState::Missing);
    }

    #[test]
    fn install_refuses_to_overwrite_a_foreign_hook_and_a_chained_one() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("pre-push"), "#!/bin/sh\necho new\n").unwrap();
        fs::write(d.join("pre-push.evolv-chained"), "#!/bin/sh\necho old\n").unwrap();
        let err = install_in(d, "pre-push", HOOKS[1].1, Path::new("/x")).unwrap_err();
        assert_eq!(err.code(), "hook_conflict");
        assert_eq!(
            fs::read_to_string(d.join("pre-push")).unwrap(),
            "#!/bin/sh\necho new\n"
        );
        // Uninstall leaves a foreign hook alone.
        let s = uninstall_in(d, "pre-push").unwrap();
        assert_eq!(s.change.as_deref(), Some("left foreign hook"));
        assert!(d.join("pre-push.evolv-chained").exists());
    }
}
