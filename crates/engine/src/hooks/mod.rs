//! The hook shims and the files in a hooks folder: writing ours, chaining
//! the hook that was there, living beside the hook managers people use
//! (pre-commit, lefthook, husky) in either install order, and removing
//! exactly what is ours. The shims (`crates/engine/hooks/`) hold no decisions:
//! they run the chained hook, then `git-evolv hook <name>`. Which folder to
//! use is decided by `ops::commits::hooks`.
//!
//! Where our shim can be, per hook `N` in folder `D`:
//! - `D/N`: git runs it; a foreign hook that was there is `D/N.evolv-chained`
//!   and runs first, with `$0` still `D/N` for shell scripts.
//! - `D/N.legacy` under pre-commit's `D/N`: pre-commit runs it first
//!   ("migration mode"), and `pre-commit uninstall` puts it back at `D/N`.
//! - `D/N.old` under lefthook's `D/N`: lefthook moved it there and never
//!   runs it. Our shim is not running; `install` chains lefthook instead.

use std::path::{Path, PathBuf};

use serde::Serialize;

pub mod binary;
mod executable;
mod files;
mod install;
pub mod invocation;
pub mod kind;
mod plan;
pub mod record;
pub mod server;
mod status;

pub use install::{check_install_in, install_in, uninstall_in};
pub use kind::{Kind, MARKER, is_ours};
pub use status::status_in;

/// The hooks git-evolv installs, with their shim templates.
pub const HOOKS: [(&str, &str); 2] = [
    ("commit-msg", include_str!("../../hooks/commit-msg")),
    ("pre-push", include_str!("../../hooks/pre-push")),
];

pub(crate) const BIN_PLACEHOLDER: &str = "@GIT_EVOLV_BIN@";

/// Suffix of a foreign hook our shim runs first: `pre-push.evolv-chained`.
/// Kept in the hooks folder itself, so `lefthook uninstall` (which deletes
/// every lefthook file there) removes a chained lefthook hook too.
pub const CHAINED_SUFFIX: &str = ".evolv-chained";
/// Where pre-commit keeps the hook it found, and runs first.
pub const LEGACY_SUFFIX: &str = ".legacy";
/// Where lefthook moves the hook it found (and never runs it).
pub const OLD_SUFFIX: &str = ".old";

/// The command that installs git-evolv's hooks where git runs them, as
/// the advice in a hook's notes names it: with core.hooksPath set (to
/// another folder), only `--hooks-path` installs where git looks.
pub const INSTALL: &str = "git evolv hooks install";
pub const INSTALL_HOOKS_PATH: &str = "git evolv hooks install --hooks-path";

/// Quotes a string for sh: `'…'`, with `'` written as `'\''`.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The shim for `template` calling `binary` (falling back to PATH).
pub fn render_shim(template: &str, binary: &Path) -> String {
    template.replace(BIN_PLACEHOLDER, &sh_quote(&binary.to_string_lossy()))
}

/// The state of one hook in a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HookState {
    /// Our shim, no foreign hook.
    Installed,
    /// Our shim, running a foreign hook first.
    Chained,
    /// Our shim at `<hook>.legacy`, run by pre-commit's hook first.
    RunByManager,
    /// Our shim exists but git does not run it: a hook manager moved it
    /// aside (`.old`) or wrote its own hook over it.
    NotRunning,
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
    /// The file git runs for this hook.
    pub path: PathBuf,
    /// Whether git-evolv's check runs when git runs this hook.
    pub runs: bool,
    /// Our shim, when it is not at `path` (`.legacy`, `.old`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shim: Option<PathBuf>,
    /// The hook manager whose hook is at `path` or chained.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manager: Option<&'static str>,
    /// The foreign hook ours runs first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chained: Option<PathBuf>,
    /// The binary our shim calls (or, in the layout of older versions, the
    /// `git-evolv` our link points to).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
    /// The version of our copy of `git-evolv-hook`, when that is our hook.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Whether our hook is out of date (a copy of another build of
    /// `git-evolv-hook`, or a link to `git-evolv` as older versions
    /// installed): `git evolv hooks install` refreshes it. Only for those.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<bool>,
    /// What this command did: written, updated, unchanged, chained, removed, restored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
    /// What was checked about what runs, and what to do when it does not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::status::recorded_binary;
    use super::*;
    use std::fs;

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
        let s = install_in(d, "pre-push", HOOKS[1].1, bin, INSTALL).unwrap();
        assert_eq!(
            (s.state, s.change.as_deref()),
            (HookState::Chained, Some("chained"))
        );
        let s = install_in(d, "pre-push", HOOKS[1].1, bin, INSTALL).unwrap();
        assert_eq!(s.change.as_deref(), Some("unchanged"));
        let s = uninstall_in(d, "pre-push", INSTALL).unwrap();
        assert_eq!(
            (s.state, s.change.as_deref()),
            (HookState::Foreign, Some("restored"))
        );
        assert_eq!(
            fs::read_to_string(d.join("pre-push")).unwrap(),
            "#!/bin/sh\necho foreign\n"
        );
        assert_eq!(
            status_in(d, "commit-msg", INSTALL).state,
            HookState::Missing
        );
    }

    #[test]
    fn install_chains_the_hook_a_manager_moved_ours_from() {
        // lefthook moved our shim, which chained husky's stub, to `.old`:
        // the stub takes its place there, lefthook's hook is chained.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let stub = "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"";
        fs::write(d.join("commit-msg.evolv-chained"), stub).unwrap();
        fs::write(
            d.join("commit-msg.old"),
            render_shim(HOOKS[0].1, Path::new("/x")),
        )
        .unwrap();
        fs::write(d.join("commit-msg"), "#!/bin/sh\n# LEFTHOOK\n").unwrap();
        let s = install_in(d, "commit-msg", HOOKS[0].1, Path::new("/x"), INSTALL).unwrap();
        assert_eq!(s.state, HookState::Chained);
        assert_eq!(fs::read_to_string(d.join("commit-msg.old")).unwrap(), stub);
        let chained = fs::read_to_string(d.join("commit-msg.evolv-chained")).unwrap();
        assert!(chained.contains("LEFTHOOK"));
    }

    #[test]
    fn install_refuses_to_overwrite_a_foreign_hook_and_a_chained_one() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("pre-push"), "#!/bin/sh\necho new\n").unwrap();
        fs::write(d.join("pre-push.evolv-chained"), "#!/bin/sh\necho old\n").unwrap();
        // Our shim set aside stays too: a refused install changes nothing.
        let shim = render_shim(HOOKS[1].1, Path::new("/x"));
        fs::write(d.join("pre-push.legacy"), &shim).unwrap();
        let err = install_in(d, "pre-push", HOOKS[1].1, Path::new("/x"), INSTALL).unwrap_err();
        assert_eq!(err.code(), "hook_conflict");
        assert_eq!(
            fs::read_to_string(d.join("pre-push")).unwrap(),
            "#!/bin/sh\necho new\n"
        );
        assert_eq!(fs::read_to_string(d.join("pre-push.legacy")).unwrap(), shim);
        fs::remove_file(d.join("pre-push.legacy")).unwrap();
        // Uninstall leaves a foreign hook alone.
        let s = uninstall_in(d, "pre-push", INSTALL).unwrap();
        assert_eq!(s.change.as_deref(), Some("not installed"));
        assert!(d.join("pre-push.evolv-chained").exists());
    }
}
