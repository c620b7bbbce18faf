//! recover: finish or undo a landing a killed process left behind, and
//! complete journalled bookkeeping. Every command that opens a repository
//! runs it first (a stat when there is nothing to do); `git evolv recover`
//! runs it on demand. The work itself is `landing::recover`.

use crate::error::Result;
use crate::git::Repo;
use crate::landing::recover as landing;
use crate::store::pending::{self, Deferred};

pub use crate::landing::recover::{RecoverOutcome, RecoveryAction};

/// `recover` takes no parameters.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecoverRequest {}

/// What every command runs first: recovers a landing a dead process left
/// and completes journalled bookkeeping. `None` (after a stat and a
/// readdir) when there is nothing to do, and also when the journal belongs
/// to a landing a live process is running (this does not wait for it, and
/// never reports its landing as recovered). Bookkeeping that is still
/// blocked stays journalled, silently: the command that journalled it said
/// so, and `git evolv recover` says so.
pub fn recover_pending(repo: &Repo) -> Result<Option<RecoverOutcome>> {
    let mut outcome = landing::if_idle(repo)?;
    let completed = pending::complete(repo)?;
    if completed.files > 0 {
        let o = outcome.get_or_insert_with(RecoverOutcome::nothing);
        note_completed(o, &completed);
    }
    Ok(outcome)
}

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

/// Adds what `pending::complete` did to `o`'s message.
fn note_completed(o: &mut RecoverOutcome, c: &pending::Completed) {
    if c.files == 0 {
        return;
    }
    let text = format!(
        "completed {} journalled bookkeeping step(s) of earlier commands ({} audit record(s) appended)",
        c.files,
        c.appended.len()
    );
    if o.action == RecoveryAction::Nothing {
        o.action = RecoveryAction::Bookkeeping;
        o.message = text;
    } else {
        o.message.push_str(&format!("; {text}"));
    }
}
