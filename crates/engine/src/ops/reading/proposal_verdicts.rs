//! The verdict of the configured validation (each `evolv.validate` value
//! its own command, as `test` and `apply` run them) on each proposal's tree, for
//! `list`, `show`, MCP `show_proposal` and the review page. Only trusted
//! verdicts count (see `store::verdicts`); nothing runs here.

use super::super::settings::Settings;
use super::super::validation::configured_commands;
use super::inspect::ProposalSummary;
use crate::error::Result;
use crate::git::{Oid, Repo};
use crate::store::pending::Deferred;
use crate::store::verdict_key::KeyParts;
use crate::store::verdicts::{self, ProposalVerdict};

/// Fills in `verdict` of each of `proposals` that has a trusted one;
/// returns the warnings for verdict refs skipped on the way (not a
/// commit), each named. A repository with no validation configured or no
/// verdict ref costs one ref scan; the key's parts other than the tree
/// are gathered once.
pub fn attach(
    repo: &Repo,
    settings: &Settings,
    proposals: &mut [ProposalSummary],
) -> Result<Vec<Deferred>> {
    let mut warnings = Vec::new();
    let commands = configured_commands(settings);
    if commands.is_empty() || proposals.is_empty() || verdicts::all_refs(repo).is_empty() {
        return Ok(warnings);
    }
    let mut parts: Option<KeyParts> = None;
    for p in proposals {
        let Ok(commit) = p.commit.parse::<Oid>() else {
            continue;
        };
        let tree = repo.find_commit(commit)?.tree_id();
        let parts = match &mut parts {
            Some(parts) => parts,
            None => parts.insert(KeyParts::gather(repo, tree, &commands)?),
        };
        parts.tree = tree;
        p.verdict = verdicts::lookup_noting(repo, &parts.key(), &mut warnings)?
            .filter(|f| f.verdict.covers(tree, &commands))
            .map(ProposalVerdict::from);
    }
    Ok(warnings)
}
