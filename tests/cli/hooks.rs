//! Hooks with real git: install / uninstall / status, pushes to a local bare
//! remote through the installed pre-push hook, and `check`. Commands that
//! must not find a terminal run in a new session (`setsid(2)` before exec),
//! so `/dev/tty` cannot be opened by them or by the hooks git starts.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use expectrl::process::unix::WaitStatus;
use expectrl::session::OsSession;
use expectrl::{Expect, Session};
use serde_json::Value;
use tempfile::TempDir;

use crate::common::{
    BIN, Run, TestRepo, assert_has, assert_has_all, assert_human, assert_lacks, error_code,
    run_with_stdin, sealed,
};
use crate::sys::detach;

const ZERO: &str = "0000000000000000000000000000000000000000";

/// Runs `program args` in `dir` with no controlling terminal.
pub(crate) fn no_tty(
    repo: &TestRepo,
    dir: &Path,
    program: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> Run {
    let mut cmd = sealed(program, repo.home());
    cmd.args(args).current_dir(dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    detach(&mut cmd);
    let name = if program == BIN { "git-evolv" } else { program };
    run(cmd).named(format!("{name} {}", args.join(" ")))
}

fn run(cmd: Command) -> Run {
    Run::of(cmd)
}

/// `git push …` from the repository, without a terminal.
fn push(repo: &TestRepo, args: &[&str]) -> Run {
    push_env(repo, args, &[])
}

fn push_env(repo: &TestRepo, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut full = vec!["push"];
    full.extend_from_slice(args);
    no_tty(repo, repo.path(), "git", &full, env)
}

/// Commits a change, bypassing commit-msg (these tests are about pushing).
fn commit(repo: &TestRepo, file: &str, content: &str, message: &str) -> String {
    repo.write(file, content);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", message]);
    repo.head()
}

/// Rewrites the last commit's message, bypassing commit-msg.
fn amend(repo: &TestRepo, message: &str) {
    repo.git(&["commit", "-q", "--no-verify", "--amend", "-m", message]);
}

fn hooks_dir(repo: &TestRepo) -> PathBuf {
    repo.path().join(".git/hooks")
}

/// A repository with a bare remote `origin` holding `main`, hooks installed.
struct Pushing {
    repo: TestRepo,
    remote: TempDir,
}

impl Pushing {
    fn new() -> Self {
        let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
        let remote = tempfile::tempdir().unwrap();
        repo.git(&["init", "-q", "--bare", remote.path().to_str().unwrap()]);
        repo.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
        repo.evolv(&["hooks", "install"]).ok();
        // The very first push of main is itself a push to a protected branch.
        let first = push(&repo, &["-u", "origin", "main"]);
        assert_ne!(first.code, 0, "{}", first.stderr);
        let run = no_tty(
            &repo,
            repo.path(),
            "git",
            &[
                "-c",
                "evolv.pushToProtected=allow",
                "push",
                "-q",
                "-u",
                "origin",
                "main",
            ],
            &[],
        );
        run.ok();
        Pushing { repo, remote }
    }

    /// The same, git-evolv's hooks uninstalled again.
    fn without_our_hooks() -> Self {
        let p = Pushing::new();
        p.repo.evolv(&["hooks", "uninstall"]).ok();
        p
    }

    /// Asserts that the remote's main is at `tip` (`at`), or is not.
    #[track_caller]
    fn assert_remote_main(&self, tip: &str, at: bool) {
        let main = self.remote_rev("refs/heads/main");
        assert_eq!(main.as_deref() == Some(tip), at, "{main:?}");
    }

    fn remote_rev(&self, r: &str) -> Option<String> {
        let run = self.repo.git_run(&[
            "--git-dir",
            self.remote.path().to_str().unwrap(),
            "rev-parse",
            "--verify",
            "-q",
            r,
        ]);
        (run.code == 0).then(|| run.stdout.trim().to_string())
    }
}

fn status_json(repo: &TestRepo, dir: &Path) -> Value {
    let run = run({
        let mut c = sealed(BIN, repo.home());
        c.args(["hooks", "status", "--json"]).current_dir(dir);
        c
    });
    run.ok();
    run.json()
}

fn state(status: &Value, hook: &str) -> String {
    status["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == hook)
        .unwrap_or_else(|| panic!("{hook} in {status}"))["state"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn hooks_install_in_a_fresh_repo_is_idempotent_and_uninstalls() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let st = status_json(&repo, repo.path());
    assert_eq!(state(&st, "pre-push"), "missing");

    assert_eq!(repo.hook_changes("install")[0], "written");
    for hook in ["pre-push", "commit-msg"] {
        // Nothing to chain: the hook is a copy of the hook binary (issue
        // 14 item 5), a real file, and git runs it.
        let path = hooks_dir(&repo).join(hook);
        let meta = fs::symlink_metadata(&path).unwrap();
        assert!(meta.file_type().is_file(), "{hook}");
        assert_ne!(meta.permissions().mode() & 0o111, 0, "{hook}");
    }
    repo.assert_hooks_reinstall_unchanged();
    let st = status_json(&repo, repo.path());
    assert_eq!(state(&st, "pre-push"), "installed");
    assert_eq!(st["hooks"][1]["version"], env!("CARGO_PKG_VERSION"));

    assert_human!(
        repo,
        "hooks_status_installed",
        repo.transcript(&["hooks", "status"])
    );

    repo.evolv(&["hooks", "uninstall"]).ok();
    assert!(!hooks_dir(&repo).join("pre-push").exists());
    assert!(!hooks_dir(&repo).join("commit-msg").exists());
    assert_eq!(
        state(&status_json(&repo, repo.path()), "commit-msg"),
        "missing"
    );
}

#[test]
fn hooks_shim_fails_loudly_when_the_binary_is_gone() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let hook = hooks_dir(&repo).join("pre-push");
    fs::create_dir_all(hook.parent().unwrap()).unwrap();
    let shim = include_str!("../../crates/engine/hooks/pre-push")
        .replace("@GIT_EVOLV_BIN@", "'/nonexistent/git-evolv'");
    fs::write(&hook, shim).unwrap();
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    // PATH without git-evolv (a user who ran `cargo install` has one in
    // ~/.cargo/bin): the shim has nothing to fall back to.
    let path = std::env::var_os("PATH").unwrap_or_default();
    let without: Vec<_> = std::env::split_paths(&path)
        .filter(|dir| !dir.join("git-evolv").exists())
        .collect();
    let mut cmd = sealed("sh", repo.home());
    cmd.env("PATH", std::env::join_paths(without).unwrap())
        .arg(&hook)
        .args(["origin", "url"])
        .current_dir(repo.path())
        .stdin(Stdio::null());
    let run = run(cmd);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has_all(
        &run.stderr,
        &["/nonexistent/git-evolv is gone", "git evolv hooks install"],
    );
}

#[test]
fn hooks_foreign_hook_is_chained_with_its_arguments_and_stdin_and_restored() {
    let p = Pushing::without_our_hooks();
    let repo = &p.repo;
    let log = repo.home().join("foreign.log");
    let foreign = format!(
        "#!/bin/sh\necho \"args: $*\" >> '{}'\ncat >> '{}'\n[ -e '{}' ] && exit 1\nexit 0\n",
        log.display(),
        log.display(),
        repo.home().join("block").display()
    );
    let hook = hooks_dir(repo).join("pre-push");
    fs::write(&hook, &foreign).unwrap();
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();

    assert_eq!(repo.hook_changes("install")[1], "chained");
    assert_eq!(
        state(&status_json(repo, repo.path()), "pre-push"),
        "chained"
    );
    assert_eq!(
        fs::read_to_string(hooks_dir(repo).join("pre-push.evolv-chained")).unwrap(),
        foreign
    );

    repo.git(&["checkout", "-q", "-b", "topic"]);
    let tip = commit(repo, "b.txt", "b\n", "feat: b");
    push(repo, &["-q", "origin", "topic"]).ok();
    let logged = fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains(&format!("args: origin {}", p.remote.path().display())),
        "{logged}"
    );
    assert!(
        logged.contains(&format!("refs/heads/topic {tip} refs/heads/topic {ZERO}")),
        "the foreign hook got git's stdin:\n{logged}"
    );

    // A foreign hook that fails still stops the push.
    fs::write(repo.home().join("block"), "").unwrap();
    commit(repo, "c.txt", "c\n", "feat: c");
    let blocked = push(repo, &["-q", "origin", "topic"]);
    assert_ne!(blocked.code, 0);
    assert_eq!(
        p.remote_rev("refs/heads/topic").as_deref(),
        Some(tip.as_str())
    );

    assert_eq!(repo.hook_changes("uninstall")[1], "restored");
    assert_eq!(fs::read_to_string(&hook).unwrap(), foreign);
    assert!(!hooks_dir(repo).join("pre-push.evolv-chained").exists());
    assert_eq!(
        state(&status_json(repo, repo.path()), "pre-push"),
        "foreign"
    );
    // The shim's copy of stdin (in TMPDIR, the sealed home) is gone.
    let left: Vec<_> = fs::read_dir(repo.home())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("git-evolv-pre-push")
        })
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn hooks_install_from_a_linked_worktree_goes_to_the_common_hooks_folder() {
    let p = Pushing::without_our_hooks();
    let repo = &p.repo;
    let wt = repo.home().join("linked");
    repo.git(&["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()]);
    let run = run({
        let mut c = sealed(BIN, repo.home());
        c.args(["hooks", "install", "--json"]).current_dir(&wt);
        c
    });
    run.ok();
    let dir = PathBuf::from(run.json()["hooks_dir"].as_str().unwrap());
    assert_eq!(
        dir.canonicalize().unwrap(),
        hooks_dir(repo).canonicalize().unwrap(),
        "git rev-parse --git-path hooks of a linked worktree is the common one"
    );
    assert_eq!(state(&status_json(repo, &wt), "pre-push"), "installed");
    assert_eq!(
        state(&status_json(repo, repo.path()), "pre-push"),
        "installed"
    );
    // The hook runs for pushes from the linked worktree.
    let del = no_tty(repo, &wt, "git", &["push", "origin", ":main"], &[]);
    assert_ne!(del.code, 0);
    assert_human!(
        repo,
        "hooks_linked_worktree_delete_refused",
        del.transcript()
    );
}

#[test]
fn hooks_core_hooks_path_is_refused_with_its_origin_unless_hooks_path() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.evolv(&["hooks", "install"]).ok();
    repo.set_config("core.hooksPath", ".githooks");
    let st = status_json(&repo, repo.path());
    assert_eq!(state(&st, "pre-push"), "bypassed", "{st}");
    assert_eq!(st["hooks_path"]["value"], ".githooks");

    // Names where it was set, and the way out (--hooks-path).
    let run = repo.transcript(&["hooks", "install"]);
    assert_human!(repo, "hooks_install_core_hooks_path", run);
    assert_eq!(
        error_code(&repo.evolv(&["hooks", "install", "--json"])),
        "hooks_path_set"
    );

    let run = repo.evolv(&["hooks", "install", "--hooks-path", "--json"]);
    run.ok();
    assert!(repo.file(".githooks/pre-push").exists());
    assert!(repo.file(".githooks/commit-msg").exists());
    assert_eq!(
        state(&status_json(&repo, repo.path()), "pre-push"),
        "installed"
    );
    // git really runs it from there.
    let out = repo.git_run(&["rev-parse", "--git-path", "hooks"]);
    assert_eq!(out.stdout.trim(), ".githooks");
    repo.evolv(&["hooks", "uninstall", "--hooks-path"]).ok();
    assert!(!repo.file(".githooks/pre-push").exists());

    // Set globally: the message names the global file.
    repo.set_config("--unset", "core.hooksPath");
    repo.git(&["config", "--global", "core.hooksPath", "~/hooks"]);
    let run = repo.evolv(&["hooks", "install"]);
    assert_eq!(run.code, 2);
    assert_human!(repo, "hooks_install_global_hooks_path", run.transcript());
    let run = repo.evolv(&["hooks", "install", "--hooks-path", "--json"]);
    run.ok();
    assert_eq!(
        PathBuf::from(run.json()["hooks_dir"].as_str().unwrap()),
        repo.home().join("hooks")
    );
    assert!(repo.home().join("hooks/pre-push").exists());
}

#[test]
fn hooks_push_new_branch_and_fast_forward_pass() {
    let p = Pushing::new();
    let repo = &p.repo;
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let one = commit(repo, "b.txt", "b\n", "feat: b");
    let new = push(repo, &["origin", "feature"]);
    new.ok();
    let two = commit(repo, "b.txt", "b2\n", "fix: b");
    let run = push(repo, &["origin", "feature"]);
    run.ok();
    let out = new.transcript() + &run.transcript();
    assert_human!(repo, "hooks_feature_branch_pushes", out);
    assert_eq!(
        p.remote_rev("refs/heads/feature").as_deref(),
        Some(two.as_str())
    );
    assert_ne!(one, two);
}

#[test]
fn hooks_force_push_to_main_is_refused_and_to_a_feature_branch_allowed() {
    let p = Pushing::new();
    let repo = &p.repo;
    let before = p.remote_rev("refs/heads/main").unwrap();
    amend(repo, "chore: rewritten");
    let run = push(repo, &["--force", "origin", "main"]);
    assert_ne!(run.code, 0);
    assert_human!(repo, "hooks_force_push_to_main_refused", run.transcript());
    assert_eq!(p.remote_rev("refs/heads/main").unwrap(), before);
    // Even allowed plain pushes cannot force.
    let run = push_env(
        repo,
        &["--force", "origin", "main"],
        &[("GIT_EVOLV_ALLOW_PUSH", "1")],
    );
    assert_ne!(run.code, 0, "{}", run.stderr);

    repo.git(&["checkout", "-q", "-b", "feature"]);
    commit(repo, "b.txt", "b\n", "feat: b");
    push(repo, &["origin", "feature"]).ok();
    amend(repo, "feat: b, reworded");
    let run = push(repo, &["--force-with-lease", "origin", "feature"]);
    run.ok();
    assert_eq!(p.remote_rev("refs/heads/feature"), Some(repo.head()));
}

#[test]
fn hooks_deleting_main_is_refused() {
    let p = Pushing::new();
    let run = push(&p.repo, &["origin", "--delete", "main"]);
    assert_ne!(run.code, 0);
    assert_human!(p.repo, "hooks_delete_main_refused", run.transcript());
    assert!(p.remote_rev("refs/heads/main").is_some());
    // Other branches can be deleted.
    p.repo.git(&["branch", "old"]);
    push(&p.repo, &["origin", "old"]).ok();
    push(&p.repo, &["origin", "--delete", "old"]).ok();
    assert!(p.remote_rev("refs/heads/old").is_none());
}

#[test]
fn hooks_push_to_main_without_a_terminal_is_denied_unless_allowed() {
    let p = Pushing::new();
    let repo = &p.repo;
    let tip = commit(repo, "a.txt", "a2\n", "fix: a");
    let run = push(repo, &["origin", "main"]);
    assert_ne!(run.code, 0);
    let refused = run.transcript();
    assert_human!(repo, "hooks_push_to_main_without_a_terminal", refused);
    p.assert_remote_main(&tip, false);

    let run = no_tty(
        repo,
        repo.path(),
        "git",
        &[
            "-c",
            "evolv.pushToProtected=allow",
            "push",
            "origin",
            "main",
        ],
        &[],
    );
    run.ok();
    let allowed = run.transcript();
    assert_human!(repo, "hooks_push_to_main_allowed_by_config", allowed);
    p.assert_remote_main(&tip, true);

    let tip = commit(repo, "a.txt", "a3\n", "fix: a again");
    push_env(repo, &["origin", "main"], &[("GIT_EVOLV_ALLOW_PUSH", "1")]).ok();
    assert_eq!(
        p.remote_rev("refs/heads/main").as_deref(),
        Some(tip.as_str())
    );

    // Configured protection: release/* is protected, main no longer.
    repo.set_config("evolv.protectedBranches", "release/*, prod");
    let tip = commit(repo, "a.txt", "a4\n", "fix: a4");
    push(repo, &["origin", "main"]).ok();
    assert_eq!(
        p.remote_rev("refs/heads/main").as_deref(),
        Some(tip.as_str())
    );
    let run = push(repo, &["origin", "main:release/1.0"]);
    assert_ne!(run.code, 0, "{}", run.stderr);
}

#[test]
fn hooks_pre_push_notes_uncommitted_files_and_commits_behind() {
    let p = Pushing::new();
    let repo = &p.repo;
    repo.git(&["checkout", "-q", "-b", "feature"]);
    commit(repo, "b.txt", "b\n", "feat: b");
    repo.write("a.txt", "dirty\n");
    repo.write("new.txt", "untracked\n");
    let run = push(repo, &["origin", "feature"]);
    run.ok();
    assert_has_all(
        &run.stderr,
        &["2 file(s) with uncommitted changes", "a.txt", "new.txt"],
    );
}

#[test]
fn hooks_pre_push_with_empty_stdin_exits_quietly() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let mut cmd = sealed(BIN, repo.home());
    cmd.args(["hook", "pre-push", "origin", "/x"])
        .current_dir(repo.path())
        .stdin(Stdio::null());
    let run = run(cmd);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "", "")
    );
}

