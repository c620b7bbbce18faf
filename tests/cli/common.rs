//! Test harness: real repositories in temp dirs, the real binary, real git,
//! and an environment sealed off from the machine's own git config.

use std::cell::Cell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use tempfile::TempDir;

pub const BIN: &str = env!("CARGO_BIN_EXE_git-evolv");

/// What a helper's `try_` variant fails with.
pub type Error = Box<dyn std::error::Error>;

/// What a test returns when it uses `?` rather than unwrapping each line.
pub type TestResult = Result<(), Error>;

/// The result of one command.
#[derive(Debug)]
pub struct Run {
    /// The command line as a person would type it (`git evolv list`), for
    /// transcripts; empty when the run was not started by a helper here.
    pub command: String,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub stdout_bytes: Vec<u8>,
}

impl Run {
    pub fn from(out: Output) -> Self {
        Run {
            command: String::new(),
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            stdout_bytes: out.stdout,
        }
    }

    /// Runs `cmd` to its end.
    pub fn of(mut cmd: Command) -> Self {
        Run::from(cmd.output().expect("the command starts"))
    }

    /// The run, its command line set for its transcript.
    pub fn named(mut self, command: impl Into<String>) -> Self {
        self.command = command.into();
        self
    }

    /// The stdout parsed as JSON.
    pub fn try_json(&self) -> Result<Value, Error> {
        serde_json::from_str(&self.stdout).map_err(|e| {
            format!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
            .into()
        })
    }

    /// The stdout parsed as JSON; panics when it is not.
    #[track_caller]
    pub fn json(&self) -> Value {
        self.try_json().unwrap_or_else(|e| panic!("{e}"))
    }

    /// The same as [`Run::json`], under the name the builders use.
    #[track_caller]
    pub fn stdout_json(&self) -> Value {
        self.json()
    }

