//! gitoxide's failures, as the adapter reports them: like libgit2's (see
//! `fail`), gitoxide's message and the chain of causes under it become
//! the cause of the project's error, which says what was being read (the
//! index file's path: `repo::index`). No gitoxide type leaves this crate.

use evolv_core::error::{GitCause, GitFailure};

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