#[test]
fn hooks_pre_push_works_in_a_sha256_repository() {
    let repo = TestRepo::empty();
    let dir = repo.home().join("s256");
    repo.git(&[
        "init",
        "-q",
        "--object-format=sha256",
        "-b",
        "main",
        dir.to_str().unwrap(),
    ]);
    let git = |args: &[&str]| {
        let mut c = sealed("git", repo.home());
        c.args(["-c", "user.name=T", "-c", "user.email=t@e"])
            .args(args)
            .current_dir(&dir);
        let r = run(c);
        r.ok();
        r.stdout.trim().to_string()
    };
    fs::write(dir.join("a"), "a\n").unwrap();
    git(&["add", "a"]);
    git(&["commit", "-q", "-m", "feat: a"]);
    let head = git(&["rev-parse", "HEAD"]);
    assert_eq!(head.len(), 64);
    let zero = "0".repeat(64);
    let hook = |line: String| {
        let mut c = sealed(BIN, repo.home());
        c.args(["hook", "pre-push", "origin", "/x"])
            .current_dir(&dir);
        detach(&mut c);
        run_with_stdin(c, format!("{line}\n"))
            .named(format!("echo '{line}' | git-evolv hook pre-push origin /x"))
    };
    let del = hook(format!("(delete) {zero} refs/heads/main {head}"));
    assert_eq!(del.code, 1, "{}", del.stderr);
    let new = hook(format!("refs/heads/main {head} refs/heads/topic {zero}"));
    assert_eq!(new.code, 0, "{}", new.stderr);
    fs::write(dir.join("a"), "a2\n").unwrap();
    git(&["commit", "-q", "-am", "fix: a2"]);
    let next = git(&["rev-parse", "HEAD"]);
    let ff = hook(format!("refs/heads/main {next} refs/heads/main {head}"));
    assert_eq!(
        ff.code, 1,
        "plain push to main without a terminal: {}",
        ff.stderr
    );
    let force = hook(format!("refs/heads/main {head} refs/heads/main {next}"));
    assert_eq!(force.code, 1);
    let out = [del, ff, force].iter().map(Run::transcript).collect();
    assert_human!(repo, "hooks_pre_push_sha256", out);
}

