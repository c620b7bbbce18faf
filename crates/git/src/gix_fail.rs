//! gitoxide's failures, as the adapter reports them: like libgit2's (see
//! `fail`), each becomes an [`Error::GitLibrary`] saying what was being
//! read (the object id, the path) with gitoxide's message, and the chain
//! of causes under it, as its cause. No gitoxide type leaves this crate.

use evolv_core::error::{Error, GitCause, GitFailure};

/// `err` from gitoxide, while doing `doing`.
pub(crate) fn library(doing: impl Into<String>, err: &(dyn std::error::Error + 'static)) -> Error {
    Error::GitLibrary {
        doing: doing.into(),
        source: cause(err),
    }
}

/// gitoxide's message for `err`, its causes after it.
pub(crate) fn cause(err: &(dyn std::error::Error + 'static)) -> GitCause {
    let mut message = err.to_string();
    let mut cause = err.source();
    while let Some(next) = cause {
        let text = next.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        cause = next.source();
    }
    let kind = if message.contains("No such file or directory") {
        GitFailure::NotFound
    } else {
        GitFailure::Other
    };
    GitCause { message, kind }
}
