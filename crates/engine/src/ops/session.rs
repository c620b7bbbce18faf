//! `Session`: what every front end (CLI, MCP server, review page, the
//! hooks) opens before calling a use case; every use case is one of its
//! methods. It opens the repository as the request's type says (or none,
//! for the use cases that work without one or through git itself),
//! finishes or undoes a landing a killed process left behind, holds the
//! repository handle and the settings (git config, read once when first
//! needed), and releases what a command held (the parsed index) when
//! dropped. No front end calls recovery, reads config or releases the
//! index itself. It owns the operation's context (`crate::context`:
//! progress and cancellation), which the front end gives when it opens
//! the session and every use case receives.
//!
//! Threads: a `Session` is `Send` (move it into a blocking task) but not
//! `Sync` (libgit2 repositories are not): async front ends open one per
//! request on a blocking thread, e.g. `tokio::task::spawn_blocking(move ||
//! Session::open(&dir)?.apply(&request))`. Opening is cheap: a discovery
//! and a stat for a pending journal.

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::applying::apply::{self, ApplyReport, ApplyRequest};
use super::applying::plan::{self, PlanSource};
use super::commits::check::{self, CheckOutcome, CheckRequest};
use super::commits::hooks::{self, HooksOutcome, HooksRequest};
use super::commits::lint::{self, CommitMsgOutcome, LintOutcome, LintRequest, MessageSource};
use super::commits::pre_push::{self, PrePushOutcome, PrePushRequest};
use super::proposing::capture::{self, CaptureOutcome, CaptureRequest};
use super::proposing::edit::{self, EditOutcome, EditRequest};
use super::proposing::propose_patch::{self, PatchRequest};
use super::reading::cat::{self, CatOutcome, CatRequest};
use super::reading::glob::{self, GlobOutcome, GlobRequest};
use super::reading::review::{self, CommentRequest, Detail, ReviewPage};
use super::settings::{Settings, SettingsRequest};
use super::test::proposal_verdicts::attach as attach_verdicts;
use super::test::{self, TestOutcome, TestRequest};
use crate::store::comments::Comment;

use super::applying::recover::{self, RecoverOutcome, RecoverRequest};
use super::applying::rollback::{self, RollbackOutcome, RollbackRequest};
use super::applying::task::{
    self, StartedTask, TaskListOutcome, TaskOutcome, TaskQuery, TaskRequest, TaskRunRequest,
    TaskStatus,
};
use super::drop::{self, DropOutcome, DropRequest, GcOutcome, GcRequest};
use super::operations::op_log::{self, OpLogOutcome, OpLogRequest, OpShowRequest, Operation};
use super::operations::undo::{self, UndoOutcome, UndoRequest};
use super::permissions::{self, Confirmation};
use super::proposing::propose::{self, ProposeOutcome, ProposeRequest};
use super::reading::inspect::{
    self, ListOutcome, ListRequest, LogOutcome, LogRequest, ShowOutcome, ShowRequest,
};
use super::server::receive::{self, DrainRequest, ReceiveRequest, guard::PreReceiveRequest};
use super::server::remote::fetch::FetchRequest;
use super::server::remote::push::PushRequest;
use super::server::remote::status::StatusRequest;
use crate::context::Context;
use crate::error::Result;
use crate::git::Repo;

/// How a request opens the repository: each request type says it (its
/// [`Request::OPEN`]), no front end decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open {
    /// Finishes or undoes an interrupted landing first; a bare repository
    /// is refused.
    Recovering,
    /// The repository as it is, no recovery first (the working tree as it
    /// is, recovery itself, a server starting); a bare repository is
    /// refused.
    AsIs,
    /// Read-only, bare allowed, no recovery (the review page's ref feed).
    ReadOnly,
    /// Bare allowed, no recovery first: the server hooks (which land
    /// through their own queue) and `recover` itself.
    Server,
    /// A view of proposals: a bare repository (proposals pushed to a
    /// server, #16 item 20) opens read-only as it is, where nothing lands
    /// and nothing is to recover; any other is recovered first.
    View,
    /// Needs no repository, or reads it through git itself (`lint`,
    /// `check`, `hooks`, the hooks' own entries, `plan`): nothing is
    /// opened; the settings are those around the directory.
    NoRepository,
}

