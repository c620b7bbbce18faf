//! Landing one queued proposal on the server: in the landing turn, the
//! pushed commits replayed onto the branch, validated with the server's
//! own configuration in a warm worktree of the bare repository, and the
//! branch moved by compare-and-swap (`landing::bare`); then the applied
//! marker, the outcome record and the audit record.

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{self, Oid, Repo};
use crate::landing::{bare, land};
use crate::ops::settings::Settings;
use crate::store::audit::{AuditAction, RefMove};
use crate::store::outcomes::{Member, Outcome, Reason, State, landed_ref, outcome_ref};
use crate::store::proposals;
use crate::store::transaction::Transaction;

use super::records;

/// What a landing runs with: the server's settings, the operation's
/// context, and the verdict refs its validation moved (facts its record
/// lists).
struct Run<'a> {
    settings: &'a Settings,
    ctx: &'a Context,
    facts: Vec<RefMove>,
}

/// The most commits one push may carry to a branch.
pub const MAX_COMMITS: usize = 100;

/// Why a member above a refused one is not landed.
pub const BELOW_REFUSED: &str = "stack_member_refused";

/// Lands the queued `rec` (in the turn), or refuses it; returns it decided.
/// A stack's members (`rec.members`) land bottom first, each validated at
/// its own tree, up to the first one refused; those above it are refused
/// for it. Only a failure to write the records themselves is an `Err`.
pub fn land(repo: &Repo, settings: &Settings, ctx: &Context, mut rec: Outcome) -> Result<Outcome> {
    let mut run = Run {
        settings,
        ctx,
        facts: Vec::new(),
    };
    let result = land::retrying(false, || attempt(repo, &mut run, &mut rec));
    let now = crate::clock::now_secs() as u64;
    let mut members = if rec.members.is_empty() {
        vec![Member::queued(&rec)]
    } else {
        rec.members.clone()
    };
    let (error, member_errors) = match result {
        Ok(errors) => (None, errors),
        Err(e) => (Some(e), Vec::new()),
    };
    if let Some(e) = &error {
        for m in &mut members {
            m.state = State::Refused;
            m.new = None;
            m.reason = Some(reason_of(e));
        }
    } else if rec.members.is_empty() {
        // A one-commit push that was not refused landed as `rec.new`.
        members[0].state = State::Landed;
        members[0].new = rec.new.clone();
    }
    let error_of = |id: &str| {
        error
            .as_ref()
            .or_else(|| member_errors.iter().find(|(m, _)| m == id).map(|(_, e)| e))
    };
    let mut below = rec.old.clone();
    let top = members.len() - 1;
    let mut decided = Vec::with_capacity(members.len());
    for (i, m) in members.iter().enumerate() {
        let mut one = if i == top {
            rec.clone()
        } else {
            records::read(repo, &m.id).unwrap_or_else(|| Outcome {
                id: m.id.clone(),
                pushed: m.pushed.clone(),
                stack: Some(rec.id.clone()),
                members: Vec::new(),
                ..rec.clone()
            })
        };
        decide(&mut one, m, now, &mut below);
        if i == top && !rec.members.is_empty() {
            one.members = members.clone();
        }
        records::write(repo, &one)?;
        decided.push((
            one.clone(),
            error_of(&one.id).map(|e| (e.code(), e.full_message())),
        ));
        if i == top {
            rec = one;
        }
    }
    audit_landing(repo, (ctx, run.facts), &decided)?;
    Ok(rec)
}

/// Writes member `m`'s decision into its record `one`; `below` is the
/// branch under it, then its own commit.
fn decide(one: &mut Outcome, m: &Member, now: u64, below: &mut Option<String>) {
    one.members = Vec::new();
    one.decided_at = Some(now);
    one.state = m.state;
    one.reason = m.reason.clone();
    match (m.state, &m.new) {
        (State::Landed, Some(new)) => {
            one.old = below.clone();
            one.new = Some(new.clone());
            *below = Some(new.clone());
        }
        _ => {
            one.old = None;
            one.new = None;
        }
    }
}

