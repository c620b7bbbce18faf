//! apply: replay proposals onto the current head, check them against the
//! execution plan, validate them in an isolated worktree, and land them by
//! fast-forward. One or several proposals; several either one after another
//! (stopping at the first failure) or as a batch (all or nothing).

use crate::git::view::{Commit, Tree};
use crate::git::{Merged, Oid};
use serde::Serialize;

use super::plan::{self, PlanSource};
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::git::config::{Config, WorktreeMode};
use crate::git::{self, ChangedPath, Head, RepoPath};
use crate::landing::land::{self, Epilogue, FAILPOINT_AFTER_BRANCH_MOVE, Landing};
use crate::plan::{ExecutionPlan, RollbackStrategy};
use crate::store::audit::{AuditAction, AuditRecord};
use crate::store::pending::{self, Deferred};
use crate::store::proposals::{self, Proposal};
use crate::store::trailers;
use crate::validate::{self, Budget, CommandReport, Stage, TimeoutSource};
use crate::worktree;

/// The time budget of an apply when neither a plan, `--timeout` nor
/// `evolv.timeout` says otherwise.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// Marks the plan a landed commit was applied under, in its message.
pub const PLAN_TRAILER: &str = trailers::PLAN;

/// What to apply and how to check it.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyRequest {
    /// One or more proposal ids, in the order to apply them.
    pub patch_ids: Vec<String>,
    /// Validation commands, each run with `sh -c` in the validation
    /// worktree; `None` reads git config `evolv.validate`.
    #[serde(default)]
    pub validate: Option<Vec<String>>,
    /// Seconds for the whole apply; `None` reads `evolv.timeout`, else 30.
    /// With a plan, the smaller of this and the plan's limit applies.
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// A throwaway worktree instead of the warm one; `None` reads
    /// `evolv.worktree` (`fresh` or `warm`).
    #[serde(default)]
    pub fresh_worktree: Option<bool>,
    /// The execution plan; `None` reads `evolv.plan`.
    #[serde(default)]
    pub plan: Option<PlanSource>,
    /// Preview only, whatever the plan says.
    #[serde(default)]
    pub dry_run: bool,
    /// Apply all ids as one batch, whatever the plan says.
    #[serde(default)]
    pub batch: bool,
}

/// What one proposal's apply did (or, in a dry run, would do).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ApplyOutcome {
    pub patch_id: String,
    /// The landed commit N (in a dry run: the commit that would land).
    pub commit: String,
    /// The branch head N was built on.
    pub previous_head: String,
    pub branch: String,
    /// The changed paths as text (a name that is not UTF-8 lossily, with
    /// U+FFFD); see `modified_files_bytes`.
    pub modified_files: Vec<String>,
    /// Only when some changed name is not UTF-8: per entry of
    /// `modified_files`, its exact bytes in hex, or null when the text is
    /// exact (#16 item 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_files_bytes: Option<Vec<Option<String>>>,
    /// The validation worktree, or null when nothing was validated.
    pub worktree_path: Option<String>,
    pub audit_log_id: String,
    pub validation: Vec<CommandReport>,
    pub dry_run: bool,
    pub batch: bool,
    pub lines_added: usize,
    pub lines_removed: usize,
    /// The plan the apply ran under.
    pub plan: Option<ExecutionPlan>,
    /// Bookkeeping that had to wait (a foreign `<ref>.lock`): journalled
    /// and completed by the next command; the landing itself is complete.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Deferred>,
}

/// The result of applying one or more proposals.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ApplyReport {
    pub dry_run: bool,
    pub batch: bool,
    /// What landed, in order.
    pub results: Vec<ApplyOutcome>,
    /// The proposal that failed, when one did after others had landed.
    pub failed_patch_id: Option<String>,
    /// Why the apply stopped after `results` landed; `None` when every
    /// proposal landed (or would land, in a dry run). Front ends render it
    /// (`Error::to_body`).
    #[serde(skip)]
    pub error: Option<Error>,
}

