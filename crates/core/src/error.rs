//! The one error type of git-evolv: a stable machine code per variant, a
//! message that names the file or ref and the cause, and a hint saying what
//! to do. Front ends render it; nothing here prints.

use std::path::PathBuf;

use serde::Serialize;

use crate::plan::PlanIssue;
use crate::validation_report::CommandReport;

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

    #[error("validation failed: `{command}` exited with {exit_code}")]
    ValidationFailed {
        command: String,
        exit_code: i32,
        reports: Vec<CommandReport>,
    },

    #[error("the apply timed out after {seconds} s while running `{command}`")]
    Timeout {
        command: String,
        seconds: u64,
        reports: Vec<CommandReport>,
        /// What set the limit, so the hint names the right knob.
        limit_source: crate::validation_report::TimeoutSource,
    },

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

    /// A libgit2 call that failed, with what git-evolv was doing (which
    /// ref, path or object). The cause is the `source`, not the message.
    #[error("{doing}")]
    GitLibrary {
        doing: String,
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
    /// The stable machine-readable code of this error.
    pub fn code(&self) -> &'static str {
        match self {
            Error::PatchNotFound(_) => "patch_not_found",
            Error::InvalidInput { .. } => "invalid_input",
            Error::InvalidRequest { .. } => "invalid_input",
            Error::Hinted(h) => h.error.code(),
            Error::NoMatch { .. } => "no_match",
            Error::NotARepository { .. } => "not_a_repository",
            Error::BareRepository { .. } => "bare_repository",
            Error::UnsupportedRepository { .. } => "unsupported_repository",
            Error::EmptyRepository => "empty_repository",
            Error::MissingIdentity { .. } => "missing_identity",
            Error::Conflict { .. } => "conflict",
            Error::DirtyWorktree { .. } => "dirty_worktree",
            Error::InvalidPlan { .. } => "invalid_plan",
            Error::ConstraintViolation { .. } => "constraint_violation",
            Error::LandingFailed { .. } => "landing_failed",
            Error::ValidationFailed { .. } => "validation_failed",
            Error::Timeout { .. } => "timeout",
            Error::AlreadyApplied { .. } => "already_applied",
            Error::NothingToApply { .. } => "no_change",
            Error::NotApplied { .. } => "not_applied",
            Error::ConcurrentUpdate { .. } => "concurrent_update",
            Error::HooksPathSet { .. } => "hooks_path_set",
            Error::HooksFolderTracked { .. } => "hooks_folder_tracked",
            Error::HookConflict { .. } => "hook_conflict",
            Error::NoTerminal { .. } => "no_terminal",
            Error::InvalidConfig { .. } => "invalid_config",
            Error::ConfigSyntax { .. } => "invalid_config",
            Error::IndexLocked { .. } => "index_locked",
            Error::RefLocked { .. } => "ref_locked",
            Error::Interrupted { .. } | Error::UnreadableJournal { .. } => "interrupted_landing",
            Error::UnsafePath { .. } => "unsafe_path",
            Error::SigningFailed { .. } => "signing_failed",
            Error::BranchSwitched { .. } => "branch_switched",
            Error::LaterChanges { .. } => "later_changes",
            Error::OperationInProgress { .. } => "operation_in_progress",
            Error::Signalled { .. } => "interrupted",
            Error::Cancelled { .. } => "cancelled",
            Error::ConfirmationRequired { .. } => "confirmation_required",
            Error::EditsFailed { failures } => match failures.as_slice() {
                [one] => one.code.as_str(),
                _ => "edits_failed",
            },
            Error::GitCommand { .. } | Error::Corrupt { .. } | Error::Internal { .. } => {
                "git_error"
            }
            Error::GitLibrary { .. } => "git_error",
            Error::Io { .. } => "io_error",
        }
    }

    /// What the user can do about it.
    pub fn hint(&self) -> String {
        match self {
            Error::PatchNotFound(_) => "run `git evolv list` to see the proposals".into(),
            Error::InvalidInput { hint, .. } => hint.clone(),
            Error::InvalidRequest { hint, .. } => hint.clone(),
            Error::Hinted(h) => h.hint.clone(),
            Error::NoMatch { .. } => {
                "check the pattern (a regex unless literal is set) and the scope globs (relative to the top of the repository, e.g. 'src/**')".into()
            }
            Error::NotARepository { .. } => {
                "run git-evolv inside a git repository, or pass -C <path>".into()
            }
            Error::BareRepository { .. } => {
                "clone it (`git clone <bare> <dir>`) and run git-evolv in the clone".into()
            }
            Error::UnsupportedRepository { hint, .. } => (*hint).into(),
            Error::EmptyRepository => "make a first commit, then propose edits against it".into(),
            Error::MissingIdentity { .. } => {
                "set it with `git config user.name \"Your Name\"` and `git config user.email you@example.com`".into()
            }
            Error::Conflict { operation: "rollback", .. } => {
                "nothing was touched; undo it by hand with `git revert <commit>` and resolve the conflicts, or roll back with strategy file_backup".into()
            }
            Error::Conflict { .. } => {
                "nothing was touched; drop the proposal and propose the edit again against the current HEAD".into()
            }
            Error::DirtyWorktree { .. } => {
                "nothing was touched; commit or stash the changes to those files (`git stash push -- <file>`), then run the command again".into()
            }
            Error::InvalidPlan { .. } => {
                "see `git evolv plan schema` for the format; check a plan with `git evolv plan check FILE`".into()
            }
            Error::ConstraintViolation { .. } => {
                "nothing was touched; split the patch (narrow its scope) or raise the limit in the plan".into()
            }
            Error::LandingFailed { .. } => {
                "run `git evolv recover` to finish or undo the interrupted landing; nothing of yours was overwritten".into()
            }
            Error::ValidationFailed { .. } => {
                "nothing was landed; fix the patch or the code and apply again".into()
            }
            Error::Timeout { limit_source, .. } => limit_source.hint().into(),
            Error::AlreadyApplied { .. } => {
                "roll it back first with `git evolv rollback <id>` if you want to apply it again".into()
            }
            Error::NothingToApply { .. } => "drop it with `git evolv drop <id>`".into(),
            Error::NotApplied { .. } => "see `git evolv list` for the status of each proposal".into(),
            Error::ConcurrentUpdate { .. } => "run the command again".into(),
            Error::HooksPathSet { hint, .. } => hint.clone(),
            Error::HooksFolderTracked { tracked, .. } => format!(
                "make git-evolv part of the team's hook instead: add `git evolv hook <name> \"$@\"` to {tracked} and commit that (every clone then needs git-evolv on PATH); or point core.hooksPath at a folder git does not track"
            ),
            Error::HookConflict { .. } => {
                "merge the two hooks by hand (keep one as the chained hook), then run `git evolv hooks install` again".into()
            }
            Error::NoTerminal { hint, .. } => hint.clone(),
            Error::InvalidConfig { key, .. } => format!(
                "fix it with `git config {key} <value>`, or remove it with `git config --unset {key}` (`git config --show-origin {key}` shows where it is set)"
            ),
            Error::ConfigSyntax { path, .. } => format!(
                "fix the line in {} (`git config --file {} --list` shows what git makes of it)",
                path.display(),
                path.display()
            ),
            // git's own words (lockfile.c), so people recognise them.
            Error::IndexLocked { .. } => "Another git process seems to be running in this repository, e.g. \
an editor opened by 'git commit'. Please make sure all processes are terminated then try again. \
If it still fails, a git process may have crashed in this repository earlier: remove the file \
manually to continue (then run `git evolv recover` if a landing was interrupted)."
                .into(),
            // git's own words again (lockfile.c): it is not a race that a
            // rerun wins, and the lock is nobody's but its creator's.
            Error::RefLocked { .. } => "Another git process seems to be running in this repository. \
Please make sure all processes are terminated then try again. If it still fails, a git process \
may have crashed in this repository earlier: remove the file manually to continue."
                .into(),
            Error::Interrupted { .. } => "run `git evolv recover` to finish or undo it".into(),
            Error::UnreadableJournal { .. } => {
                "run `git evolv recover`: it sets the journal aside, touching no file, so git-evolv can land again; that landing may have stopped half-way, so check `git status` and `git log -1` first".into()
            }
            Error::Cancelled { .. } => {
                "the branch, the index and the working tree are as they were; run it again to retry".into()
            }
            Error::ConfirmationRequired { .. } => {
                "use a client that supports elicitation, run `git evolv apply` yourself, or set `git config evolv.mcp.confirm auto`".into()
            }
            Error::UnsafePath { .. } => {
                "nothing was written; the path leaves the working tree or names git's own directory".into()
            }
            Error::SigningFailed { .. } => {
                "nothing was changed; fix the signing setup (`gpg.format`, `user.signingKey`; try `git commit --allow-empty -S -m test`), or land unsigned with `git -c commit.gpgSign=false evolv …`".into()
            }
            Error::Signalled { .. } => "run the command again when you want it to land".into(),
            Error::BranchSwitched { expected, .. } => format!(
                "nothing landed on either branch; switch back with `git switch {}` and run the command again, or run it on the branch you are on now",
                expected.trim_start_matches("refs/heads/")
            ),
            Error::OperationInProgress { hint, .. } => hint.clone(),
            Error::LaterChanges { patch_id, .. } => format!(
                "nothing was changed; roll back with `git evolv rollback {patch_id} --strategy git_revert` to keep the later changes, or pass --force to restore the files and undo those commits' changes to them"
            ),
            Error::EditsFailed { failures } => match failures.as_slice() {
                [one] => one.hint.clone(),
                _ => "nothing was stored; fix every edit listed (each has its own hint), or pass --keep-going to store the edits that succeeded".into(),
            },
            Error::GitCommand { .. } | Error::Corrupt { .. } | Error::Internal { .. } => {
                "run `git status` and `git fsck` to check the repository".into()
            }
            Error::GitLibrary { source, .. } => match source.kind {
                GitFailure::Locked => {
                    "another git process holds a lock on it; wait for it to finish, or remove the stale .lock file it names".into()
                }
                GitFailure::NotFound => {
                    "check that the ref, path or object exists (`git show-ref`, `git ls-tree HEAD`)".into()
                }
                GitFailure::Other => "run `git status` and `git fsck` to check the repository".into(),
            },
            Error::Io { .. } => "check the path's permissions and free disk space".into(),
        }
    }

    /// Exit code: 1 when the command ran and the answer is no, 2 for bad
    /// input and errors (see README, "Exit codes").
    pub fn exit_code(&self) -> u8 {
        // Exhaustive on purpose: a new variant must choose its exit code.
        match self {
            // As a shell reports a process ended by a signal: 130, 143, 129.
            Error::Signalled { signal, .. } => u8::try_from(128 + signal).unwrap_or(2),
            Error::Hinted(h) => h.error.exit_code(),
            Error::NoMatch { .. }
            | Error::Conflict { .. }
            | Error::DirtyWorktree { .. }
            | Error::ValidationFailed { .. }
            | Error::ConstraintViolation { .. }
            | Error::Timeout { .. }
            | Error::AlreadyApplied { .. }
            | Error::NotApplied { .. }
            | Error::NothingToApply { .. }
            | Error::ConcurrentUpdate { .. }
            | Error::BranchSwitched { .. }
            | Error::LaterChanges { .. }
            | Error::OperationInProgress { .. }
            | Error::Cancelled { .. }
            | Error::ConfirmationRequired { .. }
            | Error::IndexLocked { .. } => 1,
            // Content said no (1) unless an edit was malformed (2).
            Error::EditsFailed { failures } => failures
                .iter()
                .map(|f| f.code.exit_code())
                .max()
                .unwrap_or(2),
            Error::PatchNotFound(_)
            | Error::InvalidInput { .. }
            | Error::InvalidRequest { .. }
            | Error::NotARepository { .. }
            | Error::BareRepository { .. }
            | Error::UnsupportedRepository { .. }
            | Error::EmptyRepository
            | Error::MissingIdentity { .. }
            | Error::InvalidPlan { .. }
            | Error::LandingFailed { .. }
            | Error::HooksPathSet { .. }
            | Error::HooksFolderTracked { .. }
            | Error::HookConflict { .. }
            | Error::NoTerminal { .. }
            | Error::InvalidConfig { .. }
            | Error::ConfigSyntax { .. }
            | Error::RefLocked { .. }
            | Error::Interrupted { .. }
            | Error::UnreadableJournal { .. }
            | Error::UnsafePath { .. }
            | Error::SigningFailed { .. }
            | Error::GitCommand { .. }
            | Error::Corrupt { .. }
            | Error::Internal { .. }
            | Error::GitLibrary { .. }
            | Error::Io { .. } => 2,
        }
    }

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
            Error::Conflict { paths, .. } | Error::DirtyWorktree { paths } => {
                (Some(paths.clone()), None)
            }
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

/// What the git library said when a call failed: its message as it
/// printed it, and the kind of failure the hint depends on. Built by the
/// adapter (`evolv-git`), which alone knows the library's own error type.
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
