//! `agent install | uninstall | status <agent>` (issue 40 item 1): wires
//! git-evolv's checkpoint hook into a coding agent's own hook config, at
//! project scope (the repository's `.claude/settings.json`,
//! `.codex/hooks.json`, `.gemini/settings.json`, `.cursor/hooks.json`) or
//! the user's (`--user`). Install appends git-evolv's entries and touches
//! nothing else of the file; uninstall removes exactly them, so a file
//! nobody edited in between comes back byte for byte (`ledger` remembers
//! which containers install created, and whether it created the file).
//! Codex runs a hook only when its hash is trusted in the user's
//! config.toml: install trusts the hooks it wrote (`codex_trust`), status
//! says which are trusted, untrusted or modified since.

mod codex_trust;
mod install;
mod ledger;
mod locate;
mod needs;
mod settings_file;
mod status;
mod uninstall;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use evolv_core::agents::Agent;

use crate::error::Result;
use crate::ops::session::{Open, Session, UseCase};

/// What `agent` should do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AgentAction {
    /// Wire the hooks (idempotent).
    Install,
    /// Remove exactly what install added.
    Uninstall,
    /// Report which events are wired and what the agent needs.
    #[default]
    Status,
}

/// An `agent` request.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentRequest {
    pub agent: Agent,
    #[serde(default)]
    pub action: AgentAction,
    /// The user's config (`~/.claude/settings.json`, …) instead of the
    /// repository's.
    #[serde(default)]
    pub user: bool,
}

/// What happened to the agent's config file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileChange {
    Created,
    Edited,
    Deleted,
    Unchanged,
    /// There is no such file (status, or uninstall with nothing to do).
    Missing,
}

/// One event git-evolv wires, and whether it is wired.
#[derive(Debug, Clone, Serialize)]
pub struct EventState {
    pub event: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// turn-start, after-tool or stop.
    pub checkpoint: evolv_core::agents::wiring::Moment,
    pub wired: bool,
    /// Codex only: whether Codex will run it (trusted, untrusted, modified).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust: Option<String>,
}

/// The outcome of install, uninstall and status.
#[derive(Debug, Clone, Serialize)]
pub struct AgentOutcome {
    pub agent: Agent,
    /// project or user.
    pub scope: &'static str,
    pub file: PathBuf,
    pub change: FileChange,
    pub events: Vec<EventState>,
    /// The agent's version, where its command is on PATH.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What the agent needs for the hooks to run, and what was done about
    /// it (trust, feature flags, a restart).
    pub notes: Vec<String>,
}

/// `agent` edits the agent's config files around the repository, never
/// the repository itself: it needs none opened, only where it runs.
impl UseCase for AgentRequest {
    const OPEN: Open = Open::NoRepository;
    type Outcome = AgentOutcome;

    fn run(&self, session: &Session) -> Result<AgentOutcome> {
        run(session.dir(), self)
    }
}

/// Runs the request from `dir`.
fn run(dir: &Path, req: &AgentRequest) -> Result<AgentOutcome> {
    let target = locate::target(dir, req.agent, req.user)?;
    let change = match req.action {
        AgentAction::Install => install::run(&target)?,
        AgentAction::Uninstall => uninstall::run(&target)?,
        AgentAction::Status => {
            if target.file.exists() {
                FileChange::Unchanged
            } else {
                FileChange::Missing
            }
        }
    };
    let (events, mut notes) = status::events(&target)?;
    let version = needs::version(req.agent);
    if req.action != AgentAction::Uninstall {
        notes.extend(needs::notes(&target, &events));
    }
    Ok(AgentOutcome {
        agent: req.agent,
        scope: if req.user { "user" } else { "project" },
        file: target.file,
        change,
        events,
        version,
        notes,
    })
}

/// Where the config file is, and for which repository.
#[derive(Debug, Clone)]
pub struct Target {
    pub agent: Agent,
    pub file: PathBuf,
    pub user: bool,
    /// The repository's top (project scope), or where the command ran.
    pub root: Option<PathBuf>,
}