#[test]
fn check_json_reports_uncommitted_upstream_ahead_and_behind() {
    let p = Pushing::new();
    let repo = &p.repo;
    let run = repo.evolv(&["check", "--json"]);
    let v = run.success().stdout_json();
    assert_eq!(v["branch"], "main");
    assert_eq!(v["upstream"]["name"], "origin/main");
    assert_eq!(
        (
            v["upstream"]["ahead"].as_u64(),
            v["upstream"]["behind"].as_u64()
        ),
        (Some(0), Some(0))
    );
    assert_eq!(v["uncommitted"], serde_json::json!([]));

    commit(repo, "a.txt", "a2\n", "fix: a");
    commit(repo, "a.txt", "a3\n", "fix: a3");
    repo.git(&["update-ref", "refs/remotes/origin/main", "HEAD~2"]);
    // Someone else's commit on the remote-tracking branch: one behind.
    let theirs = repo.git(&[
        "commit-tree",
        "-p",
        "HEAD~2",
        "-m",
        "theirs",
        "HEAD~2^{tree}",
    ]);
    repo.git(&["update-ref", "refs/remotes/origin/main", theirs.trim()]);
    repo.write("a.txt", "dirty\n");
    repo.write("z.txt", "new\n");
    let run = repo.evolv(&["check", "--json"]);
    let v = run.success().stdout_json();
    assert_eq!(
        (
            v["upstream"]["ahead"].as_u64(),
            v["upstream"]["behind"].as_u64()
        ),
        (Some(2), Some(1)),
        "{v}"
    );
    assert_eq!(v["uncommitted"], serde_json::json!(["a.txt", "z.txt"]));
    assert_human!(repo, "check_ahead_behind", repo.transcript(&["check"]));
}

