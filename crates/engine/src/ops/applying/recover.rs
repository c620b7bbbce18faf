//! recover: finish or undo a landing a killed process left behind, and
//! complete journalled bookkeeping. Every command that opens a repository
//! runs it first (`session::recovery`, a stat when there is nothing to
//! do); `git evolv recover` runs it on demand. The work itself is `landing::recover`.

use crate::error::Result;
use crate::git::Repo;
use crate::landing::recover as landing;
use crate::ops::session::recovery::note_completed;
use crate::store::pending::{self, Deferred};

pub use crate::landing::recover::{RecoverOutcome, RecoveryAction};

/// `recover` takes no parameters.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecoverRequest {}

/// `git evolv recover`: finishes or undoes an interrupted landing (waiting
/// for one in progress) and completes journalled bookkeeping.
pub fn recover(repo: &Repo) -> Result<RecoverOutcome> {
    let mut outcome = landing::waiting(repo)?;
    let completed = pending::complete(repo)?;
    note_completed(&mut outcome, &completed);
    if let Some(e) = &completed.blocked {
        let file = pending::dir(repo);
        outcome
            .warnings
            .push(Deferred::new("journalled bookkeeping", e, &file));
    }
    Ok(outcome)
}
