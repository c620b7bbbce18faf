//! `git evolv recover`: finish or undo an interrupted landing on demand
//! (every other command does it first anyway).

use super::Output;
use crate::error::Result;
use crate::ops::Session;
use crate::ops::applying::recover::{RecoverOutcome, RecoverRequest};

pub fn run(session: &Session, out: &Output) -> Result<()> {
    let outcome = session.run(&RecoverRequest {})?;
    if out.json {
        out.success_json(&outcome);
    } else {
        out.line(&describe(&outcome));
        for d in &outcome.warnings {
            out.deferred(d);
        }
    }
    Ok(())
}

/// One line for people (see `RecoverOutcome::describe`).
pub fn describe(o: &RecoverOutcome) -> String {
    o.describe()
}

/// Tells the user on stderr what the session's automatic recovery did.
pub fn report_automatic(session: &Session, out: &Output) {
    if let Some(outcome) = session.recovered() {
        out.status(&format!("git-evolv: recovered: {}", describe(outcome)));
    }
}