/// How the process behind `session` exited.
pub(crate) fn exit_code(session: &OsSession) -> i32 {
    match session.get_process().wait().unwrap() {
        WaitStatus::Exited(_, code) => code,
        other => panic!("unexpected status {other:?}"),
    }
}

/// `git push origin main` on a terminal, answering with `keys`.
fn push_on_terminal(p: &Pushing, keys: &str, env: &[(&str, &str)]) -> (i32, String) {
    let repo = &p.repo;
    let mut cmd = sealed("git", repo.home());
    cmd.args(["push", "origin", "main"])
        .env("TERM", "xterm")
        .current_dir(repo.path());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut s = Session::spawn(cmd).unwrap();
    s.set_expect_timeout(Some(Duration::from_secs(20)));
    let mut seen = String::new();
    if !keys.is_empty() {
        s.expect("Push directly to the protected branch main on origin? [y/N]")
            .unwrap();
        s.send(keys).unwrap();
    }
    let mut buf = Vec::new();
    let _ = std::io::Read::read_to_end(&mut s, &mut buf);
    seen.push_str(&String::from_utf8_lossy(&buf));
    (exit_code(&s), seen)
}

/// The pre-push confirmation is typed as people type: y/yes and Enter push,
/// Enter alone or n cancels (issue #17, item 7).
#[test]
fn hooks_push_to_main_on_a_terminal_asks_and_defaults_to_no() {
    let p = Pushing::new();
    let repo = &p.repo;
    let tip = commit(repo, "a.txt", "a2\n", "fix: a");
    for (keys, pushed) in [("\r", false), ("n\r", false), ("y\r", true)] {
        let (code, _) = push_on_terminal(&p, keys, &[]);
        assert_eq!(code == 0, pushed, "keys {keys:?}");
        let remote = p.remote_rev("refs/heads/main");
        assert_eq!(
            remote.as_deref() == Some(tip.as_str()),
            pushed,
            "keys {keys:?}"
        );
    }
    let tip = commit(repo, "a.txt", "a3\n", "fix: b");
    let (code, _) = push_on_terminal(&p, "maybe\rYes\r", &[]);
    assert_eq!(code, 0);
    assert_eq!(
        p.remote_rev("refs/heads/main").as_deref(),
        Some(tip.as_str())
    );
}

