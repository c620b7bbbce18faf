//! test: runs the validation commands (each `evolv.validate` value as its
//! own command) on commits or proposals, each target in a warm validation
//! worktree of its own (its own lock), up to `jobs` at once, and gives one
//! verdict per target. A verdict already stored for the same key (see
//! `store::verdict_key`) is reused unless `no_cache`, whose run replaces
//! it; a run's verdict is stored, except an abort (the run, not the tree,
//! was broken). Exit codes read as `git bisect run` reads them: an abort
//! (127, 128 and above, killed) stops the run, as it stops `git bisect
//! run`; the targets not yet started are reported as not run.

use std::sync::Mutex;

use crate::store::audit::AuditAction;
use crate::store::transaction::Transaction;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};

use super::Settings;
use super::validation::{Ask, Caller, Validation};
use crate::context::Context;
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::validate;
mod bisect;
mod run;

pub use bisect::BisectOutcome;
pub use run::TargetVerdict;

use crate::error::{Error, Result};
use crate::git::Repo;
use crate::store::pending::Deferred;
use crate::store::proposals;
use crate::store::verdicts::Status;
use bisect::bisect;
use run::{Target, not_run, verdict_for};

/// What to test, with what, how many at once.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestRequest {
    /// Revisions or proposal ids; `HEAD` when empty.
    #[serde(default)]
    pub targets: Vec<String>,
    /// The command (run with `sh -c`); each `evolv.validate` value, each
    /// as its own command, when absent.
    #[serde(default)]
    pub command: Option<String>,
    /// How many targets run at once (1 when absent or 0).
    #[serde(default)]
    pub jobs: Option<usize>,
    /// Run even when a verdict is stored for the key.
    #[serde(default)]
    pub no_cache: bool,
    /// A range `A..B`, or the top proposal of a stack, to bisect instead
    /// of testing `targets`: its first failing commit (or proposal).
    #[serde(default)]
    pub bisect: Option<String>,
}

/// Every target's verdict, in the order named.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TestOutcome {
    pub verdicts: Vec<TargetVerdict>,
    /// What `--bisect` found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bisect: Option<BisectOutcome>,
    /// The target whose run aborted (127, 128 and above, killed) and
    /// stopped the rest; left out when none did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aborted: Option<Aborted>,
    /// Verdict refs skipped (not a commit), each named; left out when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Deferred>,
}

/// The run that aborted a `test` of several targets.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Aborted {
    pub target: String,
    pub exit_code: i32,
    /// How many targets were not run after it.
    pub not_run: usize,
}

impl TestOutcome {
    /// Whether every target passed (bisecting: nothing failing found).
    pub fn all_passed(&self) -> bool {
        match &self.bisect {
            Some(b) => b.first_failing.is_none() && b.candidates.is_empty(),
            None => self.verdicts.iter().all(|v| v.status == Status::Pass),
        }
    }
}

/// Runs `req`: one `test` operation, whose record lists the verdicts it
/// stored (facts, which undo leaves); none when it stored none. `ctx`'s
/// cancellation stops every running command, on every job's thread; its
/// progress hears them.
pub fn test(
    repo: &Repo,
    settings: &Settings,
    ctx: &Context,
    req: &TestRequest,
) -> Result<TestOutcome> {
    let mut outcome = run_test(repo, settings, ctx, req)?;
    let moved: Vec<_> = outcome
        .verdicts
        .iter_mut()
        .filter_map(|v| v.moved.take())
        .collect();
    if let Some(first) = moved.first() {
        let name = &first.name;
        let mut tx = Transaction::new(repo, ctx, AuditAction::Test, "");
        tx.set_reflog(format!("evolv: test {name}"));
        moved.into_iter().for_each(|m| tx.fact_written(m));
        let logged = tx.commit()?;
        outcome.warnings.extend(logged.deferred().cloned());
    }
    Ok(outcome)
}

