//! `agent install`: git-evolv's entries appended to the agent's config
//! (`evolv_core::agents::config_text`), the file written whole, the
//! ledger updated first (a crash after it leaves a ledger of a change
//! that may not have happened, which uninstall reads harmlessly), and for
//! Codex the new hooks trusted in config.toml.

use std::path::PathBuf;

use evolv_core::agents::{Agent, config_text};

use super::ledger::{self, Ledger};
use super::{FileChange, Target, codex_trust, settings_file};
use crate::error::{Error, Result};

pub fn run(target: &Target) -> Result<FileChange> {
    let file = &target.file;
    let before = settings_file::read(file)?;
    let installed = config_text::install(target.agent, before.as_deref())
        .map_err(|cause| cannot_edit(target, &cause))?;
    let changed = before.as_deref() != Some(installed.text.as_str());
    if changed {
        let mut record = match (&before, ledger::load(file)) {
            (Some(_), Some(old)) => old,
            _ => Ledger {
                file: file.clone(),
                ..Ledger::default()
            },
        };
        if before.is_none() {
            record.created_file = true;
            record.created_dirs = missing_dirs(file);
        }
        for path in installed.created {
            if !record.created.contains(&path) {
                record.created.push(path);
            }
        }
        ledger::save(&record)?;
        settings_file::write(file, &installed.text)?;
    }
    if target.agent == Agent::Codex {
        codex_trust::trust(target)?;
    }
    Ok(match (changed, before.is_some()) {
        (false, _) => FileChange::Unchanged,
        (true, true) => FileChange::Edited,
        (true, false) => FileChange::Created,
    })
}

/// The folders above `file` that do not exist yet, outermost first.
fn missing_dirs(file: &std::path::Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = file
        .ancestors()
        .skip(1)
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .map(|d| d.to_path_buf())
        .collect();
    dirs.reverse();
    dirs
}

pub fn cannot_edit(target: &Target, cause: &str) -> Error {
    Error::invalid(
        format!(
            "cannot wire {}'s hooks into {}: {cause}",
            target.agent.title(),
            target.file.display()
        ),
        "fix the file (the agent cannot read it either, or it is not shaped as the agent \
         documents), then run the command again; nothing was written",
    )
}
