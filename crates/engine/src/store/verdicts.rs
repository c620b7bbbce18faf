//! Verdicts: what a validation command said about a tree, stored in git as
//! `refs/evolv/verdicts/<key>` → a commit on the empty tree whose message
//! is the verdict as JSON, then a `Evolv-Mark:` line. The key is
//! [`KeyParts::key`]; an entry is created by compare-and-swap expecting no
//! ref, so two processes storing the same key store it once, whole.
//!
//! Trust: a verdict made in this clone carries a mark, a keyed double hash
//! `sha1(secret ‖ sha1(secret ‖ json))` with a per-clone secret kept in
//! `<common dir>/evolv/verdict-secret`, never in a ref (`store::clone_mark`,
//! which the op log's records share). A verdict without
//! a valid mark is foreign (fetched, pushed to us, written by hand) and is
//! used only when it sits under `refs/evolv/remotes/<remote>/verdicts/`
//! and `evolv.test.trust` names `<remote>`. By default nothing foreign is
//! trusted: a collaborator cannot push a fake pass.

use evolv_core::comma_list::split_comma_list;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::audit::RefMove;
use super::clone_mark::{CloneKey, mark, secret};
use super::pending::Deferred;
use super::refs;
use super::verdict_key::KeyParts;
use crate::error::{Error, Result};
use crate::git::{self, Oid, Repo};
use crate::validate::CommandReport;

/// Where this clone's verdicts live.
pub const VERDICTS_PREFIX: &str = "refs/evolv/verdicts/";
/// Where fetched refs of a remote live: `<this><remote>/verdicts/<key>`.
pub const REMOTES_PREFIX: &str = super::REMOTES_PREFIX;
const MARK_TRAILER: &str = "\nEvolv-Mark: ";

/// `git bisect run`'s reading of an exit code.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    /// 125: the tree cannot be tested.
    Skip,
    /// 127, 128 and above, or killed: the run itself is broken.
    Abort,
    /// Not run: an earlier target of the same `test` aborted (as
    /// `git bisect run` stops). Never stored.
    #[serde(rename = "not_run")]
    NotRun,
}

impl Status {
    /// 0 pass, 125 skip, 127 and 128+ (and -1, a signal) abort, else fail.
    pub fn of_exit(code: i32) -> Status {
        match code {
            0 => Status::Pass,
            125 => Status::Skip,
            127 => Status::Abort,
            c if !(0..128).contains(&c) => Status::Abort,
            _ => Status::Fail,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
            Status::Abort => "abort",
            Status::NotRun => "not run",
        }
    }
}

/// One command of a verdict's set and how it exited: each validator runs
/// as its own `sh -c`, in order, until one exits non-zero.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
pub struct CommandExit {
    pub command: String,
    /// Its exit code; null when it did not run (an earlier one failed).
    pub exit_code: Option<i32>,
    pub duration_ms: u64,
}

/// One stored verdict.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
pub struct Verdict {
    pub key: String,
    /// What was named (a revision or a proposal id).
    pub target: String,
    pub tree: String,
    /// The commands as text (`a && b`: each ran as its own command, the
    /// set stopping at the first that failed); `commands` has each exit.
    pub command: String,
    /// Each command of the set, in order, with its exit. Missing from
    /// verdicts stored before each validator ran on its own: those are
    /// under other keys, and never stand for a set (see `covers`).
    #[serde(default)]
    pub commands: Vec<CommandExit>,
    pub status: Status,
    pub exit_code: i32,
    pub duration_ms: u64,
    pub output_tail: String,
    /// Seconds since the epoch.
    pub made_at: i64,
    /// `user@host`.
    pub made_by: String,
}

