//! The audit log: a chain of commits under `refs/evolv/audit`, one per
//! event, each message a JSON record. The commit id is the audit id.
//!
//! Appends wait for each other (issue 14 item 3): every git-evolv process
//! appends under one short `flock`, `<common-dir>/evolv/audit.flock`, so
//! its compare-and-swap of the audit ref can only lose to a writer that is
//! not git-evolv. A record that still cannot be appended (such a writer
//! keeps winning, or `refs/evolv/audit.lock` is held by someone else) is
//! journalled in `store::pending` and chained by the next command: no
//! record is dropped, and no command fails because another was logging.
//!
//! Each record carries this clone's mark (issue 38 item 2): the log's ref
//! travels with `refs/evolv/*`, so a record may come from another clone or
//! be written by hand. The mark, the last field of the JSON
//! (`"clone_mark"`), is `store::clone_mark` of the rest of the JSON and of
//! the audit commit it was appended after: a record changed, or copied
//! whole to another place of the chain, is not marked. Only marked records
//! are acted on (undo, redo); the others are read and listed as `foreign`.

use std::fs::File;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::git::objects::view::Signature;
use crate::git::{Oid, Repo};
use serde::{Deserialize, Serialize};

use super::AUDIT_REF;
use super::clone_mark::CloneKey;
use crate::error::{Error, Result};
use crate::git;

/// How many times an append retries when a writer that does not take the
/// audit lock appended first.
const APPEND_ATTEMPTS: usize = 50;

/// What an audit record is about.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuditAction {
    Propose,
    /// A proposal stored from an edit list (`edit`, `notebook_edit`).
    Edit,
    Apply,
    Rollback,
    Drop,
    /// A proposal dropped by `gc` for its age.
    Gc,
    /// A review comment added to a proposal.
    Comment,
    /// An operation undone (`git evolv undo`).
    Undo,
    /// An undo undone (`git evolv redo`, or `undo` of an undo).
    Redo,
    /// Verdicts written by `git evolv test` (facts only: nothing to undo).
    Test,
    /// Written only by the audit-race test failpoint (`FAILPOINT_RACES`).
    Race,
    /// A checkpoint of the work tree recorded (`git evolv checkpoint`).
    Checkpoint,
    /// The work tree rewound to a checkpoint (`git evolv rewind`).
    Rewind,
}

impl AuditAction {
    /// The stored name (`propose`, `apply`, `rollback`, `drop`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            AuditAction::Propose => "propose",
            AuditAction::Edit => "edit",
            AuditAction::Apply => "apply",
            AuditAction::Rollback => "rollback",
            AuditAction::Drop => "drop",
            AuditAction::Gc => "gc",
            AuditAction::Comment => "comment",
            AuditAction::Undo => "undo",
            AuditAction::Redo => "redo",
            AuditAction::Test => "test",
            AuditAction::Race => "race",
            AuditAction::Checkpoint => "checkpoint",
            AuditAction::Rewind => "rewind",
        }
    }
}

impl std::fmt::Display for AuditAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// Test knob (like `GIT_EVOLV_TEST_FAILPOINT`): the first N compare-and-
/// swaps of the audit ref in this process lose their race to a record
/// appended behind their back, as a writer outside the lock would do.
pub const FAILPOINT_RACES: &str = "GIT_EVOLV_TEST_AUDIT_RACES";

/// A ref an operation moved: its id before and after, `None` where it
/// was created (before) or deleted (after).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct RefMove {
    #[serde(rename = "ref")]
    pub name: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

impl RefMove {
    /// `name` moved from `old` to `new`.
    pub fn new(name: impl Into<String>, old: Option<Oid>, new: Option<Oid>) -> Self {
        RefMove {
            name: name.into(),
            old: old.map(|o| o.to_string()),
            new: new.map(|o| o.to_string()),
        }
    }

    /// The move that undoes this one.
    pub fn inverse(&self) -> RefMove {
        RefMove {
            name: self.name.clone(),
            old: self.new.clone(),
            new: self.old.clone(),
        }
    }
}

