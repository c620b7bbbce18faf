//! `git evolv agent install | status | uninstall <agent> [--user]`, and
//! `git evolv agent hook <agent>`, the command those hooks run.

mod hook;
mod record;

use std::path::Path;

use clap::{Args, Subcommand};

use super::Output;
use crate::error::{Error, Result};
use crate::ops::agents::{Agent, AgentAction, AgentOutcome, AgentRequest, FileChange};

pub use hook::from_args;

#[derive(Debug, Args)]
pub struct AgentArgs {
    #[command(subcommand)]
    pub command: AgentCommand,
}

#[derive(Debug, Subcommand)]
pub enum AgentCommand {
    /// Wire checkpoints into an agent's hooks: claude-code, codex, gemini or cursor.
    Install(Target),
    /// Show which of the agent's events are wired and what the agent needs for them to run.
    Status(Target),
    /// Remove exactly what install added (a file it created goes; others come back byte for byte).
    Uninstall(Target),
    /// The command the agent runs: reads its hook payload on stdin, checkpoints when needed.
    Hook {
        /// The agent whose payload is on stdin.
        agent: String,
    },
}

#[derive(Debug, Args)]
pub struct Target {
    /// claude-code, codex, gemini or cursor.
    #[arg(value_parser = ["claude-code", "codex", "gemini", "cursor"])]
    pub agent: String,
    /// The user's config (~/.claude/settings.json, ~/.codex/hooks.json, …), for every project.
    #[arg(long)]
    pub user: bool,
}

pub fn run(dir: &Path, args: &AgentArgs, out: &Output) -> Result<u8> {
    let (action, target) = match &args.command {
        AgentCommand::Install(t) => (AgentAction::Install, t),
        AgentCommand::Status(t) => (AgentAction::Status, t),
        AgentCommand::Uninstall(t) => (AgentAction::Uninstall, t),
        AgentCommand::Hook { agent } => return Ok(hook::run(agent, std::io::stdin().lock())),
    };
    let agent = Agent::from_name(&target.agent).ok_or_else(|| {
        Error::invalid(
            format!("unknown agent '{}'", target.agent),
            "give claude-code, codex, gemini or cursor",
        )
    })?;
    let outcome = super::session::<AgentRequest>(dir, out)?.run(&AgentRequest {
        agent,
        action,
        user: target.user,
    })?;
    if out.json {
        out.success_json(&outcome);
    } else {
        out.data(render(&outcome, action).as_bytes());
    }
    Ok(0)
}

fn render(o: &AgentOutcome, action: AgentAction) -> String {
    let what = match (action, o.change) {
        (_, FileChange::Created) => "created",
        (_, FileChange::Edited) => "edited",
        (_, FileChange::Deleted) => "deleted",
        (AgentAction::Status, FileChange::Unchanged) => "found",
        (_, FileChange::Unchanged) => "unchanged",
        (_, FileChange::Missing) => "missing",
    };
    let version = o.version.as_deref().unwrap_or("not found on PATH");
    let mut text = format!(
        "{} ({}), {} scope: {} {}\n",
        o.agent.title(),
        version,
        o.scope,
        o.file.display(),
        what
    );
    for e in &o.events {
        let mut line = format!(
            "  {:<20} {:<10} {}",
            e.event,
            serde_json::to_value(e.checkpoint)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            if e.wired { "wired" } else { "not wired" }
        );
        if let Some(m) = &e.matcher {
            line.push_str(&format!(" (tools: {m})"));
        }
        if let Some(t) = &e.trust {
            line.push_str(&format!(", {t}"));
        }
        text.push_str(&line);
        text.push('\n');
    }
    for note in &o.notes {
        text.push_str(&format!("  note: {note}\n"));
    }
    text
}