/// A use case's request, and how it opens the repository.
pub trait Request {
    const OPEN: Open;
}

macro_rules! opens {
    ($mode:ident: $($request:ty),* $(,)?) => {
        $(impl Request for $request {
            const OPEN: Open = Open::$mode;
        })*
    };
}

// Task queries recover first like the commands around them: recovery on
// open never waits for a live landing (it skips a journal whose landing
// lock is held), so a query never waits for the task's own landing.
opens!(Recovering:
    ProposeRequest, EditRequest, ApplyRequest, RollbackRequest, DropRequest, GcRequest,
    CatRequest, TestRequest, TaskRequest, TaskRunRequest, TaskQuery, CommentRequest, ReviewPage,
    lint::MessageRequest, PatchRequest, CaptureRequest,
    UndoRequest, PushRequest, FetchRequest,
);
opens!(AsIs: GlobRequest, ServerRequest);
opens!(Server:
    RecoverRequest, ReceiveRequest, DrainRequest, PreReceiveRequest,
);
opens!(ReadOnly: review::RefFeed);
opens!(View: StatusRequest, ListRequest, ShowRequest, LogRequest, OpLogRequest, OpShowRequest);
opens!(NoRepository:
    CheckRequest, HooksRequest, lint::LintRequest, lint::CommitMsgRequest, PrePushRequest,
    PlanSource, SettingsRequest,
);

/// A server starting on a repository (the MCP server): it fails fast
/// outside one or in a bare one, and recovers nothing (each call's own
/// session does).
pub struct ServerRequest;

/// An open repository, recovered and ready for use cases; or, for the
/// use cases that need none, the directory they run in.
pub struct Session {
    repo: Option<Repo>,
    dir: PathBuf,
    recovered: Option<RecoverOutcome>,
    settings: OnceCell<Settings>,
    context: Context,
}

impl Session {
    /// Opens the repository containing `dir` as requests of type `R` need
    /// it ([`Request::OPEN`]), for use cases run with `context`; what an
    /// automatic recovery did is in [`Session::recovered`].
    pub fn open_for<R: Request + ?Sized>(dir: &Path, context: Context) -> Result<Session> {
        let repo = match R::OPEN {
            Open::Recovering | Open::AsIs => Some(crate::git::open(dir)?),
            Open::ReadOnly | Open::Server | Open::View => Some(crate::git::open_any(dir)?),
            Open::NoRepository => None,
        };
        // A view of a bare repository opens it as it is: nothing lands
        // there and nothing is to recover.
        let recovers = match R::OPEN {
            Open::Recovering => true,
            Open::View => repo.as_ref().is_some_and(|r| !r.is_bare()),
            _ => false,
        };
        let mut session = Session::new(repo, dir, context);
        if recovers {
            session.recovered = recover::recover_pending(session.repo()?)?;
        }
        Ok(session)
    }

    /// A new demo repository in `dir` (`ops::demo`), opened for its run.
    pub fn create_demo(dir: &Path, context: Context) -> Result<Session> {
        let repo = super::demo::create_repo(dir)?;
        Ok(Session::new(Some(repo), dir, context))
    }

    fn new(repo: Option<Repo>, dir: &Path, context: Context) -> Session {
        Session {
            repo,
            dir: dir.to_path_buf(),
            recovered: None,
            settings: OnceCell::new(),
            context,
        }
    }