/// Nobody at the terminal: GIT_TERMINAL_PROMPT=0 means no terminal, and an
/// unanswered question times out as No (issue #17, item 7).
#[test]
fn hooks_push_prompt_honours_git_terminal_prompt_and_times_out() {
    let p = Pushing::new();
    let before = p.remote_rev("refs/heads/main");
    commit(&p.repo, "a.txt", "a2\n", "fix: a");
    let (code, out) = push_on_terminal(&p, "", &[("GIT_TERMINAL_PROMPT", "0")]);
    assert_ne!(code, 0);
    assert!(out.contains("GIT_TERMINAL_PROMPT=0"), "{out}");
    assert!(!out.contains("[y/N]"), "{out}");
    let (code, out) = push_on_terminal(&p, "", &[("GIT_EVOLV_PROMPT_TIMEOUT", "1")]);
    assert_ne!(code, 0);
    assert!(out.contains("no answer in 1 s"), "{out}");
    assert_eq!(p.remote_rev("refs/heads/main"), before);
}

/// `git push --dry-run` sends nothing, so nobody is asked (issue #17, item 7).
#[test]
fn hooks_dry_run_push_is_not_asked_about() {
    let p = Pushing::new();
    let before = p.remote_rev("refs/heads/main");
    commit(&p.repo, "a.txt", "a2\n", "fix: a");
    for flag in ["--dry-run", "-n"] {
        let run = push(&p.repo, &[flag, "origin", "main"]);
        assert_eq!(run.code, 0, "{flag}: {}", run.stderr);
        assert_has(&run.stderr, "dry run");
    }
    assert_eq!(p.remote_rev("refs/heads/main"), before);
    // A real push without a terminal is still refused.
    assert_ne!(push(&p.repo, &["origin", "main"]).code, 0);
}

