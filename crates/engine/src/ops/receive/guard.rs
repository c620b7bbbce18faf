//! The pre-receive guard (server side): a push straight to a protected
//! branch (`evolv.protectedBranches`), deleting it or forcing it, is
//! refused, whatever the pusher's own hooks (`--no-verify` skips those,
//! not this). Protected branches move only by landings, which the hook
//! makes itself and git never shows to pre-receive. `refs/evolv/*` is the
//! server's bookkeeping (outcomes, applied markers, the audit log) and is
//! refused too; `refs/for/*` goes on to proc-receive.

use serde::Serialize;

use crate::error::Result;
use crate::store::outcomes::FOR_PREFIX;
use evolv_core::receive::ref_name::shown;

use super::super::settings::Settings;

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
}

/// Judges git's pre-receive lines (`<old> <new> <ref>`).
pub fn judge(settings: &Settings, stdin: &str) -> Result<Vec<Judged>> {
    let policy = settings.push_policy(false)?;
    let mut out = Vec::new();
    for line in stdin.lines().filter(|l| !l.is_empty()) {
        let refname = line.splitn(3, ' ').nth(2).unwrap_or("").to_string();
        let refused = if out.len() >= MAX_LINES {
            Some(format!("more than {MAX_LINES} refs in one push"))
        } else if refname.starts_with(FOR_PREFIX) {
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
