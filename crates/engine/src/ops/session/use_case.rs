//! What a use case is: one type, its request, that says how it opens the
//! repository ([`UseCase::OPEN`]), what it answers ([`UseCase::Outcome`]),
//! whether it writes objects, what a user must confirm first, and how it
//! runs. Front ends open a [`Session`] for it and call [`Session::run`];
//! the session checks it was opened as the use case needs, runs it with
//! its repository, settings and context, and does what git's porcelain
//! does after a command that wrote objects.
//!
//! A new use case is one file: its request type, its outcome and this
//! trait's `impl` beside the function that does the work; front ends add
//! one line where they expose it (a CLI arm, an MCP tool's `type UseCase`).

use super::Session;
use crate::error::Result;
use crate::ops::permissions::Confirmation;

/// How a use case opens the repository: each use case says it, no front
/// end decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open {
    /// Finishes or undoes an interrupted landing first; a bare repository
    /// is refused.
    Recovering,
    /// The repository as it is, no recovery first (the working tree as it
    /// is, a server starting); a bare repository is refused.
    AsIs,
    /// Read-only, bare allowed, no recovery (the review page's ref feed).
    ReadOnly,
    /// Bare allowed, no recovery first: the server hooks (which land
    /// through their own queue) and `recover` itself.
    Server,
    /// A view of proposals: a bare repository (proposals pushed to a
    /// server, #16 item 20) opens read-only as it is, where nothing lands
    /// and nothing is to recover; any other is recovered first.
    View,
    /// Needs no repository, or reads it through git itself (`lint`,
    /// `check`, `hooks`, the hooks' own entries, `plan`): nothing is
    /// opened; the settings are those around the directory.
    NoRepository,
}

impl Open {
    /// Whether a session opened this way can run a use case that opens
    /// `need`: the same way, or one that asks less of it (a recovered
    /// repository serves one taken as it is; every session serves a use
    /// case that needs no repository).
    pub fn serves(self, need: Open) -> bool {
        use Open::*;
        self == need
            || need == NoRepository
            || matches!(
                (self, need),
                (Recovering, AsIs | View | ReadOnly) | (AsIs | View | Server, ReadOnly)
            )
    }
}

/// One use case: its request is the type that implements this.
pub trait UseCase {
    /// How its session opens the repository.
    const OPEN: Open;
    /// Whether it may write objects: after a success the session runs
    /// git's automatic maintenance, as git's porcelain does.
    const WRITES_OBJECTS: bool = false;
    /// What it answers.
    type Outcome;

    /// Runs it in `session` (its repository, settings and context).
    fn run(&self, session: &Session) -> Result<Self::Outcome>;

    /// What it would land on a protected branch that the user must
    /// confirm before it runs; `None` when no question is due.
    fn confirmation(&self, _session: &Session) -> Result<Option<Confirmation>> {
        Ok(None)
    }
}
