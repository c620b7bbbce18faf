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

use super::clone_mark::{CloneKey, mark, secret};
use super::verdict_key::KeyParts;
use crate::error::{Error, Result};
use crate::git::{self, Oid, Repo};

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
        }
    }
}

/// One stored verdict.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
pub struct Verdict {
    pub key: String,
    /// What was named (a revision or a proposal id).
    pub target: String,
    pub tree: String,
    pub command: String,
    pub status: Status,
    pub exit_code: i32,
    pub duration_ms: u64,
    pub output_tail: String,
    /// Seconds since the epoch.
    pub made_at: i64,
    /// `user@host`.
    pub made_by: String,
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

/// Stores `verdict` under its key unless one is there already; returns
/// the verdict the ref holds afterwards (ours, or the one another process
/// stored first: same key, same answer, stored once).
pub fn store(repo: &Repo, verdict: &Verdict) -> Result<Verdict> {
    let json = serde_json::to_string(verdict).expect("verdict serialises");
    let message = format!("{json}{MARK_TRAILER}{}\n", mark(repo, &json)?);
    let who =
        git::committer(repo).or_else(|_| git::signature_now("git-evolv", "git-evolv@localhost"))?;
    let oid = repo.write_record(&message, repo.empty_tree()?, &[], &who)?;
    let name = verdict_ref(&verdict.key);
    match git::compare_and_swap(repo, &name, oid, None, "evolv: verdict") {
        Ok(()) => Ok(verdict.clone()),
        Err(Error::ConcurrentUpdate { .. }) => match read(repo, &name)? {
            Some((stored, true)) => Ok(stored),
            // A foreign entry (fetched over our refs) does not hold the
            // place of ours: it is replaced, by compare-and-swap again.
            _ => {
                let Some(old) = repo.ref_target(&name) else {
                    return store(repo, verdict);
                };
                match git::compare_and_swap(repo, &name, oid, Some(old), "evolv: verdict") {
                    Ok(()) | Err(Error::ConcurrentUpdate { .. }) => Ok(verdict.clone()),
                    Err(e) => Err(e),
                }
            }
        },
        Err(e) => Err(e),
    }
}

/// The trusted verdict for `key`: this clone's, when its mark is valid,
/// else one fetched from a remote `evolv.test.trust` names.
pub fn lookup(repo: &Repo, key: &str) -> Result<Option<Found>> {
    if let Some((verdict, marked)) = read(repo, &verdict_ref(key))?
        && marked
    {
        return Ok(Some(Found {
            verdict,
            source: "local".into(),
        }));
    }
    for remote in trusted_remotes(repo)? {
        let name = format!("{REMOTES_PREFIX}{remote}/verdicts/{key}");
        if let Some((verdict, _)) = read(repo, &name)?
            && verdict.key == key
        {
            return Ok(Some(Found {
                verdict,
                source: remote,
            }));
        }
    }
    Ok(None)
}

/// Every verdict ref of this clone and its remotes: name and commit.
pub fn all_refs(repo: &Repo) -> Vec<(String, Oid)> {
    let mut refs = repo.readable_refs_matching(&format!("{VERDICTS_PREFIX}*"));
    refs.extend(repo.readable_refs_matching(&format!("{REMOTES_PREFIX}*/verdicts/*")));
    refs
}

/// Deletes every verdict ref (this clone's and remotes') made before
/// `cutoff` (seconds since the epoch; a ref that holds no verdict goes by
/// its commit time); returns the names deleted.
pub fn prune_made_before(repo: &Repo, cutoff: i64) -> Result<Vec<String>> {
    let mut pruned = Vec::new();
    for (name, oid) in all_refs(repo) {
        let made_at = match read(repo, &name)? {
            Some((v, _)) => v.made_at,
            None => repo.find_commit(oid)?.committer().time,
        };
        if made_at < cutoff && git::delete_ref(repo, &name)? {
            pruned.push(name);
        }
    }
    Ok(pruned)
}

/// The verdict stored at `name`, and whether its mark is this clone's.
/// A ref whose message is not a verdict (written by hand) is none.
fn read(repo: &Repo, name: &str) -> Result<Option<(Verdict, bool)>> {
    read_marked_by(repo, name, &secret(repo)?)
}

/// The verdict stored at `name`, and whether it is marked with `secret`
/// (a server checks CI's verdicts with the secret it shares with CI).
pub fn read_marked_by(repo: &Repo, name: &str, secret: &[u8]) -> Result<Option<(Verdict, bool)>> {
    let Some(oid) = repo.ref_target(name) else {
        return Ok(None);
    };
    let commit = repo.find_commit(oid)?;
    let message = String::from_utf8_lossy(commit.message_bytes()).into_owned();
    let (json, given) = match message.rsplit_once(MARK_TRAILER) {
        Some((json, mark)) => (json, Some(mark.trim())),
        None => (message.trim_end(), None),
    };
    let Ok(verdict) = serde_json::from_str::<Verdict>(json) else {
        return Ok(None);
    };
    let marked = match given {
        Some(given) => CloneKey::with_secret(secret).verify(json, given),
        None => false,
    };
    Ok(Some((verdict, marked)))
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

/// The key of `command` on `tree` in `repo` (see [`KeyParts`]).
pub fn key_of(repo: &Repo, tree: Oid, command: &str) -> Result<String> {
    Ok(KeyParts::gather(repo, tree, command)?.key())
}

#[cfg(test)]
#[path = "verdicts_tests.rs"]
mod tests;
