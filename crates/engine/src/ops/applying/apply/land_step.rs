//! Landing what was built, in this process's turn: without validation in
//! one turn, with validation outside it (and a replay onto a branch that
//! moved meanwhile); then each proposal's outcome and audit record.

use super::ApplyOutcome;
use super::replay::{Built, Step, build, check_clean, same_in_touched_files};
use super::settings::RunSettings;
use super::undo::undo_after_move;
use super::validate_step::{Validated, validate_in_worktree};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::git::{self, Head};
use crate::landing::land::{self, FAILPOINT_AFTER_BRANCH_MOVE};
use crate::plan::RollbackStrategy;
use crate::store::audit::AuditAction;
use crate::store::pending::Deferred;
use crate::store::proposals::{self, Proposal};
use crate::store::transaction::Transaction;
use crate::validate::Budget;

/// Nothing to validate: replays and lands in one turn (a dry run takes
/// none, and only checks). The landing checks the paths for uncommitted
/// work itself, under `index.lock` (`land::move_branch_in_turn`); only a
/// dry run checks here.
pub(super) fn land_unvalidated(
    repo: &Repo,
    proposals: &[Proposal],
    s: &RunSettings,
    committer: &crate::git::objects::view::Signature,
    ctx: &Context,
) -> Result<Vec<ApplyOutcome>> {
    let turn = if s.dry_run {
        None
    } else {
        Some(land::take_turn(repo)?)
    };
    let built = build(repo, proposals, s, committer)?;
    if turn.is_none() {
        check_clean(repo, &built)?;
    }
    conclude(repo, s, built, turn, (Validated::default(), ctx))
}

/// Replays and validates outside the turn, then lands in it what was
/// validated (or a replay onto a moved branch identical to it in every
/// file the proposals touch; anything else is a `ConcurrentUpdate`, which
/// the caller retries with a new validation).
pub(super) fn land_validated(
    repo: &Repo,
    proposals: &[Proposal],
    s: &RunSettings,
    (start, committer): (&Head, &crate::git::objects::view::Signature),
    ctx: &Context,
    budget: Budget,
) -> Result<Vec<ApplyOutcome>> {
    let built = build(repo, proposals, s, committer)?;
    check_clean(repo, &built)?;
    let validated = validate_in_worktree(repo, s, ctx, (built.head.commit, built.new), budget)?;
    budget.check(ctx, "the landing", &validated.reports)?;
    let validated = (validated, ctx);
    if s.dry_run {
        return conclude(repo, s, built, None, validated);
    }
    let turn = land::take_turn(repo)?;
    // Switched to another branch while the validation ran: never replay
    // onto that one (#16 item 2).
    land::ensure_on_branch(repo, start)?;
    if git::head(repo)? == built.head {
        return conclude(repo, s, built, Some(turn), validated);
    }
    // The branch moved while the validation ran: replay onto its new head.
    let replayed = build(repo, proposals, s, committer)?;
    // Only a branch that moved forward keeps what was validated: one that
    // was rewound or rewritten (`git reset`) meanwhile removed history the
    // validation ran on, so the apply validates again (#16 item 2 sibling).
    let forward = repo.is_descendant_of(replayed.head.commit, built.head.commit)?;
    if forward && same_in_touched_files(repo, proposals, &built.new_tree, &replayed.new_tree) {
        return conclude(repo, s, replayed, Some(turn), validated);
    }
    drop(turn);
    // What was validated is not what would land: validate again (a retry).
    Err(Error::ConcurrentUpdate {
        what: built.head.ref_name().to_string(),
        expected: built.head.commit.to_string(),
    })
}

/// Lands `built` (or, in a dry run, records what would land) and reports
/// each proposal's outcome. One operation, one record, however many
/// proposals it lands.
pub(super) fn conclude(
    repo: &Repo,
    s: &RunSettings,
    built: Built<'_, '_>,
    turn: Option<land::Turn>,
    (validated, ctx): (Validated, &Context),
) -> Result<Vec<ApplyOutcome>> {
    match turn.filter(|_| !s.dry_run) {
        Some(turn) => land_built(repo, s, built, turn, (&validated, ctx)),
        None => {
            let logged = transaction(repo, s, &built, (&validated, ctx)).commit()?;
            let warnings: Vec<Deferred> = logged.deferred().cloned().into_iter().collect();
            Ok(built
                .steps
                .iter()
                .map(|step| {
                    let id = logged.id();
                    outcome(s, &built.head, step, &validated, id, warnings.clone())
                })
                .collect())
        }
    }
}