/// One attempt: in the turn, each member replayed onto the last one
/// landed and validated at its own tree, then one swap of the branch to
/// the last member that passed. Decides `rec.members` (or, for one commit,
/// sets `rec.new`); `rec.old` is the branch before. Returns the errors of
/// the members refused, for their op-log records.
fn attempt(repo: &Repo, run: &mut Run<'_>, rec: &mut Outcome) -> Result<Vec<(String, Error)>> {
    let _turn = land::take_turn(repo)?;
    let branch_ref = format!("refs/heads/{}", rec.branch);
    let pushed = Oid::parse(&rec.pushed)?;
    let head = repo.ref_target(&branch_ref).ok_or_else(|| {
        Error::invalid(
            format!("the server has no branch '{}'", rec.branch),
            "push to refs/for/<branch> of a branch the server has (`git ls-remote --heads <remote>`)",
        )
    })?;
    // A landing killed after its swap: the branch has what it was to land
    // (the record was written, members decided, before the swap).
    if let Some(new) = rec.new.as_deref().and_then(|n| Oid::parse(n).ok())
        && (new == head || repo.is_descendant_of(head, new)?)
    {
        if rec.old.is_none() {
            rec.old = Some(repo.find_commit(new)?.parent_id(0)?.to_string());
        }
        return Ok(Vec::new());
    }
    let mut hide = records::landed_pushes(repo, &rec.branch);
    hide.push(head);
    let commits = commits_to_land(repo, pushed, &hide)?;
    let mut plan = if rec.members.is_empty() {
        vec![Member::queued(rec)]
    } else {
        rec.members.clone()
    };
    let (at, errors) = land_members(repo, run, rec, &mut plan, head, &commits)?;
    rec.old = Some(head.to_string());
    if rec.members.is_empty() {
        rec.new = plan.pop().and_then(|only| only.new);
    } else {
        rec.members = plan;
        rec.new = (at != head).then(|| at.to_string());
    }
    if at != head {
        records::write(repo, rec)?;
        bare::swap(repo, &branch_ref, head, at, &rec.id)?;
    }
    Ok(errors)
}

/// Decides each member of `plan` in order, replaying it onto the last one
/// landed (`head` at first): the commit the branch is to move to, and the
/// errors of the members refused. A one-commit push is refused with its
/// error itself.
fn land_members(
    repo: &Repo,
    run: &mut Run<'_>,
    rec: &Outcome,
    plan: &mut [Member],
    head: Oid,
    commits: &[Oid],
) -> Result<(Oid, Vec<(String, Error)>)> {
    let branch_ref = format!("refs/heads/{}", rec.branch);
    let committer = git::committer(repo)?;
    let mut at = head;
    let mut refused: Option<String> = None;
    let mut errors = Vec::new();
    for m in plan.iter_mut() {
        let c = Oid::parse(&m.pushed)?;
        if let Some(below) = &refused {
            m.state = State::Refused;
            m.new = None;
            m.reason = Some(Reason {
                code: BELOW_REFUSED.into(),
                message: format!("not landed: {below}, below it in the stack, was refused"),
                ..Reason::default()
            });
            continue;
        }
        if !commits.contains(&c) {
            // Landed meanwhile through another push of the same commit.
            m.state = State::Landed;
            m.new = records::landed_push(repo, &rec.branch, &m.pushed).and_then(|r| r.new);
            continue;
        }
        match land_member(repo, run, &branch_ref, c, at, &committer, &m.id) {
            Ok(new) => {
                at = new;
                m.state = State::Landed;
                m.new = Some(new.to_string());
                m.reason = None;
            }
            Err(e @ (Error::ConcurrentUpdate { .. } | Error::Signalled { .. })) => return Err(e),
            // A one-commit push is refused with the error itself.
            Err(e) if rec.members.is_empty() => return Err(e),
            Err(e) => {
                m.state = State::Refused;
                m.new = None;
                m.reason = Some(reason_of(&e));
                refused = Some(m.id.clone());
                errors.push((m.id.clone(), e));
            }
        }
    }
    Ok((at, errors))
}

/// One member: its message linted, replayed onto `at`, validated at the
/// tree it makes; the commit to land.
fn land_member(
    repo: &Repo,
    run: &mut Run<'_>,
    branch_ref: &str,
    commit: Oid,
    at: Oid,
    committer: &crate::git::objects::view::Signature,
    id: &str,
) -> Result<Oid> {
    super::lint::check(repo, run.settings, &[commit])?;
    let replayed = bare::replay(repo, &[commit], at, committer, id)?;
    let candidate = (at, replayed.commit, &replayed.changed[..]);
    let (settings, ctx) = (run.settings, run.ctx);
    super::validation::validate(repo, (settings, ctx), branch_ref, candidate, &mut run.facts)?;
    Ok(replayed.commit)
}