struct Settings {
    plan: Option<ExecutionPlan>,
    commands: Vec<String>,
    timeout_secs: u64,
    /// What set `timeout_secs`, for the timeout's hint.
    timeout_source: TimeoutSource,
    fresh: bool,
    dry_run: bool,
    batch: bool,
}

/// Applies the requested proposals. A failure before anything landed is an
/// `Err`; a failure after earlier proposals landed is reported in the
/// `ApplyReport` beside what landed. Every failure is audited.
pub fn apply(repo: &Repo, req: &ApplyRequest) -> Result<ApplyReport> {
    let (proposals, stacked) = load_proposals(repo, &req.patch_ids)?;
    let mut settings = settings(repo, req)?;
    settings.batch |= stacked;
    git::ensure_no_operation_in_progress(repo)?;
    // The branch this command applies to: a retry after a lost race, or
    // the next proposal of several, never lands on a branch switched to
    // meanwhile (#16 item 2).
    let start = git::head(repo)?;
    let groups: Vec<&[Proposal]> = if settings.batch {
        vec![&proposals[..]]
    } else {
        proposals.chunks(1).collect()
    };
    let mut report = ApplyReport {
        dry_run: settings.dry_run,
        batch: settings.batch,
        results: Vec::new(),
        failed_patch_id: None,
        error: None,
    };
    for group in groups {
        match land::retrying(settings.dry_run, || {
            apply_group(repo, group, &settings, &start)
        }) {
            Ok(outcomes) => report.results.extend(outcomes),
            Err(e) => {
                audit_failure(repo, group, &settings, &e);
                if report.results.is_empty() {
                    return Err(e);
                }
                report.failed_patch_id = Some(group[0].id.to_string());
                report.error = Some(e);
                break;
            }
        }
    }
    Ok(report)
}

/// The proposals `ids` name, in order, with the pending ones below a
/// stacked proposal (#13); `true` when stacking added any (they land as
/// one batch).
fn load_proposals(repo: &Repo, ids: &[String]) -> Result<(Vec<Proposal>, bool)> {
    if ids.is_empty() {
        return Err(Error::invalid(
            "no patch id given",
            "pass one or more ids from `git evolv list`",
        ));
    }
    let (ids, stacked) = super::stack::expand(repo, ids)?;
    let mut proposals: Vec<Proposal> = Vec::new();
    for id in &ids {
        if proposals.iter().any(|p| &p.id == id) {
            return Err(Error::invalid(
                format!("patch '{id}' is named twice"),
                "name each proposal once",
            ));
        }
        proposals.push(proposals::load(repo, id)?);
    }
    Ok((proposals, stacked))
}

/// Audits the failure `e` of each proposal of `group` (best effort: the
/// failure itself is what the caller reports).
fn audit_failure(repo: &Repo, group: &[Proposal], s: &Settings, e: &Error) {
    for p in group {
        let mut record = AuditRecord::failure(AuditAction::Apply, &p.id, e);
        record.plan = s.plan.clone();
        record.dry_run = s.dry_run;
        record.batch = s.batch;
        let _ = pending::log(repo, &record);
    }
}

/// What an apply of `req` would run, computed without running anything:
/// for a front end that asks the user before it applies (MCP confirmation).
#[derive(Debug, Clone)]
pub struct ApplyPreview {
    /// Every command the apply would run, in order (plan pre-conditions,
    /// validation, plan expected outcomes).
    pub commands: Vec<String>,
    pub dry_run: bool,
    /// The plan the apply would run under.
    pub plan: Option<ExecutionPlan>,
}

/// The commands and mode an apply of `req` would run with.
pub fn preview(repo: &Repo, req: &ApplyRequest) -> Result<ApplyPreview> {
    let s = settings(repo, req)?;
    let mut commands = Vec::new();
    if let Some(p) = &s.plan {
        commands.extend(p.validation.pre_conditions.iter().cloned());
    }
    commands.extend(s.commands.iter().cloned());
    if let Some(p) = &s.plan {
        commands.extend(p.validation.expected_outcomes.iter().cloned());
    }
    Ok(ApplyPreview {
        commands,
        dry_run: s.dry_run,
        plan: s.plan,
    })
}

