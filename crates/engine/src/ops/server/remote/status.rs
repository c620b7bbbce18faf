//! `status`: what came of a proposal, here and on the remotes whose
//! `refs/evolv/*` were fetched. With a remote named it fetches that remote
//! first (an ordinary fetch of its refs, [`super::fetch`]); without, it
//! reads only what is already here and touches no network.
//!
//! A proposal is found on a remote by the server's id, or by this clone's
//! id through its commit: a pushed proposal commit is the server's
//! proposal commit too, so `refs/evolv/remotes/<r>/proposals/<sid>`
//! pointing at it names the server's id `<sid>`.

use serde::Serialize;

use super::{remote_prefix, resolve_remote};
use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::store::outcomes::{OUTCOMES_PREFIX, Outcome};
use crate::store::proposals;

/// The outcome records' folder under a remote's prefix (the server's
/// `refs/evolv/outcomes/`, see `store::outcomes`).
fn outcomes_dir() -> &'static str {
    OUTCOMES_PREFIX
        .strip_prefix("refs/evolv/")
        .unwrap_or(OUTCOMES_PREFIX)
}

/// Which proposal, and where to look.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusRequest {
    /// A proposal id: this clone's, or the server's.
    pub patch_id: String,
    /// Fetch this remote's `refs/evolv/*` first and look only there.
    #[serde(default)]
    pub remote: Option<String>,
}

/// A proposal here.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct LocalStatus {
    pub commit: String,
    /// `pending` or `applied`.
    pub state: String,
    /// Where it landed, when applied here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub landed: Option<String>,
}

/// What a remote says of the proposal.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RemoteStatus {
    pub remote: String,
    /// The server's id of the proposal.
    pub server_id: String,
    /// `queued`, `landed`, `refused`, … as the server's record says;
    /// `proposed` when the server holds the proposal and no record.
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The server's record as it is, for what this version does not name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StatusOutcome {
    pub patch_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local: Option<LocalStatus>,
    pub remotes: Vec<RemoteStatus>,
}

/// The proposal's state here and on the remotes (see the module's doc).
pub fn status(repo: &Repo, req: &StatusRequest) -> Result<StatusOutcome> {
    let remotes = match &req.remote {
        Some(name) => {
            let remote = resolve_remote(repo, Some(name))?;
            super::fetch::fetch_from(repo, &remote)?;
            vec![remote]
        }
        None => fetched_remotes(repo),
    };
    let id = req.patch_id.as_str();
    let local = proposals::load(repo, id).ok();
    let commit = local.as_ref().map(|p| p.commit);
    let mut found = Vec::new();
    for remote in &remotes {
        if let Some(s) = on_remote(repo, remote, id, commit)? {
            found.push(s);
        }
    }
    if local.is_none() && found.is_empty() {
        let where_ = match &req.remote {
            Some(r) => format!("here or on {r}"),
            None => "here or in a fetched remote".to_string(),
        };
        return Err(Error::invalid_field(
            "patch_id",
            format!("no proposal `{id}` {where_}"),
            "check the id with `git evolv list`, or fetch the server's refs: \
             `git evolv status --remote <name> <id>`",
        ));
    }
    Ok(StatusOutcome {
        patch_id: id.to_string(),
        local: local.map(|p| LocalStatus {
            commit: p.commit.to_string(),
            landed: proposals::applied_commit(repo, &p.id).map(|c| c.to_string()),
            state: if proposals::applied_commit(repo, &p.id).is_some() {
                "applied".into()
            } else {
                "pending".into()
            },
        }),
        remotes: found,
    })
}

/// The remotes with refs under `refs/evolv/remotes/`.
fn fetched_remotes(repo: &Repo) -> Vec<String> {
    let prefix = crate::store::REMOTES_PREFIX;
    let mut names: Vec<String> = repo
        .readable_refs_matching(&format!("{prefix}*"))
        .into_iter()
        .filter_map(|(name, _)| {
            let rest = name.strip_prefix(prefix)?;
            Some(rest.split('/').next()?.to_string())
        })
        .collect();
    names.dedup();
    names
}

/// The proposal on `remote`: by the server's id `id`, else by this
/// clone's proposal commit.
fn on_remote(
    repo: &Repo,
    remote: &str,
    id: &str,
    commit: Option<Oid>,
) -> Result<Option<RemoteStatus>> {
    let prefix = remote_prefix(remote);
    let proposals_prefix = format!("{prefix}proposals/");
    let outcome_ref = |sid: &str| format!("{prefix}{}{sid}", outcomes_dir());
    let server_id = if proposals::is_valid_id(id)
        && (repo.ref_target(&outcome_ref(id)).is_some()
            || repo
                .ref_target(&format!("{proposals_prefix}{id}"))
                .is_some())
    {
        Some(id.to_string())
    } else {
        commit.and_then(|c| {
            repo.readable_refs_matching(&format!("{proposals_prefix}*"))
                .into_iter()
                .find(|(_, target)| *target == c)
                .and_then(|(name, _)| name.strip_prefix(&proposals_prefix).map(str::to_string))
                .or_else(|| by_pushed_commit(repo, &prefix, c))
        })
    };
    let Some(sid) = server_id else {
        return Ok(None);
    };
    let record = match repo.ref_target(&outcome_ref(&sid)) {
        Some(blob) => serde_json::from_slice::<serde_json::Value>(&repo.blob(blob)?).ok(),
        None => None,
    };
    let applied = repo.ref_target(&format!("{prefix}applied/{sid}"));
    Ok(Some(read_record(remote, sid, record, applied)))
}

/// The server's id of the proposal whose record says it was pushed as
/// `commit` (the server may have dropped the proposal ref since).
fn by_pushed_commit(repo: &Repo, prefix: &str, commit: Oid) -> Option<String> {
    let dir = format!("{prefix}{}", outcomes_dir());
    let wanted = commit.to_string();
    repo.readable_refs_matching(&format!("{dir}*"))
        .into_iter()
        .find(|(_, blob)| {
            repo.blob(*blob)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<Outcome>(&bytes).ok())
                .is_some_and(|o| o.pushed == wanted)
        })
        .and_then(|(name, _)| name.strip_prefix(&dir).map(str::to_string))
}

/// The fields of a server's record this version names; a missing record
/// reads as `proposed`, or `landed` where the server's applied marker is.
fn read_record(
    remote: &str,
    server_id: String,
    record: Option<serde_json::Value>,
    applied: Option<Oid>,
) -> RemoteStatus {
    let text = |key: &str| {
        record
            .as_ref()
            .and_then(|r| r.get(key))
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    let reason = record.as_ref().and_then(|r| r.get("reason")).and_then(|v| {
        v.as_str()
            .map(str::to_string)
            .or_else(|| v.get("message")?.as_str().map(str::to_string))
    });
    let state = text("state").unwrap_or_else(|| match applied {
        Some(_) => "landed".into(),
        None => "proposed".into(),
    });
    RemoteStatus {
        remote: remote.to_string(),
        server_id,
        state,
        branch: text("branch"),
        old: text("old"),
        new: text("new").or_else(|| applied.map(|a| a.to_string())),
        reason,
        record,
    }
}

impl UseCase for StatusRequest {
    const OPEN: Open = Open::View;
    type Outcome = StatusOutcome;

    fn run(&self, session: &Session) -> Result<StatusOutcome> {
        status(session.repo()?, self)
    }
}