/// Someone else pushed: git says "fetch first", and so does the hook.
#[test]
fn hooks_unknown_remote_commit_is_fetch_first_not_a_force_push() {
    let p = Pushing::new();
    let other = tempfile::tempdir().unwrap();
    let remote = p.remote.path().to_str().unwrap();
    p.repo.git(&[
        "clone",
        "-q",
        "-b",
        "main",
        remote,
        other.path().to_str().unwrap(),
    ]);
    let o = |args: &[&str]| {
        let mut full = vec!["-C", other.path().to_str().unwrap()];
        full.extend_from_slice(args);
        p.repo.git(&full)
    };
    std::fs::write(other.path().join("b.txt"), "b\n").unwrap();
    o(&["add", "b.txt"]);
    o(&[
        "-c",
        "user.name=O",
        "-c",
        "user.email=o@e.x",
        "commit",
        "-q",
        "--no-verify",
        "-m",
        "feat: b",
    ]);
    o(&[
        "-c",
        "core.hooksPath=/dev/null",
        "push",
        "-q",
        "origin",
        "main",
    ]);
    commit(&p.repo, "a.txt", "a2\n", "fix: a");
    let run = push(&p.repo, &["--force", "origin", "main"]);
    assert_ne!(run.code, 0);
    assert_human!(p.repo, "hooks_force_push_fetch_first", run.transcript());
    assert_lacks(&run.stderr, "force push");
}

