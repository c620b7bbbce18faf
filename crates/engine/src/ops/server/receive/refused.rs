//! What a refused push leaves on the server (issue 38 item 4). Its
//! commits are kept a short while (so the outcome can still be read with
//! them) under `refs/evolv/refused/<pusher>/<id>`, which `hooks install
//! --server` hides from every clone (`transfer.hideRefs`), then the ref
//! expires and git's own gc prunes the objects (`gc.pruneExpire`). Each
//! pusher may keep at most `evolv.receive.refusedQuota` refused pushes at a
//! time; past it, pre-receive refuses their next push to `refs/for/`
//! before its objects leave git's quarantine, so nothing of it is stored.

use sha1::{Digest, Sha1};

use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::ops::settings::Settings;
use crate::store::outcomes::{Outcome, Pusher};
use crate::store::proposals;
use crate::store::transaction::Transaction;

use super::records;

/// Where refused pushes are kept until they expire.
pub const REFUSED_PREFIX: &str = "refs/evolv/refused";
/// How long a refused push is kept, in seconds, unless configured.
pub const DEFAULT_KEEP_SECS: u64 = 3600;
/// How many refused pushes one pusher may have kept at a time, unless
/// configured.
pub const DEFAULT_QUOTA: usize = 10;

/// The folder of one pusher's refused pushes: by user when the transport
/// authenticated one, else by address, else one folder for every
/// anonymous pusher (a local `file://` push, say).
pub fn pusher_key(p: &Pusher) -> String {
    let hash = |kind: &str, v: &str| {
        let digest = Sha1::new().chain_update(v.as_bytes()).finalize();
        let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        format!("{kind}-{hex}")
    };
    match (&p.user, &p.address) {
        (Some(u), _) => hash("user", u),
        (None, Some(a)) => hash("addr", a),
        (None, None) => "anonymous".to_string(),
    }
}

/// Moves the refused `rec`'s commits out of sight: into the pusher's
/// refused folder, in the landing's transaction, and off
/// `refs/evolv/proposals/<id>`, which held them only while they were
/// queued (since the push arrived: no change of the operation's).
pub fn keep(repo: &Repo, tx: &mut Transaction<'_>, rec: &Outcome) -> Result<()> {
    let pushed = Oid::parse(&rec.pushed)?;
    let kept = format!("{REFUSED_PREFIX}/{}/{}", pusher_key(&rec.pusher), rec.id);
    tx.set(kept, Some(pushed));
    crate::store::refs::delete(repo, &proposals::proposal_ref(&rec.id))?;
    Ok(())
}

/// Deletes the kept refused pushes older than `evolv.receive.keepRefused`
/// (a kept ref whose record cannot be read goes too); how many. A ref
/// another push is deleting at the same moment (its lock held) is left to
/// it: housekeeping never refuses a push.
pub fn expire(repo: &Repo, settings: &Settings) -> Result<usize> {
    let mut gone = 0;
    for name in kept(repo, settings, "", false)? {
        if let Ok(true) = crate::store::refs::delete(repo, &name) {
            gone += 1;
        }
    }
    Ok(gone)
}

/// The kept refused pushes under `folder` (all when empty), the live ones
/// or the expired ones.
fn kept(repo: &Repo, settings: &Settings, folder: &str, live: bool) -> Result<Vec<String>> {
    let keep_secs = keep_secs(settings)?;
    let now = crate::clock::now_secs() as u64;
    let prefix = format!("{REFUSED_PREFIX}/{folder}");
    Ok(repo
        .readable_refs_under(&prefix)
        .into_iter()
        .filter(|(name, _)| {
            let id = name.rsplit('/').next().unwrap_or("");
            let decided = records::read(repo, id).and_then(|r| r.decided_at);
            let expired = decided.is_none_or(|at| at.saturating_add(keep_secs) <= now);
            expired != live
        })
        .map(|(name, _)| name)
        .collect())
}

fn keep_secs(settings: &Settings) -> Result<u64> {
    Ok(settings
        .receive_keep_refused()?
        .unwrap_or(DEFAULT_KEEP_SECS))
}

/// Refuses a push to `refs/for/` by `pusher` who already has their quota
/// of refused pushes kept. Read only: pre-receive runs it while the push's
/// objects are in quarantine, where no ref may move (`expire` runs when a
/// push is received).
pub fn check_quota(repo: &Repo, settings: &Settings, pusher: &Pusher) -> Result<()> {
    let quota = settings.receive_refused_quota()?.unwrap_or(DEFAULT_QUOTA);
    let live = kept(repo, settings, &format!("{}/", pusher_key(pusher)), true)?.len();
    if live < quota {
        return Ok(());
    }
    Err(Error::invalid(
        format!(
            "{live} of your pushes were refused in the last {} s (at most {quota} are kept per pusher): this push is not taken",
            keep_secs(settings)?
        ),
        "read why they were refused (`git evolv status` after `git evolv fetch`), fix that, and push again once the older refusals expire",
    ))
}