fn settings(repo: &Repo, req: &ApplyRequest) -> Result<Settings> {
    let config = Config::for_git_dir(repo.git_dir())?;
    let plan = plan::resolve(repo, &config, req.plan.as_ref())?;
    let requested = match req.timeout_secs {
        Some(0) => {
            return Err(Error::invalid_field(
                "timeout_secs",
                "timeout_secs 0: the timeout must be at least 1 second",
                "give a positive number of seconds",
            ));
        }
        Some(s) => Some(s),
        None => None,
    };
    // A plan can only tighten the bound, never loosen it.
    let (timeout_secs, timeout_source) = match (&plan, requested) {
        (Some(p), Some(s)) if s < p.limits.timeout_seconds as u64 => (s, TimeoutSource::Flag),
        (Some(p), _) => (p.limits.timeout_seconds as u64, TimeoutSource::Plan),
        (None, Some(s)) => (s, TimeoutSource::Flag),
        (None, None) => configured_timeout(&config)?,
    };
    let mut commands = validation_commands(&config, req);
    commands.retain(|c| !c.trim().is_empty());
    Ok(Settings {
        dry_run: req.dry_run || plan.as_ref().is_some_and(|p| p.dry_run),
        batch: req.batch || plan.as_ref().is_some_and(|p| p.batch),
        fresh: fresh_worktree(&config, req)?,
        plan,
        commands,
        timeout_secs,
        timeout_source,
    })
}

/// One step of a replay chain: a proposal and the commit it became.
struct Step<'p> {
    proposal: &'p Proposal,
    commit: Oid,
    /// The commit's parent: the head, or the step before it in a batch.
    parent: Oid,
    changed: Vec<ChangedPath>,
    /// This commit's own lines added and removed (#16 item 11).
    lines: (usize, usize),
}

impl Step<'_> {
    fn paths(&self) -> Vec<RepoPath> {
        self.changed.iter().map(|c| c.path.clone()).collect()
    }
}

/// The proposals replayed in order onto one head: the commits to land.
struct Built<'p, 'r> {
    head: Head,
    head_tree: Tree<'r>,
    steps: Vec<Step<'p>>,
    new: Oid,
    new_tree: Tree<'r>,
    changed: Vec<ChangedPath>,
}

/// Applies `proposals` as one unit: replayed in order onto the head,
/// checked, validated once, landed with one fast-forward.
///
/// Without validation the process takes its turn to land first (see
/// `land::Turn`) and holds it from the replay to the end of the landing,
/// so concurrent applies queue instead of racing. With validation, the
/// validation runs outside the turn (it may take minutes); then, in the
/// turn, a branch that moved meanwhile gets the proposals replayed onto its
/// new head, and that replay lands without a second validation only if it
/// is identical to the validated tree in every file the proposals touch.
/// Otherwise the apply starts over and validates again.
fn apply_group(
    repo: &Repo,
    proposals: &[Proposal],
    s: &Settings,
    start: &Head,
) -> Result<Vec<ApplyOutcome>> {
    let budget = Budget::starting_now(s.timeout_secs).limited_by(s.timeout_source);
    land::ensure_on_branch(repo, start)?;
    refuse_applied(repo, proposals)?;
    let committer = git::committer(repo)?;
    if validates(s) {
        land_validated(repo, proposals, s, start, &committer, budget)
    } else {
        land_unvalidated(repo, proposals, s, &committer)
    }
}

/// Applied means still on the branch: a landing `git reset` took away can
/// be applied again (#16 item 6).
fn refuse_applied(repo: &Repo, proposals: &[Proposal]) -> Result<()> {
    for p in proposals {
        if let Some(landed) = super::rollback::landed_commit(repo, &p.id) {
            return Err(Error::AlreadyApplied {
                patch_id: p.id.to_string(),
                commit: landed.to_string(),
            });
        }
    }
    Ok(())
}

