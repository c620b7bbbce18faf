//! An agent's hook payload (the JSON on the hook's stdin) read into one
//! shape, and whether the event needs a checkpoint: a turn's start, a tool
//! that can write (edit and write tools, apply_patch, notebook edits, shell
//! commands) and a turn's end do; reads, searches and the rest do not.
//!
//! The fields each agent sends (checked against real runs of Claude Code
//! 2.1, Codex 0.171 and Gemini CLI 0.61; Cursor's from its documentation):
//! - all but Cursor: `session_id`, `hook_event_name`, `cwd`, `tool_name`,
//!   `tool_input`, `prompt`; Codex also `model` and `turn_id`;
//! - Cursor: `conversation_id` (and `session_id` in newer builds),
//!   `hook_event_name`, `workspace_roots`, `model`, `file_path` (edits),
//!   `command` (shell), `prompt`.

use serde_json::Value;

use super::Agent;
use super::wiring::Moment;

/// One hook call, as git-evolv reads it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HookEvent {
    pub agent: Agent,
    /// The event's name in the agent's own terms (`PostToolUse`, `AfterTool`, …).
    pub event: String,
    pub session: String,
    /// The turn, where the agent names it (Codex's `turn_id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Where the agent works: the repository to checkpoint is found from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The user's prompt, on a turn's start: never stored unless asked.
    #[serde(skip)]
    pub prompt: Option<String>,
    /// The file a tool wrote, where the payload names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Whether this event needs a checkpoint, and which.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<Moment>,
}

/// Reads `bytes` as `agent`'s hook payload. The error says what is wrong
/// with it (the caller names the agent and the fix).
pub fn parse(agent: Agent, bytes: &[u8]) -> Result<HookEvent, String> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            "stdin was empty: the agent runs this with its hook payload (JSON) on stdin".into()
        } else {
            format!("the hook payload on stdin is not JSON ({e})")
        }
    })?;
    if !v.is_object() {
        return Err("the hook payload on stdin is not a JSON object".into());
    }
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let event = text("hook_event_name").ok_or("the hook payload has no hook_event_name")?;
    let session = text("session_id")
        .or_else(|| text("conversation_id"))
        .filter(|s| !s.is_empty())
        .ok_or("the hook payload has no session_id")?;
    let cwd = text("cwd").or_else(|| {
        v.get("workspace_roots")?
            .as_array()?
            .first()?
            .as_str()
            .map(str::to_string)
    });
    let (tool, path) = tool_of(agent, &event, &v);
    let checkpoint = moment(agent, &event, tool.as_deref());
    Ok(HookEvent {
        agent,
        session,
        turn: text("turn_id").or_else(|| text("generation_id")),
        tool,
        model: text("model").filter(|m| !m.is_empty()),
        cwd,
        prompt: text("prompt"),
        path,
        checkpoint,
        event,
    })
}

/// The tool an event is about, and the file it wrote where given.
fn tool_of(agent: Agent, event: &str, v: &Value) -> (Option<String>, Option<String>) {
    let input = v.get("tool_input");
    let field = |k: &str| {
        input
            .and_then(|i| i.get(k))
            .or_else(|| v.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    if agent == Agent::Cursor {
        return match event {
            "afterFileEdit" => (Some("edit".into()), field("file_path")),
            "afterShellExecution" => (Some("shell".into()), None),
            _ => (
                v.get("tool_name")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                None,
            ),
        };
    }
    let tool = v
        .get("tool_name")
        .and_then(Value::as_str)
        .map(str::to_string);
    let path = field("file_path").or_else(|| field("notebook_path"));
    (tool, path)
}

/// The tools that can write, by agent (as the payloads name them).
fn writes(agent: Agent, tool: &str) -> bool {
    match agent {
        Agent::ClaudeCode => matches!(
            tool,
            "Edit" | "MultiEdit" | "Write" | "NotebookEdit" | "Bash" | "PowerShell"
        ),
        Agent::Codex => matches!(
            tool,
            "apply_patch" | "Bash" | "Edit" | "Write" | "shell" | "exec_command" | "local_shell"
        ),
        Agent::Gemini => matches!(
            tool,
            "replace" | "edit" | "write_file" | "run_shell_command"
        ),
        Agent::Cursor => matches!(tool, "edit" | "shell" | "Write" | "Edit" | "Shell"),
    }
}

fn moment(agent: Agent, event: &str, tool: Option<&str>) -> Option<Moment> {
    match (agent, event) {
        (Agent::ClaudeCode | Agent::Codex, "UserPromptSubmit")
        | (Agent::Gemini, "BeforeAgent")
        | (Agent::Cursor, "beforeSubmitPrompt") => Some(Moment::TurnStart),
        (Agent::ClaudeCode | Agent::Codex, "PostToolUse")
        | (Agent::Gemini, "AfterTool")
        | (Agent::Cursor, "afterFileEdit" | "afterShellExecution" | "postToolUse") => {
            tool.filter(|t| writes(agent, t)).map(|_| Moment::AfterTool)
        }
        (Agent::ClaudeCode | Agent::Codex, "Stop")
        | (Agent::Gemini, "AfterAgent")
        | (Agent::Cursor, "stop") => Some(Moment::Stop),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_needs_no_checkpoint_and_an_edit_does() {
        let read = br#"{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/r/a"}}"#;
        let e = parse(Agent::ClaudeCode, read).unwrap();
        assert_eq!((e.tool.as_deref(), e.checkpoint), (Some("Read"), None));
        let edit = br#"{"session_id":"s","hook_event_name":"AfterTool","tool_name":"replace","tool_input":{"file_path":"/r/a"}}"#;
        let e = parse(Agent::Gemini, edit).unwrap();
        assert_eq!(e.checkpoint, Some(Moment::AfterTool));
        assert_eq!(e.path.as_deref(), Some("/r/a"));
    }

    #[test]
    fn cursor_names_its_session_and_folder_its_own_way() {
        let p = br#"{"conversation_id":"c1","hook_event_name":"afterShellExecution","workspace_roots":["/w"],"command":"ls","model":"m"}"#;
        let e = parse(Agent::Cursor, p).unwrap();
        assert_eq!(e.session, "c1");
        assert_eq!(e.cwd.as_deref(), Some("/w"));
        assert_eq!(e.model.as_deref(), Some("m"));
        assert_eq!(e.checkpoint, Some(Moment::AfterTool));
    }

    #[test]
    fn bad_payloads_say_what_is_wrong() {
        assert!(parse(Agent::Codex, b"").unwrap_err().contains("empty"));
        assert!(
            parse(Agent::Codex, b"nope")
                .unwrap_err()
                .contains("not JSON")
        );
        assert!(parse(Agent::Codex, b"[]").unwrap_err().contains("object"));
        let e = parse(Agent::Codex, br#"{"hook_event_name":"Stop"}"#).unwrap_err();
        assert!(e.contains("session_id"), "{e}");
    }
}
