//! `git evolv hook proc-receive | pre-receive`: the server hooks git's
//! receive-pack runs in a bare repository (`hooks install --server`).
//! proc-receive speaks pkt-lines with git on stdin and stdout; everything
//! for the pusher goes to stderr, which git shows as `remote:` lines.

use std::io::{Read, Write};
use std::path::Path;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::ops::Session;
use crate::ops::server::receive::guard::PreReceiveRequest;
use crate::ops::server::receive::{
    DrainRequest, PushedRef, ReceiveOutcome, ReceiveRequest, RefOutcome,
};
use crate::store::outcomes::{Outcome, Pusher, Reason, State};
use evolv_core::receive::proc_receive::{self, Report};

/// proc-receive: reads the push, lands or queues it, answers git.
pub fn proc_receive(dir: &Path, drain: bool) -> Result<u8> {
    if drain {
        Session::open_for::<DrainRequest>(dir, Context::new(super::CLI_ACTOR))?
            .run(&DrainRequest)?;
        return Ok(0);
    }
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let offer = proc_receive::read_version(&mut input)?;
    let mut stdout = std::io::stdout().lock();
    proc_receive::write_version(&mut stdout, offer.push_options)
        .and_then(|()| stdout.flush())
        .map_err(|e| Error::io("write", "stdout (to git)", e))?;
    let commands = proc_receive::read_commands(&mut input)?;
    let options = if offer.push_options {
        proc_receive::read_options(&mut input)?
    } else {
        Vec::new()
    };
    let req = ReceiveRequest {
        refs: commands
            .into_iter()
            .map(|c| PushedRef {
                old: c.old,
                new: c.new,
                refname: c.refname,
            })
            .collect(),
        options,
        pusher: pusher_from_env(),
    };
    let session = Session::open_for::<ReceiveRequest>(dir, Context::new(super::CLI_ACTOR))?;
    let outcome = match session.run(&req) {
        Ok(o) => o,
        Err(e) => ReceiveOutcome::refused(&req, &e),
    };
    let mut stderr = std::io::stderr().lock();
    let reports: Vec<Report> = outcome
        .refs
        .iter()
        .map(|r| {
            let _ = stderr.write_all(remote_lines(r).as_bytes());
            report(r)
        })
        .collect();
    proc_receive::write_reports(&mut stdout, &reports)
        .and_then(|()| stdout.flush())
        .map_err(|e| Error::io("write", "stdout (to git)", e))?;
    Ok(0)
}

/// Who pushed, as the transport tells the hook: the HTTP server's
/// `REMOTE_USER` and `REMOTE_ADDR`, or sshd's login and `SSH_CLIENT`.
fn pusher_from_env() -> Pusher {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let bounded = |v: String| v.chars().take(200).collect::<String>();
    let ssh = var("SSH_CLIENT").or_else(|| var("SSH_CONNECTION"));
    let user = var("REMOTE_USER").or_else(|| ssh.as_ref().and_then(|_| var("USER")));
    let address = var("REMOTE_ADDR").or_else(|| {
        ssh.as_ref()
            .and_then(|s| s.split_whitespace().next().map(str::to_string))
    });
    Pusher {
        user: user.map(bounded),
        address: address.map(bounded),
        author: None,
    }
}

/// The answer git reports to the pusher for one ref.
fn report(r: &RefOutcome) -> Report {
    let pushed = r.pushed_ref.clone();
    let ng = |reason: &Reason| Report::Ng {
        pushed: pushed.clone(),
        reason: reason.message.clone(),
    };
    let Some(rec) = &r.record else {
        return ng(r
            .refused
            .as_ref()
            .expect("a ref without a record is refused"));
    };
    match rec.state {
        State::Landed => Report::Ok {
            pushed: pushed.clone(),
            refname: Some(format!("refs/heads/{}", rec.branch)),
            old: rec.old.clone(),
            new: rec.new.clone(),
        },
        State::Queued => Report::Ok {
            pushed: pushed.clone(),
            refname: Some(format!("refs/evolv/proposals/{}", rec.id)),
            old: None,
            new: Some(rec.pushed.clone()),
        },
        State::Refused => {
            let reason = rec.reason.clone().unwrap_or_default();
            let landed = rec
                .members
                .iter()
                .filter(|m| m.state == State::Landed)
                .count();
            if landed == 0 {
                return ng(&reason);
            }
            ng(&Reason {
                message: format!(
                    "{landed} of {} commits landed; the rest refused: {}",
                    rec.members.len(),
                    reason.message
                ),
                ..reason
            })
        }
    }
}

