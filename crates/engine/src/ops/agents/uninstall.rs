//! `agent uninstall`: git-evolv's entries removed, then the containers
//! install created and they leave empty (`ledger`), then the file itself
//! when install created it and nothing else is in it; Codex's trust
//! entries go from config.toml too.

use evolv_core::agents::{Agent, config_text};

use super::install::cannot_edit;
use super::{FileChange, Target, codex_trust, ledger, settings_file};
use crate::error::Result;

pub fn run(target: &Target) -> Result<FileChange> {
    let file = &target.file;
    let record = ledger::load(file);
    if target.agent == Agent::Codex {
        codex_trust::untrust(target, record.as_ref())?;
    }
    let Some(text) = settings_file::read(file)? else {
        ledger::forget(file)?;
        return Ok(FileChange::Missing);
    };
    let created = record.as_ref().map(|r| r.created.as_slice());
    let created_file = record.as_ref().is_some_and(|r| r.created_file);
    let after = config_text::uninstall(target.agent, &text, created, created_file)
        .map_err(|cause| cannot_edit(target, &cause))?;
    let change = match after {
        None => {
            settings_file::delete(file)?;
            // The folders install made, innermost first, where now empty.
            for dir in record.iter().flat_map(|r| r.created_dirs.iter().rev()) {
                let _ = std::fs::remove_dir(dir);
            }
            FileChange::Deleted
        }
        Some(after) if after == text => FileChange::Unchanged,
        Some(after) => {
            settings_file::write(file, &after)?;
            FileChange::Edited
        }
    };
    ledger::forget(file)?;
    Ok(change)
}