/// The pushed commits neither on the branch nor landed before (`hide`),
/// oldest first: each must have one parent (a merge cannot be replayed),
/// at most [`MAX_COMMITS`].
pub(super) fn commits_to_land(repo: &Repo, pushed: Oid, hide: &[Oid]) -> Result<Vec<Oid>> {
    let commits = repo.walk(&[pushed], hide, git::Order::OldestFirst)?;
    if commits.len() > MAX_COMMITS {
        return Err(Error::invalid(
            format!(
                "{} commits in one push (at most {MAX_COMMITS})",
                commits.len()
            ),
            "push fewer commits at a time, or squash them",
        ));
    }
    for &c in &commits {
        match repo.find_commit(c)?.parent_count() {
            1 => {}
            0 => {
                return Err(Error::invalid(
                    format!(
                        "{c} is a root commit (it has no parent): it shares no history with the branch"
                    ),
                    "commit on top of the branch (`git fetch`, then `git rebase --onto origin/<branch> --root`) and push again",
                ));
            }
            _ => {
                return Err(Error::invalid(
                    format!("{c} is a merge commit: a landing replays commits one by one"),
                    "rebase onto the branch (`git pull --rebase`) and push again",
                ));
            }
        }
    }
    if commits.is_empty() {
        return Err(Error::invalid(
            "nothing to land: the pushed commits are on the branch or landed before",
            "commit something new and push again",
        ));
    }
    Ok(commits)
}

/// What the pusher and the record are told of a refusal.
pub fn reason_of(e: &Error) -> Reason {
    let body = e.to_body();
    let output = body
        .validation
        .as_ref()
        .and_then(|reports| reports.last())
        .map(|r| tail_lines(&r.output_tail, 20))
        .unwrap_or_default();
    Reason {
        code: body.code.to_string(),
        message: e.to_string(),
        paths: body.paths.unwrap_or_default(),
        output,
    }
}

fn tail_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The op log's one record of the landing (or refusal) of a push, a
/// stack's members included: who pushed, what, what came of it, the
/// branch's move and each landed member's applied marker, which it sets.
/// `decided` holds each member's decision, bottom first, and its error.
fn audit_landing(
    repo: &Repo,
    (ctx, facts): (&Context, Vec<RefMove>),
    decided: &[(Outcome, Option<(&str, String)>)],
) -> Result<()> {
    let (Some((bottom, _)), Some((top, _))) = (decided.first(), decided.last()) else {
        return Ok(());
    };
    let mut tx = Transaction::new(repo, ctx, AuditAction::Apply, &top.id);
    // The verdicts its validation stored: facts, which undo leaves.
    facts.into_iter().for_each(|f| tx.fact_written(f));
    tx.set_reflog(format!("git-evolv: landed {}", top.id));
    let landed: Vec<&Outcome> = decided
        .iter()
        .map(|(o, _)| o)
        .filter(|o| o.state == State::Landed)
        .collect();
    let old = bottom.old.as_deref().and_then(|o| Oid::parse(o).ok());
    let new = landed
        .last()
        .and_then(|o| o.new.as_deref())
        .and_then(|n| Oid::parse(n).ok());
    if let (Some(old), Some(new)) = (old, new) {
        // Moved by the landing's own compare-and-swap (`landing::bare`).
        tx.branch(format!("refs/heads/{}", top.branch), old, new);
    }
    for (o, _) in decided {
        list_arrival(repo, &mut tx, o)?;
    }
    for o in &landed {
        if let Some(new) = o.new.as_deref().and_then(|n| Oid::parse(n).ok()) {
            tx.set(proposals::applied_ref(&o.id), Some(new));
        }
    }
    for (o, _) in decided.iter().filter(|(o, _)| o.state == State::Refused) {
        super::refused::keep(repo, &mut tx, o)?;
    }
    let record = tx.record();
    record.branch = Some(top.branch.clone());
    record.commit = new.map(|n| n.to_string());
    record.previous_head = bottom.old.clone();
    record.actor = Some(super::actor_of(&top.pusher));
    if decided.len() > 1 {
        record.patch_ids = decided.iter().map(|(o, _)| o.id.clone()).collect();
    }
    // The first member refused says why the push did not land whole.
    let refused = decided.iter().find(|(o, _)| o.state == State::Refused);
    if let Some((o, error)) = refused {
        record.success = false;
        let (code, message) = match (error, &o.reason) {
            (Some((code, message)), _) => (code.to_string(), message.clone()),
            (None, Some(r)) => (r.code.clone(), r.message.clone()),
            (None, None) => ("refused".into(), String::new()),
        };
        record.error_code = Some(code);
        record.error_message = Some(message);
    }
    tx.commit()?;
    Ok(())
}

/// Lists in `tx` what the push of member `o` left since it arrived (the
/// receive and the landing are one operation): its outcome record and,
/// landed, its proposal and the landed-push index. Its queue entry came
/// and went, so it is not listed.
fn list_arrival(repo: &Repo, tx: &mut Transaction<'_>, o: &Outcome) -> Result<()> {
    let now = |name: &str| repo.ref_target(name);
    let outcome = outcome_ref(&o.id);
    tx.already(&outcome, None, now(&outcome));
    if o.state == State::Landed {
        let proposal = proposals::proposal_ref(&o.id);
        tx.already(&proposal, None, now(&proposal));
        let landed = landed_ref(&o.pushed, &o.branch);
        tx.already(&landed, None, now(&landed));
    }
    Ok(())
}
