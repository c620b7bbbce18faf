//! The outcome records of pushed proposals (`refs/evolv/outcomes/<id>`,
//! a JSON blob each): written when a push arrives, rewritten when it is
//! decided. Two indexes keep a push's reads independent of history: the
//! queue (`refs/evolv/queue/<id>`, the undecided records, landed oldest
//! `received_ns` first) and the landed pushes by commit
//! (`refs/evolv/landed/<pushed>/<branch>`).

use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::store::outcomes::{
    LANDED_PREFIX, OUTCOMES_PREFIX, Outcome, QUEUE_PREFIX, State, landed_ref, outcome_ref,
    queue_ref,
};

/// Writes (or rewrites) `outcome` under its ref, and its indexes. The
/// order makes a kill at any point safe: an index entry is added before
/// the record says so (a queued entry whose record is decided is dropped
/// when read) and the queue entry goes only after the record is decided.
pub fn write(repo: &Repo, outcome: &Outcome) -> Result<()> {
    let json = serde_json::to_vec_pretty(outcome).map_err(|e| Error::Internal {
        at: "receive::records::write",
        message: e.to_string(),
    })?;
    let blob = repo.write_blob(&json)?;
    let message = format!("git-evolv: {} {:?}", outcome.id, outcome.state);
    match outcome.state {
        // A member below a stack's top is landed with the top's record.
        State::Queued if outcome.stack.is_some() => {}
        State::Queued => crate::store::refs::set(repo, &queue_ref(&outcome.id), blob, &message)?,
        State::Landed => crate::store::refs::set(
            repo,
            &landed_ref(&outcome.pushed, &outcome.branch),
            blob,
            &message,
        )?,
        State::Refused => {}
    }
    crate::store::refs::set(repo, &outcome_ref(&outcome.id), blob, &message)?;
    if outcome.state != State::Queued {
        crate::store::refs::delete(repo, &queue_ref(&outcome.id))?;
    }
    Ok(())
}

/// Adds the index entries a record lacks (records written before the
/// indexes, or by a hand): `git evolv recover` reads every record once so
/// that pushes never have to. How many entries were added.
pub fn reindex(repo: &Repo) -> Result<usize> {
    let mut added = 0;
    for (_, blob) in repo.readable_refs_under(OUTCOMES_PREFIX) {
        let Some(rec) = parse(repo, blob) else {
            continue;
        };
        let entry = match rec.state {
            State::Queued if rec.stack.is_some() => continue,
            State::Queued => queue_ref(&rec.id),
            State::Landed => landed_ref(&rec.pushed, &rec.branch),
            State::Refused => continue,
        };
        if repo.ref_target(&entry).is_none() {
            crate::store::refs::set(repo, &entry, blob, "git-evolv: reindexed")?;
            added += 1;
        }
    }
    Ok(added)
}

/// The record of `id`, if there is one that reads.
pub fn read(repo: &Repo, id: &str) -> Option<Outcome> {
    parse(repo, repo.ref_target(&outcome_ref(id))?)
}

fn parse(repo: &Repo, blob: Oid) -> Option<Outcome> {
    serde_json::from_slice(&repo.blob(blob).ok()?).ok()
}

/// The queued records, in arrival order: the queue's entries, each read
/// from its record (an entry a kill left behind a decided record is dropped).
pub fn queued(repo: &Repo) -> Vec<Outcome> {
    let mut q = Vec::new();
    for (name, blob) in repo.readable_refs_under(QUEUE_PREFIX) {
        let id = &name[QUEUE_PREFIX.len()..];
        match read(repo, id).or_else(|| parse(repo, blob)) {
            Some(rec) if rec.state == State::Queued => q.push(rec),
            _ => {
                let _ = crate::store::refs::delete(repo, &name);
            }
        }
    }
    q.sort_by(|a, b| (a.received_ns, &a.id).cmp(&(b.received_ns, &b.id)));
    q
}

/// A landed record of the same pushed commit for the same branch: a
/// re-push is answered with it.
pub fn landed_push(repo: &Repo, branch: &str, pushed: &str) -> Option<Outcome> {
    let rec = parse(repo, repo.ref_target(&landed_ref(pushed, branch))?)?;
    (rec.state == State::Landed && rec.branch == branch && rec.pushed == pushed).then_some(rec)
}

/// The pushed commits of every proposal landed on `branch` (read from the
/// index's names): a later push of a series that holds them (the pusher's
/// history still has the originals of commits that landed rebased) lands
/// only what is new.
pub fn landed_pushes(repo: &Repo, branch: &str) -> Vec<Oid> {
    repo.readable_refs_under(LANDED_PREFIX)
        .into_iter()
        .filter_map(|(name, _)| {
            let (pushed, on) = name[LANDED_PREFIX.len()..].split_once('/')?;
            (on == branch).then(|| Oid::parse(pushed).ok()).flatten()
        })
        .collect()
}
