//! Every step of an undo decided before any is taken (issue 38 items 14
//! and 15). Each step is decided on the refs as the steps before it leave
//! them (`Sim`), reverts computed in memory: a step that would be refused
//! is refused before anything changes (`undo --to` undoes all or nothing),
//! and a dry run is that plan, so it shows what the run does. The run then
//! decides each step again, with the same code, on the repository itself,
//! and takes it only while it is the step planned; should a step still
//! fail (another process moved a ref in between), the error says exactly
//! which operations were undone.

use std::collections::HashMap;

use super::sim::Sim;
use super::{Method, Undone, landing, refs};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{self, Repo};
use crate::landing::land::{self, Turn};
use crate::store::audit::AuditEntry;

/// `GIT_EVOLV_TEST_FAILPOINT` value that fails every step after the first.
pub const FAILPOINT_LATER_STEP: &str = "undo-later-step";

/// One step, decided.
enum Step {
    Refs(refs::RefsUndo),
    Landing(landing::LandingUndo),
}

impl Step {
    fn outcome(&self) -> Undone {
        match self {
            Step::Refs(r) => r.outcome(),
            Step::Landing(l) => l.outcome(),
        }
    }

    fn run(self, repo: &Repo, turn: Turn, ctx: &Context) -> Result<Undone> {
        match self {
            Step::Refs(r) => r.run(repo, turn, ctx),
            Step::Landing(l) => l.run(repo, turn, ctx),
        }
    }
}

/// Decides the undo of `target` on the refs as `sim` has them. `check`:
/// also refuse uncommitted work a landing would meet (the plan's check,
/// in its turn; a run's landing checks it itself).
fn decide(repo: &Repo, sim: &mut Sim, target: &AuditEntry, check: Option<&Turn>) -> Result<Step> {
    let moves = super::pick::undoable_refs(target)?;
    match moves
        .iter()
        .position(|m| !m.name.starts_with("refs/evolv/"))
    {
        Some(branch) => {
            landing::decide(repo, sim, target, (&moves, branch), check).map(Step::Landing)
        }
        None => refs::decide(repo, sim, target, &moves).map(Step::Refs),
    }
}

/// What undoing `targets` in order does, step by step, or the first
/// refusal. Writes nothing: its reverts are made in memory. Uncommitted
/// work in the paths a landing writes is refused here for a dry run and
/// for every step after the first; the run's first step is checked by
/// its own landing, before anything changes (once is enough: the check
/// reads and hashes each racily clean file).
pub(super) fn plan(
    repo: &Repo,
    turn: &Turn,
    targets: &[AuditEntry],
    dry_run: bool,
) -> Result<Vec<Undone>> {
    let scratch = git::in_memory_writes(repo)?;
    let mut sim = Sim::default();
    targets
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let check = (dry_run || i > 0).then_some(turn);
            decide(&scratch, &mut sim, t, check).map(|s| s.outcome())
        })
        .collect()
}

/// Takes the steps of `planned`, in order, the first in `turn`.
pub(super) fn run(
    repo: &Repo,
    (turn, ctx): (Turn, &Context),
    targets: &[AuditEntry],
    planned: &[Undone],
) -> Result<Vec<Undone>> {
    let mut done: Vec<Undone> = Vec::new();
    let mut turn = Some(turn);
    // The commits the plan made in memory, and the ones the run made for
    // them: a later step starts from the run's.
    let mut made: HashMap<String, String> = HashMap::new();
    for (target, plan) in targets.iter().zip(planned) {
        let step = take(
            repo,
            (turn.take(), ctx),
            target,
            plan,
            &made,
            done.is_empty(),
        );
        match step {
            Ok(u) => {
                if matches!(u.method, Method::Revert | Method::Reapply)
                    && let (Some(p), Some(r)) = (plan.refs.first(), u.refs.first())
                    && let (Some(p), Some(r)) = (&p.new, &r.new)
                {
                    made.insert(p.clone(), r.clone());
                }
                done.push(u);
            }
            Err(e) if done.is_empty() => return Err(e),
            Err(e) => {
                return Err(Error::UndoIncomplete {
                    undone: done.iter().map(|u| (u.op.clone(), u.id.clone())).collect(),
                    stopped_at: target.id.clone(),
                    left: planned.len() - done.len(),
                    cause: Box::new(e),
                });
            }
        }
    }
    Ok(done)
}

/// Decides the step of `target` again on the repository and takes it,
/// while it is the step `plan` planned.
fn take(
    repo: &Repo,
    (turn, ctx): (Option<Turn>, &Context),
    target: &AuditEntry,
    plan: &Undone,
    made: &HashMap<String, String>,
    first: bool,
) -> Result<Undone> {
    let turn = match turn {
        Some(t) => t,
        None => land::take_turn(repo)?,
    };
    if !first {
        // For tests: a step that fails after others were taken.
        land::failpoint(FAILPOINT_LATER_STEP)?;
    }
    let step = decide(repo, &mut Sim::default(), target, None)?;
    if let Some(e) = differs(target, plan, &step.outcome(), made) {
        return Err(e);
    }
    step.run(repo, turn, ctx)
}

/// Why the step decided now (`now`) is not the step planned (`plan`), if
/// it is not: a ref found holding something else than planned
/// (`undo_conflict`, naming it), or another method or other paths. A
/// commit made by the step (a revert, a reapply) is made again, so only
/// the refs it starts from are compared; one an earlier step made is
/// compared as the run made it (`made`).
fn differs(
    target: &AuditEntry,
    plan: &Undone,
    now: &Undone,
    made: &HashMap<String, String>,
) -> Option<Error> {
    let makes = matches!(plan.method, Method::Revert | Method::Reapply);
    let run_id = |id: &Option<String>| id.as_ref().map(|i| made.get(i).unwrap_or(i).clone());
    for (p, n) in plan.refs.iter().zip(&now.refs) {
        let old = run_id(&p.old);
        if p.name != n.name || old != n.old || (run_id(&p.new) != n.new && !makes) {
            return Some(Error::UndoConflict {
                op: target.id.clone(),
                name: p.name.clone(),
                expected: old,
                actual: n.old.clone(),
            });
        }
    }
    let same =
        plan.method == now.method && plan.paths == now.paths && plan.refs.len() == now.refs.len();
    (!same).then(|| Error::NotUndoable {
        op: target.id.clone(),
        reason: "the repository changed while the undo ran (another process moved a ref or the branch), so it is no longer the step planned".into(),
    })
}
