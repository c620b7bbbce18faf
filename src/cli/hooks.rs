//! `git evolv hooks install | uninstall | status`.

use clap::{Args, Subcommand};

use super::Output;
use std::path::Path;

use crate::error::Result;
use crate::hooks::HookState;
use crate::ops::commits::hooks::{HooksAction, HooksOutcome, HooksRequest};

#[derive(Debug, Args)]
pub struct HooksArgs {
    #[command(subcommand)]
    pub command: HooksCommand,
}

#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Install the commit-msg and pre-push hooks (an existing hook is kept and run first).
    Install {
        /// Install into the folder core.hooksPath names instead of refusing.
        #[arg(long)]
        hooks_path: bool,
        /// In a bare repository: install the server hooks (proc-receive lands pushes to
        /// refs/for/<branch>, pre-receive guards protected branches) and the config they need.
        #[arg(long, conflicts_with = "hooks_path")]
        server: bool,
    },
    /// Remove git-evolv's hooks and restore the hooks they chained.
    Uninstall {
        /// Uninstall from the folder core.hooksPath names.
        #[arg(long)]
        hooks_path: bool,
    },
    /// Show, per hook: whether git-evolv's check runs (installed, chained, run by pre-commit,
    /// not running, missing, foreign, bypassed by core.hooksPath) and what it chains.
    Status,
}

pub fn run(dir: &Path, args: &HooksArgs, out: &Output) -> Result<()> {
    let (action, use_hooks_path, server, title) = match args.command {
        HooksCommand::Install { hooks_path, server } => (
            HooksAction::Install,
            hooks_path,
            server,
            "Installed hooks in",
        ),
        HooksCommand::Uninstall { hooks_path } => (
            HooksAction::Uninstall,
            hooks_path,
            false,
            "Uninstalled hooks from",
        ),
        HooksCommand::Status => (HooksAction::Status, false, false, "Hooks in"),
    };
    let outcome = super::session::<HooksRequest>(dir, out)?.run(&HooksRequest {
        action,
        use_hooks_path,
        server,
    })?;
    if out.json {
        out.success_json(&outcome);
    } else {
        out.data(render(&outcome, title).as_bytes());
    }
    Ok(())
}

fn render(outcome: &HooksOutcome, title: &str) -> String {
    let mut text = format!("{title} {}\n", outcome.hooks_dir.display());
    if let Some(hp) = &outcome.hooks_path {
        text.push_str(&format!(
            "core.hooksPath = {} (set in {})\n",
            hp.value, hp.origin
        ));
    }
    for h in &outcome.hooks {
        let state = match h.state {
            HookState::Installed => "installed",
            HookState::Chained => "chained",
            HookState::RunByManager => "run by pre-commit",
            HookState::NotRunning => "NOT RUNNING",
            HookState::Missing => "missing",
            HookState::Foreign => "foreign (not git-evolv's)",
            HookState::Bypassed => "bypassed by core.hooksPath",
        };
        let mut line = format!("  {:<11} {state}", h.name);
        if let Some(change) = &h.change {
            line.push_str(&format!(" ({change})"));
        }
        if let Some(shim) = &h.shim {
            line.push_str(&format!(" [git-evolv's hook: {}]", shim.display()));
        }
        if let Some(chained) = &h.chained {
            line.push_str(&format!(", runs {} first", chained.display()));
        }
        text.push_str(&line);
        text.push('\n');
        for note in &h.notes {
            text.push_str(&format!("      note: {note}\n"));
        }
    }
    text
}