impl Verdict {
    /// Whether this verdict answers for `commands` on `tree`: it names
    /// that tree, lists exactly those commands, and a pass shows each one
    /// exiting 0 (a verdict written under another tree's key, or claiming
    /// a pass for a set it did not run, is no answer).
    pub fn covers(&self, tree: Oid, commands: &[String]) -> bool {
        self.tree == tree.to_string()
            && self.commands.len() == commands.len()
            && self
                .commands
                .iter()
                .zip(commands)
                .all(|(c, want)| &c.command == want)
            && (self.status != Status::Pass || self.commands.iter().all(|c| c.exit_code == Some(0)))
    }
}

/// A verdict found for a key, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub verdict: Verdict,
    /// `local`, or the trusted remote it was fetched from.
    pub source: String,
}

/// A trusted stored verdict as `list`, `show` and the review page show it
/// on a proposal's tree: its state, when and where it was
/// made, and which store gave it.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct ProposalVerdict {
    pub status: Status,
    pub command: String,
    /// Each validator and its exit.
    pub commands: Vec<CommandExit>,
    pub exit_code: i32,
    pub duration_ms: u64,
    /// Seconds since the epoch.
    pub made_at: i64,
    /// `user@host`.
    pub made_by: String,
    /// `local` (made in this clone), or the trusted remote it came from.
    pub source: String,
    /// Always true: a stored verdict, reused by `apply` and `test`.
    pub cached: bool,
}

impl From<Found> for ProposalVerdict {
    fn from(found: Found) -> ProposalVerdict {
        let v = found.verdict;
        ProposalVerdict {
            status: v.status,
            command: v.command,
            commands: v.commands,
            exit_code: v.exit_code,
            duration_ms: v.duration_ms,
            made_at: v.made_at,
            made_by: v.made_by,
            source: found.source,
            cached: true,
        }
    }
}

/// The ref of `key` in this clone.
pub fn verdict_ref(key: &str) -> String {
    format!("{VERDICTS_PREFIX}{key}")
}

/// `verdict` as a record commit on the empty tree, its JSON then this
/// clone's mark; the commit's id.
fn write_marked(repo: &Repo, verdict: &Verdict) -> Result<Oid> {
    let json = serde_json::to_string(verdict).expect("verdict serialises");
    let message = format!("{json}{MARK_TRAILER}{}\n", mark(repo, &json)?);
    let who =
        git::committer(repo).or_else(|_| git::signature_now("git-evolv", "git-evolv@localhost"))?;
    repo.write_record(&message, repo.empty_tree()?, &[], &who)
}

/// A verdict stored, and the move of its ref, if this call made one (the
/// operation that stored it lists it among its record's facts).
#[derive(Debug, Clone)]
pub struct Stored {
    pub verdict: Verdict,
    pub moved: Option<RefMove>,
}

impl Stored {
    fn moved(verdict: &Verdict, name: &str, old: Option<Oid>, new: Oid) -> Stored {
        Stored {
            verdict: verdict.clone(),
            moved: Some(RefMove::new(name, old, Some(new))),
        }
    }
}

/// Stores `verdict` under its key unless one is there already; returns
/// the verdict the ref holds afterwards (ours, or the one another process
/// stored first: same key, same answer, stored once).
pub fn store(repo: &Repo, verdict: &Verdict) -> Result<Stored> {
    let oid = write_marked(repo, verdict)?;
    let name = verdict_ref(&verdict.key);
    match refs::swap(repo, &name, oid, None, "evolv: verdict") {
        Ok(()) => Ok(Stored::moved(verdict, &name, None, oid)),
        Err(Error::ConcurrentUpdate { .. }) => match read(repo, &name)? {
            Held::Verdict(stored, true) => Ok(Stored {
                verdict: stored,
                moved: None,
            }),
            // A foreign entry (fetched over our refs) does not hold the
            // place of ours: it is replaced, by compare-and-swap again.
            _ => {
                let Some(old) = repo.ref_target(&name) else {
                    return store(repo, verdict);
                };
                match refs::swap(repo, &name, oid, Some(old), "evolv: verdict") {
                    Ok(()) => Ok(Stored::moved(verdict, &name, Some(old), oid)),
                    Err(Error::ConcurrentUpdate { .. }) => Ok(Stored {
                        verdict: verdict.clone(),
                        moved: None,
                    }),
                    Err(e) => Err(e),
                }
            }
        },
        Err(e) => Err(e),
    }
}

