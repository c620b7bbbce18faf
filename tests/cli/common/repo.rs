//! [`TestRepo`]: a scratch repository, built in one expression, and its
//! state read back with git.

use std::cell::Cell;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use super::{Error, Run, sealed};

/// A scratch repository on branch `main` with a local identity.
///
/// Built in one expression:
/// `TestRepo::new().with("a.txt", "tok\n").committed("initial")`, or
/// `TestRepo::with_files(&[("a.txt", "tok\n")])` for files committed at
/// once; `.on_test_clock()` runs every `git evolv` a minute after the one
/// before, so that ids and ages are the same on each run.
pub struct TestRepo {
    pub dir: TempDir,
    pub(super) home: TempDir,
    /// The test clock's minute, once `on_test_clock` set it.
    pub(super) minute: Cell<Option<i64>>,
}

impl Default for TestRepo {
    fn default() -> Self {
        TestRepo::new()
    }
}

impl TestRepo {
    /// An empty repository (no commits).
    pub fn try_empty() -> Result<Self, Error> {
        let repo = TestRepo {
            dir: tempfile::tempdir()?,
            home: tempfile::tempdir()?,
            minute: Cell::new(None),
        };
        repo.try_git(&["init", "-q", "-b", "main"])?;
        repo.try_git(&["config", "user.name", "Test User"])?;
        repo.try_git(&["config", "user.email", "test@example.com"])?;
        Ok(repo)
    }

    /// An empty repository (no commits).
    #[track_caller]
    pub fn empty() -> Self {
        TestRepo::try_empty().unwrap_or_else(|e| panic!("{e}"))
    }

    /// An empty repository, to build on: `TestRepo::new().with(…)`.
    #[track_caller]
    pub fn new() -> Self {
        TestRepo::empty()
    }

    /// A repository with `files` (path, content) committed.
    pub fn try_with_files(files: &[(impl AsRef<str>, impl AsRef<str>)]) -> Result<Self, Error> {
        let repo = TestRepo::try_empty()?;
        for (path, content) in files {
            repo.try_write(path.as_ref(), content.as_ref())?;
        }
        repo.try_commit_all("initial")?;
        Ok(repo)
    }

