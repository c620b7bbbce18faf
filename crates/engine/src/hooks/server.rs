//! The server hooks of a bare repository (issue 28): `proc-receive` takes
//! pushes to `refs/for/<branch>` and lands them, `pre-receive` guards the
//! protected branches against direct pushes. Both are small sh shims that
//! exec the installing `git-evolv` (not the hook binary: they need the
//! landing engine). `install` also sets the config git needs to call
//! `proc-receive` and to pass push options to it.

use std::fs;
use std::path::Path;

use super::executable::replace_with_executable;
use super::{BIN_PLACEHOLDER, HookState, HookStatus, sh_quote, status_in};
use crate::error::{Error, Result};
use crate::git::process::cli;

/// The server hooks, in the order git runs them.
pub const SERVER_HOOKS: [&str; 2] = ["pre-receive", "proc-receive"];

const TEMPLATE: &str = include_str!("../../hooks/server-hook");

/// The command that installs them, for advice.
pub const INSTALL_SERVER: &str = "git evolv hooks install --server";

/// The config `install --server` sets: which refs git hands to
/// `proc-receive`, and that a pusher may send push options (`-o`).
pub const SERVER_CONFIG: [(&str, &str); 2] = [
    ("receive.procReceiveRefs", "refs/for"),
    ("receive.advertisePushOptions", "true"),
];

/// A value `install --server` adds to a multi-valued key beside the
/// admin's own: refused pushes (`refs/evolv/refused/`) are advertised to
/// no one (issue 38 item 4).
pub const SERVER_HIDDEN: (&str, &str) = ("transfer.hideRefs", "refs/evolv/refused");

/// The shim for server hook `name`, calling `binary`.
pub fn render(name: &str, binary: &Path) -> String {
    TEMPLATE
        .replace("@HOOK_NAME@", name)
        .replace(BIN_PLACEHOLDER, &sh_quote(&binary.to_string_lossy()))
}

/// Installs both shims in `hooks_dir` and sets the config in the bare
/// repository `git_dir`. A foreign hook in the way is refused before
/// anything is written.
pub fn install(git_dir: &Path, hooks_dir: &Path, binary: &Path) -> Result<Vec<HookStatus>> {
    for name in SERVER_HOOKS {
        let path = hooks_dir.join(name);
        if let Ok(text) = fs::read(&path)
            && !super::is_ours(&String::from_utf8_lossy(&text))
        {
            return Err(Error::invalid(
                format!(
                    "{} is not git-evolv's hook: refusing to overwrite it",
                    path.display()
                ),
                format!(
                    "merge it by hand (call it from a hook of your own that then runs `{} hook {name}`), or move it away and run `{INSTALL_SERVER}` again",
                    binary.display()
                ),
            ));
        }
    }
    fs::create_dir_all(hooks_dir).map_err(|e| Error::io("create", hooks_dir, e))?;
    let mut out = Vec::new();
    for name in SERVER_HOOKS {
        let path = hooks_dir.join(name);
        let shim = render(name, binary);
        let before = fs::read_to_string(&path).ok();
        let change = if before.as_deref() == Some(shim.as_str()) {
            "unchanged"
        } else {
            replace_with_executable(&path, shim.as_bytes(), true)?;
            if before.is_some() {
                "updated"
            } else {
                "written"
            }
        };
        let mut status = status_in(hooks_dir, name, INSTALL_SERVER);
        status.change = Some(change.into());
        out.push(status);
    }
    for (key, value) in SERVER_CONFIG {
        cli::run(git_dir, &["config", key, value])?;
    }
    // Added once, whatever other values the key has (`git config <key>
    // <value> <value-pattern>` replaces only the lines the pattern matches).
    let (key, value) = SERVER_HIDDEN;
    cli::run(
        git_dir,
        &["config", key, value, &format!("^{}$", regex_escape(value))],
    )?;
    Ok(out)
}

/// Removes our server shims from `hooks_dir` (a foreign hook is left
/// alone) and the config `install` set.
pub fn uninstall(git_dir: &Path, hooks_dir: &Path) -> Result<Vec<HookStatus>> {
    let mut out = Vec::new();
    for name in SERVER_HOOKS {
        let path = hooks_dir.join(name);
        let ours = fs::read(&path).is_ok_and(|t| super::is_ours(&String::from_utf8_lossy(&t)));
        let change = if ours {
            fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
            "removed"
        } else {
            "not installed"
        };
        let mut status = status_in(hooks_dir, name, INSTALL_SERVER);
        status.change = Some(change.into());
        out.push(status);
    }
    for (key, value) in SERVER_CONFIG.into_iter().chain([SERVER_HIDDEN]) {
        // Only the value we set: a value of the admin's own stays.
        let _ = cli::run(
            git_dir,
            &[
                "config",
                "--unset",
                key,
                &format!("^{}$", regex_escape(value)),
            ],
        );
    }
    Ok(out)
}

/// The server hooks' states in `hooks_dir`.
pub fn status(hooks_dir: &Path) -> Vec<HookStatus> {
    SERVER_HOOKS
        .iter()
        .map(|name| {
            let mut s = status_in(hooks_dir, name, INSTALL_SERVER);
            if s.state == HookState::Installed {
                s.runs = true;
            }
            s
        })
        .collect()
}

/// Whether any server hook of ours is in `hooks_dir`.
pub fn any_installed(hooks_dir: &Path) -> bool {
    SERVER_HOOKS.iter().any(|name| {
        fs::read(hooks_dir.join(name)).is_ok_and(|t| super::is_ours(&String::from_utf8_lossy(&t)))
    })
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if c.is_ascii_alphanumeric() {
                vec![c]
            } else {
                vec!['\\', c]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shims_quote_the_binary_and_name_their_hook() {
        let shim = render("proc-receive", Path::new("/opt/it's/git-evolv"));
        assert!(super::super::is_ours(&shim));
        assert!(shim.contains("hook=proc-receive\n"), "{shim}");
        assert!(
            shim.contains(r"recorded='/opt/it'\''s/git-evolv'"),
            "{shim}"
        );
        assert!(shim.contains(r#"exec "$recorded" hook "$hook""#));
    }
}
