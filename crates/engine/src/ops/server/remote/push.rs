//! `push`: proposals to a server's landing queue, `refs/for/<branch>`, with
//! git's own push; the server's verdict is read back from git's report
//! (`git push --porcelain`), where its `proc-receive` hook put it.

use serde::Serialize;

use super::{repo_dir, resolve_branch, resolve_remote};
use crate::error::{Error, Result};
use crate::git::{self, Repo};
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::store::proposals::{self, Proposal};
use evolv_core::push_report::{self, RefLine};

/// Which proposals to push, where.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushRequest {
    /// The proposals to push; a stacked one carries those below it. Empty:
    /// every pending proposal, oldest first.
    #[serde(default)]
    pub patch_ids: Vec<String>,
    /// The remote (default: the current branch's upstream remote, else
    /// `origin`).
    #[serde(default)]
    pub remote: Option<String>,
    /// The branch to land on (default: the current branch's upstream
    /// branch, else the current branch).
    #[serde(default)]
    pub to: Option<String>,
    /// Wait for the landing (default); false: the server queues the
    /// proposal and answers at once (`-o evolv.wait=false`).
    #[serde(default = "yes")]
    pub wait: bool,
}

fn yes() -> bool {
    true
}

/// What the server said of one push.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PushState {
    /// Landed: the branch moved from `old` to `new`.
    Landed,
    /// Queued (`wait: false`): the server lands it later.
    Queued,
    /// Nothing to do: the server already has it where it asked.
    UpToDate,
    /// Refused, with the server's reason.
    Refused,
}

/// One push: a proposal, or a stack pushed as its top.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Pushed {
    /// The proposals it carries, bottom of the stack first.
    pub patch_ids: Vec<String>,
    /// The commit pushed (the top of the stack).
    pub commit: String,
    pub state: PushState,
    /// The ref the server reported (`refs/heads/<branch>` when landed).
    pub server_ref: String,
    /// The branch before and after the landing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
    /// The server's proposal id, when it named one (a queued push).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_id: Option<String>,
    /// Why it was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What the server's hooks wrote (`remote:` lines): conflict paths,
    /// the validation output's tail, lint findings.
    pub remote_messages: Vec<String>,
}

/// Every push, in the order made.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PushOutcome {
    pub remote: String,
    pub branch: String,
    pub pushes: Vec<Pushed>,
    /// How many were refused (the command exits 1 when any was).
    pub refused: usize,
}

/// Pushes each stack to `refs/for/<branch>` on the remote, one `git push`
/// each (git takes one update per ref in a push), oldest first, and reads
/// the server's verdict from git's report. A refusal is an outcome, not an
/// error; a push git could not make at all (no route, no credentials) is.
pub fn push(repo: &Repo, req: &PushRequest) -> Result<PushOutcome> {
    let remote = resolve_remote(repo, req.remote.as_deref())?;
    let branch = resolve_branch(repo, req.to.as_deref())?;
    let stacks = stack_tops(repo, &req.patch_ids)?;
    let dest = format!("refs/for/{branch}");
    let options: Vec<String> = if req.wait {
        Vec::new()
    } else {
        vec!["evolv.wait=false".to_string()]
    };
    let mut pushes = Vec::new();
    for stack in stacks {
        let top = stack.last().expect("a stack has a top");
        let refspec = format!("{}:{dest}", top.commit);
        let run = git::process::transport::push(repo_dir(repo)?, &remote, &[refspec], &options)?;
        let lines = push_report::parse(&run.stdout);
        let Some(line) = lines.into_iter().next() else {
            return Err(failed(&remote, &dest, &run));
        };
        pushes.push(verdict(&stack, line, &dest, &run.stderr));
    }
    let refused = pushes
        .iter()
        .filter(|p| p.state == PushState::Refused)
        .count();
    Ok(PushOutcome {
        remote,
        branch,
        pushes,
        refused,
    })
}

