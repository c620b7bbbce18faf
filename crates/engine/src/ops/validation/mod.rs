//! The one validation pipeline (issue 39 item 3), for apply, `test` and a
//! server's landing alike. What to run is resolved here, in one place, from
//! the request and the session's `Settings` ([`Validation::resolve`]);
//! [`run`](run::run) runs it on a candidate commit for an operation's
//! `Context`.
//!
//! What is resolved, and from where:
//! - the commands: the request's (apply's `validate`; test's `command`,
//!   which falls back to the configuration when blank), else each
//!   non-blank `evolv.validate` value, each its own `sh -c`;
//! - the execution plan's pre-conditions (run at the head), expected
//!   outcomes (at the candidate) and limits (files and lines changed,
//!   [`Validation::check_limits`], checked after the replay);
//! - the time budget: the request's, tightened by a plan's; else the
//!   plan's; else `evolv.timeout`; else [`DEFAULT_TIMEOUT_SECS`];
//! - where the commands run ([`Place`]): the warm worktree, a throwaway
//!   one, or (a server, issue 38) a throwaway one inside a sandbox, or
//!   nowhere at all, on CI's verdicts;
//! - the verdict cache ([`Cache`]).

use crate::error::{Error, Result};
use crate::git::config::WorktreeMode;
use crate::ops::settings::{ServerValidation, Settings};
use crate::plan::{ExecutionPlan, Limits};
use crate::validate::{Budget, TimeoutSource};

mod ci_verdicts;
pub(crate) mod run;
mod untouched;
mod verdict;

pub(crate) use run::{Candidate, Failed, Judged, run};

/// The time budget when neither a request, a plan nor `evolv.timeout`
/// says otherwise.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// Who asks for a validation: each reads the request and the settings its
/// own way, here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Caller<'a> {
    /// apply: the plan, the worktree mode, a cached pass or fail answers.
    Apply,
    /// test: the warm worktree, any stored verdict answers (and no plan:
    /// its caller passes none).
    Test,
    /// A server landing on `branch_ref` (`protected` or not): the server's
    /// own configuration only (a push names no command, no timeout).
    Server {
        branch_ref: &'a str,
        protected: bool,
    },
}

/// What a request says about its validation; `None` leaves it to the
/// settings.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ask {
    pub commands: Option<Vec<String>>,
    pub timeout_secs: Option<u64>,
    pub fresh_worktree: Option<bool>,
    /// Run the commands whatever the verdict cache holds, and store the
    /// run in place of the stored verdict.
    pub no_cache: bool,
}

/// Where the commands run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    /// The warm validation worktree (incremental builds).
    Warm,
    /// A throwaway worktree, removed afterwards.
    Fresh,
    /// A throwaway worktree inside a sandbox started with `program`; the
    /// branch, hooks and config are checked after (a server's validation
    /// of pushed code, issue 38).
    Sandboxed {
        program: String,
        branch_ref: String,
        protected: bool,
    },
    /// Nowhere: a server that runs no pushed code lands only on a verdict
    /// CI made and marked with the secret it shares with the server.
    Nowhere,
}

/// What a stored verdict for the candidate's tree answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cache {
    /// Any trusted verdict stands for a run (test shows it).
    Any,
    /// A trusted pass or fail stands for a run; a skip runs again (apply).
    Decisive,
    /// Only a pass stands; anything else runs again and is replaced (a
    /// server: a pusher cannot ask for `--no-cache`, and a flaky failure
    /// must not refuse a tree forever).
    PassOnly,
    /// Nothing stands; the run replaces what is stored (`--no-cache`).
    Refresh,
}

/// What to run on a candidate, resolved.
#[derive(Debug, Clone)]
pub(crate) struct Validation {
    pub pre_conditions: Vec<String>,
    pub commands: Vec<String>,
    pub expected_outcomes: Vec<String>,
    /// The plan's limits, when a plan applies.
    pub limits: Option<Limits>,
    pub timeout_secs: u64,
    /// What set `timeout_secs`, for the timeout's hint.
    pub timeout_source: TimeoutSource,
    pub place: Place,
    pub cache: Cache,
}

