//! Where each agent keeps its hook config: in the repository (project
//! scope, next to where the agent is started) or in the user's home.

use std::path::{Path, PathBuf};

use super::{Agent, Target};
use crate::error::{Error, Result};
use crate::git::process::cli::Git;

/// The config file `agent` reads hooks from, at project or user scope.
pub fn target(dir: &Path, agent: Agent, user: bool) -> Result<Target> {
    if user {
        return Ok(Target {
            agent,
            file: user_dir(agent)?.join(file_name(agent)),
            user,
            root: None,
        });
    }
    let git = Git::open(dir).map_err(|_| {
        Error::invalid(
            format!(
                "{} is not in a git repository: project hooks go in the repository's {}",
                dir.display(),
                project_file(agent).display()
            ),
            "run it inside the repository, or give --user for the hooks of every project",
        )
    })?;
    let root = git.toplevel().ok_or_else(|| {
        Error::invalid(
            "a bare repository has no working tree for an agent to work in",
            "run it in a clone with a working tree",
        )
    })?;
    Ok(Target {
        agent,
        file: root.join(project_file(agent)),
        user,
        root: Some(root),
    })
}

fn file_name(agent: Agent) -> &'static str {
    match agent {
        Agent::ClaudeCode | Agent::Gemini => "settings.json",
        Agent::Codex | Agent::Cursor => "hooks.json",
    }
}

/// The file, relative to the repository's top.
pub fn project_file(agent: Agent) -> PathBuf {
    let dir = match agent {
        Agent::ClaudeCode => ".claude",
        Agent::Codex => ".codex",
        Agent::Gemini => ".gemini",
        Agent::Cursor => ".cursor",
    };
    Path::new(dir).join(file_name(agent))
}

pub fn home() -> Result<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| {
            Error::invalid(
                "HOME is not set: the user's agent config is found from it",
                "set HOME, or install at project scope (without --user)",
            )
        })
}

/// The agent's own folder in the user's home, as the agent finds it
/// (`CLAUDE_CONFIG_DIR` and `CODEX_HOME` move it).
pub fn user_dir(agent: Agent) -> Result<PathBuf> {
    let from_env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    Ok(match agent {
        Agent::ClaudeCode => match from_env("CLAUDE_CONFIG_DIR") {
            Some(dir) => dir,
            None => home()?.join(".claude"),
        },
        Agent::Codex => match from_env("CODEX_HOME") {
            Some(dir) => dir,
            None => home()?.join(".codex"),
        },
        Agent::Gemini => home()?.join(".gemini"),
        Agent::Cursor => home()?.join(".cursor"),
    })
}