/// The apply as one operation: its record, and (unless a dry run) the
/// markers of each proposal landed; the branch move is the landing's.
pub(super) fn transaction<'r>(
    repo: &'r Repo,
    s: &RunSettings,
    built: &Built<'_, '_>,
    (validated, ctx): (&Validated, &Context),
) -> Transaction<'r> {
    let head = &built.head;
    let ids: Vec<String> = built
        .steps
        .iter()
        .map(|st| st.proposal.id.to_string())
        .collect();
    let mut tx = Transaction::new(repo, ctx, AuditAction::Apply, &ids[0]);
    let paths: Vec<git::RepoPath> = built.steps.iter().flat_map(|st| st.paths()).collect();
    let r = tx.record();
    r.branch = Some(head.ref_name().to_string());
    r.commit = Some(built.new.to_string());
    r.previous_head = Some(head.commit.to_string());
    r.set_files(&paths);
    r.plan = s.plan.clone();
    r.dry_run = s.dry_run;
    r.batch = s.batch;
    if ids.len() > 1 {
        r.patch_ids = ids;
    }
    if let Some(moved) = validated.verdict.as_ref().and_then(|v| v.moved.clone()) {
        tx.fact_written(moved);
    }
    if s.dry_run {
        return tx;
    }
    let backup = s
        .plan
        .as_ref()
        .is_some_and(|p| p.rollback.strategy == RollbackStrategy::FileBackup);
    for step in &built.steps {
        let id = &step.proposal.id;
        tx.set(proposals::applied_ref(id), Some(step.commit));
        if backup {
            tx.set(proposals::backup_ref(id), Some(head.commit));
        }
    }
    for (name, old, new) in &s.also {
        tx.swap(name.clone(), *old, *new);
    }
    tx
}

/// Moves the branch to `built.new` in `turn`, with the bookkeeping
/// journalled alongside (so recovery finishes it), and finishes the
/// landing; a failure after the branch moved is undone by the plan's
/// strategy.
pub(super) fn land_built(
    repo: &Repo,
    s: &RunSettings,
    built: Built<'_, '_>,
    turn: land::Turn,
    (validated, ctx): (&Validated, &Context),
) -> Result<Vec<ApplyOutcome>> {
    let tx = transaction(repo, s, &built, (validated, ctx));
    let Built {
        head,
        steps,
        new,
        changed,
        ..
    } = built;
    let ids: Vec<&str> = steps.iter().map(|st| st.proposal.id.as_str()).collect();
    let reflog = format!("evolv: apply {}", ids.join(" "));
    let mv = land::BranchMove::new(&head, new, &changed, &reflog, tx);
    let landing = land::move_branch_in_turn(repo, turn, mv)?;
    let finish = || -> Result<Vec<ApplyOutcome>> {
        land::failpoint(FAILPOINT_AFTER_BRANCH_MOVE)?;
        let finished = landing.finish(repo, ctx.progress())?;
        let warnings: Vec<Deferred> = finished.deferred.iter().cloned().collect();
        let id = finished.audit_id(0);
        Ok(steps
            .iter()
            .map(|step| outcome(s, &head, step, validated, id.clone(), warnings.clone()))
            .collect())
    };
    let landed = (&landing, ctx.progress());
    finish().map_err(|cause| undo_after_move(repo, s, &head, new, landed, &ids, cause))
}

/// One proposal's outcome.
pub(super) fn outcome(
    s: &RunSettings,
    head: &Head,
    step: &Step<'_>,
    validated: &Validated,
    audit_id: String,
    warnings: Vec<Deferred>,
) -> ApplyOutcome {
    ApplyOutcome {
        patch_id: step.proposal.id.to_string(),
        commit: step.commit.to_string(),
        // Its real parent: in a batch, the commit of the patch before it.
        previous_head: step.parent.to_string(),
        branch: head.display_name().to_string(),
        modified_files: git::types::path::lossy_list(&step.paths()),
        modified_files_bytes: git::types::path::bytes_column(&step.paths()),
        worktree_path: validated.worktree_path.clone(),
        audit_log_id: audit_id,
        validation: validated.reports.clone(),
        verdict: validated.verdict.clone(),
        dry_run: s.dry_run,
        batch: s.batch,
        lines_added: step.lines.0,
        lines_removed: step.lines.1,
        plan: s.plan.clone(),
        // Verdict refs the validation skipped, then the bookkeeping's.
        warnings: validated.warnings.iter().cloned().chain(warnings).collect(),
        remaining_patch_id: None,
    }
}
