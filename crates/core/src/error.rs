//! The one error type of git-evolv: a stable machine code per variant, a
//! message that names the file or ref and the cause, and a hint saying what
//! to do. Front ends render it; nothing here prints.

use std::path::PathBuf;

use serde::Serialize;

use crate::plan::PlanIssue;
use crate::validation_report::CommandReport;

mod codes;
mod git;

pub use git::{GitCause, GitDoing, GitFailure, GitSubject};

/// Every failure git-evolv reports. The `code()` of a variant never changes:
/// scripts and MCP clients match on it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Patch '{0}' not found")]
    PatchNotFound(String),

    #[error("invalid input: {message}")]
    InvalidInput { message: String, hint: String },

    /// A request field that is not valid. The message names the field as
    /// the request spells it (`pattern`); front ends add their own spelling
    /// (`--pattern`) to the hint.
    #[error("invalid input: {message}")]
    InvalidRequest {
        field: &'static str,
        message: String,
        hint: String,
    },

    /// An error a front end added its own hint to (the CLI names its flags
    /// where the hint names request fields): the inner error's code,
    /// message, causes and exit code, with the fuller hint.
    #[error(transparent)]
    Hinted(Box<Hinted>),

    #[error(
        "pattern '{pattern}' matched nothing in {files_scanned} file(s) in scope {scope}{detail}"
    )]
    NoMatch {
        pattern: String,
        scope: String,
        files_scanned: usize,
        detail: String,
    },

    #[error("not inside a git repository: {path}")]
    NotARepository { path: PathBuf },

    #[error("'{path}' is a bare repository: git-evolv needs a working tree to land patches in")]
    BareRepository { path: PathBuf },

    #[error("'{path}' {what}, which git-evolv cannot read")]
    UnsupportedRepository {
        path: PathBuf,
        what: &'static str,
        hint: &'static str,
    },

    #[error("the repository has no commits yet (HEAD is unborn)")]
    EmptyRepository,

    #[error("no git identity configured: {detail}")]
    MissingIdentity { detail: String },

    #[error("{} of patch '{patch_id}' conflicts with {against} in: {}", if *operation == "rollback" { "the rollback" } else { "the replay" }, paths.join(", "))]
    Conflict {
        patch_id: String,
        paths: Vec<String>,
        /// What it conflicts with: "the current HEAD", or the patch before
        /// it in a batch.
        against: String,
        /// `apply` or `rollback`: the hint differs.
        operation: &'static str,
    },

    #[error("uncommitted changes in file(s) the patch changes: {}", paths.join(", "))]
    DirtyWorktree { paths: Vec<String> },

    /// A rewind would overwrite files changed since the checkpoint by
    /// someone other than its session (issue 40 item 3).
    #[error("changed since checkpoint {checkpoint} by someone other than its session: {}", paths.join(", "))]
    CheckpointDrift {
        checkpoint: String,
        paths: Vec<String>,
    },

    #[error("{source_name}: the execution plan is invalid:\n{}", issues.iter().map(|i| format!("  - {i}")).collect::<Vec<_>>().join("\n"))]
    InvalidPlan {
        source_name: String,
        issues: Vec<PlanIssue>,
    },

    #[error("{limit}: the patch changes {actual} {unit}, the plan allows at most {allowed}")]
    ConstraintViolation {
        limit: &'static str,
        unit: &'static str,
        actual: u64,
        allowed: u64,
    },

    #[error("{cause}; {recovery}")]
    LandingFailed { cause: Box<Error>, recovery: String },

    #[error("validation failed: `{command}` exited with {exit_code}{cached}")]
    ValidationFailed {
        command: String,
        exit_code: i32,
        reports: Vec<CommandReport>,
        /// Empty when the command ran now; else where the failing verdict
        /// reused from the verdict cache was made (" (a cached verdict …)").
        cached: String,
    },

    #[error("the apply timed out after {seconds} s while running `{command}`")]
    Timeout {
        command: String,
        seconds: u64,
        reports: Vec<CommandReport>,
        /// What set the limit, so the hint names the right knob.
        limit_source: crate::validation_report::TimeoutSource,
    },

    /// A server asked to run pushed code where it cannot isolate it.
    #[error("the server cannot isolate validation, so it runs no pushed code: {reason}")]
    IsolationUnavailable { reason: String },

    /// What pushed code changed that it must not reach (a defence behind
    /// the sandbox: the landing is refused and each change undone).
    #[error("validation changed what it must not touch: {}", changed.join("; "))]
    Tampered { changed: Vec<String> },

    /// A server that runs no pushed code found no trusted verdict.
    #[error(
        "no trusted passing verdict for tree {tree} of `{command}`: this server runs no pushed code and lands only what CI validated"
    )]
    NoTrustedVerdict { tree: String, command: String },

    #[error("patch '{patch_id}' is already applied as commit {commit}")]
    AlreadyApplied { patch_id: String, commit: String },

    #[error(
        "patch '{patch_id}' changes nothing on the current HEAD: its changes are already there"
    )]
    NothingToApply { patch_id: String },

    #[error(
        "patch '{patch_id}' is not applied on the current branch (no landing of it is reachable from HEAD), so there is nothing to roll back"
    )]
    NotApplied { patch_id: String },

    #[error("{what} moved from {expected} while git-evolv was working; nothing was changed")]
    ConcurrentUpdate { what: String, expected: String },

    #[error(
        "core.hooksPath is set to '{value}' ({origin}), so git never runs hooks from the repository's hooks folder"
    )]
    HooksPathSet {
        value: String,
        origin: String,
        hint: String,
    },

    #[error(
        "'{}' is tracked by git ({tracked} is committed there): a hook written there would be committed with this machine's paths, and a fresh clone would run it without the hook it chains",
        dir.display()
    )]
    HooksFolderTracked { dir: PathBuf, tracked: String },

    #[error("'{}' is not ours and '{}' already exists: refusing to overwrite either", path.display(), chained.display())]
    HookConflict { path: PathBuf, chained: PathBuf },

    #[error("{what} needs a terminal, and there is none (no /dev/tty)")]
    NoTerminal { what: String, hint: String },
    #[error("git config {key} = '{value}' is not valid: expected {expected}")]
    InvalidConfig {
        key: String,
        value: String,
        expected: String,
    },
    #[error("bad config line {line} in file {}: {cause}", path.display())]
    ConfigSyntax {
        path: PathBuf,
        line: usize,
        cause: &'static str,
    },
    #[error("Unable to create '{}': File exists.", path.display())]
    IndexLocked { path: PathBuf },

    /// A ref's lock file (`<ref>.lock`) that someone else holds: a stale
    /// `refs/evolv/audit.lock`, `refs/heads/main.lock`, … (issue 16 item 5).
    #[error("Unable to create '{}': File exists.", path.display())]
    RefLocked { path: PathBuf },

    #[error("an earlier landing was interrupted: {detail}")]
    Interrupted { detail: String },

    /// A landing journal that cannot be parsed (torn by a disk error, or
    /// edited by hand): nobody can tell what its landing did, so nothing
    /// lands until `recover` sets it aside (same code as `Interrupted`).
    #[error(
        "an earlier landing was interrupted, and its journal {} is unreadable: {detail}",
        path.display()
    )]
    UnreadableJournal { path: PathBuf, detail: String },

    #[error("{what}; nothing was changed")]
    Cancelled { what: String },

    #[error(
        "{what} needs the user's confirmation (git config evolv.mcp.confirm is `always`), and this client cannot ask"
    )]
    ConfirmationRequired { what: String },

    #[error("refusing to write '{path}': {reason}")]
    UnsafePath { path: String, reason: String },

    /// A partial clone (`git clone --filter=blob:none`) lacks objects the
    /// command must read, and its promisor remote could not supply them.
    #[error(
        "{missing} object(s) this command reads are not in this partial clone, and fetching them from its promisor remote '{remote}' failed: {detail}"
    )]
    PartialClone {
        missing: usize,
        remote: String,
        detail: String,
    },

    #[error(
        "HEAD moved from {expected} to {actual} while git-evolv was working; nothing was changed"
    )]
    BranchSwitched { expected: String, actual: String },

    #[error("{message}")]
    OperationInProgress { message: String, hint: String },

    #[error("later commits changed files that the file_backup rollback of '{patch_id}' would restore: {}", commits.join("; "))]
    LaterChanges {
        patch_id: String,
        commits: Vec<String>,
    },

    #[error("no operation '{op}' in the op log")]
    OpNotFound { op: String },

    #[error("'{op}' names more than one operation: {}", matches.join(", "))]
    OpAmbiguous { op: String, matches: Vec<String> },

    #[error("operation {op} cannot be undone: {reason}")]
    NotUndoable { op: String, reason: String },

    #[error("{what}")]
    NothingToUndo { what: String },

    #[error(
        "operation {op} cannot be undone: {name} moved since (it is at {}, the operation left it at {})",
        actual.as_deref().unwrap_or("nothing"),
        expected.as_deref().unwrap_or("nothing")
    )]
    UndoConflict {
        op: String,
        name: String,
        expected: Option<String>,
        actual: Option<String>,
    },

    /// `undo --to` stopped part way (issue 38 item 14): which operations
    /// it undid (each with the id of its undo), where it stopped and why.
    #[error(
        "undid {} operation(s) ({}), then stopped at operation {stopped_at}, which was not undone, nor the {} after it: {cause}",
        undone.len(),
        undone.iter().map(|(op, by)| format!("{op} by {by}")).collect::<Vec<_>>().join(", "),
        left.saturating_sub(1)
    )]
    UndoIncomplete {
        /// Each operation undone and the id of its undo, in order.
        undone: Vec<(String, String)>,
        stopped_at: String,
        /// How many were not undone, `stopped_at` first.
        left: usize,
        cause: Box<Error>,
    },

    #[error("commit.gpgSign is set, and git could not sign the commit: {detail}")]
    SigningFailed { detail: String },

    #[error(
        "interrupted by {name} while a validation command ran; its process group was killed and nothing was landed"
    )]
    Signalled { signal: i32, name: &'static str },

    /// One or more edits of an edit list failed (#13); nothing was stored.
    #[error("{}", edits_message(failures))]
    EditsFailed {
        failures: Vec<crate::edit_failure::EditFailure>,
    },

    /// A git command line that failed: the command (`git check-attr
    /// --stdin`), and a message that names it and carries git's own stderr.
    #[error("git: {message}")]
    GitCommand { command: String, message: String },

    /// Something git-evolv read is damaged: which object, ref or file
    /// (`tree 3fa9c1…`, `.git/index`), and what is wrong with it.
    #[error("git: {message}")]
    Corrupt { what: String, message: String },

    /// A failure of git-evolv itself rather than of the repository (a
    /// worker thread that died, zlib without memory): where, and what.
    /// Reported under `git_error`, as before there was a variant for it.
    #[error("git: {message}")]
    Internal { at: &'static str, message: String },

    /// A libgit2 call that failed, with what git-evolv was doing: the
    /// operation and its ref, path or object. The cause is the `source`,
    /// not the message.
    #[error("{doing}")]
    GitLibrary {
        doing: GitDoing,
        #[source]
        source: GitCause,
    },

    #[error("{op} '{path}'")]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Result alias used throughout the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// See [`Error::Hinted`].
#[derive(Debug)]
pub struct Hinted {
    pub error: Error,
    /// The whole hint: the error's own, then the front end's.
    pub hint: String,
}

impl std::fmt::Display for Hinted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for Hinted {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.error)
    }
}

