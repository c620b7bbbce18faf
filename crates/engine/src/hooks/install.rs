//! Installing our shim beside whatever hook is there (chaining it, or
//! joining the hook manager that owns it), and removing it again.

use std::fs;
use std::path::Path;

use super::files::{
    Files, copy_if_changed, remove, remove_ours, write_executable, write_if_changed,
};
use super::plan::{self, ChainedFate};
use super::status::status_in;
use super::{CHAINED_SUFFIX, HookStatus, Kind, LEGACY_SUFFIX, OLD_SUFFIX, binary, render_shim};
use crate::error::{Error, Result};

/// Refuses, before anything is touched, what `install_in` would refuse for
/// `name` in `dir`: a hook conflict, or a missing hook binary it must copy.
/// Install checks every hook of every folder first, so a refused install
/// changes nothing.
pub fn check_install_in(dir: &Path, name: &str, binary: &Path) -> Result<()> {
    let f = Files::read(dir, name);
    if let Some(e) = plan::conflict(&f) {
        return Err(e);
    }
    if plan::needs_binary(&f) {
        binary::require(binary)?;
    }
    Ok(())
}

/// Writes our shim for `name` into `dir`, chaining or joining whatever hook
/// is there. Idempotent; repairs the layouts other managers leave behind.
/// `install` is the command the advice in the returned notes names.
pub fn install_in(
    dir: &Path,
    name: &str,
    template: &str,
    binary: &Path,
    install: &str,
) -> Result<HookStatus> {
    let f = Files::read(dir, name);
    if let Some(e) = plan::conflict(&f) {
        return Err(e);
    }
    // Nothing to chain: the hook is a copy of the hook binary, which must
    // be there before anything is touched.
    let copy_from = if plan::needs_binary(&f) {
        Some(binary::require(binary)?)
    } else {
        None
    };
    fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let shim = render_shim(template, binary);
    let change = match f.main_kind() {
        Some(Kind::Ours) => refresh_ours(&f, &shim, copy_from.as_deref())?,
        Some(Kind::PreCommit) => join_pre_commit(&f, &shim)?,
        Some(kind) => chain_foreign(&f, kind, &shim)?,
        None => {
            let had_aside = Files::kind(&f.old) == Some(Kind::Ours)
                || Files::kind(&f.legacy) == Some(Kind::Ours);
            remove_ours(&f, &[OLD_SUFFIX, LEGACY_SUFFIX])?;
            let source = match copy_from {
                Some(source) => source,
                None => binary::require(binary)?,
            };
            binary::copy_to(&source, &f.path(""))?;
            if had_aside { "moved back" } else { "written" }
        }
    };
    let mut status = status_in(dir, name, install);
    status.change = Some(change.to_string());
    Ok(status)
}

/// Our hook is in place: refreshes it (a copy of the hook binary from
/// `copy_from`, else the shim), repairing the loop an older install made.
fn refresh_ours(f: &Files, shim: &str, copy_from: Option<&Path>) -> Result<&'static str> {
    let main = f.path("");
    let chained = f.path(CHAINED_SUFFIX);
    let legacy = f.path(LEGACY_SUFFIX);
    remove_ours(f, &[OLD_SUFFIX, LEGACY_SUFFIX])?;
    Ok(if Files::kind(&f.chained) == Some(Kind::PreCommit) {
        // The loop an older install made (pre-commit's hook chained
        // by us while running our shim as its legacy hook): give
        // pre-commit its place back and be its legacy hook.
        fs::rename(&chained, &main).map_err(|e| Error::io("restore", &chained, e))?;
        write_executable(&legacy, shim)?;
        "repaired: pre-commit's hook is back in place and runs git-evolv's"
    } else if let Some(source) = copy_from {
        copy_if_changed(&main, source, f.main.as_ref().map(|(_, t)| t.as_str()))?
    } else {
        write_if_changed(&main, shim, f.main.as_ref().map(|(_, t)| t.as_str()))?
    })
}

