//! `hooks install | uninstall | status`: where git runs this repository's
//! hooks (`git rev-parse --git-path hooks`: the common git dir's `hooks/`,
//! shared by linked worktrees; a submodule's own git dir), and what
//! `core.hooksPath` changes about that.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::cli::Git;
use crate::hooks::{self, HOOKS, HookState, HookStatus};

/// `core.hooksPath` when set: its value, the folder it names, and where it
/// was set (`git config --show-origin --show-scope`).
#[derive(Debug, Clone, Serialize)]
pub struct HooksPath {
    pub value: String,
    pub dir: PathBuf,
    pub origin: String,
}

/// The outcome of install, uninstall and status.
#[derive(Debug, Clone, Serialize)]
pub struct HooksOutcome {
    pub success: bool,
    /// The folder acted on (or, for status, the folder git runs hooks from).
    pub hooks_dir: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hooks_path: Option<HooksPath>,
    pub hooks: Vec<HookStatus>,
}

/// The default hooks folder: `<common git dir>/hooks`.
pub fn default_hooks_dir(git: &Git) -> Result<PathBuf> {
    Ok(git.common_dir()?.join("hooks"))
}

/// `core.hooksPath`, resolved as git does: `~/` from HOME, a relative path
/// from the top of the working tree (where hooks run).
pub fn hooks_path(git: &Git) -> Result<Option<HooksPath>> {
    let Some((value, origin)) = git.config()?.hooks_path() else {
        return Ok(None);
    };
    if value.is_empty() {
        return Ok(None);
    }
    let dir = match git.toplevel() {
        Some(top) => top,
        None => git.common_dir()?,
    };
    let resolved = if let Some(rest) = value.strip_prefix("~/") {
        std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(rest))
            .unwrap_or_else(|| PathBuf::from(&value))
    } else if Path::new(&value).is_absolute() {
        PathBuf::from(&value)
    } else {
        dir.join(&value)
    };
    Ok(Some(HooksPath {
        value,
        dir: resolved,
        origin,
    }))
}

/// Where install and uninstall act: the default folder, or core.hooksPath's
/// when `use_hooks_path`; with core.hooksPath set and no `use_hooks_path`,
/// git would never run hooks from the default folder, so refuse.
fn target_dir(git: &Git, use_hooks_path: bool) -> Result<(PathBuf, Option<HooksPath>)> {
    match hooks_path(git)? {
        Some(hp) if use_hooks_path => Ok((hp.dir.clone(), Some(hp))),
        Some(hp) => Err(Error::HooksPathSet {
            value: hp.value,
            origin: hp.origin,
        }),
        None => Ok((default_hooks_dir(git)?, None)),
    }
}

/// Installs the shims calling `binary`.
pub fn install(git: &Git, binary: &Path, use_hooks_path: bool) -> Result<HooksOutcome> {
    let (dir, hooks_path) = target_dir(git, use_hooks_path)?;
    let hooks = HOOKS
        .iter()
        .map(|(name, template)| hooks::install_in(&dir, name, template, binary))
        .collect::<Result<Vec<_>>>()?;
    Ok(HooksOutcome {
        success: true,
        hooks_dir: dir,
        hooks_path,
        hooks,
    })
}

/// Removes the shims and restores chained hooks.
pub fn uninstall(git: &Git, use_hooks_path: bool) -> Result<HooksOutcome> {
    let (dir, hooks_path) = target_dir(git, use_hooks_path)?;
    let hooks = HOOKS
        .iter()
        .map(|(name, _)| hooks::uninstall_in(&dir, name))
        .collect::<Result<Vec<_>>>()?;
    Ok(HooksOutcome {
        success: true,
        hooks_dir: dir,
        hooks_path,
        hooks,
    })
}

/// Each hook's state in the folder git runs hooks from; shims of ours in
/// the default folder that core.hooksPath hides are `bypassed`.
pub fn status(git: &Git) -> Result<HooksOutcome> {
    let default_dir = default_hooks_dir(git)?;
    let hooks_path = hooks_path(git)?;
    let active = hooks_path
        .as_ref()
        .map_or(default_dir.clone(), |hp| hp.dir.clone());
    let hooks = HOOKS
        .iter()
        .map(|(name, _)| {
            let mut status = hooks::status_in(&active, name);
            if active != default_dir
                && matches!(status.state, HookState::Missing | HookState::Foreign)
            {
                let hidden = hooks::status_in(&default_dir, name);
                if matches!(hidden.state, HookState::Installed | HookState::Chained) {
                    status = HookStatus {
                        state: HookState::Bypassed,
                        ..hidden
                    };
                }
            }
            status
        })
        .collect();
    Ok(HooksOutcome {
        success: true,
        hooks_dir: active,
        hooks_path,
        hooks,
    })
}