impl Error {
    /// The message with its causes, each once: `what: cause: cause…`. The
    /// `Display` form is the first part only; front ends that print causes
    /// on lines of their own (`caused by:`) walk `source()` instead.
    pub fn full_message(&self) -> String {
        let mut text = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            text.push_str(": ");
            text.push_str(&cause.to_string());
            source = cause.source();
        }
        text
    }

    /// The serialisable form used by `--json` and the MCP server.
    pub fn to_body(&self) -> ErrorBody {
        if let Error::Hinted(h) = self {
            return ErrorBody {
                hint: h.hint.clone(),
                ..h.error.to_body()
            };
        }
        let issues = match self {
            Error::InvalidPlan { issues, .. } => Some(issues.clone()),
            _ => None,
        };
        let (paths, validation) = match self {
            Error::Conflict { paths, .. }
            | Error::DirtyWorktree { paths }
            | Error::CheckpointDrift { paths, .. } => (Some(paths.clone()), None),
            Error::ValidationFailed { reports, .. } | Error::Timeout { reports, .. } => {
                (None, Some(reports.clone()))
            }
            _ => (None, None),
        };
        let failures = match self {
            Error::EditsFailed { failures } => Some(failures.clone()),
            _ => None,
        };
        ErrorBody {
            failures,
            code: self.code(),
            message: self.full_message(),
            hint: self.hint(),
            paths,
            validation,
            issues,
        }
    }

    pub fn invalid(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error::InvalidInput {
            message: message.into(),
            hint: hint.into(),
        }
    }

    /// `self` with `extra` added to its hint (a front end's own spelling
    /// of what the hint names).
    pub fn with_hint(self, extra: &str) -> Self {
        let hint = format!("{} {extra}", self.hint());
        Error::Hinted(Box::new(Hinted { error: self, hint }))
    }

    /// A bad request field: `field` as the request spells it.
    pub fn invalid_field(
        field: &'static str,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        Error::InvalidRequest {
            field,
            message: message.into(),
            hint: hint.into(),
        }
    }

    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            op,
            path: path.into(),
            source,
        }
    }
}

/// `{"code", "message", "hint", ...}` as printed under `"error"`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ErrorBody {
    pub code: &'static str,
    pub message: String,
    pub hint: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paths: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub validation: Option<Vec<CommandReport>>,
    /// Every problem of an invalid plan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issues: Option<Vec<PlanIssue>>,
    /// Every failed edit of an edit list: `{index, path, code, message, hint}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failures: Option<Vec<crate::edit_failure::EditFailure>>,
}

fn edits_message(failures: &[crate::edit_failure::EditFailure]) -> String {
    match failures {
        [one] => one.message.clone(),
        _ => {
            let mut out = format!("{} edits failed:", failures.len());
            for f in failures {
                out.push_str("\n  - ");
                out.push_str(&f.message);
            }
            out
        }
    }
}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
