//! A new proposal stored as one operation: its ref created and its record
//! appended in one `store::Transaction`, under the first free id.

use crate::git::{Oid, Repo};

use super::audit::{AuditAction, AuditRecord};
use super::pending::Logged;
use super::proposals::{ProposalMeta, candidate_ids, proposal_ref};
use super::transaction::Transaction;
use crate::context::Context;
use crate::error::{Error, Result};

/// Stores the proposal whose commit is `commit` as one `action`: a fresh
/// `refs/evolv/proposals/<id>` and its record (`fill` adds the record's
/// metadata), in one transaction. Returns the id and where the record went.
pub fn store(
    repo: &Repo,
    ctx: &Context,
    action: AuditAction,
    meta: &ProposalMeta,
    commit: Oid,
    fill: impl Fn(&mut AuditRecord),
) -> Result<(String, Logged)> {
    for id in candidate_ids(meta, commit) {
        let mut tx = Transaction::new(repo, ctx, action, &id);
        tx.create(proposal_ref(&id), commit);
        tx.record().commit = Some(commit.to_string());
        fill(tx.record());
        match tx.commit() {
            Ok(logged) => return Ok((id, logged)),
            Err(Error::ConcurrentUpdate { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(Error::ConcurrentUpdate {
        what: "refs/evolv/proposals".into(),
        expected: "a free proposal id".into(),
    })
}