impl Validation {
    /// What `caller` runs for a request asking `ask`, under `plan` (the
    /// request's or `evolv.plan`, see `ops::applying::plan::resolve`), with the
    /// session's `settings` filling in what the request leaves out.
    pub(crate) fn resolve(
        settings: &Settings,
        caller: Caller<'_>,
        ask: &Ask,
        plan: Option<&ExecutionPlan>,
    ) -> Result<Validation> {
        let commands = commands(settings, caller, ask.commands.as_deref())?;
        let (timeout_secs, timeout_source) = timeout(settings, ask.timeout_secs, plan)?;
        let (pre_conditions, expected_outcomes) = match plan {
            Some(p) => (
                p.validation.pre_conditions.clone(),
                p.validation.expected_outcomes.clone(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        Ok(Validation {
            pre_conditions,
            commands,
            expected_outcomes,
            limits: plan.map(|p| p.limits.clone()),
            timeout_secs,
            timeout_source,
            place: place(settings, caller, ask.fresh_worktree)?,
            cache: match caller {
                _ if ask.no_cache => Cache::Refresh,
                Caller::Apply => Cache::Decisive,
                Caller::Test => Cache::Any,
                Caller::Server { .. } => Cache::PassOnly,
            },
        })
        .and_then(Validation::runnable)
    }

    /// Whether anything is to be checked by running or looking up.
    pub(crate) fn validates(&self) -> bool {
        !self.pre_conditions.is_empty()
            || !self.commands.is_empty()
            || !self.expected_outcomes.is_empty()
    }

    /// Every command, in the order it would run (what a confirmation
    /// names).
    pub(crate) fn all_commands(&self) -> Vec<String> {
        let stages = [
            &self.pre_conditions,
            &self.commands,
            &self.expected_outcomes,
        ];
        stages.into_iter().flatten().cloned().collect()
    }

    /// The time budget, starting now.
    pub(crate) fn budget(&self) -> Budget {
        Budget::starting_now(self.timeout_secs).limited_by(self.timeout_source)
    }

    /// Refuses a change over the plan's limits: files changed, then lines
    /// (added plus removed).
    pub(crate) fn check_limits(&self, files: usize, lines: usize) -> Result<()> {
        let Some(limits) = &self.limits else {
            return Ok(());
        };
        let checks = [
            ("limits.max_files", "files", files, limits.max_files),
            (
                "limits.max_changes",
                "lines (added + removed)",
                lines,
                limits.max_changes,
            ),
        ];
        for (limit, unit, actual, allowed) in checks {
            if actual as i64 > allowed {
                return Err(Error::ConstraintViolation {
                    limit,
                    unit,
                    actual: actual as u64,
                    allowed: allowed as u64,
                });
            }
        }
        Ok(())
    }

    /// Refuses what cannot run where it is to run: a server that runs no
    /// pushed code cannot run a plan's commands either.
    fn runnable(self) -> Result<Validation> {
        let plan_commands = !self.pre_conditions.is_empty() || !self.expected_outcomes.is_empty();
        if self.place == Place::Nowhere && plan_commands {
            return Err(Error::invalid(
                "evolv.receive.validation is `verdict`, so the server runs no command, but the plan in evolv.plan names pre_conditions or expected_outcomes",
                "remove the commands from the server's plan (its limits still apply), or validate in isolation (`git config evolv.receive.validation isolated`)",
            ));
        }
        Ok(self)
    }
}

/// Every non-blank `evolv.validate` value, in order, each its own
/// command: what apply, test and a server run when the request names
/// none, and the commands of the verdicts `list` and `show` look up.
pub(crate) fn configured_commands(settings: &Settings) -> Vec<String> {
    non_blank(&settings.validate_commands())
}

/// `commands` without the blank ones (a blank command checks nothing).
fn non_blank(commands: &[String]) -> Vec<String> {
    commands
        .iter()
        .filter(|c| !c.trim().is_empty())
        .cloned()
        .collect()
}

/// The commands `caller` runs: an apply's own list stands even when it
/// is empty (`--validate ''` validates nothing); test's blank command
/// falls back to the configuration, and test needs one; a server runs
/// only its own.
fn commands(
    settings: &Settings,
    caller: Caller<'_>,
    asked: Option<&[String]>,
) -> Result<Vec<String>> {
    let asked = asked.map(non_blank);
    match caller {
        Caller::Apply => Ok(asked.unwrap_or_else(|| configured_commands(settings))),
        Caller::Server { .. } => Ok(configured_commands(settings)),
        Caller::Test => {
            let commands = asked
                .filter(|c| !c.is_empty())
                .unwrap_or_else(|| configured_commands(settings));
            if commands.is_empty() {
                return Err(Error::invalid(
                    "no command to test with",
                    "give --command CMD, or set one with `git config evolv.validate CMD`",
                ));
            }
            Ok(commands)
        }
    }
}

/// The time budget and what set it. A plan can only tighten a request's
/// bound, never loosen it; a plan's own bound stands over `evolv.timeout`.
fn timeout(
    settings: &Settings,
    asked: Option<u64>,
    plan: Option<&ExecutionPlan>,
) -> Result<(u64, TimeoutSource)> {
    if asked == Some(0) {
        return Err(Error::invalid_field(
            "timeout_secs",
            "timeout_secs 0: the timeout must be at least 1 second",
            "give a positive number of seconds",
        ));
    }
    Ok(match (plan, asked) {
        (Some(p), Some(s)) if s < p.limits.timeout_seconds as u64 => (s, TimeoutSource::Flag),
        (Some(p), _) => (p.limits.timeout_seconds as u64, TimeoutSource::Plan),
        (None, Some(s)) => (s, TimeoutSource::Flag),
        (None, None) => match settings.timeout_secs()? {
            Some(s) => (s, TimeoutSource::Config),
            None => (DEFAULT_TIMEOUT_SECS, TimeoutSource::Default),
        },
    })
}

/// Where `caller`'s commands run: test always in a warm worktree; apply
/// as the request, else `evolv.worktree`, says; a server as
/// `evolv.receive.validation` says.
fn place(settings: &Settings, caller: Caller<'_>, fresh: Option<bool>) -> Result<Place> {
    Ok(match caller {
        Caller::Test => Place::Warm,
        Caller::Apply => {
            let fresh = match fresh {
                Some(fresh) => fresh,
                None => settings.worktree_mode()? == Some(WorktreeMode::Fresh),
            };
            if fresh { Place::Fresh } else { Place::Warm }
        }
        Caller::Server {
            branch_ref,
            protected,
        } => match settings.receive_validation()? {
            ServerValidation::Verdict => Place::Nowhere,
            ServerValidation::Isolated => Place::Sandboxed {
                program: settings.receive_sandbox(),
                branch_ref: branch_ref.to_string(),
                protected,
            },
        },
    })
}