/// Nothing to validate: replays and lands in one turn (a dry run takes
/// none, and only checks). The landing checks the paths for uncommitted
/// work itself, under `index.lock` (`land::move_branch_in_turn`); only a
/// dry run checks here.
fn land_unvalidated(
    repo: &Repo,
    proposals: &[Proposal],
    s: &Settings,
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
    conclude(repo, s, built, turn, None, Vec::new())
}

/// Replays and validates outside the turn, then lands in it what was
/// validated (or a replay onto a moved branch identical to it in every
/// file the proposals touch; anything else is a `ConcurrentUpdate`, which
/// the caller retries with a new validation).
fn land_validated(
    repo: &Repo,
    proposals: &[Proposal],
    s: &Settings,
    start: &Head,
    committer: &crate::git::view::Signature,
    budget: Budget,
) -> Result<Vec<ApplyOutcome>> {
    let built = build(repo, proposals, s, committer)?;
    check_clean(repo, &built)?;
    let (worktree_path, reports) =
        validate_in_worktree(repo, s, built.head.commit, built.new, budget)?;
    budget.check("the landing", &reports)?;
    if s.dry_run {
        return conclude(repo, s, built, None, worktree_path, reports);
    }
    let turn = land::take_turn(repo)?;
    // Switched to another branch while the validation ran: never replay
    // onto that one (#16 item 2).
    land::ensure_on_branch(repo, start)?;
    if git::head(repo)? == built.head {
        return conclude(repo, s, built, Some(turn), worktree_path, reports);
    }
    // The branch moved while the validation ran: replay onto its new head.
    let replayed = build(repo, proposals, s, committer)?;
    // Only a branch that moved forward keeps what was validated: one that
    // was rewound or rewritten (`git reset`) meanwhile removed history the
    // validation ran on, so the apply validates again (#16 item 2 sibling).
    let forward = repo.is_descendant_of(replayed.head.commit, built.head.commit)?;
    if forward && same_in_touched_files(repo, proposals, &built.new_tree, &replayed.new_tree) {
        return conclude(repo, s, replayed, Some(turn), worktree_path, reports);
    }
    drop(turn);
    // What was validated is not what would land: validate again (a retry).
    Err(Error::ConcurrentUpdate {
        what: built.head.ref_name().to_string(),
        expected: built.head.commit.to_string(),
    })
}

/// The paths `built` changes hold no uncommitted work (see
/// `land::check_clean`).
fn check_clean(repo: &Repo, built: &Built<'_, '_>) -> Result<()> {
    land::check_clean(
        repo,
        None,
        &built.head,
        &built.head_tree,
        &built.new_tree,
        &built.changed,
    )
}

fn validates(s: &Settings) -> bool {
    let plan_commands = s.plan.as_ref().is_some_and(|p| {
        !p.validation.pre_conditions.is_empty() || !p.validation.expected_outcomes.is_empty()
    });
    plan_commands || !s.commands.is_empty()
}

/// Whether two trees hold the same entry at every path the proposals
/// change (the validated tree and a replay of the same proposals).
fn same_in_touched_files(repo: &Repo, proposals: &[Proposal], a: &Tree<'_>, b: &Tree<'_>) -> bool {
    let (mut a, mut b) = (git::TreeLookup::new(repo, a), git::TreeLookup::new(repo, b));
    // Exact paths: a lossy name would be absent from both trees, and so
    // compare equal whatever they hold (#16 item 7).
    proposals
        .iter()
        .flat_map(|p| p.meta.affected_paths())
        .all(|path| a.get(&path) == b.get(&path))
}