/// What the pusher reads as `remote:` lines for one ref.
fn remote_lines(r: &RefOutcome) -> String {
    let mut text = String::new();
    let mut say = |line: &str| {
        text.push_str("git-evolv: ");
        text.push_str(&proc_receive::one_line(line));
        text.push('\n');
    };
    let reason = match &r.record {
        Some(rec) if !rec.members.is_empty() => {
            describe_stack(rec, &mut say);
            // Each refused member's own output is told below its line.
            None
        }
        Some(rec) => {
            describe(rec, &mut say);
            rec.reason.as_ref()
        }
        None => r.refused.as_ref(),
    };
    if let Some(reason) = reason {
        for p in &reason.paths {
            say(&format!("  conflict: {p}"));
        }
        for l in reason.output.lines() {
            say(&format!("  | {l}"));
        }
    }
    if r.record.is_none()
        && let Some(reason) = reason
    {
        say(&format!("{} refused: {}", r.pushed_ref, reason.message));
    }
    text
}

/// A pushed stack: one line per member, bottom first, and the reason
/// (paths, output) of the one refused for its own sake.
fn describe_stack(rec: &Outcome, say: &mut impl FnMut(&str)) {
    say(&format!(
        "a stack of {} commits for {}, one proposal each:",
        rec.members.len(),
        rec.branch
    ));
    for m in &rec.members {
        let commit = &m.pushed[..m.pushed.len().min(12)];
        match (&m.state, &m.reason) {
            (State::Landed, _) => say(&format!(
                "  {} ({commit}) landed as {}",
                m.id,
                m.new.as_deref().map_or("", |n| &n[..n.len().min(12)])
            )),
            (State::Queued, _) => say(&format!("  {} ({commit}) queued", m.id)),
            (State::Refused, Some(reason)) => {
                say(&format!(
                    "  {} ({commit}) refused ({}): {}",
                    m.id, reason.code, reason.message
                ));
                for p in &reason.paths {
                    say(&format!("    conflict: {p}"));
                }
                for l in reason.output.lines() {
                    say(&format!("    | {l}"));
                }
            }
            (State::Refused, None) => say(&format!("  {} ({commit}) refused", m.id)),
        }
    }
}

fn describe(rec: &Outcome, say: &mut impl FnMut(&str)) {
    let short = |s: &Option<String>| {
        s.as_deref()
            .map_or("", |s| &s[..s.len().min(12)])
            .to_string()
    };
    match rec.state {
        State::Landed if rec.already => say(&format!(
            "already landed as {} ({})",
            rec.id,
            short(&rec.new)
        )),
        State::Landed => say(&format!(
            "{} landed on {} as {}",
            rec.id,
            rec.branch,
            short(&rec.new)
        )),
        State::Queued => say(&format!(
            "{} queued for {}: `git evolv status --remote <remote> {}` (or fetch refs/evolv/outcomes/{}) tells what came of it",
            rec.id, rec.branch, rec.id, rec.id
        )),
        State::Refused => say(&format!(
            "{} refused ({}): {}",
            rec.id,
            rec.reason.as_ref().map_or("", |r| r.code.as_str()),
            rec.reason.as_ref().map_or("", |r| r.message.as_str())
        )),
    }
}

/// pre-receive: refuses direct pushes, deletions and force-pushes of the
/// protected branches, and pushes to `refs/evolv/*`.
pub fn pre_receive(dir: &Path) -> Result<u8> {
    let mut stdin = String::new();
    std::io::stdin()
        .take(1 << 20)
        .read_to_string(&mut stdin)
        .map_err(|e| Error::io("read", "stdin", e))?;
    let judged = Session::open_for::<PreReceiveRequest>(dir, Context::new(super::CLI_ACTOR))?.run(
        &PreReceiveRequest {
            stdin,
            pusher: pusher_from_env(),
        },
    )?;
    let mut refused = false;
    let mut stderr = std::io::stderr().lock();
    for j in &judged {
        if let Some(why) = &j.refused {
            let _ = writeln!(stderr, "git-evolv: {}", proc_receive::one_line(why));
            refused = true;
        }
    }
    Ok(u8::from(refused))
}