/// One audited event (an operation of the op log).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct AuditRecord {
    pub action: AuditAction,
    pub patch_id: String,
    pub success: bool,
    pub timestamp: i64,
    /// The branch (or `HEAD` when detached) the event concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The commit the event created (proposal, landed or revert commit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_head: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Only when some name in `files` is not UTF-8: per entry, its exact
    /// bytes in hex, or null when the text is exact (#16 item 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_bytes: Option<Vec<Option<String>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// The execution plan the event ran under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<crate::plan::ExecutionPlan>,
    /// A preview: nothing landed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    /// Part of a batch landed with one fast-forward.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub batch: bool,
    /// Who ran it: `cli`, `mcp:<client>`, `web`, `hook` (none in records
    /// written before issue 26).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// Every ref it moved, in order (none in records written before issue
    /// 26: `op log` derives what it can, `undo` refuses them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refs: Option<Vec<RefMove>>,
    /// Verdict refs it wrote: facts about a tree, not effects, so undo
    /// leaves them. With `refs`, every ref it moved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facts: Option<Vec<RefMove>>,
    /// For an undo or redo: the operation it undid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    /// For an undo or redo of a landing made as a new commit (a revert or
    /// a reapply): why the branch could not simply move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Every proposal of a drop or gc of several, one operation (`patch_id`
    /// is the first); empty when it concerned one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub patch_ids: Vec<String>,
}

impl AuditRecord {
    /// A record for `action` on `patch_id`, stamped now.
    pub fn new(action: AuditAction, patch_id: &str, success: bool) -> Self {
        AuditRecord {
            action,
            patch_id: patch_id.to_string(),
            success,
            timestamp: super::proposals::now_secs(),
            branch: None,
            commit: None,
            previous_head: None,
            files: Vec::new(),
            files_bytes: None,
            error_code: None,
            error_message: None,
            plan: None,
            dry_run: false,
            batch: false,
            // Stamped by the transaction that commits it, from the
            // operation's context (`Transaction::new`).
            actor: None,
            refs: None,
            facts: None,
            undoes: None,
            reason: None,
            patch_ids: Vec::new(),
        }
    }

    /// Adds `moved` to the refs this operation moved.
    pub fn moved(&mut self, moved: RefMove) {
        self.refs.get_or_insert_with(Vec::new).push(moved);
    }

    /// Records the changed paths: text, plus their bytes where they are not
    /// UTF-8.
    pub fn set_files(&mut self, paths: &[crate::git::RepoPath]) {
        self.files = crate::git::types::path::lossy_list(paths);
        self.files_bytes = crate::git::types::path::bytes_column(paths);
    }

    /// A failure record carrying the error's code and message.
    pub fn failure(action: AuditAction, patch_id: &str, error: &Error) -> Self {
        let mut r = AuditRecord::new(action, patch_id, false);
        r.error_code = Some(error.code().to_string());
        r.error_message = Some(error.full_message());
        r
    }
}

/// An audit record with its id.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct AuditEntry {
    /// The audit commit's id, or `pending` for a journalled record that the
    /// next command chains (see `store::pending`).
    pub id: String,
    /// Journalled, not yet in `refs/evolv/audit`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// Not marked by this clone (fetched, pushed to it, written by hand, or
    /// logged before records were marked): listed, never acted on.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub foreign: bool,
    #[serde(flatten)]
    pub record: AuditRecord,
}

/// The audit lock: an `flock` the kernel releases when its holder dies,
/// held for one append (microseconds to milliseconds).
pub fn lock(repo: &Repo) -> Result<File> {
    let (file, path) = crate::git::sys::lock_file::open(repo.common_dir(), "audit.flock")?;
    file.lock().map_err(|e| Error::io("lock", &path, e))?;
    Ok(file)
}

fn signature(repo: &Repo) -> Result<Signature> {
    // A failed apply must still be audited when no identity is configured.
    git::committer(repo).or_else(|_| crate::git::signature_now("git-evolv", "git-evolv@localhost"))
}

/// Appends `record` after the appends before it; returns the audit id.
/// Fails with `RefLocked` when someone else holds `refs/evolv/audit.lock`
/// (`log` journals the record instead).
pub fn append(repo: &Repo, record: &AuditRecord) -> Result<Oid> {
    let _lock = lock(repo)?;
    append_locked(repo, record)
}

