//! Test harness: real repositories in temp dirs, the real binary, real git,
//! and an environment sealed off from the machine's own git config.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use tempfile::TempDir;

pub const BIN: &str = env!("CARGO_BIN_EXE_git-evolv");

/// The result of one command.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub stdout_bytes: Vec<u8>,
}

impl Run {
    pub fn from(out: Output) -> Self {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            stdout_bytes: out.stdout,
        }
    }

    /// The stdout parsed as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    #[track_caller]
    pub fn ok(&self) -> &Self {
        assert_eq!(
            self.code, 0,
            "expected success\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

/// A scratch repository on branch `main` with a local identity.
pub struct TestRepo {
    pub dir: TempDir,
    home: TempDir,
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

impl TestRepo {
    /// An empty repository (no commits).
    pub fn empty() -> Self {
        let repo = TestRepo {
            dir: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test User"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo
    }

    /// A repository with `files` (path, content) committed.
    pub fn with_files(files: &[(impl AsRef<str>, impl AsRef<str>)]) -> Self {
        let repo = TestRepo::empty();
        for (path, content) in files {
            repo.write(path.as_ref(), content.as_ref());
        }
        repo.commit_all("initial");
        repo
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

    pub fn write(&self, rel: &str, content: &str) {
        self.write_bytes(rel, content.as_bytes());
    }

    pub fn write_bytes(&self, rel: &str, content: &[u8]) {
        let p = self.file(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.file(rel)).unwrap()
    }

    /// Runs git in the repository; panics on failure.
    #[track_caller]
    pub fn git(&self, args: &[&str]) -> String {
        let run = self.git_run(args);
        assert_eq!(
            run.code, 0,
            "git {args:?} failed:\n{}{}",
            run.stdout, run.stderr
        );
        run.stdout
    }

    pub fn git_run(&self, args: &[&str]) -> Run {
        Run::from(
            sealed("git", self.home())
                .args(args)
                .current_dir(self.path())
                .output()
                .unwrap(),
        )
    }

    pub fn commit_all(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
        self.head()
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
        Run::from(cmd.output().unwrap())
    }

    /// `git -c k=v … evolv <args>`: git-evolv started by git itself, so it
    /// sees the settings exactly as a user's `git -c` hands them over
    /// (`GIT_CONFIG_PARAMETERS`).
    pub fn git_evolv(&self, config: &[&str], args: &[&str]) -> Run {
        let bin_dir = Path::new(BIN).parent().unwrap();
        let mut path = vec![bin_dir.to_path_buf()];
        path.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let mut cmd = sealed("git", self.home());
        cmd.env("PATH", std::env::join_paths(path).unwrap());
        for c in config {
            cmd.args(["-c", c]);
        }
        cmd.arg("evolv").args(args).current_dir(self.path());
        Run::from(cmd.output().unwrap())
    }

    /// Proposes via `--json` and returns the patch id.
    #[track_caller]
    pub fn propose(&self, pattern: &str, replacement: &str, extra: &[&str]) -> String {
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
        run.ok();
        run.json()["patch_id"].as_str().unwrap().to_string()
    }
}

/// Runs `cmd` with `stdin` fed in.
pub fn run_with_stdin(mut cmd: Command, stdin: impl AsRef<[u8]>) -> Run {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_ref())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Run::from(out)
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