/// Replays `proposals` onto the branch head as it is now and checks the
/// result against the plan's limits.
fn build<'p, 'r>(
    repo: &'r Repo,
    proposals: &'p [Proposal],
    s: &Settings,
    committer: &crate::git::view::Signature,
) -> Result<Built<'p, 'r>> {
    let head = git::head(repo)?;
    // Before anything loads the index (attribute lookups do), so one parse serves all.
    land::prepare_index(repo)?;
    let head_commit = repo.find_commit(head.commit)?;
    let head_tree = head_commit.tree()?;
    crate::crashpoint!("before-objects");
    let (steps, tip) = replay_all(repo, proposals, s, committer, head_commit)?;
    crate::crashpoint!("after-objects");
    let new = tip.id();
    let new_tree = tip.tree()?;
    // One step's changes are the whole landing's: no second tree walk.
    let (changed, (added, removed)) = match &steps[..] {
        [only] => (only.changed.clone(), only.lines),
        _ => {
            let changed = git::changed_paths(repo, &head_tree, &new_tree)?;
            let paths: Vec<RepoPath> = changed.iter().map(|c| c.path.clone()).collect();
            let lines = git::line_stats(repo, &head_tree, &new_tree, &paths)?;
            (changed, lines)
        }
    };
    if let Some(plan) = &s.plan {
        check_limits(plan, changed.len(), added + removed)?;
    }
    Ok(Built {
        head,
        head_tree,
        steps,
        new,
        new_tree,
        changed,
    })
}

/// Replays `proposals` one after another onto `tip`, each one's commit the
/// next one's parent; returns the steps and the last commit.
fn replay_all<'p, 'r>(
    repo: &'r Repo,
    proposals: &'p [Proposal],
    s: &Settings,
    committer: &crate::git::view::Signature,
    mut tip: Commit<'r>,
) -> Result<(Vec<Step<'p>>, Commit<'r>)> {
    let mut steps: Vec<Step<'_>> = Vec::new();
    for p in proposals {
        let tip_tree = tip.tree()?;
        let against = match steps.last() {
            None => "the current HEAD".to_string(),
            Some(prev) => format!(
                "the current HEAD plus patch '{}' before it in the batch",
                prev.proposal.id
            ),
        };
        let tree = replay(repo, p, &tip, &tip_tree, against)?;
        if tree.id() == tip_tree.id() {
            return Err(Error::NothingToApply {
                patch_id: p.id.to_string(),
            });
        }
        let changed = git::changed_paths(repo, &tip_tree, &tree)?;
        let paths: Vec<RepoPath> = changed.iter().map(|c| c.path.clone()).collect();
        let proposed = repo.find_commit(p.commit)?;
        // The replay is the proposal itself (the usual case: the branch has
        // not moved since propose): its line counts are the ones propose
        // took from the very same two trees, no second diff.
        let exact = proposed.tree_id() == tree.id()
            && proposed.parent_count() == 1
            && proposed.parent(0)?.tree_id() == tip_tree.id();
        let lines = if exact {
            (p.meta.lines_added, p.meta.lines_removed)
        } else {
            git::line_stats(repo, &tip_tree, &tree, &paths)?
        };
        let author = proposed.author();
        let message = message(p, s.plan.as_ref());
        let oid = git::commit::create(repo, &author, committer, &message, tree.id(), &[tip.id()])?;
        let parent = tip.id();
        tip = repo.find_commit(oid)?;
        steps.push(Step {
            proposal: p,
            commit: oid,
            parent,
            changed,
            lines,
        });
    }
    Ok((steps, tip))
}

/// What a validation produced, for the outcomes.
struct Validated {
    worktree_path: Option<String>,
    reports: Vec<CommandReport>,
}

