//! A git library failure as the adapter reports it: what it was doing
//! (an operation and the object, ref or path it acted on) and what the
//! library said. Built by the adapter (`evolv-git`), which alone knows the
//! library's own error type; the operation and its subject stay fields so
//! a caller or a test can read them without parsing the message.

use std::fmt;
use std::path::PathBuf;

/// What the adapter was doing when a git library call failed. Its text is
/// the error's message: `operation subject` (`read tree 3fa9c1…`), or the
/// whole sentence when it names more than one thing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitDoing {
    /// The operation, one name for every call that does it: `read tree`,
    /// `update ref`, `write tree`, `read the index`, `open repository`.
    pub operation: &'static str,
    /// What it acted on.
    pub subject: GitSubject,
    /// The message when `operation subject` does not say it all (a second
    /// id, a count, the subject inside the sentence).
    sentence: Option<String>,
}

/// The object, ref or path a git library call acted on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitSubject {
    /// The operation names no single thing (`read the index`).
    None,
    /// An object id, in hex.
    Object(String),
    /// A ref's full name (`refs/heads/main`) or a branch name.
    Ref(String),
    /// A file or folder.
    Path(PathBuf),
}

impl GitDoing {
    /// `operation`, on nothing in particular.
    pub fn new(operation: &'static str) -> Self {
        GitDoing {
            operation,
            subject: GitSubject::None,
            sentence: None,
        }
    }

    /// The same operation, on `subject`.
    pub fn on(mut self, subject: GitSubject) -> Self {
        self.subject = subject;
        self
    }

    /// The same, told by `sentence` rather than `operation subject`.
    pub fn said(mut self, sentence: String) -> Self {
        self.sentence = Some(sentence);
        self
    }
}

/// An operation on nothing in particular, its name its message:
/// `"read the index"`.
impl From<&'static str> for GitDoing {
    fn from(operation: &'static str) -> Self {
        GitDoing::new(operation)
    }
}

impl fmt::Display for GitDoing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(sentence) = &self.sentence {
            return f.write_str(sentence);
        }
        f.write_str(self.operation)?;
        match &self.subject {
            GitSubject::None => Ok(()),
            GitSubject::Object(id) => write!(f, " {id}"),
            GitSubject::Ref(name) => write!(f, " {name}"),
            GitSubject::Path(path) => write!(f, " {}", path.display()),
        }
    }
}

/// What the git library said when a call failed: its message as it
/// printed it, and the kind of failure the hint depends on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct GitCause {
    pub message: String,
    pub kind: GitFailure,
}

/// The kinds of git library failure a hint tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GitFailure {
    /// Another process holds a lock the call needed.
    Locked,
    /// The ref, path or object is not there.
    NotFound,
    Other,
}
