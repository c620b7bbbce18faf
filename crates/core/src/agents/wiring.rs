//! What `agent install` writes for each agent: the hook events it wires
//! (a turn's start, the tools that can write, a turn's end), the entry it
//! appends to each event's list, and how an entry is recognised as
//! git-evolv's again (its command) so install is idempotent and uninstall
//! removes only its own.

use super::Agent;
use super::json_doc::Node;
use super::json_edit::Json;

/// When in a turn an event fires, as the checkpoint engine names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Moment {
    TurnStart,
    AfterTool,
    Stop,
}

/// One hook event `agent install` wires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wire {
    /// The event's key in the agent's `hooks` object.
    pub event: &'static str,
    /// The tools it is limited to (a regex over tool names), where the
    /// agent filters by tool: fewer processes started for reads.
    pub matcher: Option<&'static str>,
    pub moment: Moment,
}

/// The text every command git-evolv installs contains: how its entries
/// are found again.
pub const MARK: &str = "evolv agent hook ";

/// What the agent is given to run. `|| exit 1`: whatever the hook exits
/// with (a git-evolv too old to know `agent hook` exits 2, clap's usage
/// error), the agent sees 0 or 1, never the 2 that blocks its turn in
/// Claude Code, Codex, Gemini CLI and Cursor alike.
pub fn command(agent: Agent) -> String {
    format!("git evolv agent hook {} || exit 1", agent.name())
}

/// The agent's own limit on the hook (seconds, or milliseconds for Gemini
/// CLI), above git-evolv's own budget for a checkpoint so git-evolv
/// reports an overrun itself rather than being killed.
pub const TIMEOUT_SECS: u64 = 30;

const fn wire(event: &'static str, matcher: Option<&'static str>, moment: Moment) -> Wire {
    Wire {
        event,
        matcher,
        moment,
    }
}

const CLAUDE: &[Wire] = &[
    wire("UserPromptSubmit", None, Moment::TurnStart),
    wire(
        "PostToolUse",
        Some("Edit|MultiEdit|Write|NotebookEdit|Bash"),
        Moment::AfterTool,
    ),
    wire("Stop", None, Moment::Stop),
];

const CODEX: &[Wire] = &[
    wire("UserPromptSubmit", None, Moment::TurnStart),
    wire(
        "PostToolUse",
        Some("apply_patch|Bash|Edit|Write"),
        Moment::AfterTool,
    ),
    wire("Stop", None, Moment::Stop),
];

const GEMINI: &[Wire] = &[
    wire("BeforeAgent", None, Moment::TurnStart),
    wire(
        "AfterTool",
        Some("replace|write_file|run_shell_command|edit"),
        Moment::AfterTool,
    ),
    wire("AfterAgent", None, Moment::Stop),
];

const CURSOR: &[Wire] = &[
    wire("beforeSubmitPrompt", None, Moment::TurnStart),
    wire("afterFileEdit", None, Moment::AfterTool),
    wire("afterShellExecution", None, Moment::AfterTool),
    wire("stop", None, Moment::Stop),
];

/// The events wired for `agent`.
pub fn wires(agent: Agent) -> &'static [Wire] {
    match agent {
        Agent::ClaudeCode => CLAUDE,
        Agent::Codex => CODEX,
        Agent::Gemini => GEMINI,
        Agent::Cursor => CURSOR,
    }
}

/// The handler object itself (the one Codex hashes for its trust).
pub fn handler(agent: Agent) -> Json {
    let command = Json::Str(command(agent));
    match agent {
        Agent::ClaudeCode | Agent::Codex => Json::obj(&[
            ("type", Json::str("command")),
            ("command", command),
            ("timeout", Json::Num(TIMEOUT_SECS)),
        ]),
        Agent::Gemini => Json::obj(&[
            ("name", Json::str("git-evolv-checkpoint")),
            ("type", Json::str("command")),
            ("command", command),
            ("timeout", Json::Num(TIMEOUT_SECS * 1000)),
        ]),
        Agent::Cursor => Json::obj(&[("command", command)]),
    }
}

/// The entry appended to the event's list: a matcher group holding the
/// handler, or (Cursor, whose lists hold handlers) the handler itself.
pub fn entry(agent: Agent, wire: &Wire) -> Json {
    if agent == Agent::Cursor {
        return handler(agent);
    }
    let mut members = Vec::new();
    if let Some(m) = wire.matcher {
        members.push(("matcher".to_string(), Json::str(m)));
    }
    members.push(("hooks".to_string(), Json::Arr(vec![handler(agent)])));
    Json::Obj(members)
}

/// Members a new file starts with besides `hooks` (Cursor's `version`).
pub fn new_file_members(agent: Agent) -> Vec<(&'static str, Json)> {
    match agent {
        Agent::Cursor => vec![("version", Json::Num(1))],
        _ => Vec::new(),
    }
}

/// Whether a command is one git-evolv installed (for any agent).
pub fn is_our_command(command: &str) -> bool {
    command.contains(MARK) && (command.contains("git evolv ") || command.contains("git-evolv "))
}

/// Whether an entry of an event's list is git-evolv's: a handler with our
/// command, or a matcher group whose every handler is ours.
pub fn is_ours(entry: &Node) -> bool {
    if let Some(command) = entry.get("command").and_then(Node::as_str) {
        return is_our_command(command);
    }
    match entry.get("hooks").and_then(Node::items) {
        Some(handlers) if !handlers.is_empty() => handlers.iter().all(|h| {
            h.get("command")
                .and_then(Node::as_str)
                .is_some_and(is_our_command)
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_wires_a_turn_start_a_write_and_a_stop() {
        for agent in Agent::ALL {
            let moments: Vec<Moment> = wires(agent).iter().map(|w| w.moment).collect();
            for m in [Moment::TurnStart, Moment::AfterTool, Moment::Stop] {
                assert!(moments.contains(&m), "{agent:?} {m:?}");
            }
            assert!(is_our_command(&command(agent)));
        }
        assert!(!is_our_command("prettier --write"));
    }
}