#[test]
fn hooks_install_in_a_submodule_uses_its_own_git_dir() {
    let sub = TestRepo::with_files(&[("s.txt", "s\n")]);
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        sub.path().to_str().unwrap(),
        "sub",
    ]);
    let run = run({
        let mut c = sealed(BIN, repo.home());
        c.args(["hooks", "install", "--json"])
            .current_dir(repo.file("sub"));
        c
    });
    run.ok();
    let dir = PathBuf::from(run.json()["hooks_dir"].as_str().unwrap());
    assert_eq!(
        dir.canonicalize().unwrap(),
        repo.file(".git/modules/sub/hooks").canonicalize().unwrap()
    );
    assert!(!hooks_dir(&repo).join("pre-push").exists());
}

/// Annotated tags are peeled to their commits before the fast-forward test.
#[test]
fn hooks_protected_annotated_tags_are_peeled() {
    let p = Pushing::new();
    let repo = &p.repo;
    repo.set_config("evolv.protectedBranches", "main refs/tags/release-*");
    let allow = [("GIT_EVOLV_ALLOW_PUSH", "1")];
    repo.git(&["tag", "-a", "-m", "r1", "release-1"]);
    let old = repo.head();
    push_env(repo, &["origin", "release-1"], &allow).ok();
    // Moving the tag forward is a fast-forward of the peeled commits.
    commit(repo, "a.txt", "a2\n", "fix: a2");
    repo.git(&["tag", "-f", "-a", "-m", "r1 again", "release-1"]);
    let forward = push_env(repo, &["--force", "origin", "release-1"], &allow);
    forward.ok();
    // Moving it back is a force push.
    repo.git(&["tag", "-f", "-a", "-m", "r1 back", "release-1", &old]);
    let run = push_env(repo, &["--force", "origin", "release-1"], &allow);
    assert_ne!(run.code, 0);
    let out = forward.transcript() + &run.transcript();
    assert_human!(repo, "hooks_protected_tag_moves", out);
}