/// pre-commit's hook is in place: our shim becomes its legacy hook, which
/// it runs first (the legacy hook it had is chained).
fn join_pre_commit(f: &Files, shim: &str) -> Result<&'static str> {
    let chained = f.path(CHAINED_SUFFIX);
    let legacy = f.path(LEGACY_SUFFIX);
    remove_ours(f, &[OLD_SUFFIX])?;
    if Files::kind(&f.chained) == Some(Kind::PreCommit) {
        remove(&chained)?;
    }
    Ok(match Files::kind(&f.legacy) {
        Some(Kind::Ours) => {
            write_if_changed(&legacy, shim, f.legacy.as_ref().map(|(_, t)| t.as_str()))?
        }
        Some(_) => {
            // `plan::conflict` refused a chained hook in the way.
            fs::rename(&legacy, &chained).map_err(|e| Error::io("move aside", &legacy, e))?;
            write_executable(&legacy, shim)?;
            "joined pre-commit (its legacy hook is chained)"
        }
        None => {
            write_executable(&legacy, shim)?;
            "joined pre-commit"
        }
    })
}

/// Another hook (`kind`) is in place: it moves aside to be chained, and our
/// shim takes its place (`plan::chained_fate` says what becomes of the hook
/// chained before; `install_in` refused a conflict).
fn chain_foreign(f: &Files, kind: Kind, shim: &str) -> Result<&'static str> {
    let main = f.path("");
    let chained = f.path(CHAINED_SUFFIX);
    match plan::chained_fate(f, kind) {
        ChainedFate::BackToOld => {
            remove_ours(f, &[LEGACY_SUFFIX])?;
            // Replaces our shim at `.old` in one step.
            let old = f.path(OLD_SUFFIX);
            fs::rename(&chained, &old).map_err(|e| Error::io("move aside", &chained, e))?;
        }
        fate => {
            remove_ours(f, &[OLD_SUFFIX, LEGACY_SUFFIX])?;
            if fate == ChainedFate::Drop {
                remove(&chained)?;
            }
        }
    }
    fs::rename(&main, &chained).map_err(|e| Error::io("move aside", &main, e))?;
    write_executable(&main, shim)?;
    Ok("chained")
}

/// Removes our shim for `name` from `dir` wherever it is, and puts the hook
/// it chained back where it was. Another manager's hook is left working.
pub fn uninstall_in(dir: &Path, name: &str, install: &str) -> Result<HookStatus> {
    let f = Files::read(dir, name);
    let main = f.path("");
    let chained = f.path(CHAINED_SUFFIX);
    let has_chained = f.chained.is_some();
    let ours_at = |slot: &Option<(Kind, String)>| Files::kind(slot) == Some(Kind::Ours);
    let change = match f.main_kind() {
        Some(Kind::Ours) => {
            remove(&main)?;
            remove_ours(&f, &[OLD_SUFFIX, LEGACY_SUFFIX])?;
            if has_chained {
                fs::rename(&chained, &main).map_err(|e| Error::io("restore", &chained, e))?;
                "restored"
            } else {
                "removed"
            }
        }
        main_kind => {
            let aside = [LEGACY_SUFFIX, OLD_SUFFIX].into_iter().find(|s| {
                ours_at(if *s == LEGACY_SUFFIX {
                    &f.legacy
                } else {
                    &f.old
                })
            });
            match aside {
                Some(suffix) => {
                    let at = f.path(suffix);
                    remove(&at)?;
                    remove_ours(&f, &[OLD_SUFFIX, LEGACY_SUFFIX])?;
                    if let Some((ckind, _)) = &f.chained {
                        if Some(*ckind) == main_kind && ckind.is_manager() {
                            remove(&chained)?;
                        } else {
                            // The hook our shim chained goes back where the
                            // manager keeps the hook it found.
                            fs::rename(&chained, &at)
                                .map_err(|e| Error::io("restore", &chained, e))?;
                        }
                    }
                    "removed"
                }
                None if main_kind.is_none() && has_chained => {
                    fs::rename(&chained, &main).map_err(|e| Error::io("restore", &chained, e))?;
                    "restored"
                }
                None if has_chained
                    && f.chained.as_ref().map(|(k, _)| *k) == main_kind
                    && main_kind.is_some_and(Kind::is_manager) =>
                {
                    // A manager wrote over our shim; its old stub is ours to drop.
                    remove(&chained)?;
                    "removed a leftover copy"
                }
                None => "not installed",
            }
        }
    };
    let mut status = status_in(dir, name, install);
    status.change = Some(change.to_string());
    Ok(status)
}