/// Stores `verdict` under its key in place of whatever the ref holds: a
/// `--no-cache` run is the newest answer, and a stale or flaky one it ran
/// again must not keep answering for the key. Returns `verdict`.
pub fn replace(repo: &Repo, verdict: &Verdict) -> Result<Stored> {
    let oid = write_marked(repo, verdict)?;
    let name = verdict_ref(&verdict.key);
    // Another process storing the same key meanwhile made the same run;
    // either answer is current, and ours was asked for: try again.
    let mut tries = 0;
    loop {
        let old = repo.ref_target(&name);
        match refs::swap(repo, &name, oid, old, "evolv: verdict (--no-cache)") {
            Ok(()) => return Ok(Stored::moved(verdict, &name, old, oid)),
            Err(Error::ConcurrentUpdate { .. }) if tries < 5 => tries += 1,
            Err(e) => return Err(e),
        }
    }
}

/// The trusted verdict for `key`: this clone's, when its mark is valid,
/// else one fetched from a remote `evolv.test.trust` names. A ref read on
/// the way that is not a verdict commit is skipped with a warning.
pub fn lookup(repo: &Repo, key: &str) -> Result<Option<Found>> {
    lookup_noting(repo, key, &mut Vec::new())
}

/// [`lookup`], each ref skipped noted in `warnings` (named, with how to
/// remove it): the library never prints, the front ends render these.
pub fn lookup_noting(
    repo: &Repo,
    key: &str,
    warnings: &mut Vec<Deferred>,
) -> Result<Option<Found>> {
    let local = verdict_ref(key);
    match read(repo, &local)? {
        Held::Verdict(verdict, true) => {
            return Ok(Some(Found {
                verdict,
                source: "local".into(),
            }));
        }
        Held::NotACommit(kind) => warnings.push(skipped(&local, kind)),
        _ => {}
    }
    for remote in trusted_remotes(repo)? {
        let name = format!("{REMOTES_PREFIX}{remote}/verdicts/{key}");
        match read(repo, &name)? {
            Held::Verdict(verdict, _) if verdict.key == key => {
                return Ok(Some(Found {
                    verdict,
                    source: remote,
                }));
            }
            Held::NotACommit(kind) => warnings.push(skipped(&name, kind)),
            _ => {}
        }
    }
    Ok(None)
}

/// The warning for verdict ref `name`, which points at a `kind`.
fn skipped(name: &str, kind: &str) -> Deferred {
    Deferred {
        code: "verdict_ref_not_a_commit",
        message: format!("{name} points at a {kind}, not a verdict commit: skipped"),
        hint: format!("`git evolv gc` removes it (as does `git update-ref -d {name}`)"),
    }
}

/// Every verdict ref of this clone and its remotes: name and commit.
pub fn all_refs(repo: &Repo) -> Vec<(String, Oid)> {
    let mut refs = repo.readable_refs_matching(&format!("{VERDICTS_PREFIX}*"));
    refs.extend(repo.readable_refs_matching(&format!("{REMOTES_PREFIX}*/verdicts/*")));
    refs
}

/// Deletes every verdict ref (this clone's and remotes') that does not
/// point at a commit (a blob, a tree, a tag: no verdict, whoever wrote
/// it), and, given a `cutoff` (seconds since the epoch), every one made
/// before it (a commit that holds no verdict goes by its commit time);
/// returns the names and what each held, for the caller's transaction to
/// delete.
pub fn prunable(repo: &Repo, cutoff: Option<i64>) -> Result<Vec<(String, Oid)>> {
    let mut pruned = Vec::new();
    for (name, oid) in all_refs(repo) {
        let goes = match read(repo, &name)? {
            Held::Missing => false,
            Held::NotACommit(_) => true,
            Held::Verdict(v, _) => cutoff.is_some_and(|c| v.made_at < c),
            Held::NotAVerdict => {
                cutoff.is_some_and(|c| repo.find_commit(oid).is_ok_and(|k| k.committer().time < c))
            }
        };
        if goes {
            pruned.push((name, oid));
        }
    }
    Ok(pruned)
}

