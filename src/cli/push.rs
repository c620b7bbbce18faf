//! `git evolv push`, `git evolv fetch` and `git evolv status`: proposals
//! sent to a server's landing queue, and what came of them there.

use clap::Args;

use super::Output;
use crate::error::Result;
use crate::ops::Session;
use crate::ops::server::remote::fetch::{FetchOutcome, FetchRequest};
use crate::ops::server::remote::push::{PushOutcome, PushRequest, PushState, Pushed};
use crate::ops::server::remote::status::{StatusOutcome, StatusRequest};

#[derive(Debug, Args)]
pub struct PushArgs {
    /// Proposals to push (a stacked one carries those below it; default:
    /// every pending proposal, oldest first).
    pub patch_ids: Vec<String>,
    /// The remote (default: the current branch's upstream remote, else origin).
    #[arg(long, value_name = "R")]
    pub remote: Option<String>,
    /// The branch to land on (default: the upstream branch, else the current one).
    #[arg(long, value_name = "BRANCH")]
    pub to: Option<String>,
    /// Do not wait for the landing: the server queues the proposal and
    /// answers at once (`git push -o evolv.wait=false`).
    #[arg(long)]
    pub no_wait: bool,
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The remote (default: the current branch's upstream remote, else origin).
    pub remote: Option<String>,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// A proposal id: this clone's, or the server's.
    pub patch_id: String,
    /// Fetch this remote's refs/evolv/* first and read the outcome there.
    #[arg(long, value_name = "R")]
    pub remote: Option<String>,
}

/// Exit 0 when every push landed or was queued, 1 when one was refused.
pub fn push(session: &Session, args: &PushArgs, out: &Output) -> Result<u8> {
    let outcome = session.run(&PushRequest {
        patch_ids: args.patch_ids.clone(),
        remote: args.remote.clone(),
        to: args.to.clone(),
        wait: !args.no_wait,
    })?;
    if out.json {
        out.success_json(&outcome);
    } else {
        describe_pushes(&outcome, out);
    }
    Ok(u8::from(outcome.refused > 0))
}

fn describe_pushes(outcome: &PushOutcome, out: &Output) {
    for p in &outcome.pushes {
        for line in &p.remote_messages {
            out.status(&format!("remote: {line}"));
        }
        out.line(&describe_push(p, outcome));
    }
}

fn describe_push(p: &Pushed, o: &PushOutcome) -> String {
    let what = p.patch_ids.join(" + ");
    let short = |id: &Option<String>| id.as_deref().map(|s| s[..s.len().min(12)].to_string());
    match p.state {
        PushState::Landed => format!(
            "{what}: landed on {}/{} as {} (was {})",
            o.remote,
            o.branch,
            short(&p.new).unwrap_or_default(),
            short(&p.old).unwrap_or_default()
        ),
        PushState::Queued => format!(
            "{what}: queued on {} as {} (see `git evolv status --remote {} {}`)",
            o.remote,
            p.server_id.as_deref().unwrap_or("?"),
            o.remote,
            p.server_id.as_deref().unwrap_or("?")
        ),
        PushState::UpToDate => format!("{what}: {}/{} already has it", o.remote, o.branch),
        PushState::Refused => format!(
            "{what}: refused by {}: {}",
            o.remote,
            p.reason.as_deref().unwrap_or("no reason given")
        ),
    }
}

pub fn fetch(session: &Session, args: &FetchArgs, out: &Output) -> Result<()> {
    let outcome: FetchOutcome = session.run(&FetchRequest {
        remote: args.remote.clone(),
    })?;
    if out.json {
        out.success_json(&outcome);
    } else {
        out.line(&format!(
            "Fetched {} ({}): {} ref(s) under refs/evolv/remotes/{}/.",
            outcome.remote, outcome.refspec, outcome.refs, outcome.remote
        ));
    }
    Ok(())
}

pub fn status(session: &Session, args: &StatusArgs, out: &Output) -> Result<()> {
    let outcome: StatusOutcome = session.run(&StatusRequest {
        patch_id: args.patch_id.clone(),
        remote: args.remote.clone(),
    })?;
    if out.json {
        out.success_json(&outcome);
        return Ok(());
    }
    if let Some(local) = &outcome.local {
        let landed = local
            .landed
            .as_deref()
            .map(|c| format!(" as {c}"))
            .unwrap_or_default();
        out.line(&format!(
            "{}: {} here{landed}",
            outcome.patch_id, local.state
        ));
    }
    for r in &outcome.remotes {
        let mut line = format!(
            "{}: {} on {} ({})",
            outcome.patch_id, r.state, r.remote, r.server_id
        );
        if let (Some(branch), Some(new)) = (&r.branch, &r.new) {
            line.push_str(&format!(", {branch} at {new}"));
        } else if let Some(new) = &r.new {
            line.push_str(&format!(", at {new}"));
        }
        if let Some(reason) = &r.reason {
            line.push_str(&format!(": {reason}"));
        }
        out.line(&line);
    }
    if outcome.remotes.is_empty() && args.remote.is_none() {
        out.status(
            "No fetched remote knows it (`git evolv status --remote <name> <id>` fetches one).",
        );
    }
    Ok(())
}
