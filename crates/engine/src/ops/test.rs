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
use super::test_bisect::{BisectOutcome, bisect};
use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::store::proposals;
use crate::store::verdicts::{self, Status, Verdict};
use crate::validate::{self, Budget};
use crate::validation_report::Stage;

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
    /// A range `A..B` to bisect instead of testing `targets`: the first
    /// failing commit of it.
    #[serde(default)]
    pub bisect: Option<String>,
}

/// One target's verdict.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema, PartialEq, Eq)]
pub struct TargetVerdict {
    pub target: String,
    pub tree: String,
    pub command: String,
    pub status: Status,
    pub exit_code: i32,
    pub duration_ms: u64,
    /// Reused from the store, not run now.
    pub cached: bool,
    pub output_tail: String,
    /// When and where the verdict was made, and which store gave it
    /// (`local` or a trusted remote).
    pub made_at: i64,
    pub made_by: String,
    pub source: String,
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

/// A target resolved: what was named and its commit.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub name: String,
    pub commit: Oid,
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
    let configured = settings.validate_commands();
    if configured.is_empty() {
        return Err(Error::invalid(
            "no command to test with",
            "give --command CMD, or set one with `git config evolv.validate CMD`",
        ));
    }
    Ok(configured.join(" && "))
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

/// The stored verdict for `target`'s key, or a fresh run's (stored).
pub(crate) fn verdict_for(
    repo: &Repo,
    target: &Target,
    command: &str,
    no_cache: bool,
    timeout: u64,
) -> Result<TargetVerdict> {
    let tree = repo.find_commit(target.commit)?.tree_id();
    let key = verdicts::key_of(repo, tree, command)?;
    if !no_cache && let Some(found) = verdicts::lookup(repo, &key)? {
        return Ok(shown(target, found.verdict, true, found.source));
    }
    let verdict = run_once(repo, target, tree, command, key, timeout)?;
    let verdict = if verdict.status == Status::Abort {
        verdict
    } else {
        verdicts::store(repo, &verdict)?
    };
    Ok(shown(target, verdict, false, "local".into()))
}

/// Runs `command` on `target` in a warm worktree.
fn run_once(
    repo: &Repo,
    target: &Target,
    tree: Oid,
    command: &str,
    key: String,
    timeout: u64,
) -> Result<Verdict> {
    let budget = Budget::starting_now(timeout);
    let worktree = crate::worktree::acquire(repo, false, budget)?;
    worktree.checkout(target.commit)?;
    let mut reports = Vec::new();
    let record = worktree.group_record();
    let commands = [command.to_string()];
    match validate::run_all(
        &commands,
        Stage::Validate,
        worktree.path(),
        budget,
        &mut reports,
        Some(&record),
    ) {
        Ok(()) | Err(Error::ValidationFailed { .. } | Error::Timeout { .. }) => {}
        Err(e) => return Err(e),
    }
    let report = reports.pop().expect("the command ran");
    Ok(Verdict {
        key,
        target: target.name.clone(),
        tree: tree.to_string(),
        command: command.to_string(),
        status: Status::of_exit(report.exit_code),
        exit_code: report.exit_code,
        duration_ms: report.duration_ms,
        output_tail: report.output_tail,
        made_at: crate::clock::now_secs(),
        made_by: verdicts::made_by(),
    })
}

fn shown(target: &Target, v: Verdict, cached: bool, source: String) -> TargetVerdict {
    TargetVerdict {
        target: target.name.clone(),
        tree: v.tree,
        command: v.command,
        status: v.status,
        exit_code: v.exit_code,
        duration_ms: v.duration_ms,
        cached,
        output_tail: v.output_tail,
        made_at: v.made_at,
        made_by: v.made_by,
        source,
    }
}
