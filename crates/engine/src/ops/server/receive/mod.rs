//! receive: what the server does with a push to `refs/for/<branch>` (the
//! proc-receive hook, issue 28). Each pushed ref becomes a proposal
//! (`refs/evolv/proposals/<id>` → the pushed commit; its base is the
//! commit's parent, a series of commits is a stack landed as one), gets an
//! outcome record (`refs/evolv/outcomes/<id>`), and joins the landing
//! queue; a push that waits (the default) has its proposal landed before
//! the answer, `-o evolv.wait=false` is answered once queued and a
//! detached drainer (`queue`) lands it. The pre-receive guard of the
//! protected branches is `guard`.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::store::outcomes::{FOR_PREFIX, Member, Outcome, Pusher, Reason, State};
use crate::store::proposals;
use evolv_core::receive::ref_name;

use crate::context::Context;
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::ops::settings::Settings;

pub mod guard;
mod land;
mod lint;
pub mod options;
pub mod queue;
pub mod records;
pub mod refused;
mod validation;

/// One ref git hands to the hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushedRef {
    pub old: String,
    pub new: String,
    pub refname: String,
}

/// A push as the proc-receive hook reads it.
#[derive(Debug, Clone, Default)]
pub struct ReceiveRequest {
    pub refs: Vec<PushedRef>,
    pub options: Vec<String>,
    /// Who pushed, as the transport says (the authors are added per commit).
    pub pusher: Pusher,
}

/// The detached drainer's request (`hook proc-receive --drain`).
#[derive(Debug, Clone, Default)]
pub struct DrainRequest;

/// What became of one pushed ref.
#[derive(Debug, Clone, Serialize)]
pub struct RefOutcome {
    /// The ref pushed (`refs/for/main`).
    pub pushed_ref: String,
    /// The proposal's record, when the push got as far as one.
    pub record: Option<Outcome>,
    /// Why it was refused before it became a proposal.
    pub refused: Option<Reason>,
}

/// What the push came to, per ref; `drain` when a drainer must be started.
#[derive(Debug, Clone, Serialize)]
pub struct ReceiveOutcome {
    pub refs: Vec<RefOutcome>,
    pub drain: bool,
}

impl ReceiveOutcome {
    /// Every ref of `req` refused for the one reason `e`.
    pub fn refused(req: &ReceiveRequest, e: &Error) -> ReceiveOutcome {
        ReceiveOutcome {
            refs: req
                .refs
                .iter()
                .map(|r| RefOutcome {
                    pushed_ref: r.refname.clone(),
                    record: None,
                    refused: Some(land::reason_of(e)),
                })
                .collect(),
            drain: false,
        }
    }
}

/// The op log's actor of a push: `push:<user>@<address>`.
pub fn actor_of(p: &Pusher) -> String {
    format!(
        "push:{}@{}",
        p.user.as_deref().unwrap_or("-"),
        p.address.as_deref().unwrap_or("-")
    )
}

/// Handles a push: records every ref first (arrival order), then, unless
/// the push said `evolv.wait=false`, lands the queue up to them.
pub fn receive(
    repo: &Repo,
    settings: &Settings,
    ctx: &Context,
    req: &ReceiveRequest,
) -> Result<ReceiveOutcome> {
    let opts = match options::parse(&req.options) {
        Ok(o) => o,
        Err(e) => return Ok(ReceiveOutcome::refused(req, &e)),
    };
    refused::expire(repo, settings)?;
    let mut outs = Vec::new();
    for r in &req.refs {
        outs.push(match enqueue(repo, r, &req.pusher) {
            Ok(rec) => RefOutcome {
                pushed_ref: r.refname.clone(),
                record: Some(rec),
                refused: None,
            },
            Err(e) => RefOutcome {
                pushed_ref: r.refname.clone(),
                record: None,
                refused: Some(land::reason_of(&e)),
            },
        });
    }
    let queued = outs
        .iter()
        .any(|o| o.record.as_ref().is_some_and(|r| r.state == State::Queued));
    if !opts.wait {
        return Ok(ReceiveOutcome {
            refs: outs,
            drain: queued,
        });
    }
    if queued {
        queue::drain_waiting(repo, settings, ctx)?;
    }
    for o in &mut outs {
        if let Some(rec) = &mut o.record
            && !rec.already
            && let Some(now) = records::read(repo, &rec.id)
        {
            *rec = now;
        }
    }
    Ok(ReceiveOutcome {
        refs: outs,
        drain: false,
    })
}

