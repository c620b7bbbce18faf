//! What a session opened for a recovering use case runs first: a landing
//! a killed process left is finished or undone, journalled bookkeeping
//! completed (`landing::recover`, `store::pending`). `git evolv recover`
//! (`applying::recover`) runs the same on demand, waiting for a live one.

use crate::error::Result;
use crate::git::Repo;
use crate::landing::recover::{self as landing, RecoverOutcome, RecoveryAction};
use crate::store::pending;

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

/// Adds what `pending::complete` did to `o`'s message.
pub fn note_completed(o: &mut RecoverOutcome, c: &pending::Completed) {
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
