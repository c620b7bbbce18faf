//! `Session`: what every front end (CLI, MCP server, review page, the
//! hooks) opens before running a use case ([`use_case`]). It opens
//! the repository as the use case's type says (or none, for the use cases
//! that work without one or through git itself), finishes or undoes a
//! landing a killed process left behind, holds the repository handle and
//! the settings (git config, read once when first needed), runs use cases
//! through one method ([`Session::run`]), and releases what a command held
//! (the parsed index) when dropped. No front end calls recovery, reads
//! config or releases the index itself. It owns the operation's context
//! (`crate::context`: actor, progress and cancellation), which the front
//! end gives when it opens the session and every use case receives.
//!
//! Threads: a `Session` is `Send` (move it into a blocking task) but not
//! `Sync` (libgit2 repositories are not): async front ends open one per
//! request on a blocking thread, e.g. `tokio::task::spawn_blocking(move ||
//! Session::open_for::<ApplyRequest>(&dir, context)?.run(&request))`.
//! Opening is cheap: a discovery and a stat for a pending journal.

pub mod recovery;
mod settings_request;
pub mod use_case;

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::landing::recover::RecoverOutcome;
use crate::ops::permissions::Confirmation;
use crate::ops::settings::Settings;
pub use settings_request::SettingsRequest;
pub use use_case::{Open, UseCase};

/// An open repository, recovered and ready for use cases; or, for the
/// use cases that need none, the directory they run in.
pub struct Session {
    repo: Option<Repo>,
    dir: PathBuf,
    opened: Open,
    recovered: Option<RecoverOutcome>,
    settings: OnceCell<Settings>,
    context: Context,
}

impl Session {
    /// Opens the repository containing `dir` as the use case `U` needs it
    /// ([`UseCase::OPEN`]), for use cases run with `context`; what an
    /// automatic recovery did is in [`Session::recovered`].
    pub fn open_for<U: UseCase + ?Sized>(dir: &Path, context: Context) -> Result<Session> {
        Session::open(dir, U::OPEN, context)
    }

    fn open(dir: &Path, opened: Open, context: Context) -> Result<Session> {
        let repo = match opened {
            Open::Recovering | Open::AsIs => Some(crate::git::open(dir)?),
            Open::ReadOnly | Open::Server | Open::View => Some(crate::git::open_any(dir)?),
            Open::NoRepository => None,
        };
        // A view of a bare repository opens it as it is: nothing lands
        // there and nothing is to recover.
        let recovers = match opened {
            Open::Recovering => true,
            Open::View => repo.as_ref().is_some_and(|r| !r.is_bare()),
            _ => false,
        };
        let mut session = Session::new(repo, dir, opened, context);
        if recovers {
            session.recovered = recovery::recover_pending(session.repo()?)?;
        }
        Ok(session)
    }

    /// A new demo repository in `dir` (`ops::demo`), opened for its run.
    pub fn create_demo(dir: &Path, context: Context) -> Result<Session> {
        let repo = crate::ops::demo::create_repo(dir)?;
        Ok(Session::new(Some(repo), dir, Open::Recovering, context))
    }

    fn new(repo: Option<Repo>, dir: &Path, opened: Open, context: Context) -> Session {
        Session {
            repo,
            dir: dir.to_path_buf(),
            opened,
            recovered: None,
            settings: OnceCell::new(),
            context,
        }
    }

    /// Runs a use case: the one way every front end calls the engine. A
    /// session opened for a use case that asks less of it (one needing
    /// recovery, say) is an internal error, never a silent skip of the
    /// recovery; after a use case that wrote objects, git's automatic
    /// maintenance runs as after git's own porcelain.
    pub fn run<U: UseCase + ?Sized>(&self, use_case: &U) -> Result<U::Outcome> {
        self.check_opened::<U>()?;
        let result = use_case.run(self);
        if U::WRITES_OBJECTS && result.is_ok() {
            self.maintain();
        }
        result
    }

    /// What `use_case` would land on a protected branch that the user must
    /// confirm first; `None` when no question is due (`permissions`).
    pub fn confirmation<U: UseCase + ?Sized>(&self, use_case: &U) -> Result<Option<Confirmation>> {
        self.check_opened::<U>()?;
        use_case.confirmation(self)
    }

    fn check_opened<U: UseCase + ?Sized>(&self) -> Result<()> {
        if self.opened.serves(U::OPEN) {
            return Ok(());
        }
        Err(Error::Internal {
            at: "Session::run",
            message: format!(
                "{} needs a session opened {:?}; this one was opened {:?}",
                std::any::type_name::<U>(),
                U::OPEN,
                self.opened
            ),
        })
    }

