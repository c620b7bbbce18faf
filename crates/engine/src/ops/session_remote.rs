//! The `Session` methods of proposals that travel (issue 28, the client
//! side): kept apart from `session.rs`, which holds a clone's own use cases.

use super::Session;
use super::server::remote::fetch::{self, FetchOutcome, FetchRequest};
use super::server::remote::push::{self, PushOutcome, PushRequest};
use super::server::remote::status::{self, StatusOutcome, StatusRequest};
use crate::error::Result;

impl Session {
    /// Pushes proposals to a server's landing queue (`refs/for/<branch>`).
    pub fn push(&self, req: &PushRequest) -> Result<PushOutcome> {
        push::push(self.repo()?, req)
    }

    /// Fetches a remote's `refs/evolv/*` under `refs/evolv/remotes/<r>/`.
    pub fn fetch(&self, req: &FetchRequest) -> Result<FetchOutcome> {
        fetch::fetch(self.repo()?, req)
    }

    /// A proposal's state here and on the remotes.
    pub fn status(&self, req: &StatusRequest) -> Result<StatusOutcome> {
        status::status(self.repo()?, req)
    }
}