    /// The context the session's use cases run with (their progress and
    /// cancellation).
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The open repository; a session opened without one (a request that
    /// needs none) has none to give.
    pub(super) fn repo(&self) -> Result<&Repo> {
        self.repo
            .as_ref()
            .ok_or_else(|| crate::error::Error::NotARepository {
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

    /// `result` of a use case that wrote objects, after what git's
    /// porcelain does then: `git maintenance run --auto` when `gc --auto`
    /// would find work (too many loose objects or packs), as the
    /// repository's `maintenance.auto`, `gc.auto`, `gc.autoPackLimit` and
    /// `gc.autoDetach` say.
    fn wrote<T>(&self, result: Result<T>) -> Result<T> {
        if result.is_ok()
            && let (Some(repo), Ok(settings)) = (&self.repo, self.settings())
            && let Some(thresholds) = settings.auto_gc()
        {
            crate::git::objects::maintenance::run_auto(repo, thresholds);
        }
        result
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

    /// Every ref under `refs/evolv/` (loose and packed: libgit2 re-reads
    /// `packed-refs` when it changes) and where HEAD points, as ref name
    /// to object id: what the review page's live feed compares between
    /// polls. A ref that cannot be read is left out.
    pub fn evolv_refs(&self) -> BTreeMap<String, String> {
        let Some(repo) = &self.repo else {
            return BTreeMap::new();
        };
        let mut refs: BTreeMap<String, String> = repo
            .readable_refs_matching("refs/evolv/*")
            .into_iter()
            .map(|(name, id)| (name, id.to_string()))
            .collect();
        if let Some(head) = repo.ref_target("HEAD") {
            refs.insert("HEAD".into(), head.to_string());
        }
        refs
    }

    /// What an apply would land on a protected branch that the user must
    /// confirm first; `None` when no question is due (`permissions`).
    pub fn apply_confirmation(&self, req: &ApplyRequest) -> Result<Option<Confirmation>> {
        permissions::apply_confirmation(self.repo()?, self.settings()?, req)
    }

    /// What a rollback would land on a protected branch that the user
    /// must confirm first; `None` when no question is due.
    pub fn rollback_confirmation(&self, patch_id: &str) -> Result<Option<Confirmation>> {
        permissions::rollback_confirmation(self.repo()?, self.settings()?, patch_id)
    }

    /// Refuses an execution plan sent by a client that would run commands
    /// the repository does not allow it to (`permissions`).
    pub fn check_client_plan(&self, plan: Option<&serde_json::Value>) -> Result<()> {
        permissions::check_client_plan(self.settings()?, plan)
    }

    /// Computes an edit and stores it as a proposal.
    pub fn propose(&self, req: &ProposeRequest) -> Result<ProposeOutcome> {
        self.wrote(propose::propose(
            self.repo()?,
            self.settings()?,
            &self.context,
            req,
        ))
    }

    /// Validates and lands proposals. One shape whatever the number of ids:
    /// what landed, and the error that stopped the rest (if any).
    /// The proposal `id`'s changes as hunks (what `apply -i` asks about).
    pub fn part_hunks(&self, id: &str) -> Result<Vec<crate::patch::FilePatch>> {
        apply::part::hunks(self.repo()?, id)
    }

    pub fn apply(&self, req: &ApplyRequest) -> Result<ApplyReport> {
        self.wrote(apply::apply(
            self.repo()?,
            self.settings()?,
            &self.context,
            req,
        ))
    }

    /// Undoes an applied proposal as a new commit.
    pub fn rollback(&self, req: &RollbackRequest) -> Result<RollbackOutcome> {
        self.wrote(rollback::rollback(self.repo()?, &self.context, req))
    }

    /// Every proposal with its status.
    pub fn list(&self, _req: &ListRequest) -> Result<ListOutcome> {
        let mut outcome = inspect::list(self.repo()?)?;
        outcome.warnings = attach_verdicts(self.repo()?, self.settings()?, &mut outcome.proposals)?;
        Ok(outcome)
    }

    /// One proposal and its diff.
    pub fn show(&self, req: &ShowRequest) -> Result<ShowOutcome> {
        let mut outcome = inspect::show(self.repo()?, &req.patch_id)?;
        let one = std::slice::from_mut(&mut outcome.proposal);
        outcome.warnings = attach_verdicts(self.repo()?, self.settings()?, one)?;
        Ok(outcome)
    }

    /// The audit log, newest first.
    pub fn log(&self, req: &LogRequest) -> Result<LogOutcome> {
        inspect::log(self.repo()?, req.limit)
    }

    /// The op log, newest first (`git evolv op log`).
    pub fn op_log(&self, req: &OpLogRequest) -> Result<OpLogOutcome> {
        op_log::op_log(self.repo()?, req)
    }

    /// One operation of the op log (`git evolv op show`).
    pub fn op_show(&self, req: &OpShowRequest) -> Result<Operation> {
        op_log::op_show(self.repo()?, req)
    }

    /// Undoes (or redoes) operations of the op log.
    pub fn undo(&self, req: &UndoRequest) -> Result<UndoOutcome> {
        self.wrote(undo::undo(self.repo()?, &self.context, req))
    }

    /// What an undo would land on a protected branch that the user must
    /// confirm first; `None` when no question is due.
    pub fn undo_confirmation(&self, req: &UndoRequest) -> Result<Option<Confirmation>> {
        permissions::undo_confirmation(self.repo()?, (self.settings()?, &self.context), req)
    }

    /// Removes proposals (`drop`).
    pub fn drop_proposals(&self, req: &DropRequest) -> Result<DropOutcome> {
        drop::drop_proposals(self.repo()?, &self.context, req)
    }

    /// Drops old proposals and removes idle validation worktrees.
    pub fn gc(&self, req: &GcRequest) -> Result<GcOutcome> {
        drop::gc(self.repo()?, &self.context, req)
    }

    /// Finishes or undoes an interrupted landing, on demand.
    pub fn recover(&self, _req: &RecoverRequest) -> Result<RecoverOutcome> {
        let repo = self.repo()?;
        if repo.is_bare() {
            // A server's: what a killed hook or drainer left in its queue.
            return receive::queue::recover(repo, self.settings()?, &self.context);
        }
        recover::recover(repo)
    }

    /// Applies an edit list (files written, deleted, renamed, notebook
    /// cells) and stores it as a proposal.
    pub fn edit(&self, req: &EditRequest) -> Result<EditOutcome> {
        self.wrote(edit::edit(
            self.repo()?,
            self.settings()?,
            &self.context,
            req,
        ))
    }

    /// Proposes a patch (a unified diff, a mailbox series as a stack, an
    /// apply_patch envelope).
    pub fn propose_patch(&self, req: &PatchRequest) -> Result<Vec<EditOutcome>> {
        self.wrote(propose_patch::propose_patch(
            self.repo()?,
            self.settings()?,
            &self.context,
            req,
        ))
    }

    /// Proposes what the work tree holds (`propose --from-worktree`).
    pub fn capture(&self, req: &CaptureRequest) -> Result<CaptureOutcome> {
        self.wrote(capture::capture(
            self.repo()?,
            self.settings()?,
            &self.context,
            req,
        ))
    }

    /// A file's lines, at HEAD, a proposal or the working tree.
    pub fn cat(&self, req: &CatRequest) -> Result<CatOutcome> {
        cat::cat(self.repo()?, req)
    }

    /// Verdicts of a command on commits or proposals (runs it where no
    /// trusted verdict is stored).
    pub fn test(&self, req: &TestRequest) -> Result<TestOutcome> {
        test::test(self.repo()?, self.settings()?, &self.context, req)
    }

    /// The files matching a glob, newest first.
    pub fn glob(&self, req: &GlobRequest) -> Result<GlobOutcome> {
        glob::glob(self.repo()?, req)
    }

    /// `dir`, relative to `cwd`, as a path from the top of the work tree
    /// (a glob's `path` given on a command line).
    pub fn glob_path_from(&self, cwd: &Path, dir: &str) -> Result<String> {
        glob::path_from_top(self.repo()?, cwd, dir)
    }

    /// Starts a background apply.
    pub fn start_task(&self, req: &TaskRequest) -> Result<StartedTask> {
        task::start(self.repo()?, req)
    }

    /// Runs a background apply (the task's own process).
    pub fn run_task(&self, req: &TaskRunRequest) -> Result<TaskStatus> {
        self.wrote(task::run(
            self.repo()?,
            self.settings()?,
            &self.context,
            &req.task_id,
        ))
    }

    /// Every background task.
    pub fn tasks(&self, _req: &TaskQuery) -> Result<TaskListOutcome> {
        task::list(self.repo()?)
    }

    /// A background task's status and output so far.
    pub fn task_status(&self, req: &TaskQuery) -> Result<TaskOutcome> {
        task::status(self.repo()?, req.id()?)
    }

    /// Waits up to `wait` for a background task to finish (less when the
    /// session's caller cancels).
    pub fn wait_task(&self, req: &TaskQuery, wait: std::time::Duration) -> Result<TaskOutcome> {
        task::wait(self.repo()?, req.id()?, wait, &self.context)
    }

    /// Cancels a background task, waiting up to `wait` for it to stop.
    pub fn cancel_task(&self, req: &TaskQuery, wait: std::time::Duration) -> Result<TaskOutcome> {
        task::cancel(self.repo()?, req.id()?, wait)
    }

    /// Lints one commit message with the repository's settings.
    pub fn lint_message(&self, req: &lint::MessageRequest) -> Result<LintOutcome> {
        let config = self.settings()?.lint()?;
        lint::lint_message(
            &MessageSource::Text {
                name: req.name.clone(),
                text: req.text.clone(),
            },
            &config,
        )
    }

    /// Checks and stores a review comment.
    pub fn comment(&self, req: &CommentRequest) -> Result<Comment> {
        self.wrote(review::comment(self.repo()?, &self.context, req))
    }

    /// The review page's detail of a proposal; the first file's hunks
    /// are kept in `recent` for the page asked for next.
    pub fn review_detail(&self, patch_id: &str, recent: &review::RecentFiles) -> Result<Detail> {
        review::detail(self.repo()?, patch_id, recent)
    }

    /// `show` without the patch text: the review page draws each file
    /// from its own pages of hunks.
    pub fn review_show(&self, patch_id: &str) -> Result<ShowOutcome> {
        let mut outcome = inspect::show_without_diff(self.repo()?, patch_id)?;
        let one = std::slice::from_mut(&mut outcome.proposal);
        outcome.warnings = attach_verdicts(self.repo()?, self.settings()?, one)?;
        Ok(outcome)
    }

    /// A page of one file's hunks (`None`: not a file of the proposal);
    /// the file's hunks are kept in `recent` for its next pages.
    pub fn review_file_page(
        &self,
        patch_id: &str,
        path: &str,
        from: usize,
        recent: &review::RecentFiles,
    ) -> Result<Option<review::FilePage>> {
        review::file_page(self.repo()?, patch_id, path, from, recent)
    }

    /// The branch HEAD is on and its commit, if any.
    pub fn review_head(&self) -> Option<(String, String)> {
        review::head(self.repo.as_ref()?)
    }

    /// The branch, its upstream and the uncommitted files (`check`).
    pub fn check(&self, req: &CheckRequest) -> Result<CheckOutcome> {
        check::run(&self.dir, req)
    }

    /// Installs, removes or reports the hooks (`hooks`).
    pub fn hooks(&self, req: &HooksRequest) -> Result<HooksOutcome> {
        hooks::run(&self.dir, self.settings()?, req)
    }

    /// Lints a message, a message file or the commits of a range.
    pub fn lint(&self, req: &LintRequest) -> Result<LintOutcome> {
        lint::run(&self.dir, self.settings()?, req)
    }

    /// Lints a message read from stdin (`<stdin>` in reports).
    pub fn lint_stdin(&self, text: &str) -> Result<LintOutcome> {
        lint::run_stdin(self.settings()?, text)
    }

    /// The commit-msg hook: lints the message file git passes, cleaned as
    /// this commit will clean it.
    pub fn commit_msg(&self, file: &Path) -> Result<CommitMsgOutcome> {
        let request = lint::CommitMsgRequest::for_hook(&self.dir, self.settings()?, file)?;
        lint::commit_msg(&request)
    }

    /// The pre-push hook's verdicts on a push.
    pub fn pre_push(&self, req: &PrePushRequest) -> Result<PrePushOutcome> {
        pre_push::pre_push(&self.dir, self.settings()?, req)
    }

    /// Loads and checks an execution plan (`plan check`).
    pub fn check_plan(&self, source: &PlanSource) -> Result<plan::CheckOutcome> {
        plan::check(source)
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
        use super::{apply, check, drop, hooks, inspect, lint, propose, recover, rollback};
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
        let err = Session::open_for::<super::ApplyRequest>(
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
}
