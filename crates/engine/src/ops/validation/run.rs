//! The one function that runs a resolved [`Validation`] on a candidate
//! commit: the verdict cache first, then, where something is left to run,
//! a worktree (warm, throwaway, or throwaway inside a sandbox) with the
//! plan's pre-conditions at the head, the commands and the plan's expected
//! outcomes at the candidate, under the budget and the operation's context
//! (its cancellation stops the commands, its progress hears them).

use super::ci_verdicts;
use super::untouched::Untouched;
use super::verdict::Lookup;
use super::{Place, Validation};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::sandbox::Sandbox;
use crate::store::pending::Deferred;
use crate::validate::{self, Budget, CommandReport, Runner, Stage};
use crate::worktree::{self, ValidationWorktree};

pub(crate) use super::verdict::Judged;

/// What is validated: `commit`, about to land on `head` (where the plan's
/// pre-conditions run). A verdict made now names `target`.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub head: Oid,
    pub commit: Oid,
    pub target: String,
}

/// What a validation learned.
#[derive(Debug, Default)]
pub(crate) struct Validated {
    /// The worktree the commands ran in; none when nothing ran in one.
    pub worktree_path: Option<String>,
    pub reports: Vec<CommandReport>,
    /// The commands' verdict on the candidate's tree: reused, or made now
    /// (stored unless the run was cut short).
    pub verdict: Option<Judged>,
    /// Verdict refs skipped on the way (not a commit), each named.
    pub warnings: Vec<Deferred>,
}

/// A validation that did not pass: why, and what it learned on the way
/// (`test` reports a failing verdict; apply and a server refuse).
#[derive(Debug)]
pub(crate) struct Failed {
    pub validated: Box<Validated>,
    pub error: Error,
}

impl From<Failed> for Error {
    fn from(failed: Failed) -> Error {
        failed.error
    }
}

impl From<Error> for Failed {
    fn from(error: Error) -> Failed {
        Failed {
            validated: Box::default(),
            error,
        }
    }
}

/// Runs `v` on `at` within `budget` for the operation of `ctx`. A trusted
/// stored verdict answers for the commands as the cache policy says;
/// the commands that run are stored as a verdict. `Err` when the
/// candidate did not pass (or the run could not finish), with what was
/// learned.
pub(crate) fn run(
    repo: &Repo,
    v: &Validation,
    ctx: &Context,
    at: &Candidate,
    budget: Budget,
) -> std::result::Result<Validated, Failed> {
    if v.place == Place::Nowhere {
        return on_cis_word(repo, v, at);
    }
    let mut out = Validated::default();
    let lookup = match v.commands.is_empty() {
        true => None,
        false => {
            let tree = repo.find_commit(at.commit)?.tree_id();
            Some(Lookup::new(
                repo,
                &v.commands,
                tree,
                at.target.clone(),
                v.cache,
            )?)
        }
    };
    let mut commands = &v.commands[..];
    if let Some(lookup) = &lookup {
        out.warnings = lookup.warnings.clone();
        if let Some((reports, judged, answer)) = lookup.answer() {
            out.reports = reports;
            out.verdict = Some(judged);
            if let Err(error) = answer {
                return Err(Failed {
                    validated: Box::new(out),
                    error,
                });
            }
            commands = &[];
        }
    }
    if v.pre_conditions.is_empty() && commands.is_empty() && v.expected_outcomes.is_empty() {
        return Ok(out);
    }
    match in_worktree(
        repo,
        v,
        ctx,
        at,
        budget,
        (commands, lookup.as_ref()),
        &mut out,
    ) {
        Ok(()) => Ok(out),
        Err(error) => Err(Failed {
            validated: Box::new(out),
            error,
        }),
    }
}

/// A server that runs no pushed code: CI's marked passing verdict for the
/// tree stands for the commands, or nothing lands (its own store is not
/// asked: it holds nothing this server ran).
fn on_cis_word(
    repo: &Repo,
    v: &Validation,
    at: &Candidate,
) -> std::result::Result<Validated, Failed> {
    if !v.commands.is_empty() {
        let tree = repo.find_commit(at.commit)?.tree_id();
        ci_verdicts::require_pass(repo, tree, &v.commands)?;
    }
    Ok(Validated::default())
}

/// The worktree part of [`run`]: `commands` are what the cache left to
/// run (none after a cached pass), `lookup` where their verdict goes.
fn in_worktree(
    repo: &Repo,
    v: &Validation,
    ctx: &Context,
    at: &Candidate,
    budget: Budget,
    (commands, lookup): (&[String], Option<&Lookup>),
    out: &mut Validated,
) -> Result<()> {
    budget.check(ctx, "the validation worktree", &out.reports)?;
    // Signals wait for a step to end (a checkout git runs in the worktree
    // must not outlive us either), then end the run with nothing landed.
    let _deferred = crate::signals::Deferred::begin();
    let wt = worktree::acquire(repo, v.place != Place::Warm, budget)?;
    validate::interrupted()?;
    let isolation = Isolation::start(repo, &v.place, &wt)?;
    let record = wt.group_record();
    let runner = Runner {
        dir: wt.path(),
        budget,
        ctx,
        record: Some(&record),
        sandbox: isolation.as_ref().map(|i| &i.sandbox),
    };
    let reports = &mut out.reports;
    if !v.pre_conditions.is_empty() {
        wt.checkout(at.head, ctx.progress()).map_err(signalled_or)?;
        validate::interrupted()?;
        runner.run_all(&v.pre_conditions, Stage::PreCondition, reports)?;
    }
    budget.check(ctx, "the checkout of the new commit", reports)?;
    wt.checkout(at.commit, ctx.progress())
        .map_err(signalled_or)?;
    validate::interrupted()?;
    let first = reports.len();
    let ran = runner.run_all(commands, Stage::Validate, reports);
    // What the pushed code may not have touched is checked before its
    // verdict is stored: a run that tampered stands for nothing.
    if let Some(isolation) = &isolation {
        isolation.untouched.check_and_restore(repo)?;
    }
    if let Some(lookup) = lookup.filter(|_| !commands.is_empty()) {
        out.verdict = lookup.record(repo, &reports[first..], &ran)?;
    }
    ran?;
    runner.run_all(&v.expected_outcomes, Stage::ExpectedOutcome, reports)?;
    if let Some(isolation) = &isolation {
        isolation.untouched.check_and_restore(repo)?;
    }
    out.worktree_path = Some(wt.path().display().to_string());
    Ok(())
}

/// A server's validation of pushed code: the sandbox its commands run in,
/// and what they must leave as it was.
struct Isolation {
    sandbox: Sandbox,
    untouched: Untouched,
}

impl Isolation {
    /// Started (and tried) before the first checkout: where no sandbox
    /// can start, nothing of the push is even written out.
    fn start(repo: &Repo, place: &Place, wt: &ValidationWorktree) -> Result<Option<Isolation>> {
        let Place::Sandboxed {
            program,
            branch_ref,
            protected,
        } = place
        else {
            return Ok(None);
        };
        let sandbox = Sandbox::start(program, repo.common_dir(), wt.path())?;
        let untouched = Untouched::read(repo, branch_ref, *protected)?;
        Ok(Some(Isolation { sandbox, untouched }))
    }
}

/// A git command killed by the user's Ctrl-C fails; what the user sees is
/// the interruption, not git's error.
fn signalled_or(e: Error) -> Error {
    validate::interrupted().err().unwrap_or(e)
}
