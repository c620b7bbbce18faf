//! What each error tells the caller besides its message: its stable code,
//! the hint (what the user can do about it) and the exit code. Each is an
//! exhaustive match, so a new variant must choose all three.

use super::{Error, GitFailure};

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
            Error::CheckpointDrift { .. } => "checkpoint_drift",
            Error::InvalidPlan { .. } => "invalid_plan",
            Error::ConstraintViolation { .. } => "constraint_violation",
            Error::LandingFailed { .. } => "landing_failed",
            Error::ValidationFailed { .. } => "validation_failed",
            Error::Timeout { .. } => "timeout",
            Error::IsolationUnavailable { .. } => "isolation_unavailable",
            Error::Tampered { .. } => "validation_tampered",
            Error::NoTrustedVerdict { .. } => "no_trusted_verdict",
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
            Error::PartialClone { .. } => "partial_clone",
            Error::SigningFailed { .. } => "signing_failed",
            Error::BranchSwitched { .. } => "branch_switched",
            Error::LaterChanges { .. } => "later_changes",
            Error::OpNotFound { .. } => "op_not_found",
            Error::OpAmbiguous { .. } => "op_ambiguous",
            Error::NotUndoable { .. } => "not_undoable",
            Error::NothingToUndo { .. } => "nothing_to_undo",
            Error::UndoConflict { .. } => "undo_conflict",
            Error::UndoIncomplete { .. } => "undo_incomplete",
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
            Error::CheckpointDrift { .. } => {
                "nothing was touched; rewind other paths (`-- <path>…`), or pass --force to save those files' current state as a checkpoint first and rewind them too".into()
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
            Error::ValidationFailed { cached, .. } if !cached.is_empty() => {
                "nothing was landed; the failing verdict was reused from the cache: fix the patch or the code, or apply with --no-cache to run the command again".into()
            }
            Error::ValidationFailed { .. } => {
                "nothing was landed; fix the patch or the code and apply again".into()
            }
            Error::Timeout { limit_source, .. } => limit_source.hint().into(),
            Error::IsolationUnavailable { .. } => {
                "install bubblewrap on the server (`apt-get install bubblewrap`, `dnf install bubblewrap`), or run no pushed code and land on CI's verdicts: `git config evolv.receive.validation verdict` (docs/server.md)".into()
            }
            Error::Tampered { .. } => {
                "the changes were undone and nothing landed; look at what the pushed code did (the op log names the push) and at the server's isolation (docs/server.md)".into()
            }
            Error::NoTrustedVerdict { .. } => {
                "have CI validate this exact tree and push its verdicts to the server (docs/server.md, \"Landing on CI's verdicts\"), then push again; a branch that moved since needs a rebase and a new CI run".into()
            }
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
                "nothing was written; the path leaves the working tree or names git's own directory, or the proposal holds a tree git's checkout or fsck refuses: drop it (`git evolv drop <id>`) and propose the change again".into()
            }
            Error::PartialClone { remote, .. } => format!(
                "nothing was changed; when '{remote}' can be reached, run the command again (git-evolv fetches what it needs, as git does), or fetch everything with `git fetch --refetch {remote}`"
            ),
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
            Error::OpNotFound { .. } => {
                "run `git evolv op log` to see the operations; give an id or a unique prefix of one".into()
            }
            Error::OpAmbiguous { .. } => "give more characters of the id".into(),
            Error::NotUndoable { .. } => "nothing was changed; `git evolv op show <op>` says what it did, `git evolv rollback` reverts a landing".into(),
            Error::NothingToUndo { .. } => "nothing was changed; `git evolv op log` lists the operations".into(),
            Error::UndoConflict { op, .. } => format!(
                "nothing was changed; undo the newer operations on that ref first (`git evolv op log`, `git evolv undo --to {op}`), or leave it"
            ),
            Error::UndoIncomplete { cause, .. } => {
                let why = cause.hint();
                let why = why.strip_prefix("nothing was changed; ").unwrap_or(&why);
                format!(
                    "the operations named were undone and logged (`git evolv op log`); `git evolv redo` redoes the newest. To undo the rest: {why}; then run the same `git evolv undo --to` again"
                )
            }
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
            Error::UndoIncomplete { cause, .. } => cause.exit_code(),
            Error::NoMatch { .. }
            | Error::Conflict { .. }
            | Error::DirtyWorktree { .. }
            | Error::CheckpointDrift { .. }
            | Error::ValidationFailed { .. }
            | Error::ConstraintViolation { .. }
            | Error::Timeout { .. }
            | Error::Tampered { .. }
            | Error::NoTrustedVerdict { .. }
            | Error::AlreadyApplied { .. }
            | Error::NotApplied { .. }
            | Error::NothingToApply { .. }
            | Error::ConcurrentUpdate { .. }
            | Error::BranchSwitched { .. }
            | Error::LaterChanges { .. }
            | Error::NotUndoable { .. }
            | Error::NothingToUndo { .. }
            | Error::UndoConflict { .. }
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
            | Error::PartialClone { .. }
            | Error::IsolationUnavailable { .. }
            | Error::OpNotFound { .. }
            | Error::OpAmbiguous { .. }
            | Error::SigningFailed { .. }
            | Error::GitCommand { .. }
            | Error::Corrupt { .. }
            | Error::Internal { .. }
            | Error::GitLibrary { .. }
            | Error::Io { .. } => 2,
        }
    }
}
