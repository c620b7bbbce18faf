//! Landing one queued proposal on the server: in the landing turn, the
//! pushed commits replayed onto the branch, validated with the server's
//! own configuration in a warm worktree of the bare repository, and the
//! branch moved by compare-and-swap (`landing::bare`); then the applied
//! marker, the outcome record and the audit record.

use crate::error::{Error, Result};
use crate::git::{self, Oid, Repo};
use crate::landing::{bare, land};
use crate::ops::settings::Settings;
use crate::store::audit::{self, AuditAction, AuditRecord, RefMove};
use crate::store::outcomes::{Outcome, Reason, State};
use crate::store::proposals;

use super::records;

/// The most commits one push may carry to a branch.
pub const MAX_COMMITS: usize = 100;

/// Lands the queued `rec` (in the turn), or refuses it; returns it decided.
/// Only a failure to write the records themselves is an `Err`.
pub fn land(repo: &Repo, settings: &Settings, mut rec: Outcome) -> Result<Outcome> {
    let result = land::retrying(false, || attempt(repo, settings, &mut rec));
    rec.decided_at = Some(crate::clock::now_secs() as u64);
    match result {
        Ok((old, new)) => {
            git::compare_and_swap_force(
                repo,
                &proposals::applied_ref(&rec.id),
                new,
                "git-evolv: landed",
            )?;
            rec.state = State::Landed;
            rec.old = Some(old.to_string());
            rec.new = Some(new.to_string());
            records::write(repo, &rec)?;
            audit_landing(repo, &rec, None);
        }
        Err(e) => {
            rec.state = State::Refused;
            rec.new = None;
            rec.reason = Some(reason_of(&e));
            records::write(repo, &rec)?;
            super::refused::keep(repo, &rec)?;
            audit_landing(repo, &rec, Some(&e));
        }
    }
    Ok(rec)
}

/// One attempt: in the turn, replay, validate, swap. `(old, new)` of the branch.
fn attempt(repo: &Repo, settings: &Settings, rec: &mut Outcome) -> Result<(Oid, Oid)> {
    let _turn = land::take_turn(repo)?;
    let branch_ref = format!("refs/heads/{}", rec.branch);
    let pushed = Oid::parse(&rec.pushed)?;
    let head = repo.ref_target(&branch_ref).ok_or_else(|| {
        Error::invalid(
            format!("the server has no branch '{}'", rec.branch),
            "push to refs/for/<branch> of a branch the server has (`git ls-remote --heads <remote>`)",
        )
    })?;
    // A landing killed after its swap: the branch has what it was to land.
    if let Some(new) = rec.new.as_deref().and_then(|n| Oid::parse(n).ok())
        && (new == head || repo.is_descendant_of(head, new)?)
    {
        let old = repo.find_commit(new)?.parent_id(0)?;
        return Ok((old, new));
    }
    let mut hide = records::landed_pushes(repo, &rec.branch);
    hide.push(head);
    let commits = commits_to_land(repo, pushed, &hide)?;
    super::lint::check(repo, settings, &commits)?;
    let committer = git::committer(repo)?;
    let replayed = bare::replay(repo, &commits, head, &committer, &rec.id)?;
    super::validation::validate(repo, settings, &branch_ref, replayed.commit)?;
    rec.new = Some(replayed.commit.to_string());
    records::write(repo, rec)?;
    bare::swap(repo, &branch_ref, head, replayed.commit, &rec.id)?;
    Ok((head, replayed.commit))
}

/// The pushed commits neither on the branch nor landed before (`hide`),
/// oldest first: each must have one parent (a merge cannot be replayed),
/// at most [`MAX_COMMITS`].
fn commits_to_land(repo: &Repo, pushed: Oid, hide: &[Oid]) -> Result<Vec<Oid>> {
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

/// The op log's record of a landing or refusal: who pushed, what, and
/// what came of it (best effort: the outcome record is the pusher's).
fn audit_landing(repo: &Repo, rec: &Outcome, error: Option<&Error>) {
    let mut record = match error {
        Some(e) => AuditRecord::failure(AuditAction::Apply, &rec.id, e),
        None => AuditRecord::new(AuditAction::Apply, &rec.id, true),
    };
    record.branch = Some(rec.branch.clone());
    record.commit = rec.new.clone();
    record.previous_head = rec.old.clone();
    record.actor = Some(super::actor_of(&rec.pusher));
    if let (Some(old), Some(new)) = (&rec.old, &rec.new)
        && error.is_none()
    {
        record.moved(RefMove::new(
            format!("refs/heads/{}", rec.branch),
            Oid::parse(old).ok(),
            Oid::parse(new).ok(),
        ));
    }
    let _ = audit::append(repo, &record);
}
