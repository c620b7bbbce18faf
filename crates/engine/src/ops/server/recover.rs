//! `git evolv recover` on demand: a clone's interrupted landing
//! (`applying::recover`), or on a server what a killed hook or drainer
//! left in its queue (`receive::queue`).

use crate::error::Result;
use crate::ops::applying::recover::{RecoverOutcome, RecoverRequest, recover};
use crate::ops::session::{Open, Session, UseCase};

impl UseCase for RecoverRequest {
    const OPEN: Open = Open::Server;
    type Outcome = RecoverOutcome;

    fn run(&self, session: &Session) -> Result<RecoverOutcome> {
        let repo = session.repo()?;
        if repo.is_bare() {
            let (settings, ctx) = (session.settings()?, session.context());
            return super::receive::queue::recover(repo, settings, ctx);
        }
        recover(repo)
    }
}