    /// A repository with `files` (path, content) committed.
    #[track_caller]
    pub fn with_files(files: &[(impl AsRef<str>, impl AsRef<str>)]) -> Self {
        TestRepo::try_with_files(files).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A repository with `n` files committed, the `i`th `file(i)` (path,
    /// content).
    #[track_caller]
    pub fn with_many(n: usize, file: impl Fn(usize) -> (String, String)) -> Self {
        let files: Vec<(String, String)> = (0..n).map(file).collect();
        TestRepo::with_files(&files)
    }

    /// The repository with `rel` written (not committed).
    #[track_caller]
    pub fn with(self, rel: &str, content: &str) -> Self {
        self.write(rel, content);
        self
    }

    /// The repository with `rel` written as raw bytes (not committed).
    #[track_caller]
    pub fn with_bytes(self, rel: &str, content: &[u8]) -> Self {
        self.write_bytes(rel, content);
        self
    }

    /// The repository with `git config key value` set.
    #[track_caller]
    pub fn with_config(self, key: &str, value: &str) -> Self {
        self.set_config(key, value);
        self
    }

    /// Sets `git config key value` in the repository.
    #[track_caller]
    pub fn set_config(&self, key: &str, value: &str) {
        self.git(&["config", key, value]);
    }

    /// Writes `content` to `name` in the home folder (outside the work
    /// tree: a plan, an edit list) and returns its path.
    #[track_caller]
    pub fn home_file(&self, name: &str, content: &str) -> String {
        let path = self.home().join(name);
        std::fs::write(&path, content).unwrap_or_else(|e| panic!("write {name}: {e}"));
        path.display().to_string()
    }

    /// The repository with everything in the work tree committed.
    #[track_caller]
    pub fn committed(self, message: &str) -> Self {
        self.commit_all(message);
        self
    }

    /// The repository whose `git evolv` commands run on the test clock
    /// (`GIT_EVOLV_TEST_TIME`, read by debug builds only), each a minute
    /// after the one before: ids and ages come out the same on every run.
    pub fn on_test_clock(self) -> Self {
        self.minute.set(Some(0));
        self
    }

    /// The seed's scenario with one proposal of `getUserData` →
    /// `fetchUserData` (`extra`: more `propose` arguments, e.g. a scope).
    #[track_caller]
    pub fn scenario_proposed(extra: &[&str]) -> (Self, String) {
        let repo = TestRepo::scenario();
        let id = repo.propose("getUserData", "fetchUserData", extra);
        (repo, id)
    }

    /// The message of the last commit (`%B`), trimmed.
    #[track_caller]
    pub fn last_message(&self) -> String {
        self.git(&["log", "-1", "--format=%B"]).trim().to_string()
    }

    /// A repository with `files` committed and one proposal of `pattern`
    /// → `replacement` over them; returns the repository and the patch id.
    #[track_caller]
    pub fn proposed(
        files: &[(impl AsRef<str>, impl AsRef<str>)],
        pattern: &str,
        replacement: &str,
    ) -> (Self, String) {
        let repo = TestRepo::with_files(files);
        let id = repo.propose(pattern, replacement, &[]);
        (repo, id)
    }

    /// The seed's scenario repository.
    pub fn scenario() -> Self {
        TestRepo::with_files(&[
            (
                "backend/user.go",
                "package main\nfunc getUserData() string { return \"user\" }\n",
            ),
            (
                "backend/auth.go",
                "package main\nfunc auth() { user := getUserData(); _ = user }\n",
            ),
            ("frontend/api.ts", "const data = getUserData()\n"),
        ])
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn home(&self) -> &Path {
        self.home.path()
    }

    pub fn file(&self, rel: &str) -> PathBuf {
        self.path().join(rel)
    }

    pub fn try_write(&self, rel: &str, content: &str) -> Result<(), Error> {
        self.try_write_bytes(rel, content.as_bytes())
    }

    #[track_caller]
    pub fn write(&self, rel: &str, content: &str) {
        self.try_write(rel, content)
            .unwrap_or_else(|e| panic!("write {rel}: {e}"));
    }

    pub fn try_write_bytes(&self, rel: &str, content: &[u8]) -> Result<(), Error> {
        let p = self.file(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(p, content)?;
        Ok(())
    }

    #[track_caller]
    pub fn write_bytes(&self, rel: &str, content: &[u8]) {
        self.try_write_bytes(rel, content)
            .unwrap_or_else(|e| panic!("write {rel}: {e}"));
    }

    pub fn try_read(&self, rel: &str) -> Result<String, Error> {
        std::fs::read_to_string(self.file(rel)).map_err(|e| format!("read {rel}: {e}").into())
    }

    #[track_caller]
    pub fn read(&self, rel: &str) -> String {
        self.try_read(rel).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Runs git in the repository; fails unless git exits 0.
    pub fn try_git(&self, args: &[&str]) -> Result<String, Error> {
        let run = self.git_run(args);
        if run.code != 0 {
            return Err(format!("git {args:?} failed:\n{}{}", run.stdout, run.stderr).into());
        }
        Ok(run.stdout)
    }

    /// Runs git in the repository; panics on failure.
    #[track_caller]
    pub fn git(&self, args: &[&str]) -> String {
        self.try_git(args).unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn git_run(&self, args: &[&str]) -> Run {
        let mut cmd = sealed("git", self.home());
        cmd.args(args).current_dir(self.path());
        Run::of(cmd).named(format!("git {}", args.join(" ")))
    }

    pub fn try_commit_all(&self, message: &str) -> Result<String, Error> {
        self.try_git(&["add", "-A"])?;
        self.try_git(&["commit", "-q", "-m", message])?;
        Ok(self.try_git(&["rev-parse", "HEAD"])?.trim().to_string())
    }

    #[track_caller]
    pub fn commit_all(&self, message: &str) -> String {
        self.try_commit_all(message)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"]).trim().to_string()
    }

    pub fn rev(&self, spec: &str) -> Option<String> {
        let run = self.git_run(&["rev-parse", "--verify", "-q", spec]);
        (run.code == 0).then(|| run.stdout.trim().to_string())
    }

    pub fn status(&self) -> String {
        self.git(&[
            "status",
            "--porcelain=v1",
            "--untracked-files=all",
            "--ignored",
        ])
    }

    pub fn worktree_count(&self) -> usize {
        self.git(&["worktree", "list", "--porcelain"])
            .lines()
            .filter(|l| l.starts_with("worktree "))
            .count()
    }

    /// `git fsck --strict` must be clean.
    #[track_caller]
    pub fn assert_fsck(&self) {
        let run = self.git_run(&["fsck", "--strict", "--no-progress"]);
        assert_eq!(run.code, 0, "fsck failed:\n{}{}", run.stdout, run.stderr);
        assert!(!run.stderr.contains("error"), "fsck: {}", run.stderr);
    }

    /// Nothing left in the work tree (`git status` empty) and
    /// `git fsck --strict` clean.
    #[track_caller]
    pub fn assert_clean(&self) {
        assert_eq!(self.status(), "");
        self.assert_fsck();
    }

    /// Each of `files` (path, content) reads as given, and the repository
    /// is clean (see [`TestRepo::assert_clean`]).
    #[track_caller]
    pub fn assert_clean_with(&self, files: &[(&str, &str)]) {
        for (path, content) in files {
            assert_eq!(self.read(path), *content, "{path}");
        }
        self.assert_clean();
    }
}
