//! apply: replay proposals onto the current head, check them against the
//! execution plan, validate them in an isolated worktree, and land them by
//! fast-forward. One or several proposals; several either one after another
//! (stopping at the first failure) or as a batch (all or nothing).

use serde::Serialize;

use super::plan::PlanSource;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::git::{self, Head};
use crate::landing::land;
use crate::ops::permissions::Confirmation;
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::plan::ExecutionPlan;
use crate::store::audit::AuditAction;
use crate::store::pending::Deferred;
use crate::store::proposals::{self, Proposal};
use crate::store::trailers;
use crate::store::transaction::Transaction;
use crate::validate::CommandReport;

mod confirm;
mod land_step;
pub mod part;
mod replay;
mod settings;
mod undo;
mod validate_step;

pub use validate_step::ApplyVerdict;

use land_step::{land_unvalidated, land_validated};
use settings::{RunSettings, settings};

use crate::context::Context;
use crate::ops::settings::Settings;

/// The time budget of an apply when neither a plan, `--timeout` nor
/// `evolv.timeout` says otherwise.
pub use crate::ops::validation::DEFAULT_TIMEOUT_SECS;

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
    /// Land only the changes to paths these globs match (one id); the rest
    /// stays a pending proposal under the same id, stacked on what landed.
    #[serde(default)]
    pub paths: Option<evolv_core::globs::Globs>,
    /// Run the validation commands even when a trusted verdict is stored
    /// for the candidate tree (see `git evolv test`).
    #[serde(default)]
    pub no_cache: bool,
    /// Land only these hunks (`apply -i`; not taken from JSON).
    #[serde(skip)]
    #[schemars(skip)]
    pub hunks: Option<Vec<crate::patch::FilePatch>>,
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
    /// The verdict of the validation commands on the landed tree: reused
    /// from the verdict cache (`cached`) or made by this apply; null when
    /// no validation command ran to its end.
    pub verdict: Option<ApplyVerdict>,
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
    /// Part of a proposal landed (`--paths`, `-i`): the proposal that
    /// holds the rest, stacked on what landed (`patch_id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remaining_patch_id: Option<String>,
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

/// Applies the requested proposals. A failure before anything landed is an
/// `Err`; a failure after earlier proposals landed is reported in the
/// `ApplyReport` beside what landed. Every failure is audited. `ctx`'s
/// cancellation stops the validation, and its progress hears the work.
pub fn apply(
    repo: &Repo,
    config: &Settings,
    ctx: &Context,
    req: &ApplyRequest,
) -> Result<ApplyReport> {
    let selection = match (&req.paths, &req.hunks) {
        (_, Some(hunks)) => Some(part::Selection::Hunks(hunks)),
        (Some(paths), None) => Some(part::Selection::Paths(paths)),
        (None, None) => None,
    };
    if let Some(selection) = selection {
        let (mut report, remaining) = part::apply_part(repo, config, ctx, req, selection)?;
        if let Some(landed) = report.results.first_mut() {
            landed.remaining_patch_id = remaining;
        }
        return Ok(report);
    }
    let (proposals, stacked) = load_proposals(repo, &req.patch_ids)?;
    let mut settings = settings(repo, config, req)?;
    settings.batch |= stacked;
    run(repo, settings, ctx, proposals)
}

/// Applies `proposals` (loaded, or a part not stored yet), with the ref
/// moves `also` in the landing's transaction (a partial apply's).
pub(super) fn apply_loaded(
    repo: &Repo,
    config: &Settings,
    ctx: &Context,
    req: &ApplyRequest,
    (proposals, also): (Vec<Proposal>, Vec<settings::AlsoMove>),
) -> Result<ApplyReport> {
    let mut settings = settings(repo, config, req)?;
    settings.also = also;
    run(repo, settings, ctx, proposals)
}

/// Lands `proposals` as `settings` says, a group at a time.
fn run(
    repo: &Repo,
    settings: RunSettings,
    ctx: &Context,
    proposals: Vec<Proposal>,
) -> Result<ApplyReport> {
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
            apply_group(repo, group, &settings, &start, ctx)
        }) {
            Ok(outcomes) => report.results.extend(outcomes),
            Err(e) => {
                let e = audit_failure(repo, (group, ctx), &settings, e);
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

/// Logs the failure `e` of `group`'s landing, one operation (the failure
/// itself is what the caller reports); returns `e`.
fn audit_failure(
    repo: &Repo,
    (group, ctx): (&[Proposal], &Context),
    s: &RunSettings,
    e: Error,
) -> Error {
    let Some(first) = group.first() else {
        return e;
    };
    let mut tx = Transaction::new(repo, ctx, AuditAction::Apply, &first.id);
    let record = tx.record();
    record.plan = s.plan.clone();
    record.dry_run = s.dry_run;
    record.batch = s.batch;
    if group.len() > 1 {
        record.patch_ids = group.iter().map(|p| p.id.to_string()).collect();
    }
    tx.fail(e)
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
pub fn preview(repo: &Repo, config: &Settings, req: &ApplyRequest) -> Result<ApplyPreview> {
    let s = settings(repo, config, req)?;
    Ok(ApplyPreview {
        commands: s.validation.all_commands(),
        dry_run: s.dry_run,
        plan: s.plan,
    })
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
    s: &RunSettings,
    start: &Head,
    ctx: &Context,
) -> Result<Vec<ApplyOutcome>> {
    let budget = s.validation.budget();
    land::ensure_on_branch(repo, start)?;
    refuse_applied(repo, proposals)?;
    let committer = git::committer(repo)?;
    if s.validation.validates() {
        land_validated(repo, proposals, s, (start, &committer), ctx, budget)
    } else {
        land_unvalidated(repo, proposals, s, &committer, ctx)
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

impl UseCase for ApplyRequest {
    const OPEN: Open = Open::Recovering;
    const WRITES_OBJECTS: bool = true;
    type Outcome = ApplyReport;

    fn run(&self, session: &Session) -> Result<ApplyReport> {
        apply(
            session.repo()?,
            session.settings()?,
            session.context(),
            self,
        )
    }

    fn confirmation(&self, session: &Session) -> Result<Option<Confirmation>> {
        confirm::apply_confirmation(session.repo()?, session.settings()?, self)
    }
}