/// Checks one pushed ref and records it as a queued proposal; a re-push of
/// a landed commit is answered from its record.
fn enqueue(repo: &Repo, r: &PushedRef, pusher: &Pusher) -> Result<Outcome> {
    let branch = ref_name::branch_of(&r.refname, FOR_PREFIX)?;
    if evolv_core::policy::is_zero_oid(&r.new) {
        return Err(Error::invalid(
            format!("refusing to delete {}", ref_name::shown(&r.refname)),
            "refs/for/<branch> takes commits to land; there is nothing to delete",
        ));
    }
    let pushed = Oid::parse(&r.new)?;
    repo.find_commit(pushed)?;
    if let Some(mut landed) = records::landed_push(repo, &branch, &r.new) {
        landed.already = true;
        return Ok(landed);
    }
    let Some(head) = repo.ref_target(&format!("refs/heads/{branch}")) else {
        return Err(Error::invalid(
            format!("the server has no branch '{branch}'"),
            "push to refs/for/<branch> of a branch the server has (`git ls-remote --heads <remote>`)",
        ));
    };
    if head == pushed || repo.is_descendant_of(head, pushed)? {
        return Err(Error::invalid(
            format!("nothing to land: {pushed} is already on {branch}"),
            "commit something new and push again",
        ));
    }
    // A series is a stack: one proposal per commit. Refused here, before
    // anything is recorded, when it cannot land at all (a merge, a root).
    let mut hide = records::landed_pushes(repo, &branch);
    hide.push(head);
    let commits = land::commits_to_land(repo, pushed, &hide)?;
    // Stamped and written under the arrival lock: a drainer listing the
    // queue sees either this record or none stamped after it.
    let mut arrivals = queue::arrival_lock(repo)?;
    let now_ns = arrivals.stamp()?;
    let record_of = |id: String, c: Oid| -> Result<Outcome> {
        let mut who = pusher.clone();
        let a = repo.find_commit(c)?.author();
        who.author = Some(format!("{} <{}>", a.name, a.email));
        Ok(Outcome {
            id,
            branch: branch.clone(),
            state: State::Queued,
            pushed: c.to_string(),
            old: None,
            new: None,
            already: false,
            reason: None,
            pusher: who,
            received_at: now_ns / 1_000_000_000,
            received_ns: now_ns,
            decided_at: None,
            members: Vec::new(),
            stack: None,
        })
    };
    let top_id = claim_id(repo, pushed)?;
    let mut rec = record_of(top_id.clone(), pushed)?;
    if commits.len() > 1 {
        for &c in &commits[..commits.len() - 1] {
            let mut member = record_of(claim_id(repo, c)?, c)?;
            member.stack = Some(top_id.clone());
            records::write(repo, &member)?;
            rec.members.push(Member::queued(&member));
        }
        rec.members.push(Member::queued(&rec));
    }
    records::write(repo, &rec)?;
    Ok(rec)
}

/// Claims a proposal id for `pushed`: creates `refs/evolv/proposals/<id>`
/// where no ref is yet (compare-and-swap), so two pushes of one commit in
/// the same second never share an id.
fn claim_id(repo: &Repo, pushed: Oid) -> Result<String> {
    let now = proposals::now_secs();
    let mut last = None;
    for extra in 0..24 {
        let id = proposals::make_id(now, pushed, extra);
        match crate::store::refs::swap(
            repo,
            &proposals::proposal_ref(&id),
            pushed,
            None,
            "git-evolv: pushed proposal",
        ) {
            Ok(()) => return Ok(id),
            Err(e @ Error::ConcurrentUpdate { .. }) => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.expect("at least one attempt"))
}

impl UseCase for DrainRequest {
    const OPEN: Open = Open::Server;
    type Outcome = usize;

    fn run(&self, session: &Session) -> Result<usize> {
        queue::drain_detached(session.repo()?, session.settings()?, session.context())
    }
}

impl UseCase for ReceiveRequest {
    const OPEN: Open = Open::Server;
    type Outcome = ReceiveOutcome;

    fn run(&self, session: &Session) -> Result<ReceiveOutcome> {
        let repo = session.repo()?;
        let outcome = receive(repo, session.settings()?, session.context(), self)?;
        if outcome.drain {
            queue::spawn_drainer(repo.git_dir())?;
        }
        Ok(outcome)
    }
}
