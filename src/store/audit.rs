//! The audit log: a chain of commits under `refs/evolv/audit`, one per
//! event, each message a JSON record. The commit id is the audit id.

use git2::{Oid, Repository, Signature};
use serde::{Deserialize, Serialize};

use super::AUDIT_REF;
use crate::error::{Error, Result};
use crate::git;

/// How many times an append retries when another process appended first.
const APPEND_ATTEMPTS: usize = 50;

/// One audited event.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct AuditRecord {
    /// propose, apply, rollback or drop.
    pub action: String,
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
}

impl AuditRecord {
    /// A record for `action` on `patch_id`, stamped now.
    pub fn new(action: &str, patch_id: &str, success: bool) -> Self {
        AuditRecord {
            action: action.to_string(),
            patch_id: patch_id.to_string(),
            success,
            timestamp: super::proposals::now_secs(),
            branch: None,
            commit: None,
            previous_head: None,
            files: Vec::new(),
            error_code: None,
            error_message: None,
            plan: None,
            dry_run: false,
            batch: false,
        }
    }

    /// A failure record carrying the error's code and message.
    pub fn failure(action: &str, patch_id: &str, error: &Error) -> Self {
        let mut r = AuditRecord::new(action, patch_id, false);
        r.error_code = Some(error.code().to_string());
        r.error_message = Some(error.to_string());
        r
    }
}

/// An audit record with its id.
#[derive(Debug, Clone, Serialize)]
pub struct AuditEntry {
    pub id: String,
    #[serde(flatten)]
    pub record: AuditRecord,
}

fn signature(repo: &Repository) -> Result<Signature<'static>> {
    // A failed apply must still be audited when no identity is configured.
    git::committer(repo)
        .or_else(|_| Ok(crate::clock::signature("git-evolv", "git-evolv@localhost")?))
}

/// Appends `record`; returns the audit id.
pub fn append(repo: &Repository, record: &AuditRecord) -> Result<Oid> {
    let json = serde_json::to_string(record).expect("audit record serialises");
    let sig = signature(repo)?;
    let empty_tree = repo.find_tree(repo.treebuilder(None)?.write()?)?;
    for _ in 0..APPEND_ATTEMPTS {
        let tip = repo.refname_to_id(AUDIT_REF).ok();
        let parents = match tip {
            Some(t) => vec![repo.find_commit(t)?],
            None => Vec::new(),
        };
        let parent_refs: Vec<_> = parents.iter().collect();
        let oid = repo.commit(None, &sig, &sig, &json, &empty_tree, &parent_refs)?;
        let msg = format!("evolv: audit {}", record.action);
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

/// Audit entries, newest first, at most `limit`.
pub fn read(repo: &Repository, limit: Option<usize>) -> Result<Vec<AuditEntry>> {
    let mut out = Vec::new();
    let Ok(mut oid) = repo.refname_to_id(AUDIT_REF) else {
        return Ok(out);
    };
    loop {
        if limit.is_some_and(|l| out.len() >= l) {
            break;
        }
        let commit = repo.find_commit(oid)?;
        if let Ok(record) = serde_json::from_slice::<AuditRecord>(commit.message_bytes()) {
            out.push(AuditEntry {
                id: oid.to_string(),
                record,
            });
        }
        match commit.parent_id(0) {
            Ok(p) => oid = p,
            Err(_) => break,
        }
    }
    Ok(out)
}
