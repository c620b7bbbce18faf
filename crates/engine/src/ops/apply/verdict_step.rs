//! The verdict cache in an apply: the validation commands, each its own
//! command as `git evolv test` runs `evolv.validate`, on the candidate
//! tree have the same key as a `test` of that tree (a test, then an
//! apply, hits). A trusted pass (each command exited 0) skips the
//! commands; a trusted fail refuses the landing with its recorded output;
//! a skip (125) is no answer and runs again. A run's verdict is stored
//! (with `--no-cache` in place of the stored one), except when it was cut
//! short (timeout, signal).

use schemars::JsonSchema;
use serde::Serialize;

use super::settings::RunSettings;
use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::store::audit::RefMove;
use crate::store::pending::Deferred;
use crate::store::verdicts::{self, CommandExit, Found, Status, Verdict};
use crate::validate::{CommandReport, Stage};

/// The verdict an apply's validation commands reused or made.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct ApplyVerdict {
    pub key: String,
    /// The commands as text (`a && b`); `commands` has each one's exit.
    pub command: String,
    /// Each command, in order, with its exit (null: not run).
    pub commands: Vec<CommandExit>,
    pub status: Status,
    /// Reused from the verdict cache: the commands did not run now.
    pub cached: bool,
    pub exit_code: i32,
    pub duration_ms: u64,
    /// Seconds since the epoch; `user@host`; `local` or a trusted remote.
    pub made_at: i64,
    pub made_by: String,
    pub source: String,
    /// The verdict ref this apply moved storing it: a fact its record
    /// lists (issue 39 item 1).
    #[serde(skip)]
    #[schemars(skip)]
    pub moved: Option<RefMove>,
}

impl ApplyVerdict {
    fn of(v: Verdict, cached: bool, source: String) -> ApplyVerdict {
        ApplyVerdict {
            key: v.key,
            command: v.command,
            commands: v.commands,
            status: v.status,
            cached,
            exit_code: v.exit_code,
            duration_ms: v.duration_ms,
            made_at: v.made_at,
            made_by: v.made_by,
            source,
            moved: None,
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
pub(crate) struct Lookup {
    key: String,
    commands: Vec<String>,
    tree: Oid,
    no_cache: bool,
    pub(super) found: Option<Found>,
    /// Verdict refs skipped on the way (not a commit), each named.
    pub(super) warnings: Vec<Deferred>,
}

impl Lookup {
    /// `None` when the apply runs no validation command.
    pub(super) fn of(repo: &Repo, s: &RunSettings, new: Oid) -> Result<Option<Lookup>> {
        if s.commands.is_empty() {
            return Ok(None);
        }
        let tree = repo.find_commit(new)?.tree_id();
        Lookup::new(repo, s.commands.clone(), tree, s.no_cache).map(Some)
    }

    /// The key of `commands` on `tree` and its trusted verdict (a server's
    /// landing asks too: `receive::validation`).
    pub(crate) fn new(
        repo: &Repo,
        commands: Vec<String>,
        tree: Oid,
        no_cache: bool,
    ) -> Result<Lookup> {
        let key = verdicts::key_of(repo, tree, &commands)?;
        let mut warnings = Vec::new();
        let found = if no_cache {
            None
        } else {
            verdicts::lookup_noting(repo, &key, &mut warnings)?
                .filter(|f| f.verdict.status != Status::Skip && f.verdict.covers(tree, &commands))
        };
        Ok(Lookup {
            key,
            commands,
            tree,
            no_cache,
            found,
            warnings,
        })
    }

    /// This lookup, its run to be stored in place of what was found (a
    /// server re-runs a stored failure and keeps the new answer).
    pub(crate) fn replacing(mut self) -> Lookup {
        self.no_cache = true;
        self
    }

    /// A cached pass: the reports standing for the commands (one each),
    /// and the verdict. A cached fail: the refusal, with the recorded
    /// output of the command that failed.
    pub(crate) fn reuse(&self) -> Option<Result<(Vec<CommandReport>, ApplyVerdict)>> {
        let found = self.found.as_ref()?;
        let verdict = ApplyVerdict::of(found.verdict.clone(), true, found.source.clone());
        let ran: Vec<_> = verdict
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
        Some(match verdict.status {
            Status::Pass => Ok((reports, verdict)),
            _ => Err(Error::ValidationFailed {
                command: failed,
                exit_code: verdict.exit_code,
                cached: format!(" (a cached verdict, {})", verdict.provenance()),
                reports,
            }),
        })
    }

    /// Stores what the run of the commands said (`reports` are theirs, in
    /// order; `ran` how the run ended) and returns it as the apply's
    /// verdict; none when the run was cut short.
    pub(crate) fn record(
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
            command: self.commands.join(" && "),
            commands: verdicts::exits(&self.commands, reports),
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
        let stored = if self.no_cache {
            verdicts::replace(repo, &verdict)?
        } else {
            verdicts::store(repo, &verdict)?
        };
        let mut made = ApplyVerdict::of(stored.verdict, false, "local".into());
        made.moved = stored.moved;
        Ok(Some(made))
    }
}
