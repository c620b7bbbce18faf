//! `git evolv checkpoint`, `git evolv checkpoints` and `git evolv rewind`
//! (issue 40): record the work tree, list what was recorded, put it back.

use std::path::Path;

use clap::{Args, ValueEnum};

use super::Output;
use crate::error::{Error, Result};
use crate::ops::Session;
use crate::ops::checkpoints::list::{CheckpointsOutcome, CheckpointsRequest};
use crate::ops::checkpoints::prune::PruneRequest;
use crate::ops::checkpoints::record::{CheckpointEvent, CheckpointRequest};
use crate::ops::checkpoints::rewind::RewindRequest;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum EventArg {
    TurnStart,
    AfterTool,
    Stop,
    Manual,
}

/// Record a checkpoint (plumbing: an agent's hook records them itself).
#[derive(Debug, Args)]
pub struct CheckpointArgs {
    /// The agent whose session it belongs to.
    #[arg(long, default_value = "manual")]
    pub agent: String,
    /// The session id.
    #[arg(long, default_value = "manual")]
    pub session: String,
    /// What happened: a turn started (the turn count goes up), a tool ran,
    /// the turn stopped, or by hand.
    #[arg(long, value_enum, default_value = "manual")]
    pub event: EventArg,
    /// The tool that ran (with --event after-tool).
    #[arg(long, value_name = "TOOL")]
    pub tool: Option<String>,
    /// The model, when known.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
}

/// List the checkpoints, newest first, with what each changed.
#[derive(Debug, Args)]
pub struct CheckpointsArgs {
    /// Only this session (its id, or AGENT/SESSION).
    #[arg(long, value_name = "SESSION")]
    pub session: Option<String>,
    /// At most N checkpoints per session.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Delete the sessions retention lets go (evolv.checkpoints.keep,
    /// evolv.checkpoints.keepDays) instead of listing.
    #[arg(long)]
    pub prune: bool,
}

const REWIND_MANUAL: &str = "\
Targets:
  <id>                 a checkpoint's commit id, or a unique prefix (4+ digits)
  ~N, --turns N        N turns back: ~1 is the start of the newest turn
  --session-start [S]  the session's first checkpoint
--turns, ~N and --session-start take the session checkpointed last unless
--session names one.

Files changed since the checkpoint by someone other than its session are
refused by name (checkpoint_drift); --force saves them first and rewinds
them too. The work tree as found is kept as a checkpoint, the rewind is one,
and `git evolv undo` undoes it. HEAD, the index and the branch stay.";

/// Put the work tree back to a checkpoint.
#[derive(Debug, Args)]
#[command(after_long_help = REWIND_MANUAL)]
pub struct RewindArgs {
    /// A checkpoint id (or unique prefix), or ~N for N turns back.
    pub target: Option<String>,
    /// Only these paths (after `--`).
    #[arg(last = true)]
    pub paths: Vec<String>,
    /// N turns back (1: the start of the newest turn).
    #[arg(long, value_name = "N", conflicts_with = "target")]
    pub turns: Option<u64>,
    /// The first checkpoint of session S (default: the newest session).
    #[arg(long, value_name = "S", num_args = 0..=1, default_missing_value = "", conflicts_with_all = ["target", "turns"])]
    pub session_start: Option<String>,
    /// The session of --turns and ~N.
    #[arg(long, value_name = "SESSION")]
    pub session: Option<String>,
    /// Rewind files someone else changed too, their state saved first.
    #[arg(long)]
    pub force: bool,
}

pub fn checkpoint(session: &Session, args: &CheckpointArgs, out: &Output) -> Result<()> {
    let event = match args.event {
        EventArg::TurnStart => CheckpointEvent::TurnStart,
        EventArg::AfterTool => CheckpointEvent::AfterTool {
            tool: args.tool.clone().unwrap_or_else(|| "unknown".into()),
        },
        EventArg::Stop => CheckpointEvent::Stop,
        EventArg::Manual => CheckpointEvent::Manual,
    };
    let outcome = session.run(&CheckpointRequest {
        agent: args.agent.clone(),
        session: args.session.clone(),
        event,
        model: args.model.clone(),
        prompt: None,
    })?;
    if out.json {
        out.success_json(&outcome);
    } else if outcome.disabled {
        out.status("Checkpoints are off (evolv.checkpoints.enabled=false): nothing recorded.");
    } else if outcome.skipped {
        out.line(&format!(
            "Nothing changed since checkpoint {}.",
            short(&outcome.id)
        ));
    } else {
        out.line(&format!(
            "Checkpoint {} ({}/{} turn {}): {} path(s) changed.",
            short(&outcome.id),
            outcome.agent,
            outcome.session,
            outcome.turn,
            outcome.changed.len()
        ));
    }
    Ok(())
}

