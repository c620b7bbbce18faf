//! The verdict of the configured validation (`evolv.validate`, joined by
//! `&&` as `test` and `apply` join it) on each proposal's tree, for
//! `list`, `show`, MCP `show_proposal` and the review page. Only trusted
//! verdicts count (see `store::verdicts`); nothing runs here.

use super::super::inspect::ProposalSummary;
use super::super::settings::Settings;
use crate::error::Result;
use crate::git::{Oid, Repo};
use crate::store::verdict_key::KeyParts;
use crate::store::verdicts::{self, ProposalVerdict};

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
        p.verdict = verdicts::lookup(repo, &parts.key())?.map(ProposalVerdict::from);
    }
    Ok(())
}
