//! The verdict of the configured validation (`evolv.validate`, joined by
//! `&&` as `test` and `apply` join it) on each proposal's tree, for
//! `list`, `show`, MCP `show_proposal` and the review page. Only trusted
//! verdicts count (see `store::verdicts`); nothing runs here.

use schemars::JsonSchema;
use serde::Serialize;

use super::super::inspect::ProposalSummary;
use super::super::settings::Settings;
use crate::error::Result;
use crate::git::{Oid, Repo};
use crate::store::verdict_key::KeyParts;
use crate::store::verdicts::{self, Found, Status};

/// A stored verdict on a proposal's tree: its state, when and where it was
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

impl ProposalVerdict {
    fn of(found: Found) -> ProposalVerdict {
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

/// Fills in `verdict` of each of `proposals` that has a trusted one. A
/// repository with no validation configured or no verdict ref costs one
/// ref scan; the key's parts other than the tree are gathered once.
pub fn attach(repo: &Repo, settings: &Settings, proposals: &mut [ProposalSummary]) -> Result<()> {
    let Some(command) = super::configured_command(settings) else {
        return Ok(());
    };
    if proposals.is_empty() || verdicts::all_refs(repo).is_empty() {
        return Ok(());
    }
    let mut parts: Option<KeyParts> = None;
    for p in proposals {
        let Ok(commit) = p.commit.parse::<Oid>() else {
            continue;
        };
        let tree = repo.find_commit(commit)?.tree_id();
        let parts = match &mut parts {
            Some(parts) => parts,
            None => parts.insert(KeyParts::gather(repo, tree, &command)?),
        };
        parts.tree = tree;
        p.verdict = verdicts::lookup(repo, &parts.key())?.map(ProposalVerdict::of);
    }
    Ok(())
}