/// `test` without its record.
fn run_test(
    repo: &Repo,
    settings: &Settings,
    ctx: &Context,
    req: &TestRequest,
) -> Result<TestOutcome> {
    let ask = Ask {
        commands: req.command.clone().map(|c| vec![c]),
        no_cache: req.no_cache,
        ..Ask::default()
    };
    let v = Validation::resolve(settings, Caller::Test, &ask, None)?;
    if let Some(range) = &req.bisect {
        let mut warnings = Vec::new();
        let found = bisect(repo, range, (&v, ctx), &mut warnings)?;
        return Ok(TestOutcome {
            verdicts: found.verdicts.clone(),
            bisect: Some(found),
            aborted: None,
            warnings: distinct(warnings),
        });
    }
    let named = if req.targets.is_empty() {
        vec!["HEAD".to_string()]
    } else {
        req.targets.clone()
    };
    let targets = named
        .iter()
        .map(|name| resolve(repo, name))
        .collect::<Result<Vec<_>>>()?;
    let (verdicts, warnings) = run_targets(repo, &targets, (&v, ctx), req.jobs)?;
    let aborted = verdicts
        .iter()
        .find(|v| v.status == Status::Abort)
        .map(|v| Aborted {
            target: v.target.clone(),
            exit_code: v.exit_code.unwrap_or(-1),
            not_run: verdicts
                .iter()
                .filter(|v| v.status == Status::NotRun)
                .count(),
        });
    Ok(TestOutcome {
        verdicts,
        bisect: None,
        aborted,
        warnings: distinct(warnings),
    })
}

/// `warnings` without repeats (each target's lookup may meet one ref).
fn distinct(warnings: Vec<Deferred>) -> Vec<Deferred> {
    let mut out: Vec<Deferred> = Vec::new();
    for w in warnings {
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// A proposal id or a revision, as a commit.
pub(crate) fn resolve(repo: &Repo, name: &str) -> Result<Target> {
    if proposals::is_valid_id(name)
        && let Ok(p) = proposals::load(repo, name)
    {
        return Ok(Target {
            name: name.to_string(),
            commit: p.commit,
        });
    }
    let commit = repo.resolve_commit(name).ok_or_else(|| {
        Error::invalid(
            format!("'{name}' names no commit and no proposal"),
            "give a revision (`HEAD~2`, a branch, a commit id) or a proposal id from `git evolv list`",
        )
    })?;
    Ok(Target {
        name: name.to_string(),
        commit,
    })
}

/// One target's verdict and the warnings met making it.
type Taken = (TargetVerdict, Vec<Deferred>);

/// Each target's verdict, `jobs` threads taking the next target in turn,
/// each with the operation's context (its cancellation and progress); the
/// first error stops the rest. An abort stops them too, as it stops `git
/// bisect run`: the targets not started by then are not run (those
/// already running in other jobs finish).
fn run_targets(
    repo: &Repo,
    targets: &[Target],
    (v, ctx): (&Validation, &Context),
    jobs: Option<usize>,
) -> Result<(Vec<TargetVerdict>, Vec<Deferred>)> {
    let jobs = jobs.unwrap_or(1).clamp(1, targets.len().max(1));
    let next = AtomicUsize::new(0);
    let aborted = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Result<Taken>>>> =
        Mutex::new(targets.iter().map(|_| None).collect());
    let reopener = repo.reopener();
    let (next, aborted, results_ref, reopener) = (&next, &aborted, &results, &reopener);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            // Each job's thread holds the operation's context: a cancel
            // reaches its command, its output reaches the progress sink.
            let ctx = ctx.clone();
            scope.spawn(move || {
                let repo = match reopener.open() {
                    Ok(repo) => repo,
                    Err(e) => {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        if i < targets.len() {
                            results_ref.lock().expect("results")[i] = Some(Err(e));
                        }
                        return;
                    }
                };
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(target) = targets.get(i) else { break };
                    if ctx.cancelled() {
                        let stopped =
                            validate::cancelled_error(&format!("the test of {}", target.name));
                        results_ref.lock().expect("results")[i] = Some(Err(stopped));
                        continue;
                    }
                    if aborted.load(Ordering::SeqCst) {
                        let skipped = not_run(&repo, target, &v.commands);
                        results_ref.lock().expect("results")[i] = Some(Ok((skipped, Vec::new())));
                        continue;
                    }
                    let mut warnings = Vec::new();
                    let got = verdict_for(&repo, target, (v, &ctx), &mut warnings);
                    if got.as_ref().is_ok_and(|v| v.status == Status::Abort) {
                        aborted.store(true, Ordering::SeqCst);
                    }
                    results_ref.lock().expect("results")[i] = Some(got.map(|v| (v, warnings)));
                }
            });
        }
    });
    let mut verdicts = Vec::new();
    let mut warnings = Vec::new();
    for got in results.into_inner().expect("results") {
        let (verdict, met) = got.expect("every target ran")?;
        verdicts.push(verdict);
        warnings.extend(met);
    }
    Ok((verdicts, warnings))
}

impl UseCase for TestRequest {
    const OPEN: Open = Open::Recovering;
    type Outcome = TestOutcome;

    fn run(&self, session: &Session) -> Result<TestOutcome> {
        test(
            session.repo()?,
            session.settings()?,
            session.context(),
            self,
        )
    }
}
