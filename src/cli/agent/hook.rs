//! `git evolv agent hook <agent>`: what the agent runs at each wired
//! event. It reads the agent's hook payload on stdin, decides whether the
//! event needs a checkpoint (a turn's start, a tool that can write, a
//! turn's end), records it within a time budget, and answers in the
//! agent's hook protocol.
//!
//! It never breaks the agent's turn: it exits 0, or 1 for Cursor's "hook
//! failed, go on", and never 2, which blocks the turn in every one of
//! these agents (the installed command also maps any exit to 0 or 1, for
//! a git-evolv too old to know this command). A failure (no repository
//! state it can write, a locked index, a checkpoint over budget, a payload
//! it cannot read) is told to the user the way each agent shows a hook's
//! message: Claude Code, Codex and Gemini CLI show a `systemMessage` from
//! the JSON a hook prints with exit 0; Cursor logs a failed hook's stderr.
//! It runs before clap and before any configuration is read
//! (`from_args`), so a bad setting cannot turn into a usage error.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use evolv_core::agents::Agent;
use evolv_core::agents::payload::{self, HookEvent};

use super::record::{self, Recorded};

/// How long a hook may take before it reports an overrun and lets the
/// agent go on (the agents' own limit, 30 s as installed, is above it).
const BUDGET: Duration = Duration::from_secs(10);

/// The largest payload read (a tool's response can be large; the rest is
/// not needed).
const MAX_PAYLOAD: u64 = 64 << 20;

/// The environment variable naming a file each hook call appends one JSON
/// line to (what it read and did): for finding out why a checkpoint is
/// missing.
pub const LOG_ENV: &str = "GIT_EVOLV_AGENT_LOG";

/// `git-evolv agent hook <agent>` exactly, as installed: run it and
/// return its exit code, before clap sees the command line.
pub fn from_args(args: &[OsString]) -> Option<u8> {
    match args {
        [_, a, h, agent] if a == "agent" && h == "hook" => {
            let agent = agent.to_string_lossy().into_owned();
            Some(run(&agent, std::io::stdin().lock()))
        }
        _ => None,
    }
}

/// Runs the hook for `agent_name` with the payload on `stdin`.
pub fn run(agent_name: &str, stdin: impl Read) -> u8 {
    let Some(agent) = Agent::from_name(agent_name) else {
        let _ = writeln!(
            std::io::stderr(),
            "git-evolv: unknown agent '{agent_name}' (claude-code, codex, gemini or cursor): \
             no checkpoint; fix the hook command in the agent's config"
        );
        return 1;
    };
    let started = Instant::now();
    let mut bytes = Vec::new();
    let read = stdin.take(MAX_PAYLOAD).read_to_end(&mut bytes);
    let event = match read {
        Ok(_) => payload::parse(agent, &bytes),
        Err(e) => Err(format!("cannot read stdin: {e}")),
    };
    let result = match &event {
        Err(e) => Err(format!("cannot read {}'s hook payload: {e}", agent.title())),
        Ok(ev) => match ev.checkpoint {
            None => Ok(Recorded {
                skipped: Some("no checkpoint needed for this event".into()),
                ..Recorded::default()
            }),
            Some(_) => within_budget(ev.clone()),
        },
    };
    log(agent, event.as_ref().ok(), &result, started.elapsed());
    answer(agent, &result)
}

/// `record::record` in a thread, given `BUDGET`: an overrun is reported
/// and the process ends (a checkpoint cut short loses nothing: the engine
/// publishes one only when complete).
fn within_budget(event: HookEvent) -> Result<Recorded, String> {
    let (send, receive) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("checkpoint".into())
        .spawn(move || {
            let moment = event.checkpoint.expect("only events that need one");
            let _ = send.send(record::record(&event, moment));
        });
    if let Err(e) = spawned {
        return Err(format!("cannot start the checkpoint: {e}"));
    }
    match receive.recv_timeout(BUDGET) {
        Ok(result) => result,
        Err(_) => Err(format!(
            "the checkpoint did not finish within {} s; the agent goes on without it",
            BUDGET.as_secs()
        )),
    }
}

/// The answer in the agent's protocol; the exit code.
fn answer(agent: Agent, result: &Result<Recorded, String>) -> u8 {
    let mut stdout = std::io::stdout().lock();
    match (agent, result) {
        // Cursor wants JSON on every path; `continue` is what its
        // beforeSubmitPrompt reads, and the other events ignore it.
        (Agent::Cursor, Ok(_)) => {
            let _ = writeln!(stdout, "{{\"continue\":true}}");
            0
        }
        (Agent::Cursor, Err(message)) => {
            let _ = writeln!(stdout, "{{\"continue\":true}}");
            let _ = writeln!(std::io::stderr(), "git-evolv: no checkpoint: {message}");
            1
        }
        (_, Ok(_)) => 0,
        (_, Err(message)) => {
            let body = serde_json::json!({
                "systemMessage": format!("git-evolv: no checkpoint: {message}"),
            });
            let _ = writeln!(stdout, "{body}");
            0
        }
    }
}

/// One JSON line to `$GIT_EVOLV_AGENT_LOG`, when set.
fn log(agent: Agent, event: Option<&HookEvent>, result: &Result<Recorded, String>, took: Duration) {
    let Some(path) = std::env::var_os(LOG_ENV).filter(|p| !p.is_empty()) else {
        return;
    };
    let mut line = serde_json::json!({
        "agent": agent.name(),
        "event": event,
        "ms": took.as_millis() as u64,
    });
    match result {
        Ok(r) => line["recorded"] = serde_json::to_value(r).unwrap_or_default(),
        Err(e) => line["error"] = serde_json::Value::String(e.clone()),
    }
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{line}");
    }
}
