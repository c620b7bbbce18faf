//! The verdict cache of the pipeline. The validation commands, each its
//! own command as `git evolv test` runs `evolv.validate`, on a candidate's
//! tree have one key whoever runs them (a test, then an apply, hits). What
//! a trusted stored verdict answers is the caller's cache policy
//! ([`Cache`]); a run's verdict is stored (in place of the stored one
//! where the policy replaces), except when it was cut short (timeout,
//! signal, an abort).

use super::Cache;
use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::store::audit::RefMove;
use crate::store::pending::Deferred;
use crate::store::verdicts::{self, Found, Status, Verdict};
use crate::validate::{CommandReport, Stage};

/// A verdict that answers for the commands on a tree: reused from the
/// store, or made by a run now.
#[derive(Debug, Clone)]
pub(crate) struct Judged {
    pub verdict: Verdict,
    /// Reused from the store: the commands did not run now.
    pub cached: bool,
    /// `local`, or the trusted remote it was fetched from.
    pub source: String,
    /// The verdict ref storing it moved now: a fact the operation's
    /// record lists (issue 39 item 1).
    pub moved: Option<RefMove>,
}

impl Judged {
    /// "made 2026-11-28T04:10:00Z by ci@runner (origin)".
    pub(crate) fn provenance(&self) -> String {
        format!(
            "made {} by {} ({})",
            crate::clock::utc_rfc3339(self.verdict.made_at),
            self.verdict.made_by,
            self.source
        )
    }
}

/// The key of the commands on one tree, and the stored verdict that
/// answers for them under the cache policy.
pub(super) struct Lookup {
    key: String,
    commands: Vec<String>,
    tree: Oid,
    /// What a verdict made now names as its target.
    target: String,
    cache: Cache,
    found: Option<Found>,
    /// Verdict refs skipped on the way (not a commit), each named.
    pub(super) warnings: Vec<Deferred>,
}

impl Lookup {
    /// The key of `commands` on `tree` and what is stored for it.
    pub(super) fn new(
        repo: &Repo,
        commands: &[String],
        tree: Oid,
        target: String,
        cache: Cache,
    ) -> Result<Lookup> {
        let key = verdicts::key_of(repo, tree, commands)?;
        let mut warnings = Vec::new();
        let answers = |status: Status| match cache {
            Cache::Any => true,
            Cache::Decisive => status != Status::Skip,
            Cache::PassOnly => status == Status::Pass,
            Cache::Refresh => false,
        };
        let found = if cache == Cache::Refresh {
            None
        } else {
            verdicts::lookup_noting(repo, &key, &mut warnings)?
                .filter(|f| answers(f.verdict.status) && f.verdict.covers(tree, commands))
        };
        Ok(Lookup {
            key,
            commands: commands.to_vec(),
            tree,
            target,
            cache,
            found,
            warnings,
        })
    }

    /// What the store answers: the reports standing for the commands (one
    /// for each that ran, the last with the recorded output), the verdict,
    /// and, for anything but a pass, the refusal the caller may act on (a
    /// `ValidationFailed` naming the command that failed).
    pub(super) fn answer(&self) -> Option<(Vec<CommandReport>, Judged, Result<()>)> {
        let found = self.found.as_ref()?;
        let judged = Judged {
            verdict: found.verdict.clone(),
            cached: true,
            source: found.source.clone(),
            moved: None,
        };
        let ran: Vec<_> = judged
            .verdict
            .commands
            .iter()
            .filter_map(|c| Some((c, c.exit_code?)))
            .collect();
        let reports: Vec<CommandReport> = ran
            .iter()
            .enumerate()
            .map(|(i, (c, exit_code))| CommandReport {
                command: c.command.clone(),
                stage: Stage::Validate,
                exit_code: *exit_code,
                duration_ms: c.duration_ms,
                // The tail kept is the last command's.
                output_tail: if i + 1 == ran.len() {
                    found.verdict.output_tail.clone()
                } else {
                    String::new()
                },
                timed_out: false,
            })
            .collect();
        let failed = ran
            .last()
            .map_or_else(|| self.commands.join(" && "), |(c, _)| c.command.clone());
        let refusal = match judged.verdict.status {
            Status::Pass => Ok(()),
            _ => Err(Error::ValidationFailed {
                command: failed,
                exit_code: judged.verdict.exit_code,
                cached: format!(" (a cached verdict, {})", judged.provenance()),
                reports: reports.clone(),
            }),
        };
        Some((reports, judged, refusal))
    }

    /// The verdict of a run of the commands (`reports` are theirs, in
    /// order; `ran` how the run ended), stored unless the run was cut
    /// short; `None` when it ended without an answer about the tree (a
    /// signal, a cancel, an error of its own).
    pub(super) fn record(
        &self,
        repo: &Repo,
        reports: &[CommandReport],
        ran: &Result<()>,
    ) -> Result<Option<Judged>> {
        let exit_code = match ran {
            Ok(()) => 0,
            Err(Error::ValidationFailed { exit_code, .. }) => *exit_code,
            // Cut short by the budget: an abort, kept but never stored.
            Err(Error::Timeout { .. }) => -1,
            Err(_) => return Ok(None),
        };
        let verdict = Verdict {
            key: self.key.clone(),
            target: self.target.clone(),
            tree: self.tree.to_string(),
            command: self.commands.join(" && "),
            commands: verdicts::exits(&self.commands, reports),
            status: Status::of_exit(exit_code),
            exit_code,
            duration_ms: reports.iter().map(|r| r.duration_ms).sum(),
            output_tail: reports
                .last()
                .map(|r| r.output_tail.clone())
                .unwrap_or_default(),
            made_at: crate::clock::now_secs(),
            made_by: verdicts::made_by(),
        };
        let stored = match (verdict.status, self.cache) {
            (Status::Abort | Status::NotRun, _) => verdicts::Stored {
                verdict,
                moved: None,
            },
            (_, Cache::Refresh | Cache::PassOnly) => verdicts::replace(repo, &verdict)?,
            (_, Cache::Any | Cache::Decisive) => verdicts::store(repo, &verdict)?,
        };
        Ok(Some(Judged {
            verdict: stored.verdict,
            cached: false,
            source: "local".into(),
            moved: stored.moved,
        }))
    }
}
