//! The `Session` methods of the server hooks (issue 28): kept apart from
//! `session.rs`, which holds the use cases of a clone.

use super::Session;
use super::server::receive::guard::{self, Judged, PreReceiveRequest};
use super::server::receive::{self, DrainRequest, ReceiveOutcome, ReceiveRequest, queue};
use crate::error::Result;

impl Session {
    /// The proc-receive hook: records, queues and (unless the push said
    /// `evolv.wait=false`) lands what was pushed to `refs/for/<branch>`;
    /// starts a detached drainer when the push does not wait.
    pub fn receive(&self, req: &ReceiveRequest) -> Result<ReceiveOutcome> {
        let repo = self.repo()?;
        let outcome = receive::receive(repo, self.settings()?, self.context(), req)?;
        if outcome.drain {
            queue::spawn_drainer(repo.git_dir())?;
        }
        Ok(outcome)
    }

    /// The detached drainer: lands the queue unless a live drainer does.
    pub fn drain(&self, _req: &DrainRequest) -> Result<usize> {
        queue::drain_detached(self.repo()?, self.settings()?, self.context())
    }

    /// The pre-receive hook: judges each pushed ref.
    pub fn pre_receive(&self, req: &PreReceiveRequest) -> Result<Vec<Judged>> {
        guard::judge_push(self.repo()?, self.settings()?, req)
    }
}
