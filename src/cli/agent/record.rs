//! The one place `agent hook` hands a checkpoint over: everything about
//! the hook (reading the payload, deciding, the budget, answering the
//! agent) is in hook.rs; this turns one event into one checkpoint.
//!
//! Until the checkpoint engine (issue 40 items 2-4) is in this binary,
//! this runs it as `git-evolv checkpoint --agent A --session S --event E
//! [--tool T] [--model M] --json`, the command line that engine provides,
//! and reads its outcome. Wiring the engine's use case in directly (no
//! second process start) is an edit of this file alone.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use evolv_core::agents::payload::HookEvent;
use evolv_core::agents::wiring::Moment;

/// What became of a checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Recorded {
    /// The checkpoint's commit id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<bool>,
    /// Why none was taken, when none was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// The repository the agent works in: the payload's folder (or this
/// process's), `None` outside any repository.
fn repository(event: &HookEvent) -> Option<PathBuf> {
    let dir = event
        .cwd
        .as_deref()
        .map(PathBuf::from)
        .filter(|d| d.is_dir())
        .or_else(|| std::env::current_dir().ok())?;
    dir.ancestors()
        .any(|d| d.join(".git").exists())
        .then_some(dir)
}

/// Records the checkpoint `event` asks for. The error is one line, for
/// the agent to show.
pub fn record(event: &HookEvent, moment: Moment) -> Result<Recorded, String> {
    let Some(dir) = repository(event) else {
        return Ok(Recorded {
            skipped: Some("not in a git repository".into()),
            ..Recorded::default()
        });
    };
    let exe = std::env::current_exe().map_err(|e| format!("cannot find git-evolv itself: {e}"))?;
    let kind = match moment {
        Moment::TurnStart => "turn-start",
        Moment::AfterTool => "after-tool",
        Moment::Stop => "stop",
    };
    let mut args = vec![
        "checkpoint",
        "--agent",
        event.agent.name(),
        "--session",
        &event.session,
        "--event",
        kind,
    ];
    if let Some(tool) = &event.tool {
        args.extend(["--tool", tool]);
    }
    if let Some(model) = &event.model {
        args.extend(["--model", model]);
    }
    args.push("--json");
    run(&exe, &dir, &args)
}

fn run(exe: &Path, dir: &Path, args: &[&str]) -> Result<Recorded, String> {
    let out = Command::new(exe)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let json: Option<serde_json::Value> = serde_json::from_slice(&out.stdout).ok();
    let field = |k: &str| json.as_ref().and_then(|j| j.get(k));
    if out.status.success() && field("success").and_then(|s| s.as_bool()) == Some(true) {
        return Ok(Recorded {
            id: field("id").and_then(|v| v.as_str()).map(str::to_string),
            turn: field("turn").and_then(serde_json::Value::as_u64),
            changed: field("changed").and_then(serde_json::Value::as_bool),
            skipped: field("skipped").and_then(|v| match v {
                serde_json::Value::Bool(true) => Some("nothing changed".to_string()),
                serde_json::Value::String(s) => Some(s.clone()),
                _ => None,
            }),
        });
    }
    let message = field("error")
        .and_then(|e| e.get("message"))
        .and_then(|m| m.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| String::from_utf8_lossy(&out.stderr).trim().to_string());
    let first = message.lines().next().unwrap_or("").trim();
    Err(if first.is_empty() {
        format!("git-evolv checkpoint failed ({})", out.status)
    } else {
        first.to_string()
    })
}
