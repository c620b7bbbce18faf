//! Retention (`evolv.checkpoints.keep`, `evolv.checkpoints.keepDays`):
//! whole sessions are pruned, by deleting their refs, once none of their
//! checkpoints is among the newest `keep` of the repository nor younger
//! than `keepDays` days; git's own gc then drops their objects. A session
//! is the unit because its checkpoints are one chain of parents: cutting
//! one short would rewrite the ids that name the ones kept. It runs when
//! git's `gc --auto` is due after a checkpoint, just before the
//! maintenance git-evolv starts then (`maintenance::run_auto`), and on
//! demand (`git evolv checkpoints --prune`).

use serde::{Deserialize, Serialize};

use super::chain;
use super::record::{CheckpointOutcome, CheckpointRequest};
use crate::context::Context;
use crate::error::Result;
use crate::git::Repo;
use crate::ops::session::{Open, Session, UseCase};
use crate::ops::settings::Settings;
use crate::store::audit::AuditAction;
use crate::store::transaction::Transaction;

/// Prune the sessions retention lets go.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
pub struct PruneRequest {
    /// Prune as if it were this many seconds since the epoch (tests).
    #[serde(default)]
    pub now: Option<i64>,
}

/// The sessions' refs deleted.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PruneOutcome {
    pub pruned: Vec<String>,
    /// Checkpoints they held.
    pub checkpoints: usize,
}

/// Records a checkpoint, then prunes retention when git's gc is due (the
/// maintenance the session starts next then collects what it let go).
pub fn checkpoint_and_retain(
    repo: &Repo,
    settings: &Settings,
    ctx: &Context,
    req: &CheckpointRequest,
) -> Result<CheckpointOutcome> {
    let out = super::record::checkpoint(repo, settings, ctx, req)?;
    if let Some(gc) = settings.auto_gc()
        && gc.due(&repo.common_dir().join("objects"))
    {
        // Housekeeping: the checkpoint is recorded whatever this meets,
        // and the next due gc tries again.
        let _ = prune(repo, settings, ctx, &PruneRequest::default());
    }
    Ok(out)
}

pub fn prune(
    repo: &Repo,
    settings: &Settings,
    ctx: &Context,
    req: &PruneRequest,
) -> Result<PruneOutcome> {
    let (keep, days) = settings.checkpoints_retention()?;
    let now = req.now.unwrap_or_else(crate::clock::now_secs);
    let oldest_kept_by_age =
        now.saturating_sub(i64::try_from(days).unwrap_or(i64::MAX / 2) * 86_400);
    let mut sessions = Vec::new();
    let mut times = Vec::new();
    for (name, tip) in chain::sessions(repo)? {
        let all = chain::chain(repo, tip)?;
        let newest = all.first().map_or(0, |c| c.time);
        times.extend(all.iter().map(|c| c.time));
        sessions.push((name, tip, newest, all.len()));
    }
    times.sort_unstable_by(|a, b| b.cmp(a));
    let keep = usize::try_from(keep).unwrap_or(usize::MAX);
    // A session holding one of the newest `keep` checkpoints is kept.
    let kept_by_count = match keep {
        0 => i64::MAX,
        n => times.get(n - 1).copied().unwrap_or(i64::MIN),
    };
    let mut tx = Transaction::new(repo, ctx, AuditAction::Gc, "");
    let mut outcome = PruneOutcome {
        pruned: Vec::new(),
        checkpoints: 0,
    };
    for (name, tip, newest, count) in sessions {
        if newest >= kept_by_count || newest >= oldest_kept_by_age {
            continue;
        }
        tx.swap(&name, Some(tip), None);
        outcome.pruned.push(name);
        outcome.checkpoints += count;
    }
    if !outcome.pruned.is_empty() {
        tx.set_reflog("evolv: prune checkpoints");
        tx.commit()?;
    }
    Ok(outcome)
}

/// An agent's hook records a checkpoint, retention beside it.
impl UseCase for CheckpointRequest {
    const OPEN: Open = Open::Recovering;
    const WRITES_OBJECTS: bool = true;
    type Outcome = CheckpointOutcome;

    fn run(&self, session: &Session) -> Result<CheckpointOutcome> {
        let (repo, settings) = (session.repo()?, session.settings()?);
        checkpoint_and_retain(repo, settings, session.context(), self)
    }
}

impl UseCase for PruneRequest {
    const OPEN: Open = Open::Recovering;
    type Outcome = PruneOutcome;

    fn run(&self, session: &Session) -> Result<PruneOutcome> {
        prune(
            session.repo()?,
            session.settings()?,
            session.context(),
            self,
        )
    }
}
