//! `git evolv recover`: finish or undo an interrupted landing on demand
//! (every other command does it first anyway).

use git2::Repository;

use super::Output;
use crate::error::Result;
use crate::ops::recover::{self, RecoverOutcome};

pub fn run(repo: &Repository, out: &Output) -> Result<()> {
    let outcome = recover::recover(repo)?;
    if out.json {
        out.json_value(&outcome);
    } else {
        out.line(&describe(&outcome));
        for d in &outcome.warnings {
            out.deferred(d);
        }
    }
    Ok(())
}

/// One line for people; also what other commands print on stderr when
/// they recovered a landing before doing their own work.
pub fn describe(o: &RecoverOutcome) -> String {
    let mut text = o.message.clone();
    if !o.restored.is_empty() {
        text.push_str(&format!(" (restored: {})", o.restored.join(", ")));
    }
    text.push('.');
    text
}

/// Recovers a pending landing before another command runs, telling the
/// user on stderr.
pub fn before_command(repo: &Repository, out: &Output) -> Result<()> {
    if let Some(outcome) = recover::recover_pending(repo)? {
        out.status(&format!("git-evolv: recovered: {}", describe(&outcome)));
    }
    Ok(())
}
