//! The pre-receive guard (server side): a push straight to a protected
//! branch (`evolv.protectedBranches`), deleting it or forcing it, is
//! refused, whatever the pusher's own hooks (`--no-verify` skips those,
//! not this). Protected branches move only by landings, which the hook
//! makes itself and git never shows to pre-receive. `refs/evolv/*` is the
//! server's bookkeeping (outcomes, applied markers, the audit log) and is
//! refused too, but for `refs/evolv/verdicts/<key>` pushed to a server
//! that lands on CI's verdicts (`ci_verdicts`); `refs/for/*` goes on to
//! proc-receive.

use serde::Serialize;

use crate::error::Result;
use crate::git::Repo;
use crate::store::outcomes::{FOR_PREFIX, Pusher};
use evolv_core::receive::ref_name::shown;

use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::ops::settings::{ServerValidation, Settings};

/// The most ref lines one push may carry.
pub const MAX_LINES: usize = 1000;

/// What one pushed ref was judged.
#[derive(Debug, Clone, Serialize)]
pub struct Judged {
    pub refname: String,
    /// Why it is refused; `None` lets it through.
    pub refused: Option<String>,
}

/// git's pre-receive input.
#[derive(Debug, Clone, Default)]
pub struct PreReceiveRequest {
    /// `<old> <new> <ref>` lines.
    pub stdin: String,
    /// Who pushes, as the transport says: their refused pushes count
    /// against a quota (`refused::check_quota`).
    pub pusher: Pusher,
}

/// [`judge`], and a push to `refs/for/` by a pusher over their quota of
/// refused pushes is refused before its objects leave quarantine.
pub fn judge_push(
    repo: &Repo,
    settings: &Settings,
    req: &PreReceiveRequest,
) -> Result<Vec<Judged>> {
    let mut judged = judge(settings, &req.stdin)?;
    if judged
        .iter()
        .any(|j| j.refused.is_none() && j.refname.starts_with(FOR_PREFIX))
        && let Err(e) = super::refused::check_quota(repo, settings, &req.pusher)
    {
        for j in judged
            .iter_mut()
            .filter(|j| j.refused.is_none() && j.refname.starts_with(FOR_PREFIX))
        {
            j.refused = Some(format!("{e}; {}", e.hint()));
        }
    }
    Ok(judged)
}

/// Judges git's pre-receive lines (`<old> <new> <ref>`).
pub fn judge(settings: &Settings, stdin: &str) -> Result<Vec<Judged>> {
    let policy = settings.push_policy(false)?;
    let verdicts_from_ci = settings.receive_validation()? == ServerValidation::Verdict;
    let mut out = Vec::new();
    for line in stdin.lines().filter(|l| !l.is_empty()) {
        let refname = line.splitn(3, ' ').nth(2).unwrap_or("").to_string();
        let refused = if out.len() >= MAX_LINES {
            Some(format!("more than {MAX_LINES} refs in one push"))
        } else if refname.starts_with(FOR_PREFIX) {
            None
        } else if verdicts_from_ci && is_verdict_push(line, &refname) {
            // Checked where it is used: only CI's mark makes it count.
            None
        } else if refname.starts_with("refs/evolv/") {
            Some(format!(
                "{} is the server's own bookkeeping: push proposals to refs/for/<branch>",
                shown(&refname)
            ))
        } else if refname.starts_with("refs/heads/") && policy.is_protected(&refname) {
            let branch = &refname["refs/heads/".len()..];
            Some(format!(
                "{} is protected: direct pushes, deletions and force-pushes are refused; push to refs/for/{} to land through the queue",
                shown(branch),
                shown(branch)
            ))
        } else {
            None
        };
        out.push(Judged { refname, refused });
    }
    Ok(out)
}

/// A push creating or replacing `refs/evolv/verdicts/<40 hex>`, never
/// deleting one. Replacing is let through so a ref someone pushed first
/// under a key (keys can be computed by anyone who has the tree) cannot
/// keep CI's verdict out; whatever the ref holds counts only with CI's
/// mark.
fn is_verdict_push(line: &str, refname: &str) -> bool {
    let new = line.split(' ').nth(1).unwrap_or("");
    let key = refname
        .strip_prefix(crate::store::verdicts::VERDICTS_PREFIX)
        .unwrap_or("");
    !new.is_empty()
        && !evolv_core::policy::is_zero_oid(new)
        && key.len() == 40
        && key
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl UseCase for PreReceiveRequest {
    const OPEN: Open = Open::Server;
    type Outcome = Vec<Judged>;

    fn run(&self, session: &Session) -> Result<Vec<Judged>> {
        judge_push(session.repo()?, session.settings()?, self)
    }
}
