//! Every variant renders: a code, an exit code, a hint, and each cause
//! once (issue #10 item 5).

use std::path::PathBuf;

use super::{Error, GitCause, GitDoing, GitFailure, GitSubject};
use crate::plan::PlanIssue;

/// Which variant `e` is, by an exhaustive match: a new variant does not
/// compile until it is listed here and in `samples`.
fn index(e: &Error) -> usize {
    match e {
        Error::PatchNotFound(_) => 0,
        Error::InvalidInput { .. } => 1,
        Error::NoMatch { .. } => 2,
        Error::NotARepository { .. } => 3,
        Error::BareRepository { .. } => 4,
        Error::UnsupportedRepository { .. } => 5,
        Error::EmptyRepository => 6,
        Error::MissingIdentity { .. } => 7,
        Error::Conflict { .. } => 8,
        Error::DirtyWorktree { .. } => 9,
        Error::InvalidPlan { .. } => 10,
        Error::ConstraintViolation { .. } => 11,
        Error::LandingFailed { .. } => 12,
        Error::ValidationFailed { .. } => 13,
        Error::Timeout { .. } => 14,
        Error::AlreadyApplied { .. } => 15,
        Error::NothingToApply { .. } => 16,
        Error::NotApplied { .. } => 17,
        Error::ConcurrentUpdate { .. } => 18,
        Error::HooksPathSet { .. } => 19,
        Error::HookConflict { .. } => 20,
        Error::NoTerminal { .. } => 21,
        Error::InvalidConfig { .. } => 22,
        Error::ConfigSyntax { .. } => 23,
        Error::IndexLocked { .. } => 24,
        Error::Interrupted { .. } => 25,
        Error::UnsafePath { .. } => 26,
        Error::GitCommand { .. } => 27,
        Error::GitLibrary { .. } => 28,
        Error::Io { .. } => 29,
        Error::RefLocked { .. } => 30,
        Error::EditsFailed { .. } => 31,
        Error::BranchSwitched { .. } => 32,
        Error::OperationInProgress { .. } => 33,
        Error::LaterChanges { .. } => 34,
        Error::SigningFailed { .. } => 35,
        Error::Signalled { .. } => 36,
        Error::Cancelled { .. } => 37,
        Error::ConfirmationRequired { .. } => 38,
        Error::HooksFolderTracked { .. } => 39,
        Error::InvalidRequest { .. } => 40,
        Error::Hinted(_) => 41,
        Error::UnreadableJournal { .. } => 42,
        Error::Corrupt { .. } => 43,
        Error::Internal { .. } => 44,
        Error::PartialClone { .. } => 45,
        Error::OpNotFound { .. } => 46,
        Error::OpAmbiguous { .. } => 47,
        Error::NotUndoable { .. } => 48,
        Error::NothingToUndo { .. } => 49,
        Error::UndoConflict { .. } => 50,
        Error::IsolationUnavailable { .. } => 51,
        Error::Tampered { .. } => 52,
        Error::NoTrustedVerdict { .. } => 53,
        Error::UndoIncomplete { .. } => 54,
        Error::CheckpointDrift { .. } => 55,
    }
}
const VARIANTS: usize = 56;