    /// The string at `pointer` (`/error/message`) in the stdout's JSON.
    pub fn try_json_str(&self, pointer: &str) -> Result<String, Error> {
        let v = self.try_json()?;
        let s = v
            .pointer(pointer)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("no string at {pointer} in {v}"))?;
        Ok(s.to_string())
    }

    /// The string at `pointer` in the stdout's JSON; panics when missing.
    #[track_caller]
    pub fn json_str(&self, pointer: &str) -> String {
        self.try_json_str(pointer).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The message of a failed `--json` run.
    #[track_caller]
    pub fn error_message(&self) -> String {
        self.json_str("/error/message")
    }

    /// The hint of a failed `--json` run.
    #[track_caller]
    pub fn error_hint(&self) -> String {
        self.json_str("/error/hint")
    }

    /// Fails unless the command exited 0.
    pub fn try_success(&self) -> Result<&Self, Error> {
        self.try_code(0)
    }

    /// Fails unless the command exited with `code`.
    pub fn try_code(&self, code: i32) -> Result<&Self, Error> {
        if self.code == code {
            return Ok(self);
        }
        let wanted = if code == 0 {
            "success".to_string()
        } else {
            format!("exit {code}, got {}", self.code)
        };
        Err(format!(
            "expected {wanted}\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        )
        .into())
    }

    #[track_caller]
    pub fn ok(&self) -> &Self {
        self.try_success().unwrap_or_else(|e| panic!("{e}"))
    }

    /// The same as [`Run::ok`], under the name the builders use.
    #[track_caller]
    pub fn success(&self) -> &Self {
        self.ok()
    }

    /// Asserts the exit code, showing the output when it differs.
    #[track_caller]
    pub fn code(&self, code: i32) -> &Self {
        self.try_code(code).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Asserts a failed `--json` run: its exit code and its error code (the
    /// error object checked for a message and a hint).
    #[track_caller]
    pub fn fails_with(&self, code: i32, error: &str) -> &Self {
        self.code(code);
        assert_eq!(error_code(self), error, "{}", self.stdout);
        self
    }

    /// The command, its stdout, stderr and exit code, as one text: what a
    /// snapshot of human output pins.
    pub fn transcript(&self) -> String {
        format!(
            "$ {}\n{}------- stderr -------\n{}------- exit {} -------\n",
            self.command, self.stdout, self.stderr, self.code
        )
    }
}

/// Asserts that `haystack` contains `needle`, showing the haystack if not.
#[track_caller]
pub fn assert_has(haystack: &str, needle: &str) {
    assert!(
        haystack.contains(needle),
        "wanted {needle:?} in:\n{haystack}"
    );
}

/// Asserts that `haystack` does not contain `needle`.
#[track_caller]
pub fn assert_lacks(haystack: &str, needle: &str) {
    assert!(
        !haystack.contains(needle),
        "did not want {needle:?} in:\n{haystack}"
    );
}

/// The JSON string `v`; panics when it is not one.
#[track_caller]
pub fn str_of(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

/// The strings at `field` of each object of the array `list`.
#[track_caller]
pub fn strings_of<'a>(list: &'a Value, field: &str) -> Vec<&'a str> {
    list.as_array()
        .unwrap_or_else(|| panic!("not an array: {list}"))
        .iter()
        .map(|item| {
            item[field]
                .as_str()
                .unwrap_or_else(|| panic!("no string {field} in {item}"))
        })
        .collect()
}

/// A scratch repository on branch `main` with a local identity.
///
/// Built in one expression:
/// `TestRepo::new().with("a.txt", "tok\n").committed("initial")`, or
/// `TestRepo::with_files(&[("a.txt", "tok\n")])` for files committed at
/// once; `.on_test_clock()` runs every `git evolv` a minute after the one
/// before, so that ids and ages are the same on each run.
pub struct TestRepo {
    pub dir: TempDir,
    home: TempDir,
    /// The test clock's minute, once `on_test_clock` set it.
    minute: Cell<Option<i64>>,
}

/// A command with the sealed environment.
pub fn sealed(program: &str, home: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .env("GIT_EDITOR", ":")
        .env("TMPDIR", home);
    cmd
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
        self.git(&["config", key, value]);
        self
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

    /// Runs `git-evolv` with `args` in the repository.
    pub fn evolv(&self, args: &[&str]) -> Run {
        self.evolv_env(args, &[])
    }

    pub fn evolv_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = sealed(BIN, self.home());
        cmd.args(args).current_dir(self.path());
        for (k, v) in env {
            cmd.env(k, v);
        }
        if let Some(minute) = self.minute.get() {
            self.minute.set(Some(minute + 1));
            let time = 1_700_000_000 + 60 * (minute + 1);
            cmd.env("GIT_EVOLV_TEST_TIME", time.to_string());
        }
        Run::of(cmd).named(format!("git evolv {}", args.join(" ")))
    }

    /// `git -c k=v … <args>` with git-evolv's directory first on PATH, so
    /// that `git evolv` (and a hook git runs) finds this build.
    pub fn git_with_evolv(&self, config: &[&str], args: &[&str]) -> Command {
        let bin_dir = Path::new(BIN).parent().expect("the binary's directory");
        let mut path = vec![bin_dir.to_path_buf()];
        path.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let mut cmd = sealed("git", self.home());
        cmd.env("PATH", std::env::join_paths(path).expect("a PATH"));
        for c in config {
            cmd.args(["-c", c]);
        }
        cmd.args(args).current_dir(self.path());
        cmd
    }

    /// `git -c k=v … evolv <args>`: git-evolv started by git itself, so it
    /// sees the settings exactly as a user's `git -c` hands them over
    /// (`GIT_CONFIG_PARAMETERS`).
    pub fn git_evolv(&self, config: &[&str], args: &[&str]) -> Run {
        let mut all = vec!["evolv"];
        all.extend_from_slice(args);
        Run::of(self.git_with_evolv(config, &all)).named(format!("git evolv {}", args.join(" ")))
    }

    /// The transcript of `git evolv args` (see [`Run::transcript`]).
    pub fn transcript(&self, args: &[&str]) -> String {
        self.evolv(args).transcript()
    }

    /// The transcripts of several commands, one after the other.
    pub fn transcripts(&self, commands: &[&[&str]]) -> String {
        commands.iter().map(|args| self.transcript(args)).collect()
    }

    /// Proposes via `--json` and returns the patch id.
    pub fn try_propose(
        &self,
        pattern: &str,
        replacement: &str,
        extra: &[&str],
    ) -> Result<String, Error> {
        let mut args = vec![
            "propose",
            "--json",
            "--pattern",
            pattern,
            "--replacement",
            replacement,
        ];
        args.extend_from_slice(extra);
        let run = self.evolv(&args);
        run.try_success()?;
        run.try_json_str("/patch_id")
    }

    /// Proposes via `--json` and returns the patch id.
    #[track_caller]
    pub fn propose(&self, pattern: &str, replacement: &str, extra: &[&str]) -> String {
        self.try_propose(pattern, replacement, extra)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The `hooks status --json` entry of the hook `name`.
    #[track_caller]
    pub fn hook_status(&self, name: &str) -> Value {
        let run = self.evolv(&["hooks", "status", "--json"]);
        run.ok();
        run.json()["hooks"]
            .as_array()
            .expect("a list of hooks")
            .iter()
            .find(|h| h["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {}", run.stdout))
            .clone()
    }

    /// Runs `hooks install --json` again and asserts it changed nothing.
    #[track_caller]
    pub fn assert_hooks_reinstall_unchanged(&self) {
        let again = self.evolv(&["hooks", "install", "--json"]);
        again.ok();
        assert!(
            again.json()["hooks"]
                .as_array()
                .expect("a list of hooks")
                .iter()
                .all(|h| h["change"] == "unchanged"),
            "{}",
            again.stdout
        );
    }
}

/// Snapshot settings for the human output of commands run in `repo`: the
/// snapshots live in `tests/cli/snapshots/`, and what still varies between
/// runs (the temporary directories, hashes, durations, and patch ids when
/// the test clock is not on) is redacted.
pub fn snapshot_settings(repo: &TestRepo) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("snapshots");
    s.set_prepend_module_to_snapshot(false);
    let path = regex_escape(&repo.path().display().to_string());
    let home = regex_escape(&repo.home().display().to_string());
    s.add_filter(&path, "[REPO]");
    s.add_filter(&home, "[HOME]");
    if let Some(bin_dir) = Path::new(BIN).parent() {
        s.add_filter(&regex_escape(&bin_dir.display().to_string()), "[BIN]");
    }
    s.add_filter(r"\b[0-9a-f]{40}\b", "[HASH]");
    s.add_filter(r"\b[0-9a-f]{7,12}\b", "[SHORT]");
    s.add_filter(r"patch_(\d+)_[0-9a-f]{8,40}", "patch_${1}_[ID]");
    if repo.minute.get().is_none() {
        s.add_filter(r"patch_\d+_\[ID\]", "patch_[ID]");
    }
    s.add_filter(r"\b\d+ ms\b", "[N] ms");
    s.add_filter(r"pending/\d+-\d+-\d+\.json", "pending/[RECORD].json");
    s
}

/// Pins `text`, the human output of commands run in `repo`, as the
/// snapshot `name` in `tests/cli/snapshots/` (see [`snapshot_settings`]).
macro_rules! assert_human {
    ($repo:expr, $name:expr, $text:expr) => {{
        let text: String = $text;
        $crate::common::snapshot_settings(&$repo).bind(|| insta::assert_snapshot!($name, text));
    }};
}
pub(crate) use assert_human;

fn regex_escape(s: &str) -> String {
    s.chars()
        .map(|c| {
            if "\\.+*?()|[]{}^$".contains(c) {
                format!("\\{c}")
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Runs `cmd` with `stdin` fed in.
pub fn run_with_stdin(cmd: Command, stdin: impl AsRef<[u8]>) -> Run {
    try_run_with_stdin(cmd, stdin).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `cmd` with `stdin` fed in.
pub fn try_run_with_stdin(mut cmd: Command, stdin: impl AsRef<[u8]>) -> Result<Run, Error> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(stdin.as_ref())?;
    Ok(Run::from(child.wait_with_output()?))
}

/// The error code of a failed `--json` run, after checking the shape.
#[track_caller]
pub fn error_code(run: &Run) -> String {
    let v = run.json();
    assert_eq!(v["success"], Value::Bool(false), "{v}");
    assert!(
        v["error"]["message"].is_string() && v["error"]["hint"].is_string(),
        "{v}"
    );
    v["error"]["code"].as_str().unwrap().to_string()
}
