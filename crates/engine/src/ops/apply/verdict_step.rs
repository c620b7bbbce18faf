//! The verdict cache in an apply: the validation commands, joined by `&&`
//! as `git evolv test` joins `evolv.validate`, on the candidate tree have
//! the same key as a `test` of that tree (a test, then an apply, hits).
//! A trusted pass skips the commands; a trusted fail refuses the landing
//! with its recorded output; a skip (125) is no answer and runs again. A
//! run's verdict is stored, except when it was cut short (timeout, signal).

use schemars::JsonSchema;
use serde::Serialize;

use super::settings::RunSettings;
use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::store::verdicts::{self, Found, Status, Verdict};
use crate::validate::{CommandReport, Stage};

/// The verdict an apply's validation commands reused or made.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct ApplyVerdict {
    pub key: String,
    /// The commands as one (`a && b`), as the key holds them.
    pub command: String,
    pub status: Status,
    /// Reused from the verdict cache: the commands did not run now.
    pub cached: bool,
    pub exit_code: i32,
    pub duration_ms: u64,
    /// Seconds since the epoch; `user@host`; `local` or a trusted remote.
    pub made_at: i64,
    pub made_by: String,
    pub source: String,
}

impl ApplyVerdict {
    fn of(v: Verdict, cached: bool, source: String) -> ApplyVerdict {
        ApplyVerdict {
            key: v.key,
            command: v.command,
            status: v.status,
            cached,
            exit_code: v.exit_code,
            duration_ms: v.duration_ms,
            made_at: v.made_at,
            made_by: v.made_by,
            source,
        }
    }

    /// "made 2026-11-28T04:10:00Z by ci@runner (origin)".
    pub fn provenance(&self) -> String {
        format!(
            "made {} by {} ({})",
            crate::clock::utc_rfc3339(self.made_at),
            self.made_by,
            self.source
        )
    }
}

/// The key of an apply's validation commands on one tree, and the trusted
/// verdict stored for it (none with `--no-cache`).
pub(super) struct Lookup {
    key: String,
    command: String,
    tree: Oid,
    pub(super) found: Option<Found>,
}

impl Lookup {
    /// `None` when the apply runs no validation command.
    pub(super) fn of(repo: &Repo, s: &RunSettings, new: Oid) -> Result<Option<Lookup>> {
        if s.commands.is_empty() {
            return Ok(None);
        }
        let command = s.commands.join(" && ");
        let tree = repo.find_commit(new)?.tree_id();
        let key = verdicts::key_of(repo, tree, &command)?;
        let found = if s.no_cache {
            None
        } else {
            verdicts::lookup(repo, &key)?.filter(|f| f.verdict.status != Status::Skip)
        };
        Ok(Some(Lookup {
            key,
            command,
            tree,
            found,
        }))
    }

    /// A cached pass: the report standing for the commands, and the
    /// verdict. A cached fail: the refusal, with the recorded output.
    pub(super) fn reuse(&self) -> Option<Result<(CommandReport, ApplyVerdict)>> {
        let found = self.found.as_ref()?;
        let verdict = ApplyVerdict::of(found.verdict.clone(), true, found.source.clone());
        let report = CommandReport {
            command: self.command.clone(),
            stage: Stage::Validate,
            exit_code: verdict.exit_code,
            duration_ms: verdict.duration_ms,
            output_tail: found.verdict.output_tail.clone(),
            timed_out: false,
        };
        Some(match verdict.status {
            Status::Pass => Ok((report, verdict)),
            _ => Err(Error::ValidationFailed {
                command: self.command.clone(),
                exit_code: verdict.exit_code,
                cached: format!(" (a cached verdict, {})", verdict.provenance()),
                reports: vec![report],
            }),
        })
    }

    /// Stores what the run of the commands said (`reports` are theirs, in
    /// order; `ran` how the run ended) and returns it as the apply's
    /// verdict; none when the run was cut short.
    pub(super) fn record(
        &self,
        repo: &Repo,
        reports: &[CommandReport],
        ran: &Result<()>,
    ) -> Result<Option<ApplyVerdict>> {
        let exit_code = match ran {
            Ok(()) => 0,
            Err(Error::ValidationFailed { exit_code, .. }) => *exit_code,
            Err(_) => return Ok(None),
        };
        let status = Status::of_exit(exit_code);
        if status == Status::Abort {
            return Ok(None);
        }
        let verdict = Verdict {
            key: self.key.clone(),
            target: self.tree.to_string(),
            tree: self.tree.to_string(),
            command: self.command.clone(),
            status,
            exit_code,
            duration_ms: reports.iter().map(|r| r.duration_ms).sum(),
            output_tail: reports
                .last()
                .map(|r| r.output_tail.clone())
                .unwrap_or_default(),
            made_at: crate::clock::now_secs(),
            made_by: verdicts::made_by(),
        };
        let stored = verdicts::store(repo, &verdict)?;
        Ok(Some(ApplyVerdict::of(stored, false, "local".into())))
    }
}