fn samples() -> Vec<Error> {
    let p = || PathBuf::from("src/a.rs");
    let s = |t: &str| t.to_string();
    vec![
        Error::PatchNotFound(s("patch_1_ab")),
        Error::PatchNotFound(s("patch_1_ab")).with_hint("(a front end's hint)"),
        Error::invalid("pattern is empty", "give a pattern"),
        Error::NoMatch {
            pattern: s("x"),
            scope: s("**"),
            files_scanned: 3,
            detail: s(""),
        },
        Error::NotARepository { path: p() },
        Error::BareRepository { path: p() },
        Error::UnsupportedRepository {
            path: p(),
            what: "uses SHA-256",
            hint: "convert it",
        },
        Error::EmptyRepository,
        Error::MissingIdentity {
            detail: s("user.name"),
        },
        Error::Conflict {
            patch_id: s("p"),
            paths: vec![s("a")],
            against: s("the current HEAD"),
            operation: "apply",
        },
        Error::DirtyWorktree {
            paths: vec![s("a")],
        },
        Error::CheckpointDrift {
            checkpoint: s("3fa9c1"),
            paths: vec![s("a")],
        },
        Error::InvalidPlan {
            source_name: s("plan.json"),
            issues: vec![PlanIssue::new("/limits", "too big")],
        },
        Error::ConstraintViolation {
            limit: "max_files",
            unit: "files",
            actual: 3,
            allowed: 2,
        },
        Error::LandingFailed {
            cause: Box::new(Error::EmptyRepository),
            recovery: s("rolled back"),
        },
        Error::ValidationFailed {
            command: s("false"),
            exit_code: 1,
            reports: Vec::new(),
            cached: String::new(),
        },
        Error::Timeout {
            command: s("sleep 9"),
            seconds: 1,
            reports: Vec::new(),
            limit_source: crate::validation_report::TimeoutSource::Plan,
        },
        Error::AlreadyApplied {
            patch_id: s("p"),
            commit: s("abc"),
        },
        Error::NothingToApply { patch_id: s("p") },
        Error::NotApplied { patch_id: s("p") },
        Error::ConcurrentUpdate {
            what: s("refs/heads/main"),
            expected: s("abc"),
        },
        Error::HooksPathSet {
            value: s(".githooks"),
            origin: s("local file:.git/config"),
            hint: s("install into that folder with `git evolv hooks install --hooks-path`"),
        },
        Error::HooksFolderTracked {
            dir: p(),
            tracked: s(".githooks/commit-msg"),
        },
        Error::HookConflict {
            path: p(),
            chained: p(),
        },
        Error::NoTerminal {
            what: s("confirm"),
            hint: s("pass --yes"),
        },
        Error::InvalidConfig {
            key: s("evolv.timeout"),
            value: s("soon"),
            expected: s("a positive number of seconds"),
        },
        Error::ConfigSyntax {
            path: p(),
            line: 3,
            cause: "a key outside any [section]",
        },
        Error::IndexLocked { path: p() },
        Error::Interrupted {
            detail: s("journal"),
        },
        Error::UnreadableJournal {
            path: p(),
            detail: s("expected value at line 1 column 1"),
        },
        Error::UnsafePath {
            path: s("../x"),
            reason: s("leaves the tree"),
        },
        Error::GitCommand {
            command: s("git status"),
            message: s("`git status` failed"),
        },
        Error::Corrupt {
            what: s("tree 3fa9c1"),
            message: s("tree 3fa9c1 is corrupt (`git fsck` names what is wrong)"),
        },
        Error::PartialClone {
            missing: 3,
            remote: s("origin"),
            detail: s("fatal: unable to access 'https://example.com/r.git/'"),
        },
        Error::IsolationUnavailable {
            reason: s("`bwrap` (bubblewrap) was not found"),
        },
        Error::Tampered {
            changed: vec![
                s("refs/heads/main moved"),
                s("hooks/post-receive was added"),
            ],
        },
        Error::NoTrustedVerdict {
            tree: s("3fa9c1"),
            command: s("make test"),
        },
        Error::Internal {
            at: "a landing's writer threads",
            message: s("a thread writing the landing's files stopped short"),
        },
        corrupt_ref(),
        Error::io(
            "read",
            "src/a.rs",
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        ),
        Error::invalid_field("pattern", "pattern is empty", "give a pattern"),
        Error::RefLocked {
            path: PathBuf::from(".git/refs/heads/main.lock"),
        },
        Error::invalid_field("pattern", "pattern is empty", "give a pattern"),
        Error::EditsFailed {
            failures: vec![crate::edit_failure::EditFailure::new(
                Some(0),
                "a.rs",
                crate::edit_failure::EditCode::NoMatch,
                "edit 0: no match in a.rs",
                "check the text",
            )],
        },
        Error::BranchSwitched {
            expected: s("main"),
            actual: s("other"),
        },
        Error::OperationInProgress {
            message: s("a rebase is in progress"),
            hint: s("git rebase --abort"),
        },
        Error::LaterChanges {
            patch_id: s("p"),
            commits: vec![s("abc x (f)")],
        },
        Error::SigningFailed {
            detail: s("gpg failed"),
        },
        Error::Signalled {
            signal: libc::SIGTERM,
            name: "SIGTERM",
        },
        Error::Cancelled {
            what: s("the apply was cancelled by the client during `make test`"),
        },
        Error::ConfirmationRequired {
            what: s("apply of patch_1_ab on the protected branch main"),
        },
        Error::OpNotFound { op: s("abc") },
        Error::OpAmbiguous {
            op: s("a"),
            matches: vec![s("ab1"), s("ab2")],
        },
        Error::NotUndoable {
            op: s("abc"),
            reason: s("it failed and changed nothing"),
        },
        Error::NothingToUndo {
            what: s("no undo to redo"),
        },
        Error::UndoConflict {
            op: s("abc"),
            name: s("refs/evolv/proposals/p"),
            expected: Some(s("1234")),
            actual: None,
        },
        Error::UndoIncomplete {
            undone: vec![(s("abc"), s("def"))],
            stopped_at: s("123"),
            left: 2,
            cause: Box::new(Error::NothingToUndo { what: s("x") }),
        },
    ]
}