/// `append` for a caller holding the audit lock.
pub fn append_locked(repo: &Repo, record: &AuditRecord) -> Result<Oid> {
    let json = serde_json::to_string(record).expect("audit record serialises");
    let key = CloneKey::load(repo)?;
    let sig = signature(repo)?;
    let empty_tree = repo.empty_tree()?;
    for _ in 0..APPEND_ATTEMPTS {
        let tip = repo.ref_target(AUDIT_REF);
        let parents: Vec<Oid> = tip.into_iter().collect();
        let message = marked_message(&key, tip, &json);
        let oid = repo.write_record(&message, empty_tree, &parents, &sig)?;
        let msg = format!("evolv: audit {}", record.action);
        lose_race_on_purpose(repo, &sig, empty_tree)?;
        match git::compare_and_swap(repo, AUDIT_REF, oid, tip, &msg) {
            Ok(()) => return Ok(oid),
            Err(Error::ConcurrentUpdate { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(Error::ConcurrentUpdate {
        what: AUDIT_REF.into(),
        expected: "its tip".into(),
    })
}

/// Where the mark begins: the record's last field.
const MARK_FIELD: &str = ",\"clone_mark\":\"";

/// What a record's mark covers: its JSON (without the mark) and the audit
/// commit it is appended after.
fn marked_text(parent: Option<Oid>, json: &str) -> String {
    let parent = parent.map_or_else(|| "none".to_string(), |p| p.to_string());
    format!("evolv audit record\nparent {parent}\n{json}")
}

/// `json` (an object) with this clone's mark as its last field.
fn marked_message(key: &CloneKey, parent: Option<Oid>, json: &str) -> String {
    let mark = key.mark(&marked_text(parent, json));
    let open = json.strip_suffix('}').unwrap_or(json);
    format!("{open}{MARK_FIELD}{mark}\"}}")
}

/// Whether `message`, the record of an audit commit whose parent is
/// `parent`, carries this clone's mark over exactly its other bytes.
fn is_marked(key: Option<&CloneKey>, parent: Option<Oid>, message: &[u8]) -> bool {
    let Some(key) = key else {
        return false;
    };
    let Ok(text) = std::str::from_utf8(message) else {
        return false;
    };
    let Some((open, mark)) = text
        .trim_end()
        .strip_suffix("\"}")
        .and_then(|t| t.rsplit_once(MARK_FIELD))
    else {
        return false;
    };
    key.verify(&marked_text(parent, &format!("{open}}}")), mark)
}

/// The failpoint `FAILPOINT_RACES`: appends a record behind the caller's
/// back while this process has races left to lose.
fn lose_race_on_purpose(repo: &Repo, sig: &Signature, tree: Oid) -> Result<()> {
    static LOST: AtomicUsize = AtomicUsize::new(0);
    let Some(races) = std::env::var(FAILPOINT_RACES)
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    else {
        return Ok(());
    };
    if LOST.fetch_add(1, Ordering::Relaxed) >= races {
        return Ok(());
    }
    let tip = repo.ref_target(AUDIT_REF);
    let record = AuditRecord::new(AuditAction::Race, "failpoint", true);
    let json = serde_json::to_string(&record).expect("audit record serialises");
    let parents: Vec<Oid> = tip.into_iter().collect();
    let oid = repo.write_record(&json, tree, &parents, sig)?;
    git::compare_and_swap(repo, AUDIT_REF, oid, tip, "evolv: audit race (failpoint)")
}

/// Audit entries of the chain, newest first, at most `limit`.
pub fn read(repo: &Repo, limit: Option<usize>) -> Result<Vec<AuditEntry>> {
    read_after(repo, None, limit)
}

/// `read`, stopping before `stop` (an older entry of the chain): only what
/// was appended after it.
pub fn read_after(repo: &Repo, stop: Option<Oid>, limit: Option<usize>) -> Result<Vec<AuditEntry>> {
    let mut out = Vec::new();
    let mut reader = Reader::new(repo);
    reader.stop = stop;
    reader.read_more(limit.unwrap_or(usize::MAX), &mut out)?;
    Ok(out)
}

/// Reads the chain newest first, a few entries at a time, for a caller that
/// stops as soon as it has what it needs: each entry is a commit to read
/// and a record to parse, with every path a landing wrote.
pub struct Reader<'r> {
    repo: &'r Repo,
    next: Option<Oid>,
    stop: Option<Oid>,
    key: Option<CloneKey>,
}

impl<'r> Reader<'r> {
    /// A reader from the chain's newest entry.
    pub fn new(repo: &'r Repo) -> Self {
        Reader {
            repo,
            next: repo.ref_target(AUDIT_REF),
            stop: None,
            key: CloneKey::existing(repo),
        }
    }

    /// Appends up to `n` more entries to `out`; `false` once the chain's
    /// end is reached.
    pub fn read_more(&mut self, n: usize, out: &mut Vec<AuditEntry>) -> Result<bool> {
        let mut read = 0;
        while read < n {
            let Some(oid) = self.next.filter(|o| Some(*o) != self.stop) else {
                self.next = None;
                return Ok(false);
            };
            let commit = self.repo.find_commit(oid)?;
            let parent = commit.parent_id(0).ok();
            let message = commit.message_bytes();
            if let Ok(record) = serde_json::from_slice::<AuditRecord>(message) {
                out.push(AuditEntry {
                    id: oid.to_string(),
                    pending: false,
                    foreign: !is_marked(self.key.as_ref(), parent, message),
                    record,
                });
                read += 1;
            }
            self.next = parent;
        }
        Ok(self.next.is_some())
    }
}

#[cfg(test)]
#[path = "audit_tests.rs"]
mod tests;
