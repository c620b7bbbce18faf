//! `fetch`: a server's `refs/evolv/*` (proposals, applied markers,
//! outcomes, comments, verdicts) into `refs/evolv/remotes/<remote>/*`,
//! with a refspec given on the command line only: `remote.<name>.fetch`
//! is never changed, so a plain `git fetch` stays as it was.

use serde::Serialize;

use super::{remote_prefix, repo_dir, resolve_remote};
use crate::error::{Error, Result};
use crate::git::{self, Repo};
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use evolv_core::push_report;

/// Which remote to fetch from.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FetchRequest {
    /// The remote (default: the current branch's upstream remote, else
    /// `origin`).
    #[serde(default)]
    pub remote: Option<String>,
}

/// What was fetched.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FetchOutcome {
    pub remote: String,
    /// The refspec git fetched with.
    pub refspec: String,
    /// How many refs the remote's copy holds now.
    pub refs: usize,
}

/// The refspec: the server's own `refs/evolv/*`, forced (a server's
/// outcome record is rewritten as a proposal goes from queued to landed),
/// without what the server itself fetched from elsewhere.
pub fn refspecs(remote: &str) -> Vec<String> {
    let prefix = remote_prefix(remote);
    vec![
        format!("+refs/evolv/*:{prefix}*"),
        format!("^{}*", crate::store::REMOTES_PREFIX),
    ]
}

/// Fetches the remote's `refs/evolv/*` (pruning what it no longer has).
pub fn fetch(repo: &Repo, req: &FetchRequest) -> Result<FetchOutcome> {
    let remote = resolve_remote(repo, req.remote.as_deref())?;
    fetch_from(repo, &remote)
}

/// Fetches from a remote already checked by [`super::resolve_remote`].
pub(crate) fn fetch_from(repo: &Repo, remote: &str) -> Result<FetchOutcome> {
    let specs = refspecs(remote);
    let run = git::process::transport::fetch(repo_dir(repo)?, remote, &specs)?;
    if !run.success {
        let complaint = push_report::git_complaint(&run.stderr)
            .unwrap_or_else(|| run.stderr.trim().to_string());
        return Err(Error::GitCommand {
            command: format!("git fetch {remote} {}", specs.join(" ")),
            message: format!("`git fetch` from {remote} failed: {complaint}"),
        });
    }
    let prefix = remote_prefix(remote);
    let refs = repo.readable_refs_matching(&format!("{prefix}*")).len();
    Ok(FetchOutcome {
        remote: remote.to_string(),
        refspec: specs[0].clone(),
        refs,
    })
}

impl UseCase for FetchRequest {
    const OPEN: Open = Open::Recovering;
    type Outcome = FetchOutcome;

    fn run(&self, session: &Session) -> Result<FetchOutcome> {
        fetch(session.repo()?, self)
    }
}
