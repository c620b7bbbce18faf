//! Where checkpoints live: one ref per session,
//! `refs/evolv/checkpoints/<agent>/<session>`, at the session's newest
//! checkpoint, whose first parent is the one before (the first one's is
//! HEAD's commit, as is every checkpoint's last parent). One ref per
//! session, not per checkpoint: gc keeps the whole chain and packs each
//! tree as a delta of the one before, and a session is listed, rewound
//! and pruned by reading one ref.

use crate::error::{Error, Result};
use crate::git::{Oid, Repo};

use super::meta::Meta;

/// Where every session's ref is.
pub const PREFIX: &str = "refs/evolv/checkpoints/";

/// One checkpoint, read.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    pub id: Oid,
    pub meta: Meta,
    pub tree: Oid,
    /// When it was recorded (seconds since the epoch).
    pub time: i64,
    /// The checkpoint before it in its session, if any.
    pub previous: Option<Oid>,
}

/// The ref of `agent`'s session `session`. Each name is kept as given
/// where git allows it in a ref (letters, digits, `-`, `_`) and written
/// as `%XX` elsewhere, so any session id names one ref, and no two the
/// same.
pub fn session_ref(agent: &str, session: &str) -> String {
    format!("{PREFIX}{}/{}", encode(agent), encode(session))
}

fn encode(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The checkpoint `id`; `None` when that commit is not one.
pub fn read(repo: &Repo, id: Oid) -> Result<Option<Checkpoint>> {
    let commit = repo.find_commit(id)?;
    let Some(meta) = Meta::parse(commit.message_bytes()) else {
        return Ok(None);
    };
    let first = commit.parent_ids().first().copied();
    let previous = match first {
        Some(p) if is_of_session(repo, p, &meta)? => Some(p),
        _ => None,
    };
    Ok(Some(Checkpoint {
        id,
        tree: commit.tree_id(),
        time: commit.committer().time,
        meta,
        previous,
    }))
}

fn is_of_session(repo: &Repo, id: Oid, meta: &Meta) -> Result<bool> {
    let commit = repo.find_commit(id)?;
    Ok(Meta::parse(commit.message_bytes())
        .is_some_and(|m| m.agent == meta.agent && m.session == meta.session))
}

/// The session whose newest checkpoint is `tip`, newest first.
pub fn chain(repo: &Repo, tip: Oid) -> Result<Vec<Checkpoint>> {
    let mut out = Vec::new();
    let mut next = Some(tip);
    while let Some(id) = next {
        let Some(checkpoint) = read(repo, id)? else {
            break;
        };
        next = checkpoint.previous;
        out.push(checkpoint);
    }
    Ok(out)
}

/// Every session's ref and its newest checkpoint, in ref order.
pub fn sessions(repo: &Repo) -> Result<Vec<(String, Oid)>> {
    repo.refs_under(PREFIX)
}

/// A session named by its id (`session`), or by `agent/session`: its ref
/// and checkpoints, newest first.
pub fn session(repo: &Repo, name: &str) -> Result<(String, Vec<Checkpoint>)> {
    let mut found = Vec::new();
    for (ref_name, tip) in sessions(repo)? {
        let Some(newest) = read(repo, tip)? else {
            continue;
        };
        let both = format!("{}/{}", newest.meta.agent, newest.meta.session);
        if newest.meta.session == name || both == name {
            found.push(ref_name);
        }
    }
    match found.as_slice() {
        [one] => {
            let tip = repo.ref_target(one).ok_or_else(|| no_session(name))?;
            Ok((one.clone(), chain(repo, tip)?))
        }
        [] => Err(no_session(name)),
        _ => Err(Error::invalid(
            format!("session '{name}' is the id of sessions of several agents"),
            "name it as <agent>/<session> (`git evolv checkpoints` lists them)",
        )),
    }
}

fn no_session(name: &str) -> Error {
    Error::invalid(
        format!("no checkpoints of a session '{name}'"),
        "`git evolv checkpoints` lists the sessions and their checkpoints",
    )
}

/// The session whose newest checkpoint is the newest of all.
pub fn newest_session(repo: &Repo) -> Result<(String, Vec<Checkpoint>)> {
    let mut best: Option<(i64, String, Oid)> = None;
    for (name, tip) in sessions(repo)? {
        let time = repo.find_commit(tip)?.committer().time;
        if best.as_ref().is_none_or(|(t, _, _)| time > *t) {
            best = Some((time, name, tip));
        }
    }
    let Some((_, name, tip)) = best else {
        return Err(Error::invalid(
            "there are no checkpoints in this repository",
            "checkpoints are recorded by an agent's hooks (`git evolv agent install`) or `git evolv checkpoint`",
        ));
    };
    Ok((name.clone(), chain(repo, tip)?))
}

/// The checkpoint whose id is `prefix` or starts with it, with its
/// session's ref and checkpoints (newest first) and its place among them.
pub fn find(repo: &Repo, prefix: &str) -> Result<(String, Vec<Checkpoint>, usize)> {
    let wanted = prefix.trim().to_ascii_lowercase();
    if wanted.len() < 4 || !wanted.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::invalid(
            format!("'{prefix}' is not a checkpoint id (4 to 40 hex digits)"),
            "`git evolv checkpoints` lists each checkpoint's id",
        ));
    }
    let mut found = Vec::new();
    for (name, tip) in sessions(repo)? {
        let all = chain(repo, tip)?;
        if let Some(at) = all
            .iter()
            .position(|c| c.id.to_string().starts_with(&wanted))
        {
            found.push((name, all, at));
        }
    }
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(Error::invalid(
            format!("no checkpoint has an id starting with '{prefix}'"),
            "`git evolv checkpoints` lists each checkpoint's id",
        )),
        _ => Err(Error::invalid(
            format!("'{prefix}' is the start of several checkpoints' ids"),
            "give more digits of the id",
        )),
    }
}
