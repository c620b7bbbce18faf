//! The use cases over `inspect`: `list` and `show` with the trusted
//! verdicts of each proposal's tree (`proposal_verdicts`), and the audit
//! log.

use super::inspect::{
    ListOutcome, ListRequest, LogOutcome, LogRequest, ShowOutcome, ShowRequest, list, log, show,
};
use super::proposal_verdicts::attach as attach_verdicts;
use crate::error::Result;
use crate::ops::session::{Open, Session, UseCase};

impl UseCase for ListRequest {
    const OPEN: Open = Open::View;
    type Outcome = ListOutcome;

    /// Every proposal with its status and verdicts.
    fn run(&self, session: &Session) -> Result<ListOutcome> {
        let repo = session.repo()?;
        let mut outcome = list(repo)?;
        outcome.warnings = attach_verdicts(repo, session.settings()?, &mut outcome.proposals)?;
        Ok(outcome)
    }
}

impl UseCase for ShowRequest {
    const OPEN: Open = Open::View;
    type Outcome = ShowOutcome;

    /// One proposal, its diff and its verdicts.
    fn run(&self, session: &Session) -> Result<ShowOutcome> {
        let repo = session.repo()?;
        let mut outcome = show(repo, &self.patch_id)?;
        let one = std::slice::from_mut(&mut outcome.proposal);
        outcome.warnings = attach_verdicts(repo, session.settings()?, one)?;
        Ok(outcome)
    }
}

impl UseCase for LogRequest {
    const OPEN: Open = Open::View;
    type Outcome = LogOutcome;

    /// The audit log, newest first.
    fn run(&self, session: &Session) -> Result<LogOutcome> {
        log(session.repo()?, self.limit)
    }
}