/// Lands `built` (or, in a dry run, records what would land) and reports
/// each proposal's outcome.
fn conclude(
    repo: &Repo,
    s: &Settings,
    built: Built<'_, '_>,
    turn: Option<land::Turn>,
    worktree_path: Option<String>,
    reports: Vec<CommandReport>,
) -> Result<Vec<ApplyOutcome>> {
    let validated = Validated {
        worktree_path,
        reports,
    };
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
fn land_built(
    repo: &Repo,
    s: &Settings,
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
        epilogue.set(proposals::applied_ref(id), step.commit);
        if s.plan
            .as_ref()
            .is_some_and(|p| p.rollback.strategy == RollbackStrategy::FileBackup)
        {
            epilogue.set(proposals::backup_ref(id), head.commit);
        }
        epilogue.audit.push(record(s, &head, step));
    }
    let landing = land::move_branch_in_turn(repo, turn, &head, new, &changed, &reflog, epilogue)?;
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
fn outcome(
    s: &Settings,
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
        dry_run: s.dry_run,
        batch: s.batch,
        lines_added: step.lines.0,
        lines_removed: step.lines.1,
        plan: s.plan.clone(),
        warnings,
    }
}

/// One proposal's audit record of a successful apply.
fn record(s: &Settings, head: &Head, step: &Step<'_>) -> AuditRecord {
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

/// A landed commit's message: the proposal's summary and trailers naming
/// the proposal and the plan (which `rollback` reads back).
fn message(p: &Proposal, plan: Option<&ExecutionPlan>) -> String {
    let plan = plan.map(|plan| serde_json::to_string(plan).expect("plans serialise"));
    trailers::landed_message(&p.summary, &p.id, plan.as_deref())
}

fn check_limits(plan: &ExecutionPlan, files: usize, lines: usize) -> Result<()> {
    if files as i64 > plan.limits.max_files {
        return Err(Error::ConstraintViolation {
            limit: "limits.max_files",
            unit: "files",
            actual: files as u64,
            allowed: plan.limits.max_files as u64,
        });
    }
    if lines as i64 > plan.limits.max_changes {
        return Err(Error::ConstraintViolation {
            limit: "limits.max_changes",
            unit: "lines (added + removed)",
            actual: lines as u64,
            allowed: plan.limits.max_changes as u64,
        });
    }
    Ok(())
}

/// Runs the plan's pre-conditions at the head, then the validation commands
/// and the plan's expected outcomes at the new commit, in one worktree.
fn validate_in_worktree(
    repo: &Repo,
    s: &Settings,
    head: Oid,
    new: Oid,
    budget: Budget,
) -> Result<(Option<String>, Vec<CommandReport>)> {
    let (pre, post) = match &s.plan {
        Some(p) => (
            &p.validation.pre_conditions[..],
            &p.validation.expected_outcomes[..],
        ),
        None => (&[][..], &[][..]),
    };
    if pre.is_empty() && s.commands.is_empty() && post.is_empty() {
        return Ok((None, Vec::new()));
    }
    let mut reports = Vec::new();
    budget.check("the validation worktree", &reports)?;
    // Signals wait for a step to end (a checkout git runs in the worktree
    // must not outlive us either), then end the apply with nothing landed.
    let _deferred = crate::signals::Deferred::begin();
    let wt = worktree::acquire(repo, s.fresh, budget)?;
    validate::interrupted()?;
    let record = wt.group_record();
    if !pre.is_empty() {
        wt.checkout(head).map_err(signalled_or)?;
        validate::interrupted()?;
        validate::run_all(
            pre,
            Stage::PreCondition,
            wt.path(),
            budget,
            &mut reports,
            Some(&record),
        )?;
    }
    budget.check("the checkout of the new commit", &reports)?;
    wt.checkout(new).map_err(signalled_or)?;
    validate::interrupted()?;
    validate::run_all(
        &s.commands,
        Stage::Validate,
        wt.path(),
        budget,
        &mut reports,
        Some(&record),
    )?;
    validate::run_all(
        post,
        Stage::ExpectedOutcome,
        wt.path(),
        budget,
        &mut reports,
        Some(&record),
    )?;
    Ok((Some(wt.path().display().to_string()), reports))
}

/// A git command killed by the user's Ctrl-C fails; what the user sees is
/// the interruption, not git's error.
fn signalled_or(e: Error) -> Error {
    validate::interrupted().err().unwrap_or(e)
}

/// A step after the branch moved failed: undo by the plan's strategy.
/// `git_revert` and `file_backup` both put a commit restoring the old head's
/// content on top (they differ in its message); `manual` leaves the branch
/// and names the plan's steps.
fn undo_after_move(
    repo: &Repo,
    s: &Settings,
    head: &Head,
    new: Oid,
    landing: &Landing,
    ids: &[&str],
    cause: Error,
) -> Error {
    let strategy = s
        .plan
        .as_ref()
        .map_or(RollbackStrategy::GitRevert, |p| p.rollback.strategy);
    let recovery = (|| -> Result<String> {
        if strategy == RollbackStrategy::Manual {
            landing.settle(repo)?;
            let steps = s
                .plan
                .as_ref()
                .map(|p| p.rollback.commands.join("; "))
                .unwrap_or_default();
            return Ok(format!(
                "the branch stays at {new}; the plan's rollback is manual: {steps}"
            ));
        }
        let undo = undo_commit(repo, strategy, head, new, ids, &cause)?;
        landing.retarget(repo, undo)?;
        Ok(format!(
            "the branch was moved on to {undo} ({}), which restores {}",
            strategy.as_str(),
            head.commit
        ))
    })();
    Error::LandingFailed {
        cause: Box::new(cause),
        recovery: recovery.unwrap_or_else(|e| {
            format!("undoing it failed too: {e}; the branch is at {new}: run `git evolv recover`")
        }),
    }
}

/// The commit on top of `new` that restores `head`'s content, its message
/// by `strategy` (`file_backup` or `git_revert`).
fn undo_commit(
    repo: &Repo,
    strategy: RollbackStrategy,
    head: &Head,
    new: Oid,
    ids: &[&str],
    cause: &Error,
) -> Result<Oid> {
    let sig = git::committer(repo)?;
    let old_tree = repo.find_commit(head.commit)?.tree()?;
    let new_commit = repo.find_commit(new)?;
    let msg = match strategy {
        RollbackStrategy::FileBackup => format!(
            "revert: restore files changed by {}\n\nRestores them from {} after the landing failed: {cause}\n",
            ids.join(", "),
            head.commit
        ),
        _ => format!(
            "Revert \"{}\"\n\nThis reverts commit {new}: the landing failed: {cause}\n",
            new_commit.summary()
        ),
    };
    git::commit::create(repo, &sig, &sig, &msg, old_tree.id(), &[new_commit.id()])
}

/// The tree a proposal gets on `tip`: P's tree when `tip` is P's base, else
/// a three-way merge of base → tip and base → P.
fn replay<'r>(
    repo: &'r Repo,
    proposal: &Proposal,
    tip: &Commit<'_>,
    tip_tree: &Tree<'_>,
    against: String,
) -> Result<Tree<'r>> {
    let p = repo.find_commit(proposal.commit)?;
    if tip.id() == proposal.base {
        return p.tree();
    }
    let base_tree = repo.commit_tree(proposal.base)?;
    match repo.merge_trees(base_tree.id(), tip_tree.id(), p.tree_id())? {
        Merged::Clean(tree) => repo.find_tree(tree),
        Merged::Conflicts(paths) => Err(Error::Conflict {
            patch_id: proposal.id.to_string(),
            paths,
            against,
            operation: "apply",
        }),
    }
}

fn validation_commands(config: &Config, req: &ApplyRequest) -> Vec<String> {
    match &req.validate {
        Some(cmds) => cmds.clone(),
        None => config.validate_commands(),
    }
}

fn configured_timeout(config: &Config) -> Result<(u64, TimeoutSource)> {
    Ok(match config.timeout_secs()? {
        Some(s) => (s, TimeoutSource::Config),
        None => (DEFAULT_TIMEOUT_SECS, TimeoutSource::Default),
    })
}

fn fresh_worktree(config: &Config, req: &ApplyRequest) -> Result<bool> {
    Ok(match req.fresh_worktree {
        Some(fresh) => fresh,
        None => config.worktree_mode()? == Some(WorktreeMode::Fresh),
    })
}
