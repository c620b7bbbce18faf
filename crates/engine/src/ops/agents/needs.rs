//! What the installed agent needs for git-evolv's hooks to run, beyond
//! the entries themselves: its version (from its command on PATH), and
//! per agent the setting or trust that gates project hooks.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use evolv_core::agents::Agent;

use super::{EventState, Target, codex_trust, locate, settings_file};

/// The agent's command.
fn program(agent: Agent) -> &'static str {
    match agent {
        Agent::ClaudeCode => "claude",
        Agent::Codex => "codex",
        Agent::Gemini => "gemini",
        Agent::Cursor => "cursor-agent",
    }
}

/// `<agent> --version`, first line, when the command is on PATH and
/// answers within 10 s.
pub fn version(agent: Agent) -> Option<String> {
    let mut child = Command::new(program(agent))
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let out = child.wait_with_output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// Notes on what the agent needs, for the events found wired.
pub fn notes(target: &Target, events: &[EventState]) -> Vec<String> {
    let mut notes = Vec::new();
    if events.iter().any(|e| !e.wired) {
        notes.push(format!(
            "not every event is wired: run `git evolv agent install {}{}`",
            target.agent.name(),
            if target.user { " --user" } else { "" }
        ));
    }
    match target.agent {
        Agent::ClaudeCode => notes.push(
            "Claude Code reads hooks when a session starts: start a new session (or review them \
             in /hooks) for the change to apply"
                .into(),
        ),
        Agent::Codex => notes.extend(codex(target)),
        Agent::Gemini => notes.extend(gemini(target)),
        Agent::Cursor => {
            notes.push("Cursor reads hooks.json when it starts: restart Cursor to apply".into());
        }
    }
    notes
}

fn codex(target: &Target) -> Vec<String> {
    let mut notes = Vec::new();
    let Ok(config) = codex_trust::config_path() else {
        return notes;
    };
    let table: Option<toml::Table> = settings_file::read(&config)
        .ok()
        .flatten()
        .and_then(|t| t.parse().ok());
    let features = table.as_ref().and_then(|t| t.get("features"));
    for flag in ["hooks", "codex_hooks"] {
        if features
            .and_then(|f| f.get(flag))
            .and_then(toml::Value::as_bool)
            == Some(false)
        {
            notes.push(format!(
                "Codex's hooks are turned off: [features] {flag} = false in {}",
                config.display()
            ));
        }
    }
    if let Some(root) = &target.root {
        let level = table
            .as_ref()
            .and_then(|t| t.get("projects"))
            .and_then(|p| p.get(root.to_string_lossy().as_ref()))
            .and_then(|p| p.get("trust_level"))
            .and_then(toml::Value::as_str);
        if level != Some("trusted") {
            notes.push(format!(
                "Codex loads a project's .codex/ only in a trusted project, and {} is not \
                 trusted: start codex there and trust it, or add [projects.\"{}\"] trust_level = \
                 \"trusted\" to {}",
                root.display(),
                root.display(),
                config.display()
            ));
        }
    }
    notes
}

fn gemini(target: &Target) -> Vec<String> {
    let mut notes = Vec::new();
    let Some(root) = &target.root else {
        return notes;
    };
    let Ok(dir) = locate::user_dir(Agent::Gemini) else {
        return notes;
    };
    let trusted: Option<serde_json::Value> = std::fs::read(dir.join("trustedFolders.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let root_text = root.to_string_lossy();
    let is_trusted = trusted
        .as_ref()
        .and_then(|t| t.as_object())
        .is_some_and(|map| {
            map.iter().any(|(path, level)| {
                let level = level.as_str().unwrap_or("");
                (level == "TRUST_FOLDER" && *path == root_text)
                    || (level == "TRUST_PARENT"
                        && root.parent().is_some_and(|p| p.to_string_lossy() == *path))
            })
        });
    if !is_trusted {
        notes.push(format!(
            "Gemini CLI runs a project's hooks only in a trusted folder: trust {} when Gemini CLI \
             asks (or set GEMINI_CLI_TRUST_WORKSPACE=true); it then warns once about the new \
             project hook",
            root.display()
        ));
    }
    notes
}