/// The proposals to push, grouped as stacks (bottom first), one per
/// named proposal that no other named one is stacked on.
fn stack_tops(repo: &Repo, ids: &[String]) -> Result<Vec<Vec<Proposal>>> {
    let chosen: Vec<Proposal> = if ids.is_empty() {
        let mut pending: Vec<Proposal> = proposals::list(repo)?
            .into_iter()
            .filter(|p| proposals::applied_commit(repo, &p.id).is_none())
            .collect();
        pending.sort_by_key(|p| p.meta.created_at);
        if pending.is_empty() {
            return Err(Error::invalid_field(
                "patch_ids",
                "there is no pending proposal to push",
                "make one with `git evolv propose`, or name one of `git evolv list`",
            ));
        }
        pending
    } else {
        ids.iter()
            .map(|id| proposals::load(repo, id))
            .collect::<Result<_>>()?
    };
    let mut stacks = Vec::new();
    for p in &chosen {
        let below_another = chosen
            .iter()
            .any(|q| q.id != p.id && stack_below(repo, q).iter().any(|b| b.id == p.id));
        if !below_another {
            let mut stack = stack_below(repo, p);
            stack.reverse();
            stack.push(p.clone());
            stacks.push(stack);
        }
    }
    Ok(stacks)
}

/// The pending proposals `p` is stacked on, nearest first.
fn stack_below(repo: &Repo, p: &Proposal) -> Vec<Proposal> {
    let mut below = Vec::new();
    let mut onto = p.meta.onto.clone();
    while let Some(id) = onto.take() {
        if below.len() > 1000 || proposals::applied_commit(repo, &id).is_some() {
            break;
        }
        let Ok(lower) = proposals::load(repo, &id) else {
            break;
        };
        onto = lower.meta.onto.clone();
        below.push(lower);
    }
    below
}

/// git's report of one push, read as the server's verdict.
fn verdict(stack: &[Proposal], line: RefLine, dest: &str, stderr: &str) -> Pushed {
    let top = stack.last().expect("a stack has a top");
    let mut pushed = Pushed {
        patch_ids: stack.iter().map(|p| p.id.to_string()).collect(),
        commit: top.commit.to_string(),
        state: PushState::Refused,
        server_ref: line.to.clone(),
        old: None,
        new: None,
        server_id: None,
        reason: None,
        remote_messages: push_report::remote_lines(stderr),
    };
    if line.refused() {
        pushed.reason = Some(line.reason.clone().unwrap_or(line.summary.clone()));
    } else if let Some(id) = line.to.strip_prefix(crate::store::PROPOSALS_PREFIX) {
        pushed.state = PushState::Queued;
        pushed.server_id = Some(id.to_string());
    } else if line.to.starts_with("refs/heads/") && line.flag == '=' {
        pushed.state = PushState::UpToDate;
    } else if line.to.starts_with("refs/heads/")
        && let Some((old, new)) = line.old_new()
    {
        pushed.state = PushState::Landed;
        pushed.old = Some(old.to_string());
        pushed.new = Some(new.to_string());
    } else if line.to == dest {
        // git stored refs/for/<b> as a plain ref: nothing on the server
        // took the push (no proc-receive hook, or receive.procReceiveRefs
        // unset), so nothing will land.
        pushed.reason = Some(format!(
            "the server stored {dest} as a plain ref: it has no landing hook \
             (run `git evolv hooks install --server` in its repository)"
        ));
    } else {
        pushed.reason = Some(format!(
            "the server answered `{} {}`, which is not a landing",
            line.to, line.summary
        ));
    }
    pushed
}

/// A push git could not make (no ref reported): git's own complaint.
fn failed(remote: &str, dest: &str, run: &git::process::transport::GitRun) -> Error {
    let complaint = push_report::git_complaint(&run.stderr)
        .unwrap_or_else(|| run.stderr.trim().lines().last().unwrap_or("").to_string());
    Error::GitCommand {
        command: format!("git push {remote} …:{dest}"),
        message: format!("`git push` to {remote} ({dest}) failed: {complaint}"),
    }
}

impl UseCase for PushRequest {
    const OPEN: Open = Open::Recovering;
    type Outcome = PushOutcome;

    fn run(&self, session: &Session) -> Result<PushOutcome> {
        push(session.repo()?, self)
    }
}