    /// The context the session's use cases run with (their actor,
    /// progress and cancellation).
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The open repository; a session opened without one (a use case that
    /// needs none) has none to give.
    pub fn repo(&self) -> Result<&Repo> {
        self.repo.as_ref().ok_or_else(|| Error::NotARepository {
            path: self.dir.clone(),
        })
    }

    /// The settings every use case of this session runs with: git's
    /// configuration read once, when first needed (the repository's, the
    /// same value the git adapter reads; without a repository, the one
    /// around the directory).
    pub fn settings(&self) -> Result<&Settings> {
        if let Some(settings) = self.settings.get() {
            return Ok(settings);
        }
        let settings = match &self.repo {
            Some(repo) => Settings::new(repo.config()?),
            None => Settings::around(&self.dir)?,
        };
        Ok(self.settings.get_or_init(|| settings))
    }

    /// What git's porcelain does after a command that wrote objects: `git
    /// maintenance run --auto` when `gc --auto` would find work (too many
    /// loose objects or packs), as the repository's `maintenance.auto`,
    /// `gc.auto`, `gc.autoPackLimit` and `gc.autoDetach` say.
    fn maintain(&self) {
        if let (Some(repo), Ok(settings)) = (&self.repo, self.settings())
            && let Some(thresholds) = settings.auto_gc()
        {
            crate::git::objects::maintenance::run_auto(repo, thresholds);
        }
    }

    /// What the automatic recovery did when the session opened; `None`
    /// when there was nothing to recover. Front ends tell the user.
    pub fn recovered(&self) -> Option<&RecoverOutcome> {
        self.recovered.as_ref()
    }

    /// The top of the work tree; `BareRepository` for a bare repository.
    pub fn work_tree(&self) -> Result<&Path> {
        self.repo()?.work_tree()
    }

    /// The directory the session was opened from (where relative paths
    /// of a request are resolved).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The repository's git dir (where per-repository state such as the
    /// review page's cookie secret is kept).
    pub fn git_dir(&self) -> Result<&Path> {
        Ok(self.repo()?.git_dir())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(repo) = &self.repo {
            crate::landing::land::release_index(repo);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Session;

    #[test]
    fn a_session_can_move_to_another_thread() {
        fn is_send<T: Send>() {}
        is_send::<Session>();
    }

    /// Every request takes JSON and documents every field in its schema
    /// (MCP clients and the review page see these descriptions).
    #[test]
    fn every_request_deserialises_and_documents_its_fields() {
        use crate::ops::applying::{apply, recover, rollback};
        use crate::ops::commits::{check, hooks, lint};
        use crate::ops::drop;
        use crate::ops::proposing::propose;
        use crate::ops::reading::inspect;
        fn check_schema<T: schemars::JsonSchema + serde::de::DeserializeOwned>(example: &str) {
            let schema = serde_json::to_value(schemars::schema_for!(T)).unwrap();
            let name = std::any::type_name::<T>();
            if let Some(props) = schema["properties"].as_object() {
                for (field, prop) in props {
                    assert!(
                        prop["description"].as_str().is_some_and(|d| !d.is_empty()),
                        "{name}.{field} has no description"
                    );
                }
            }
            serde_json::from_str::<T>(example).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                serde_json::from_str::<T>(r#"{"no_such_field": 1}"#).is_err(),
                "{name} accepts unknown fields"
            );
        }
        check_schema::<propose::ProposeRequest>(r#"{"pattern": "a", "replacement": "b"}"#);
        check_schema::<apply::ApplyRequest>(
            r#"{"patch_ids": ["p"], "validate": ["true"], "plan": {"file": "plan.json"}}"#,
        );
        check_schema::<rollback::RollbackRequest>(r#"{"patch_id": "p"}"#);
        check_schema::<inspect::ListRequest>("{}");
        check_schema::<inspect::ShowRequest>(r#"{"patch_id": "p"}"#);
        check_schema::<inspect::LogRequest>(r#"{"limit": 3}"#);
        check_schema::<drop::DropRequest>(r#"{"all": true}"#);
        check_schema::<drop::GcRequest>(r#"{"worktrees": true}"#);
        check_schema::<recover::RecoverRequest>("{}");
        check_schema::<check::CheckRequest>("{}");
        check_schema::<hooks::HooksRequest>(r#"{"action": "install"}"#);
        check_schema::<lint::LintRequest>(r#"{"message": "feat: x"}"#);
    }

    #[test]
    fn a_bare_repository_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        crate::git::test_git::git(dir.path(), &["init", "-q", "--bare"]);
        let err = Session::open_for::<crate::ops::applying::apply::ApplyRequest>(
            dir.path(),
            crate::context::Context::new("cli"),
        )
        .err()
        .expect("bare is refused");
        assert_eq!(err.code(), "bare_repository");
        // A read-only view opens it; what needs a work tree is refused.
        let bare = crate::git::open_any(dir.path()).unwrap();
        let err = crate::git::workdir(&bare).unwrap_err();
        assert_eq!(err.code(), "bare_repository");
    }

    /// `Session::run` refuses a use case that needs more than the session
    /// was opened for (a landing in a view's session would skip the
    /// recovery), and runs one that needs less.
    #[test]
    fn a_session_runs_only_what_it_was_opened_for() {
        use crate::ops::applying::apply::ApplyRequest;
        use crate::ops::operations::op_log::OpLogRequest;
        let dir = tempfile::tempdir().unwrap();
        crate::git::test_git::git(dir.path(), &["init", "-q"]);
        let context = || crate::context::Context::new("cli");
        let view = Session::open_for::<OpLogRequest>(dir.path(), context()).unwrap();
        let err = view.run(&ApplyRequest::default()).expect_err("refused");
        assert!(matches!(err, crate::error::Error::Internal { .. }), "{err}");
        assert!(err.to_string().contains("ApplyRequest"), "{err}");
        let recovering = Session::open_for::<ApplyRequest>(dir.path(), context()).unwrap();
        let log = recovering.run(&OpLogRequest { limit: None }).unwrap();
        assert!(log.operations.is_empty());
    }
}
