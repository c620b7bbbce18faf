//! The adapter's errors: every libgit2 failure leaves this crate as an
//! [`Error::GitLibrary`] that says what the adapter was doing (the
//! operation and its ref, object id or path) and carries libgit2's message
//! as its cause. libgit2's own error type stays inside this crate, and
//! there is no bare `From` conversion: a `?` on a libgit2 result does not
//! compile without the context it failed in.

use evolv_core::error::{Error, GitCause, GitFailure, Result};

/// `err` from libgit2, while doing `doing`.
pub(crate) fn library(doing: impl Into<String>, err: git2::Error) -> Error {
    let kind = match err.code() {
        git2::ErrorCode::Locked => GitFailure::Locked,
        git2::ErrorCode::NotFound => GitFailure::NotFound,
        _ => GitFailure::Other,
    };
    Error::GitLibrary {
        doing: doing.into(),
        source: GitCause {
            message: err.to_string(),
            kind,
        },
    }
}

/// Says what a libgit2 call was doing: `repo.find_reference(name).context(||
/// format!("read ref {name}"))?`.
pub(crate) trait Context<T> {
    fn context<S: Into<String>>(self, doing: impl FnOnce() -> S) -> Result<T>;
}

impl<T> Context<T> for std::result::Result<T, git2::Error> {
    fn context<S: Into<String>>(self, doing: impl FnOnce() -> S) -> Result<T> {
        self.map_err(|err| library(doing(), err))
    }
}

#[cfg(test)]
#[path = "fail_tests.rs"]
mod tests;