/// `checkpoints --prune` writes (its session recovers first); a listing
/// is a view, which a bare repository allows.
pub fn checkpoints(dir: &Path, args: &CheckpointsArgs, out: &Output) -> Result<()> {
    if args.prune {
        let session = super::session::<PruneRequest>(dir, out)?;
        let outcome = session.run(&PruneRequest::default())?;
        if out.json {
            out.success_json(&outcome);
        } else {
            out.line(&format!(
                "Pruned {} session(s), {} checkpoint(s).",
                outcome.pruned.len(),
                outcome.checkpoints
            ));
        }
        return Ok(());
    }
    let session = super::session::<CheckpointsRequest>(dir, out)?;
    let outcome = session.run(&CheckpointsRequest {
        session: args.session.clone(),
        limit: args.limit,
    })?;
    if out.json {
        out.success_json(&outcome);
    } else {
        render(&outcome, out);
    }
    Ok(())
}

fn render(outcome: &CheckpointsOutcome, out: &Output) {
    if outcome.sessions.is_empty() {
        out.status("No checkpoints.");
        return;
    }
    for s in &outcome.sessions {
        out.line(&format!(
            "{}/{} ({} checkpoint(s), {})",
            s.agent, s.session, s.count, s.ref_name
        ));
        for c in &s.checkpoints {
            let what = match (&c.tool, &c.rewound_to) {
                (Some(tool), _) => format!("{} {tool}", c.event),
                (None, Some(to)) => format!("{} to {}", c.event, short(to)),
                _ => c.event.clone(),
            };
            out.line(&format!(
                "  {}  turn {:<3} {:<24} {}",
                short(&c.id),
                c.turn,
                what,
                shown_paths(&c.changed)
            ));
        }
    }
}

fn shown_paths(paths: &[String]) -> String {
    const SHOWN: usize = 4;
    match paths.len() {
        0 => "(no change)".into(),
        n if n <= SHOWN => paths.join(", "),
        n => format!("{} (+{} more)", paths[..SHOWN].join(", "), n - SHOWN),
    }
}

pub fn rewind(session: &Session, dir: &Path, args: &RewindArgs, out: &Output) -> Result<()> {
    let mut req = RewindRequest {
        target: args.target.clone(),
        turns: args.turns,
        session_start: args.session_start.is_some(),
        session: args.session.clone(),
        paths: args.paths.clone(),
        cwd: Some(dir.to_path_buf()),
        force: args.force,
    };
    if let Some(s) = args.session_start.as_deref().filter(|s| !s.is_empty()) {
        req.session = Some(s.to_string());
    }
    if let Some(back) = args.target.as_deref().and_then(|t| t.strip_prefix('~')) {
        let n = back.parse::<u64>().map_err(|_| {
            Error::invalid(
                format!("'~{back}' is not a number of turns back"),
                "write ~N with N a whole number, e.g. ~1 for the start of the newest turn",
            )
        })?;
        req.target = None;
        req.turns = Some(n);
    }
    let outcome = session.run(&req)?;
    if out.json {
        out.success_json(&outcome);
    } else if outcome.restored.is_empty() {
        out.line(&format!(
            "The work tree already matches checkpoint {}: nothing to rewind.",
            short(&outcome.target)
        ));
    } else {
        out.line(&format!(
            "Rewound {} path(s) to checkpoint {} ({}/{}): {}",
            outcome.restored.len(),
            short(&outcome.target),
            outcome.agent,
            outcome.session,
            shown_paths(&outcome.restored)
        ));
        out.status(&format!(
            "The work tree as it was is checkpoint {}; `git evolv undo` undoes the rewind.",
            short(&outcome.saved)
        ));
    }
    Ok(())
}

fn short(id: &str) -> &str {
    &id[..12.min(id.len())]
}
