//! `hooks install | uninstall | status`: where git runs this repository's
//! hooks (`git rev-parse --git-path hooks`: the common git dir's `hooks/`,
//! shared by linked worktrees; a submodule's own git dir), and what
//! `core.hooksPath` changes about that.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::process::cli::Git;
use crate::hooks::{self, HOOKS, HookState, HookStatus};

use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::ops::settings::Settings;

/// `core.hooksPath` when set: its value, the folder it names, and where it
/// was set (`git config --show-origin --show-scope`).
#[derive(Debug, Clone, Serialize)]
pub struct HooksPath {
    pub value: String,
    pub dir: PathBuf,
    pub origin: String,
}

/// What `hooks` should do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HooksAction {
    /// Install the commit-msg and pre-push shims (idempotent).
    Install,
    /// Remove them, restoring chained hooks.
    Uninstall,
    /// Report each hook's state.
    #[default]
    Status,
}

/// A `hooks` request.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HooksRequest {
    /// install, uninstall or status (the default).
    #[serde(default)]
    pub action: HooksAction,
    /// Install into (or remove from) the folder `core.hooksPath` names
    /// instead of refusing when it is set.
    #[serde(default)]
    pub use_hooks_path: bool,
    /// Install the server hooks of a bare repository (`proc-receive`,
    /// `pre-receive`) instead of the client ones.
    #[serde(default)]
    pub server: bool,
}

/// The outcome of install, uninstall and status.
#[derive(Debug, Clone, Serialize)]
pub struct HooksOutcome {
    /// The folder acted on (or, for status, the folder git runs hooks from).
    pub hooks_dir: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hooks_path: Option<HooksPath>,
    pub hooks: Vec<HookStatus>,
}

/// The default hooks folder: `<common git dir>/hooks`.
fn default_hooks_dir(git: &Git) -> Result<PathBuf> {
    Ok(git.common_dir()?.join("hooks"))
}