/// What a verdict ref holds.
enum Held {
    Missing,
    /// A blob, a tree or a tag (its kind): never a verdict.
    NotACommit(&'static str),
    /// A commit whose message is not a verdict (written by hand).
    NotAVerdict,
    /// The verdict, and whether its mark is this clone's.
    Verdict(Verdict, bool),
}

/// What the ref `name` holds, its mark checked with this clone's secret.
fn read(repo: &Repo, name: &str) -> Result<Held> {
    held_marked_by(repo, name, &secret(repo)?)
}

/// The verdict stored at `name`, and whether it is marked with `secret`
/// (a server checks CI's verdicts with the secret it shares with CI). A
/// ref that holds no verdict (not a commit, or not a verdict's message)
/// is none.
pub fn read_marked_by(repo: &Repo, name: &str, secret: &[u8]) -> Result<Option<(Verdict, bool)>> {
    Ok(match held_marked_by(repo, name, secret)? {
        Held::Verdict(verdict, marked) => Some((verdict, marked)),
        _ => None,
    })
}

/// What the ref `name` holds, its mark checked with `secret`.
fn held_marked_by(repo: &Repo, name: &str, secret: &[u8]) -> Result<Held> {
    let Some(oid) = repo.ref_target(name) else {
        return Ok(Held::Missing);
    };
    let Ok(commit) = repo.find_commit(oid) else {
        return Ok(Held::NotACommit(kind_of(repo, oid)));
    };
    let message = String::from_utf8_lossy(commit.message_bytes()).into_owned();
    let (json, given) = match message.rsplit_once(MARK_TRAILER) {
        Some((json, mark)) => (json, Some(mark.trim())),
        None => (message.trim_end(), None),
    };
    let Ok(verdict) = serde_json::from_str::<Verdict>(json) else {
        return Ok(Held::NotAVerdict);
    };
    let marked = match given {
        Some(given) => CloneKey::with_secret(secret).verify(json, given),
        None => false,
    };
    Ok(Held::Verdict(verdict, marked))
}

/// What kind of object `oid` (not a commit) is, for the warning.
fn kind_of(repo: &Repo, oid: Oid) -> &'static str {
    if repo.find_tree(oid).is_ok() {
        "tree"
    } else if repo.blob(oid).is_ok() {
        "blob"
    } else {
        "tag or missing object"
    }
}

/// `evolv.test.trust`: the remotes whose verdicts count.
fn trusted_remotes(repo: &Repo) -> Result<Vec<String>> {
    let config = repo.config()?;
    Ok(config
        .all("evolv.test.trust")
        .into_iter()
        .flat_map(split_comma_list)
        .filter(|r| !r.contains('/') && !r.starts_with('.'))
        .collect())
}

/// `user@host` of this process, for `made_by`.
pub fn made_by() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "unknown".into());
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "localhost".into());
    format!("{user}@{host}")
}

/// The key of `commands` on `tree` in `repo` (see [`KeyParts`]).
pub fn key_of(repo: &Repo, tree: Oid, commands: &[String]) -> Result<String> {
    Ok(KeyParts::gather(repo, tree, commands)?.key())
}

#[cfg(test)]
#[path = "verdicts_tests.rs"]
mod tests;

/// Each of `commands` with its exit from `reports` (theirs, in order; the
/// ones after the last report did not run).
pub fn exits(commands: &[String], reports: &[CommandReport]) -> Vec<CommandExit> {
    commands
        .iter()
        .enumerate()
        .map(|(i, command)| CommandExit {
            command: command.clone(),
            exit_code: reports.get(i).map(|r| r.exit_code),
            duration_ms: reports.get(i).map_or(0, |r| r.duration_ms),
        })
        .collect()
}
