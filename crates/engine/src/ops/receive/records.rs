//! The outcome records of pushed proposals (`refs/evolv/outcomes/<id>`,
//! a JSON blob each): written when a push arrives, rewritten when it is
//! decided. They are also the server's landing queue: a record still
//! `queued` is a proposal to land, oldest `received_ns` first.

use crate::error::{Error, Result};
use crate::git::{self, Oid, Repo};
use crate::store::outcomes::{OUTCOMES_PREFIX, Outcome, State, outcome_ref};

/// Writes (or rewrites) `outcome` under its ref.
pub fn write(repo: &Repo, outcome: &Outcome) -> Result<()> {
    let json = serde_json::to_vec_pretty(outcome).map_err(|e| Error::Internal {
        at: "receive::records::write",
        message: e.to_string(),
    })?;
    let blob = repo.write_blob(&json)?;
    git::compare_and_swap_force(
        repo,
        &outcome_ref(&outcome.id),
        blob,
        &format!("git-evolv: {} {:?}", outcome.id, outcome.state),
    )
}

/// The record of `id`, if there is one that reads.
pub fn read(repo: &Repo, id: &str) -> Option<Outcome> {
    parse(repo, repo.ref_target(&outcome_ref(id))?)
}

fn parse(repo: &Repo, blob: Oid) -> Option<Outcome> {
    serde_json::from_slice(&repo.blob(blob).ok()?).ok()
}

/// Every record that reads.
pub fn all(repo: &Repo) -> Vec<Outcome> {
    repo.readable_refs_under(OUTCOMES_PREFIX)
        .into_iter()
        .filter_map(|(_, blob)| parse(repo, blob))
        .collect()
}

/// The queued records, in arrival order.
pub fn queued(repo: &Repo) -> Vec<Outcome> {
    let mut q: Vec<Outcome> = all(repo)
        .into_iter()
        .filter(|o| o.state == State::Queued)
        .collect();
    q.sort_by(|a, b| (a.received_ns, &a.id).cmp(&(b.received_ns, &b.id)));
    q
}

/// A landed record of the same pushed commit for the same branch: a
/// re-push is answered with it.
pub fn landed_push(repo: &Repo, branch: &str, pushed: &str) -> Option<Outcome> {
    all(repo)
        .into_iter()
        .find(|o| o.state == State::Landed && o.branch == branch && o.pushed == pushed)
}

/// The pushed commits of every proposal landed on `branch`: a later push
/// of a series that holds them (the pusher's history still has the
/// originals of commits that landed rebased) lands only what is new.
pub fn landed_pushes(repo: &Repo, branch: &str) -> Vec<Oid> {
    all(repo)
        .into_iter()
        .filter(|o| o.state == State::Landed && o.branch == branch)
        .filter_map(|o| Oid::parse(&o.pushed).ok())
        .collect()
}
