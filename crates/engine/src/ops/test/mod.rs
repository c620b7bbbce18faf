//! test: runs the validation command on commits or proposals, each in a
//! warm validation worktree of its own (its own lock), up to `jobs` at
//! once, and gives one verdict per target. A verdict already stored for
//! the same key (see `store::verdict_key`) is reused unless `no_cache`;
//! a run's verdict is stored, except an abort (the run, not the tree,
//! was broken). Exit codes read as `git bisect run` reads them.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};

use super::Settings;
mod bisect;
pub mod proposal_verdicts;
mod run;

pub use bisect::BisectOutcome;
pub use run::TargetVerdict;

use crate::error::{Error, Result};
use crate::git::Repo;
use crate::store::proposals;
use crate::store::verdicts::Status;
use bisect::bisect;
use run::{Target, verdict_for};

/// What to test, with what, how many at once.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestRequest {
    /// Revisions or proposal ids; `HEAD` when empty.
    #[serde(default)]
    pub targets: Vec<String>,
    /// The command (run with `sh -c`); `evolv.validate` when absent.
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

/// Runs `req`.
pub fn test(repo: &Repo, settings: &Settings, req: &TestRequest) -> Result<TestOutcome> {
    let command = command_of(settings, req.command.as_deref())?;
    let timeout = settings
        .timeout_secs()?
        .unwrap_or(super::apply::DEFAULT_TIMEOUT_SECS);
    if let Some(range) = &req.bisect {
        let found = bisect(repo, range, &command, req.no_cache, timeout)?;
        return Ok(TestOutcome {
            verdicts: found.verdicts.clone(),
            bisect: Some(found),
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
    let verdicts = run_targets(repo, &targets, &command, req, timeout)?;
    Ok(TestOutcome {
        verdicts,
        bisect: None,
    })
}

/// `--command`, else every `evolv.validate` value joined by `&&`.
fn command_of(settings: &Settings, given: Option<&str>) -> Result<String> {
    if let Some(command) = given.filter(|c| !c.trim().is_empty()) {
        return Ok(command.to_string());
    }
    configured_command(settings).ok_or_else(|| {
        Error::invalid(
            "no command to test with",
            "give --command CMD, or set one with `git config evolv.validate CMD`",
        )
    })
}

/// Every non-blank `evolv.validate` value joined by `&&`, as `apply`
/// runs them: the command of the verdicts `apply` reuses.
pub(crate) fn configured_command(settings: &Settings) -> Option<String> {
    let mut configured = settings.validate_commands();
    configured.retain(|c| !c.trim().is_empty());
    (!configured.is_empty()).then(|| configured.join(" && "))
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

/// Each target's verdict, `jobs` threads taking the next target in turn;
/// the first error stops the rest.
fn run_targets(
    repo: &Repo,
    targets: &[Target],
    command: &str,
    req: &TestRequest,
    timeout: u64,
) -> Result<Vec<TargetVerdict>> {
    let jobs = req.jobs.unwrap_or(1).clamp(1, targets.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<TargetVerdict>>>> =
        Mutex::new(targets.iter().map(|_| None).collect());
    let reopener = repo.reopener();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let repo = match reopener.open() {
                    Ok(repo) => repo,
                    Err(e) => {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        if i < targets.len() {
                            results.lock().expect("results")[i] = Some(Err(e));
                        }
                        return;
                    }
                };
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(target) = targets.get(i) else { break };
                    let got = verdict_for(&repo, target, command, req.no_cache, timeout);
                    results.lock().expect("results")[i] = Some(got);
                }
            });
        }
    });
    results
        .into_inner()
        .expect("results")
        .into_iter()
        .map(|r| r.expect("every target ran"))
        .collect()
}
