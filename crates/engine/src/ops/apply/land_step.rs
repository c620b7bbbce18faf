//! Landing what was built, in this process's turn: without validation in
//! one turn, with validation outside it (and a replay onto a branch that
//! moved meanwhile); then each proposal's outcome and audit record.

use super::ApplyOutcome;
use super::replay::{Built, Step, build, check_clean, same_in_touched_files};
use super::settings::RunSettings;
use super::undo::undo_after_move;
use super::validate_step::{Validated, validate_in_worktree};
use crate::error::{Error, Result};
use crate::git::{self, Head};
use crate::git::{Oid, Repo};
use crate::landing::land::{self, Epilogue, FAILPOINT_AFTER_BRANCH_MOVE};
use crate::plan::RollbackStrategy;
use crate::store::audit::{AuditAction, AuditRecord, RefMove};
use crate::store::pending::{self, Deferred};
use crate::store::proposals::{self, Proposal};
use crate::validate::Budget;

/// Nothing to validate: replays and lands in one turn (a dry run takes
/// none, and only checks). The landing checks the paths for uncommitted
/// work itself, under `index.lock` (`land::move_branch_in_turn`); only a
/// dry run checks here.
pub(super) fn land_unvalidated(
    repo: &Repo,
    proposals: &[Proposal],
    s: &RunSettings,
    committer: &crate::git::view::Signature,
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
    conclude(repo, s, built, turn, Validated::default())
}

/// Replays and validates outside the turn, then lands in it what was
/// validated (or a replay onto a moved branch identical to it in every
/// file the proposals touch; anything else is a `ConcurrentUpdate`, which
/// the caller retries with a new validation).
pub(super) fn land_validated(
    repo: &Repo,
    proposals: &[Proposal],
    s: &RunSettings,
    start: &Head,
    committer: &crate::git::view::Signature,
    budget: Budget,
) -> Result<Vec<ApplyOutcome>> {
    let built = build(repo, proposals, s, committer)?;
    check_clean(repo, &built)?;
    let validated = validate_in_worktree(repo, s, built.head.commit, built.new, budget)?;
    budget.check("the landing", &validated.reports)?;
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
/// each proposal's outcome.
pub(super) fn conclude(
    repo: &Repo,
    s: &RunSettings,
    built: Built<'_, '_>,
    turn: Option<land::Turn>,
    validated: Validated,
) -> Result<Vec<ApplyOutcome>> {
    match turn.filter(|_| !s.dry_run) {
        Some(turn) => land_built(repo, s, built, turn, &validated),
        None => built
            .steps
            .iter()
            .map(|step| {
                let logged = pending::log(repo, &record(s, &built.head, step))?;
                let warnings = logged.deferred().cloned().into_iter().collect();
                Ok(outcome(
                    s,
                    &built.head,
                    step,
                    &validated,
                    logged.id(),
                    warnings,
                ))
            })
            .collect(),
    }
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
    validated: &Validated,
) -> Result<Vec<ApplyOutcome>> {
    let Built {
        head,
        steps,
        new,
        changed,
        ..
    } = built;
    let ids: Vec<&str> = steps.iter().map(|st| st.proposal.id.as_str()).collect();
    let reflog = format!("evolv: apply {}", ids.join(" "));
    let mut epilogue = Epilogue::default();
    for step in &steps {
        let id = &step.proposal.id;
        let mut record = record(s, &head, step);
        record.moved(RefMove::new(
            head.ref_name(),
            Some(step.parent),
            Some(step.commit),
        ));
        let mut set = |name: String, target: Oid| {
            record.moved(RefMove::new(&name, repo.ref_target(&name), Some(target)));
            epilogue.set(name, target);
        };
        set(proposals::applied_ref(id), step.commit);
        if s.plan
            .as_ref()
            .is_some_and(|p| p.rollback.strategy == RollbackStrategy::FileBackup)
        {
            set(proposals::backup_ref(id), head.commit);
        }
        epilogue.audit.push(record);
    }
    let mv = land::BranchMove::new(&head, new, &changed, &reflog, epilogue);
    let landing = land::move_branch_in_turn(repo, turn, mv)?;
    let finish = || -> Result<Vec<ApplyOutcome>> {
        land::failpoint(FAILPOINT_AFTER_BRANCH_MOVE)?;
        let finished = landing.finish(repo)?;
        let warnings: Vec<Deferred> = finished.deferred.iter().cloned().collect();
        Ok(steps
            .iter()
            .enumerate()
            .map(|(i, step)| {
                let id = finished.audit_id(i);
                outcome(s, &head, step, validated, id, warnings.clone())
            })
            .collect())
    };
    finish().map_err(|cause| undo_after_move(repo, s, &head, new, &landing, &ids, cause))
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
        modified_files: git::path::lossy_list(&step.paths()),
        modified_files_bytes: git::path::bytes_column(&step.paths()),
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

/// One proposal's audit record of a successful apply.
pub(super) fn record(s: &RunSettings, head: &Head, step: &Step<'_>) -> AuditRecord {
    let mut r = AuditRecord::new(AuditAction::Apply, &step.proposal.id, true);
    r.branch = Some(head.ref_name().to_string());
    r.commit = Some(step.commit.to_string());
    r.previous_head = Some(step.parent.to_string());
    r.set_files(&step.paths());
    r.plan = s.plan.clone();
    r.dry_run = s.dry_run;
    r.batch = s.batch;
    r
}
