//! The coding agents git-evolv checkpoints under (issue 40): which hook
//! events each one is wired to, the entries `agent install` adds to its
//! settings file and how they are edited in place (`json_doc`,
//! `json_edit`), and what each agent's hook payload says (`payload`).
//! Pure: the engine reads and writes the files.

pub mod config_text;
pub mod json_doc;
pub mod json_edit;
pub mod payload;
pub mod wiring;

use serde::{Deserialize, Serialize};

/// An agent whose hooks `agent install` can wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    /// Anthropic's Claude Code (`.claude/settings.json`).
    ClaudeCode,
    /// OpenAI's Codex CLI (`.codex/hooks.json`).
    Codex,
    /// Google's Gemini CLI (`.gemini/settings.json`).
    Gemini,
    /// Cursor's agent (`.cursor/hooks.json`).
    Cursor,
}

impl Agent {
    pub const ALL: [Agent; 4] = [
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::Gemini,
        Agent::Cursor,
    ];

    /// The name on the command line and in the hook command.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
        }
    }

    /// The name people know it by.
    pub fn title(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Gemini => "Gemini CLI",
            Agent::Cursor => "Cursor",
        }
    }

    pub fn from_name(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.name() == name)
    }
}
