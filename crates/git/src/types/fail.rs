//! The adapter's errors: every libgit2 failure leaves this crate as an
//! [`Error::GitLibrary`] that says what the adapter was doing, as fields
//! (the operation and its ref, object id or path: [`GitDoing`]), and
//! carries libgit2's message as its cause. libgit2's own error type stays
//! inside this crate, and there is no bare `From` conversion: a `?` on a
//! libgit2 result does not compile without the context it failed in.

use std::path::Path;

use evolv_core::error::{Error, GitCause, GitDoing, GitFailure, GitSubject, Result};

use crate::Oid;

/// `err` from libgit2, while doing `doing`.
pub(crate) fn library(doing: impl Into<GitDoing>, err: git2::Error) -> Error {
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

/// `operation` on the object `id`: `on_object("read tree", id)` says
/// `read tree 3fa9c1…`.
pub(crate) fn on_object(operation: &'static str, id: impl Into<Oid>) -> GitDoing {
    GitDoing::new(operation).on(GitSubject::Object(id.into().to_string()))
}

/// `operation` on the ref (or branch) `name`.
pub(crate) fn on_ref(operation: &'static str, name: &str) -> GitDoing {
    GitDoing::new(operation).on(GitSubject::Ref(name.to_string()))
}

/// `operation` on the file or folder `path`.
pub(crate) fn on_path(operation: &'static str, path: impl AsRef<Path>) -> GitDoing {
    GitDoing::new(operation).on(GitSubject::Path(path.as_ref().to_path_buf()))
}

/// Says what a libgit2 call was doing: `repo.find_tree(id).context(||
/// on_object("read tree", id))?`, or `.context(|| "read the index")` for
/// an operation on nothing in particular.
pub(crate) trait Context<T> {
    fn context<D: Into<GitDoing>>(self, doing: impl FnOnce() -> D) -> Result<T>;
}

impl<T> Context<T> for std::result::Result<T, git2::Error> {
    fn context<D: Into<GitDoing>>(self, doing: impl FnOnce() -> D) -> Result<T> {
        self.map_err(|err| library(doing(), err))
    }
}

#[cfg(test)]
#[path = "fail_tests.rs"]
mod tests;