#[test]
fn every_variant_has_a_code_an_exit_code_and_a_hint() {
    let samples = samples();
    let mut seen = vec![false; VARIANTS];
    for e in &samples {
        seen[index(e)] = true;
        let body = e.to_body();
        assert!(!body.code.is_empty(), "{e:?}");
        assert!(
            body.code
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_'),
            "{e:?}"
        );
        // 128 + the signal for an interrupted apply, as a shell reports it.
        assert!(matches!(e.exit_code(), 1 | 2 | 129..=143), "{e:?}");
        assert!(!body.hint.trim().is_empty(), "{e:?}");
        assert!(!body.message.trim().is_empty(), "{e:?}");
    }
    assert!(seen.iter().all(|s| *s), "a variant has no sample: {seen:?}");
}

#[test]
fn a_cause_appears_once_in_the_message_and_once_in_the_chain() {
    for e in samples() {
        let Some(cause) = std::error::Error::source(&e) else {
            continue;
        };
        let cause = cause.to_string();
        assert!(!e.to_string().contains(&cause), "{e}: cause in Display too");
        assert_eq!(e.full_message().matches(&cause).count(), 1, "{e:?}");
    }
}

#[test]
fn adapter_errors_say_what_they_were_doing() {
    let e = corrupt_ref();
    assert_eq!(e.code(), "git_error");
    assert_eq!(
        e.full_message(),
        "read ref refs/evolv/proposals/p: reference is corrupt"
    );
    let io = Error::io(
        "read",
        "src/a.rs",
        std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
    );
    assert_eq!(io.full_message(), "read 'src/a.rs': no such file");
}

#[test]
fn a_front_end_hint_keeps_the_code_the_message_and_the_causes() {
    let io = || {
        Error::io(
            "read",
            "src/a.rs",
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        )
    };
    let hinted = io().with_hint("(on the command line: --x)");
    assert_eq!(hinted.code(), io().code());
    assert_eq!(hinted.exit_code(), io().exit_code());
    assert_eq!(hinted.to_string(), io().to_string());
    assert_eq!(hinted.full_message(), io().full_message());
    let hint = format!("{} (on the command line: --x)", io().hint());
    assert_eq!(hinted.hint(), hint);
    assert_eq!(hinted.to_body().hint, hint);
    assert_eq!(hinted.to_body().message, io().to_body().message);
}

/// What the adapter returns when libgit2 finds a ref corrupt.
fn corrupt_ref() -> Error {
    Error::GitLibrary {
        doing: GitDoing::new("read ref").on(GitSubject::Ref("refs/evolv/proposals/p".into())),
        source: GitCause {
            message: "reference is corrupt".into(),
            kind: GitFailure::Other,
        },
    }
}

#[test]
fn a_git_failure_says_its_operation_and_subject_as_before() {
    let id = "3fa9c1d2e3f40516273849a0b1c2d3e4f5061728";
    let read = GitDoing::new("read tree").on(GitSubject::Object(id.into()));
    assert_eq!(read.to_string(), format!("read tree {id}"));
    let open = GitDoing::new("open repository").on(GitSubject::Path("/r/.git".into()));
    assert_eq!(open.to_string(), "open repository /r/.git");
    let index = GitDoing::from("read the index");
    assert_eq!(
        (index.to_string(), index.subject),
        ("read the index".into(), GitSubject::None)
    );
    let update = GitDoing::new("update ref")
        .on(GitSubject::Ref("refs/heads/main".into()))
        .said(format!("update ref refs/heads/main to {id}"));
    assert_eq!(update.operation, "update ref");
    assert_eq!(
        update.to_string(),
        format!("update ref refs/heads/main to {id}")
    );
    let err = corrupt_ref();
    assert_eq!(err.to_string(), "read ref refs/evolv/proposals/p");
}