/// `core.hooksPath`, resolved as git does: `~/` from HOME, a relative path
/// from the top of the working tree (where hooks run).
fn hooks_path(git: &Git, settings: &Settings) -> Result<Option<HooksPath>> {
    let Some((value, origin)) = settings.hooks_path() else {
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

/// Which command is asking, for hints that fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Install,
}

/// Where install and uninstall act: the default folder, or core.hooksPath's
/// when `use_hooks_path`; with core.hooksPath set and no `use_hooks_path`,
/// git would never run hooks from the default folder, so refuse. A
/// core.hooksPath naming the default folder itself is no detour.
fn target_dir(
    git: &Git,
    settings: &Settings,
    use_hooks_path: bool,
    action: Action,
) -> Result<(PathBuf, Option<HooksPath>)> {
    let default = default_hooks_dir(git)?;
    match hooks_path(git, settings)? {
        Some(hp) if same_dir(&hp.dir, &default) => Ok((default, Some(hp))),
        Some(hp) if use_hooks_path => {
            if action == Action::Install {
                refuse_tracked(git, &hp.dir)?;
            }
            Ok((hp.dir.clone(), Some(hp)))
        }
        Some(hp) => {
            let hint = hooks_path_hint(&hp, action);
            Err(Error::HooksPathSet {
                value: hp.value,
                origin: hp.origin,
                hint,
            })
        }
        None => Ok((default, None)),
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// A hint that works when followed: `--hooks-path` for the command that
/// was run, and `git config --unset` with the scope the value was set in.
fn hooks_path_hint(hp: &HooksPath, action: Action) -> String {
    let scope = hp.origin.split_whitespace().next().unwrap_or("");
    let Action::Install = action;
    let unset = match scope {
        "global" => "git config --global --unset-all core.hooksPath".to_string(),
        "system" => "sudo git config --system --unset-all core.hooksPath".to_string(),
        "worktree" => "git config --worktree --unset-all core.hooksPath".to_string(),
        "local" => "git config --local --unset-all core.hooksPath".to_string(),
        "command" => {
            "drop `-c core.hooksPath=…` (or GIT_CONFIG_PARAMETERS) from the command".to_string()
        }
        _ => format!(
            "git config --unset-all core.hooksPath in the file shown ({})",
            hp.origin
        ),
    };
    format!(
        "install into that folder with `git evolv hooks install --hooks-path`, or stop using it: `{unset}`"
    )
}

/// Refuses a folder that git tracks: a shim there would be committed.
fn refuse_tracked(git: &Git, dir: &Path) -> Result<()> {
    let tracked = git.tracked_under(dir, 3)?;
    if tracked.is_empty() {
        return Ok(());
    }
    Err(Error::HooksFolderTracked {
        dir: dir.to_path_buf(),
        tracked: tracked.join(", "),
    })
}

/// The install command that works here, for the advice in notes: with
/// core.hooksPath naming another folder, plain `install` is refused.
fn install_command(hooks_path: Option<&HooksPath>, default: &Path) -> &'static str {
    match hooks_path {
        Some(hp) if !same_dir(&hp.dir, default) => hooks::INSTALL_HOOKS_PATH,
        _ => hooks::INSTALL,
    }
}

/// Installs the shims calling `binary`. Every hook of every folder is
/// checked first, so a refused install changes nothing.
fn install(
    git: &Git,
    settings: &Settings,
    binary: &Path,
    use_hooks_path: bool,
) -> Result<HooksOutcome> {
    let (dir, hooks_path) = target_dir(git, settings, use_hooks_path, Action::Install)?;
    let default = default_hooks_dir(git)?;
    let advice = install_command(hooks_path.as_ref(), &default);
    // Also in the default folder: when core.hooksPath goes away (husky is
    // removed with `git config --unset core.hooksPath`), git runs hooks
    // from there, and git-evolv keeps running.
    let also_default = !same_dir(&dir, &default);
    let dirs = if also_default {
        vec![dir.clone(), default.clone()]
    } else {
        vec![dir.clone()]
    };
    for d in &dirs {
        for (name, _) in HOOKS {
            hooks::check_install_in(d, name, binary)?;
        }
    }
    if also_default {
        // Before writing there: `uninstall` finds this folder though
        // core.hooksPath no longer names it.
        hooks::record::add(&git.common_dir()?, std::slice::from_ref(&dir))?;
    }
    let mut hooks = HOOKS
        .iter()
        .map(|(name, template)| hooks::install_in(&dir, name, template, binary, advice))
        .collect::<Result<Vec<_>>>()?;
    if also_default {
        for (name, template) in HOOKS {
            let mut status = hooks::install_in(&default, name, template, binary, advice)?;
            status.state = HookState::Bypassed;
            status.runs = false;
            status.notes.push(
                "kept in the default folder too: git runs it once core.hooksPath is unset".into(),
            );
            hooks.push(status);
        }
    }
    Ok(HooksOutcome {
        hooks_dir: dir,
        hooks_path,
        hooks,
    })
}

/// Removes the shims from every folder this repository's hooks can be in
/// (core.hooksPath's, the default one, and every folder `install` recorded,
/// though core.hooksPath no longer names it), wherever another manager
/// moved them, and restores chained hooks: after it, no git-evolv hook is
/// left to come back when core.hooksPath changes. `use_hooks_path` is
/// accepted for older scripts and changes nothing.
fn uninstall(git: &Git, settings: &Settings, _use_hooks_path: bool) -> Result<HooksOutcome> {
    let default = default_hooks_dir(git)?;
    let common_dir = git.common_dir()?;
    let hooks_path = hooks_path(git, settings)?;
    let advice = install_command(hooks_path.as_ref(), &default);
    let mut dirs = vec![default.clone()];
    if let Some(hp) = hooks_path
        .as_ref()
        .filter(|hp| !same_dir(&hp.dir, &default))
    {
        dirs.insert(0, hp.dir.clone());
    }
    for recorded in hooks::record::folders(&common_dir) {
        if !dirs.iter().any(|d| same_dir(d, &recorded)) {
            dirs.push(recorded);
        }
    }
    let mut hooks = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        for (name, _) in HOOKS {
            let status = hooks::uninstall_in(dir, name, advice)?;
            // A folder git does not run is shown only when something changed there.
            if i == 0 || status.change.as_deref() != Some("not installed") {
                hooks.push(status);
            }
        }
    }
    hooks::record::clear(&common_dir)?;
    Ok(HooksOutcome {
        hooks_dir: dirs[0].clone(),
        hooks_path,
        hooks,
    })
}

/// Each hook's state in the folder git runs hooks from; shims of ours in
/// the default folder that core.hooksPath hides are `bypassed`.
fn status(git: &Git, settings: &Settings) -> Result<HooksOutcome> {
    let default_dir = default_hooks_dir(git)?;
    let hooks_path = hooks_path(git, settings)?;
    let active = hooks_path
        .as_ref()
        .filter(|hp| !same_dir(&hp.dir, &default_dir))
        .map_or(default_dir.clone(), |hp| hp.dir.clone());
    let advice = install_command(hooks_path.as_ref(), &default_dir);
    let hooks = HOOKS
        .iter()
        .map(|(name, _)| {
            let mut status = hooks::status_in(&active, name, advice);
            if active != default_dir
                && matches!(status.state, HookState::Missing | HookState::Foreign)
            {
                let hidden = hooks::status_in(&default_dir, name, advice);
                if matches!(
                    hidden.state,
                    HookState::Installed | HookState::Chained | HookState::RunByManager
                ) {
                    let mut notes = hidden.notes.clone();
                    notes.push(format!(
                        "core.hooksPath makes git run hooks from {} instead: `git evolv hooks install --hooks-path` installs there",
                        active.display()
                    ));
                    status = HookStatus {
                        state: HookState::Bypassed,
                        runs: false,
                        notes,
                        ..hidden
                    };
                }
            }
            status
        })
        .collect();
    Ok(HooksOutcome {
        hooks_dir: active,
        hooks_path,
        hooks,
    })
}

/// `hooks` in the repository around `dir`, opened with git itself
/// (SHA-256 repositories work), with the session's settings
/// (`core.hooksPath`); installs shims calling this executable.
pub fn run(dir: &Path, settings: &Settings, req: &HooksRequest) -> Result<HooksOutcome> {
    let git = Git::open(dir)?;
    match req.action {
        HooksAction::Install => {
            let binary = std::env::current_exe()
                .map_err(|e| Error::io("locate", "the git-evolv executable", e))?;
            if req.server {
                return install_server(&git, &binary);
            }
            install(&git, settings, &binary, req.use_hooks_path)
        }
        HooksAction::Uninstall => {
            let server_dir = default_hooks_dir(&git)?;
            let server = hooks::server::any_installed(&server_dir);
            let mut outcome = uninstall(&git, settings, req.use_hooks_path)?;
            if server {
                let common = git.common_dir()?;
                outcome
                    .hooks
                    .extend(hooks::server::uninstall(&common, &server_dir)?);
            }
            Ok(outcome)
        }
        HooksAction::Status => {
            let mut outcome = status(&git, settings)?;
            let server_dir = default_hooks_dir(&git)?;
            if git.is_bare() || hooks::server::any_installed(&server_dir) {
                outcome.hooks.extend(hooks::server::status(&server_dir));
            }
            Ok(outcome)
        }
    }
}

/// `install --server`: the server hooks, in the bare repository git
/// serves (a repository with a work tree takes no pushes to its branch).
fn install_server(git: &Git, binary: &Path) -> Result<HooksOutcome> {
    if !git.is_bare() {
        return Err(Error::invalid(
            format!(
                "{} is not a bare repository: the server hooks belong in the repository git serves",
                git.git_dir().display()
            ),
            "run `git evolv hooks install --server` in the bare repository (`git init --bare`, or `git clone --bare`); in a clone, `git evolv hooks install` installs the client hooks",
        ));
    }
    let dir = default_hooks_dir(git)?;
    let hooks = hooks::server::install(&git.common_dir()?, &dir, binary)?;
    Ok(HooksOutcome {
        hooks_dir: dir,
        hooks_path: None,
        hooks,
    })
}

impl UseCase for HooksRequest {
    const OPEN: Open = Open::NoRepository;
    type Outcome = HooksOutcome;

    fn run(&self, session: &Session) -> Result<HooksOutcome> {
        run(session.dir(), session.settings()?, self)
    }
}
