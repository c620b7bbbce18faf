//! The pre-push hook's checks: reads the facts git's push lines need (are
//! the remote's objects known here, is the push a fast-forward, how far
//! ahead and behind), the configuration, and the uncommitted files, then
//! lets `policy` decide. Asking the user is the front end's job.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::process::cli::Git;
use crate::policy::{self, RefFacts, RefVerdict, Verdict};

use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::ops::settings::Settings;

/// What git handed the hook, plus whether someone can be asked.
#[derive(Debug, Clone)]
pub struct PrePushRequest {
    pub remote: String,
    pub url: String,
    /// git's stdin: `<local ref> <local oid> <remote ref> <remote oid>` lines.
    pub stdin: String,
    /// A terminal is available for a confirmation.
    pub terminal: bool,
    /// The push is `git push --dry-run`: nothing will be sent, so nobody is asked.
    pub dry_run: bool,
}

/// The one-off override `GIT_EVOLV_ALLOW_PUSH=1` (or true/yes), read here
/// so every front end honours it the same way.
pub const ALLOW_PUSH_VAR: &str = "GIT_EVOLV_ALLOW_PUSH";

fn allow_push_env() -> bool {
    std::env::var(ALLOW_PUSH_VAR).is_ok_and(|v| matches!(v.trim(), "1" | "true" | "yes"))
}

/// The verdicts of one push.
#[derive(Debug, Clone, Serialize)]
pub struct PrePushOutcome {
    pub remote: String,
    pub url: String,
    pub refs: Vec<RefVerdict>,
    /// Uncommitted files: a note, they are not part of the push.
    pub uncommitted: Vec<String>,
    /// Some ref is refused: the push must stop.
    pub refused: bool,
    /// Some ref needs a yes on the terminal (and none is refused).
    pub needs_confirmation: bool,
    /// The protected branch globs in force.
    pub protected_patterns: Vec<String>,
}

/// Evaluates a push in the repository at `dir`, with git itself (so
/// SHA-256 repositories work too) and the session's settings (the
/// protected branches). Empty stdin gives an outcome with no refs.
pub fn pre_push(
    dir: &std::path::Path,
    settings: &Settings,
    request: &PrePushRequest,
) -> Result<PrePushOutcome> {
    let git = &Git::open(dir)?;
    let lines = policy::parse_push_lines(&request.stdin).map_err(|m| {
        Error::invalid(
            format!("pre-push: unexpected input from git: {m}"),
            "run it as git's pre-push hook (installed by `git evolv hooks install`)",
        )
    })?;
    let policy = settings.push_policy(allow_push_env())?;
    if lines.is_empty() {
        return Ok(PrePushOutcome {
            remote: request.remote.clone(),
            url: request.url.clone(),
            refs: Vec::new(),
            uncommitted: Vec::new(),
            refused: false,
            needs_confirmation: false,
            protected_patterns: policy.patterns,
        });
    }
    let facts = lines
        .iter()
        .map(|l| ref_facts(git, l))
        .collect::<Result<Vec<_>>>()?;
    let mut refs = policy::evaluate(&lines, &facts, &policy, request.terminal || request.dry_run);
    if request.dry_run {
        for r in refs.iter_mut().filter(|r| r.verdict == Verdict::Confirm) {
            r.verdict = Verdict::Allowed;
            r.notes
                .push("dry run: a real push would ask for confirmation".into());
        }
    }
    let refused = refs
        .iter()
        .any(|r| matches!(r.verdict, Verdict::Refused { .. }));
    let needs_confirmation = !refused && refs.iter().any(|r| r.verdict == Verdict::Confirm);
    Ok(PrePushOutcome {
        remote: request.remote.clone(),
        url: request.url.clone(),
        refs,
        uncommitted: crate::ops::commits::check::uncommitted(git)?,
        refused,
        needs_confirmation,
        protected_patterns: policy.patterns,
    })
}

fn ref_facts(git: &Git, line: &policy::PushLine) -> Result<RefFacts> {
    if line.is_deletion() || line.creates() {
        return Ok(RefFacts {
            remote_known: true,
            fast_forward: true,
            ahead: None,
            behind: None,
        });
    }
    let Some((local, remote)) = git.peel_commits(&line.local_oid, &line.remote_oid)? else {
        if !git.object_known(&line.remote_oid)? {
            return Ok(RefFacts::default());
        }
        // Known, but not commits (a tag of a tree): only the same object is safe.
        return Ok(RefFacts {
            remote_known: true,
            fast_forward: line.local_oid == line.remote_oid,
            ahead: None,
            behind: None,
        });
    };
    let (ahead, behind) = git.ahead_behind(&local, &remote)?;
    Ok(RefFacts {
        remote_known: true,
        // Nothing on the remote side that the pushed commit lacks: the
        // remote's commit is an ancestor of it (`merge-base --is-ancestor`).
        fast_forward: behind == 0,
        ahead: Some(ahead),
        behind: Some(behind),
    })
}

impl UseCase for PrePushRequest {
    const OPEN: Open = Open::NoRepository;
    type Outcome = PrePushOutcome;

    fn run(&self, session: &Session) -> Result<PrePushOutcome> {
        pre_push(session.dir(), session.settings()?, self)
    }
}
