//! Proposal commits: their ids, metadata and status.

use git2::{Commit, Oid, Repository};
use serde::{Deserialize, Serialize};

use super::{APPLIED_PREFIX, BACKUP_PREFIX, PROPOSALS_PREFIX};
use crate::error::{Error, Result};

/// Marks the metadata line in a proposal commit's message.
const META_TRAILER: &str = "Evolv-Metadata: ";

/// Machine-readable facts about a proposal, stored in its commit message.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ProposalMeta {
    pub operation: String,
    pub pattern: String,
    pub replacement: String,
    pub literal: bool,
    pub scope: Vec<String>,
    pub created_at: i64,
    pub files_scanned: usize,
    pub files_matched: usize,
    pub total_changes: usize,
    pub lines_added: usize,
    pub lines_removed: usize,
    pub affected_files: Vec<String>,
    /// The proposal this one is stacked on (#13 `onto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub onto: Option<String>,
}

/// A stored proposal.
#[derive(Debug, Clone)]
pub struct Proposal {
    pub id: String,
    /// The proposal commit P.
    pub commit: Oid,
    /// P's parent: the HEAD it was proposed against.
    pub base: Oid,
    pub summary: String,
    pub meta: ProposalMeta,
}

/// The ref holding proposal `id`.
pub fn proposal_ref(id: &str) -> String {
    format!("{PROPOSALS_PREFIX}{id}")
}

/// The ref recording where proposal `id` landed.
pub fn applied_ref(id: &str) -> String {
    format!("{APPLIED_PREFIX}{id}")
}

/// The ref holding the pre-apply commit of proposal `id` (`file_backup`).
pub fn backup_ref(id: &str) -> String {
    format!("{BACKUP_PREFIX}{id}")
}

/// Whether `id` can name a proposal at all. Anything else (a leading `-`,
/// `/`, `..`, spaces) is never turned into a ref name.
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id.as_bytes()[0].is_ascii_alphanumeric()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A new id: `patch_<unix-seconds>_<hex>`, the hex taken from the proposal
/// commit's id; `extra` lengthens it when a shorter one is taken.
pub fn make_id(created_at: i64, commit: Oid, extra: usize) -> String {
    let hex = commit.to_string();
    format!("patch_{created_at}_{}", &hex[..(8 + extra).min(hex.len())])
}

/// Seconds since the epoch, now.
pub fn now_secs() -> i64 {
    crate::clock::now_secs()
}

/// The commit message of a proposal: summary, blank line, metadata.
pub fn message(summary: &str, meta: &ProposalMeta, nonce: &str) -> String {
    let json = serde_json::to_string(meta).expect("metadata serialises");
    format!("{summary}\n\n{META_TRAILER}{json}\nEvolv-Nonce: {nonce}\n")
}

fn parse(id: &str, commit: &Commit<'_>) -> Result<Proposal> {
    let msg = String::from_utf8_lossy(commit.message_bytes());
    let meta_line = msg
        .lines()
        .find_map(|l| l.strip_prefix(META_TRAILER))
        .ok_or_else(|| Error::Git {
            message: format!("{} has no {META_TRAILER}line", proposal_ref(id)),
        })?;
    let meta: ProposalMeta = serde_json::from_str(meta_line).map_err(|e| Error::Git {
        message: format!("{}: unreadable metadata: {e}", proposal_ref(id)),
    })?;
    Ok(Proposal {
        id: id.to_string(),
        commit: commit.id(),
        base: commit.parent_id(0)?,
        summary: msg.lines().next().unwrap_or_default().to_string(),
        meta,
    })
}

/// Loads proposal `id`; unknown or malformed ids are `PatchNotFound`.
pub fn load(repo: &Repository, id: &str) -> Result<Proposal> {
    if !is_valid_id(id) {
        return Err(Error::PatchNotFound(id.to_string()));
    }
    let oid = repo
        .refname_to_id(&proposal_ref(id))
        .map_err(|_| Error::PatchNotFound(id.to_string()))?;
    parse(id, &repo.find_commit(oid)?)
}

/// Every stored proposal, oldest first.
pub fn list(repo: &Repository) -> Result<Vec<Proposal>> {
    let mut out = Vec::new();
    for reference in repo.references_glob(&format!("{PROPOSALS_PREFIX}*"))? {
        let reference = reference?;
        let Some(name) = reference.name() else {
            continue;
        };
        let id = name.trim_start_matches(PROPOSALS_PREFIX).to_string();
        let commit = reference.peel_to_commit()?;
        out.push(parse(&id, &commit)?);
    }
    out.sort_by(|a, b| (a.meta.created_at, &a.id).cmp(&(b.meta.created_at, &b.id)));
    Ok(out)
}

/// Where proposal `id` landed, if it is applied.
pub fn applied_commit(repo: &Repository, id: &str) -> Option<Oid> {
    repo.refname_to_id(&applied_ref(id)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_could_become_options_or_paths_are_invalid() {
        assert!(is_valid_id("patch_1763793123_3fa9c1"));
        for bad in ["", "-x", "../x", "a/b", "a b", "a..b", "_x", "a\0"] {
            assert!(!is_valid_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn ids_have_the_documented_shape() {
        let oid = Oid::from_str("3fa9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8").unwrap();
        assert_eq!(make_id(1763793123, oid, 0), "patch_1763793123_3fa9c1d2");
        assert_eq!(make_id(1, oid, 2), "patch_1_3fa9c1d2e3");
    }
}
